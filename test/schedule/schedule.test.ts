import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CrontabError, nextRun, parseCrontab, parseGoDuration, ScheduleManager, validateCrontab } from '../../src/schedule/index.js';

const THU = new Date('2026-01-01T00:00:00Z'); // a Thursday

function next(spec: string, from = THU): string | undefined {
  return nextRun(spec, from)?.toISOString();
}

void test('5-field crontabs are standard (seconds = 0)', () => {
  assert.equal(next('*/5 * * * *'), '2026-01-01T00:05:00.000Z');
  assert.equal(next('30 2 * * *'), '2026-01-01T02:30:00.000Z');
  assert.equal(next('* * * * *', new Date('2026-01-01T00:00:30Z')), '2026-01-01T00:01:00.000Z');
});

void test('6-field crontabs have seconds first', () => {
  assert.equal(next('*/10 * * * * *'), '2026-01-01T00:00:10.000Z');
  assert.equal(next('15 30 2 * * *'), '2026-01-01T02:30:15.000Z');
  assert.equal(next('5/20 * * * * *', new Date('2026-01-01T00:00:06Z')), '2026-01-01T00:00:25.000Z');
});

void test('day-of-month and day-of-week are ORed unless one is starred (robfig rule)', () => {
  // OR: the 15th or a Monday; from Thu Jan 1 the first match is Monday Jan 5.
  assert.equal(next('0 0 1,15 * 1'), '2026-01-05T00:00:00.000Z');
  assert.equal(next('0 0 1,15 * 1', new Date('2026-01-12T00:00:00Z')), '2026-01-15T00:00:00.000Z');
  // AND: */2 starts with '*', so odd days that are Mondays: Jan 5 (odd) yes, Jan 12 (even) no, Jan 19 yes.
  assert.equal(next('0 0 */2 * 1', new Date('2026-01-05T00:00:00Z')), '2026-01-19T00:00:00.000Z');
});

void test('names, ranges, lists, ? and descriptors', () => {
  assert.equal(next('0 0 12 ? JAN-MAR mon-fri', new Date('2026-01-03T00:00:00Z')), '2026-01-05T12:00:00.000Z');
  assert.equal(next('@hourly'), '2026-01-01T01:00:00.000Z');
  assert.equal(next('@daily'), '2026-01-02T00:00:00.000Z');
  assert.equal(next('@midnight'), '2026-01-02T00:00:00.000Z');
  assert.equal(next('@weekly'), '2026-01-04T00:00:00.000Z');
  assert.equal(next('@monthly'), '2026-02-01T00:00:00.000Z');
  assert.equal(next('@yearly'), '2027-01-01T00:00:00.000Z');
  assert.equal(next('@annually'), '2027-01-01T00:00:00.000Z');
});

void test('@every <Go duration> is aligned to whole seconds, minimum one second', () => {
  assert.deepEqual(parseCrontab('@every 1h30m'), { kind: 'every', spec: '@every 1h30m', intervalMs: 5_400_000, timezone: undefined });
  assert.equal((parseCrontab('@every 1500ms') as { intervalMs: number }).intervalMs, 1000);
  assert.equal((parseCrontab('@every 10ms') as { intervalMs: number }).intervalMs, 1000);
  assert.equal(next('@every 90s', new Date('2026-01-01T00:00:00.400Z')), '2026-01-01T00:01:30.000Z');
});

void test('TZ= prefix selects the time zone', () => {
  const p = parseCrontab('TZ=Europe/Berlin 0 9 * * *');
  assert.equal(p.timezone, 'Europe/Berlin');
  assert.equal(next('TZ=Europe/Berlin 0 9 * * *'), '2026-01-01T08:00:00.000Z');
  assert.equal(next('TZ=UTC @daily'), '2026-01-02T00:00:00.000Z');
});

void test('parseGoDuration', () => {
  assert.equal(parseGoDuration('300ms'), 300);
  assert.equal(parseGoDuration('1.5h'), 5_400_000);
  assert.equal(parseGoDuration('2h45m'), 9_900_000);
  assert.equal(parseGoDuration('-1s'), -1000);
  assert.equal(parseGoDuration('0'), 0);
  assert.throws(() => parseGoDuration('10'), /missing unit|invalid duration/);
  assert.throws(() => parseGoDuration('5 min'), /invalid duration|unknown unit/);
  assert.throws(() => parseGoDuration('3d'), /unknown unit "d"/);
  assert.throws(() => parseGoDuration(''), /invalid duration/);
});

