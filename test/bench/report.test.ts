import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compare, isWorse, markdown, previousBySuite, runFileName, targetMet, vanished, type Run } from '../../bench/report.js';
import type { Figure } from '../../bench/figures.js';

const machine: Run['machine'] = { cores: 2, memoryMiB: 24105, node: 'v20.20.2', cpu: 'Test CPU', load: [1.5, 2.25] };

function run(date: string, mode: Run['mode'], figures: Record<string, Figure[]>, commit = 'abc1234'): Run {
  return { date, commit, mode, machine, suites: Object.entries(figures).map(([suite, fs]) => ({ suite, status: 'ok', seconds: 1.5, cpuSeconds: 0.5, figures: fs })) };
}

const list = (ms: number, baseline = 70): Figure => ({ name: 'list', value: ms, unit: 'ms', baseline: { what: 'JSON.stringify', value: baseline, unit: 'ms' }, target: { max: 3, of: 'ratio' } });
const rss = (mib: number): Figure => ({ name: 'rss', value: mib, unit: 'MiB', target: { max: 143 } });
const rate = (n: number): Figure => ({ name: 'writes', value: n, unit: 'writes/s', better: 'higher' });

test('a target on the ratio is judged on value/baseline, a target on the value on the value', () => {
  assert.equal(targetMet(list(200)), true); // 2.86×
  assert.equal(targetMet(list(220)), false); // 3.14×
  assert.equal(targetMet(rss(143)), true);
  assert.equal(targetMet(rss(143.5)), false);
  assert.equal(targetMet(rate(5)), undefined, 'no target: not judged');
  assert.equal(targetMet({ name: 'x', value: 10, unit: '×', better: 'higher', target: { min: 50 } }), false);
  assert.equal(targetMet({ ...list(100), baseline: undefined }), false, 'a ratio target without a baseline is not met');
});

test('worse by more than 20 %, in the direction that is bad for the figure', () => {
  assert.equal(isWorse(121, 100), true);
  assert.equal(isWorse(119, 100), false);
  assert.equal(isWorse(50, 100), false, 'lower is better: halving is no regression');
  assert.equal(isWorse(79, 100, 'higher'), true);
  assert.equal(isWorse(81, 100, 'higher'), false);
  assert.equal(isWorse(NaN, 100), false);
  assert.equal(isWorse(3, 0), true, 'from 0 events missed to 3');
  assert.equal(isWorse(0, 0), false);
  assert.equal(isWorse(3, 0, 'higher'), false);
});

test('each figure is compared with the same suite and figure of the previous run, by ratio when there is a baseline', () => {
  const prev = run('2026-11-25T10:00:00.000Z', 'full', { sandbox: [list(140), rate(1000)], memory: [rss(100)] });
  // list: 140/70 = 2× then 150/50 = 3×: the ratio is 50 % worse although the time is only 7 % longer
  const cur = run('2026-11-26T10:00:00.000Z', 'full', { sandbox: [list(150, 50), rate(700), { name: 'new', value: 1, unit: 's' }], memory: [rss(110)] });
  const rows = compare(cur, prev);
  const by = (s: string, n: string) => rows.find((r) => r.suite === s && r.figure.name === n)!;
  assert.equal(by('sandbox', 'list').ratio, 3);
  assert.ok(Math.abs(by('sandbox', 'list').change! - 0.5) < 1e-9);
  assert.equal(by('sandbox', 'list').worse, true);
  assert.equal(by('sandbox', 'list').met, true, 'exactly at the target is met');
  assert.equal(by('sandbox', 'writes').worse, true, '1000 → 700 writes/s is 30 % worse');
  assert.equal(by('sandbox', 'new').change, undefined, 'not measured before: no change');
  assert.equal(by('sandbox', 'new').worse, false);
  assert.ok(Math.abs(by('memory', 'rss').change! - 0.1) < 1e-9);
  assert.equal(by('memory', 'rss').worse, false);
  // the same figure name in another suite is another figure
  const other = compare(run('2026-11-26T11:00:00.000Z', 'full', { other: [rss(500)] }), prev);
  assert.equal(other[0]!.change, undefined);
});

test('the Markdown table flags missed targets and regressions, and names the machine and the runs not done', () => {
  const prev = run('2026-11-25T10:00:00.000Z', 'full', { sandbox: [list(140), rate(1000)] }, 'prev000');
  const cur = run('2026-11-26T10:00:00.000Z', 'full', { sandbox: [list(280), rate(1100)] });
  cur.suites.push({ suite: 'gotemplate-go', status: 'skipped', reason: 'needs the Go reference engine', seconds: 0, figures: [] });
  cur.suites.push({ suite: 'memory', status: 'failed', reason: 'exited with 1', seconds: 3, figures: [] });
  const md = markdown(cur, prev);
  assert.match(md, /2 cores \(Test CPU\), 23\.5 GiB memory, Node v20\.20\.2, load average 1\.5 at the start, 2\.3 at the end/);
  assert.match(md, /against the previous full run \(2026-11-25T10:00:00\.000Z, commit prev000\)/);
  assert.match(md, /\| sandbox \| list \| 280 ms \| ≤ 3× \| JSON\.stringify: 70 ms \| 4× \| \+100 % \| MISSED, WORSE \|/);
  assert.match(md, /\| sandbox \| writes \| 1,100 writes\/s \| {2}\| {2}\| {2}\| \+10 % \| {2}\|/);
  assert.match(md, /Targets missed \(1\): sandbox: list\./);
  assert.match(md, /More than 20 % worse than the previous run \(1\): sandbox: list \(\+100 %\)\./);
  assert.match(md, /Suite gotemplate-go skipped: needs the Go reference engine/);
  assert.match(md, /Suite memory FAILED: exited with 1/);
  // the skipped suite is not in the time; the failed one is
  assert.match(md, /Time: 4\.5 s, 0\.5 s of CPU \(sandbox 1\.5 s \/ 0\.5 s, memory 3 s \/ \? s\)\./);
  const first = markdown(cur);
  assert.match(first, /no previous run of this mode recorded/);
  assert.match(first, /More than 20 % worse than the previous run: none\./);
});

test('quick runs say their flags are not judged at that size', () => {
  const md = markdown(run('2026-11-26T10:00:00.000Z', 'quick', { sandbox: [list(700)] }));
  assert.match(md, /too small to judge the targets/);
  assert.match(md, /missed \(quick size\)/);
  assert.doesNotMatch(md, /MISSED/);
});

test('the previous run is, suite by suite, the latest of the same mode where the suite ran fine; run files sort by date', () => {
  const runs = [
    run('2026-11-25T10:00:00.000Z', 'full', { sandbox: [rate(900)], memory: [rss(100)] }, 'a'),
    run('2026-11-26T09:00:00.000Z', 'quick', { sandbox: [rate(5)] }, 'b'),
    run('2026-11-24T10:00:00.000Z', 'full', { sandbox: [rate(800)] }, 'c'),
    // the latest full run: one suite alone (--suite fleet), and memory failed
    run('2026-11-26T10:00:00.000Z', 'full', { fleet: [rate(10)], memory: [] }, 'd'),
  ];
  runs[3]!.suites[1]!.status = 'failed';
  const prev = previousBySuite(runs, 'full')!;
  assert.equal(prev.commit, 'd');
  assert.deepEqual(
    prev.suites.map((s) => [s.suite, s.from!.commit, s.figures[0]!.value]),
    [
      ['fleet', 'd', 10],
      ['sandbox', 'a', 900],
      ['memory', 'a', 100],
    ],
  );
  assert.equal(previousBySuite(runs, 'quick')!.suites[0]!.figures[0]!.value, 5);
  assert.equal(previousBySuite([], 'full'), undefined);
  // the next full run compares sandbox with run a's, not with nothing
  const cur = run('2026-11-27T10:00:00.000Z', 'full', { sandbox: [rate(600)], fleet: [rate(10)] });
  assert.equal(compare(cur, prev).find((r) => r.suite === 'sandbox')!.worse, true, '900 → 600 writes/s');
  assert.match(markdown(cur, prev), /against each suite's previous full run \(fleet: 2026-11-26T10:00:00\.000Z, commit d; sandbox, memory: 2026-11-25T10:00:00\.000Z, commit a\)/);
  assert.equal(runFileName({ date: '2026-11-26T14:39:21.123Z', commit: '70814f0' }), '2026-11-26T143921Z-70814f0.json');
});

test('a figure that is not a number is flagged as not measured; a rise from 0 is shown', () => {
  const prev = run('2026-11-25T10:00:00.000Z', 'full', { sandbox: [{ name: 'missing', value: 0, unit: 'of 20' }, rate(1000)] });
  const cur = run('2026-11-26T10:00:00.000Z', 'full', { sandbox: [{ name: 'missing', value: 2, unit: 'of 20' }, rate(NaN)] });
  const md = markdown(cur, prev);
  assert.match(md, /\| sandbox \| missing \| 2 of 20 \| {2}\| {2}\| {2}\| up from 0 \| WORSE \|/);
  assert.match(md, /\| sandbox \| writes \| NaN writes\/s \|.*\| NOT MEASURED \|/);
  assert.match(md, /Not measured \(1\): sandbox: writes\./);
  assert.match(md, /More than 20 % worse than the previous run \(1\): sandbox: missing \(up from 0\)\./);
});

test('a figure the previous run measured and this run of the same suite no longer reports is flagged', () => {
  const prev = run('2026-11-25T10:00:00.000Z', 'full', { sandbox: [list(140), rate(1000)], memory: [rss(100)] });
  const cur = run('2026-11-26T10:00:00.000Z', 'full', { sandbox: [list(140)], memory: [] });
  cur.suites[1]!.status = 'failed';
  assert.deepEqual(vanished(cur, prev), ['sandbox: writes'], 'the failed suite is flagged as failed, not figure by figure');
  assert.match(markdown(cur, prev), /Measured in the previous run, not in this one \(1\): sandbox: writes\./);
  assert.doesNotMatch(markdown(prev, prev), /not in this one/);
});