void test('invalid crontabs are rejected with clear messages', () => {
  const cases: Array<[string, RegExp]> = [
    ['incorrect', /Expected 5 or 6 fields, found 1: incorrect/],
    ['* * * * * * 2026', /Expected 5 or 6 fields, found 7/],
    ['* * * *', /Expected 5 or 6 fields, found 4/],
    ['* * * 22 *', /End of range \(22\) above maximum \(12\): 22/],
    ['60 * * * * *', /above maximum \(59\)/],
    ['* * * * 7', /above maximum \(6\)/],
    ['* * 0 * *', /below minimum \(1\)/],
    ['5-2 * * * *', /beyond end of range/],
    ['*/0 * * * *', /Step of range should be a positive number/],
    ['L * * * *', /Failed to parse int from L/],
    ['0 0 1#2 * *', /Failed to parse int/],
    ['@fortnightly', /Unrecognized descriptor: @fortnightly/],
    ['@every 5x', /Failed to parse duration @every 5x/],
    ['@every', /Unrecognized descriptor/],
    ['TZ=Mars/Olympus 0 * * * *', /bad location Mars\/Olympus/],
    ['TZ=UTC', /TZ= prefix must be followed/],
    ['', /Expected 5 or 6 fields, found 0/],
  ];
  for (const [spec, re] of cases) {
    assert.throws(() => parseCrontab(spec), (err: unknown) => err instanceof CrontabError && re.test(err.message), spec);
    assert.match(validateCrontab(spec) ?? '', re, spec);
  }
  assert.equal(validateCrontab('*/5 * * * *'), null);
});

void test('ScheduleManager keeps one entry per distinct crontab with its subscribers', () => {
  const sm = new ScheduleManager();
  const fired: string[] = [];
  sm.add('*/5 * * * *', 'hook-a/sched', (c) => fired.push(`a:${c}`));
  sm.add('*/5 * * * *', 'hook-b/sched', (c) => fired.push(`b:${c}`));
  const offC = sm.add('@every 1h', 'hook-c', (c) => fired.push(`c:${c}`));
  assert.deepEqual(sm.crontabs(), ['*/5 * * * *', '@every 1h']);
  assert.deepEqual(sm.subscribers('*/5 * * * *'), ['hook-a/sched', 'hook-b/sched']);
  sm.fire('*/5 * * * *');
  assert.deepEqual(fired, ['a:*/5 * * * *', 'b:*/5 * * * *']);
  offC();
  assert.deepEqual(sm.crontabs(), ['*/5 * * * *']);
  assert.equal(sm.remove('*/5 * * * *', 'hook-a/sched'), true);
  assert.equal(sm.remove('*/5 * * * *', 'hook-a/sched'), false);
  sm.removeSubscriber('hook-b/sched');
  assert.deepEqual(sm.crontabs(), []);
  assert.throws(() => sm.add('bad crontab', 'x', () => {}), CrontabError);
});

void test('a throwing subscriber is reported and does not stop the others', () => {
  const errors: string[] = [];
  const sm = new ScheduleManager({ onError: (c, id, err) => errors.push(`${c}|${id}|${(err as Error).message}`) });
  let ran = false;
  sm.add('@hourly', 'bad', () => {
    throw new Error('boom');
  });
  sm.add('@hourly', 'good', () => {
    ran = true;
  });
  sm.fire('@hourly');
  assert.equal(ran, true);
  assert.deepEqual(errors, ['@hourly|bad|boom']);
});

void test('@every timers fire after start and stop firing after stop (mock timers)', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.parse('2026-01-01T00:00:00.000Z') });
  const sm = new ScheduleManager();
  let count = 0;
  sm.add('@every 10s', 'x', () => count++);
  t.mock.timers.tick(60_000);
  assert.equal(count, 0, 'nothing fires before start()');
  sm.start();
  assert.equal(sm.isRunning, true);
  t.mock.timers.tick(10_000);
  assert.equal(count, 1);
  t.mock.timers.tick(25_000);
  assert.equal(count, 3);
  sm.stop();
  t.mock.timers.tick(60_000);
  assert.equal(count, 3, 'nothing fires after stop()');
  // A subscription added while running is armed immediately.
  sm.start();
  sm.add('@every 5s', 'y', () => count++);
  t.mock.timers.tick(5_000);
  assert.ok(count >= 4);
  sm.stop();
});

void test('a calendar crontab fires while started (real timer, generous wait)', async () => {
  const sm = new ScheduleManager({ unref: true });
  let resolve!: (c: string) => void;
  const firstFire = new Promise<string>((r) => (resolve = r));
  sm.add('* * * * * *', 'every-second', (c) => resolve(c));
  sm.start();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((r) => (timer = setTimeout(() => r('timeout'), 5000)));
  const got = await Promise.race([firstFire, timeout]);
  clearTimeout(timer);
  sm.stop();
  assert.equal(got, '* * * * * *');
});
