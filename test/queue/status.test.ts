import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskQueue } from '../../src/queue/task-queue.js';
import { QueueSet } from '../../src/queue/queue-set.js';
import type { TaskResult } from '../../src/queue/result.js';
import { deferred, flush, manualSleep, task, type Deferred, type Meta } from './helpers.js';

/** A queue whose handler answers with results the test hands in, on a clock the test moves. */
function harness(backoff: (n: number) => number = () => 5000) {
  let clock = 1_000_000;
  const s = manualSleep();
  const answers: Deferred<TaskResult<Meta>>[] = [];
  let calls = 0;
  const q = new TaskQueue<Meta>('main', {
    now: () => clock,
    sleep: s.sleep,
    backoff,
    handler: () => {
      calls++;
      const d = deferred<TaskResult<Meta>>();
      answers.push(d);
      return d.promise;
    },
  });
  return {
    q,
    sleeps: s,
    tick: (ms: number) => (clock += ms),
    calls: () => calls,
    answer: async (r: TaskResult<Meta>) => {
      answers.shift()!.resolve(r);
      await flush();
    },
  };
}

test('status strings through a queue life', async () => {
  const h = harness();
  const { q } = h;
  assert.equal(q.status, '');
  q.start();
  await flush();
  // idle: '' at first, then the waiting time in whole seconds
  assert.equal(q.status, '');
  h.tick(2400);
  assert.equal(q.status, 'waiting for task 2s');
  h.tick(60_000);
  assert.equal(q.status, 'waiting for task 1m2s');

  q.addLast(task('A'), task('B'));
  await flush();
  assert.equal(q.status, 'run first task');

  await h.answer({ status: 'Fail', error: 'boom' });
  const fail = await h.sleeps.next();
  assert.equal(fail.ms, 5000);
  assert.equal(q.status, 'sleep after fail for 5s');
  h.tick(2000);
  assert.equal(q.status, 'sleep after fail for 5s (3s left of 5s delay)');
  h.tick(1500);
  assert.equal(q.status, 'sleep after fail for 5s (2s left of 5s delay)');
  fail.wake();
  await flush();
  assert.equal(q.status, 'run first task');
  assert.equal(h.calls(), 2);

  await h.answer({ status: 'Repeat' });
  const repeat = await h.sleeps.next();
  assert.equal(repeat.ms, 25);
  assert.equal(q.status, 'repeat head task');
  repeat.wake();
  await flush();
  assert.equal(q.status, 'run first task');

  await h.answer({ status: 'Success', delayBeforeNextTask: 3000 });
  const delay = await h.sleeps.next();
  assert.equal(delay.ms, 3000);
  assert.equal(q.status, 'sleep for 3s');
  h.tick(1000);
  assert.equal(q.status, 'sleep for 3s (2s left of 3s delay)');
  delay.wake();
  await flush();
  assert.equal(q.status, 'run first task');

  const stopping = q.stop();
  assert.equal(q.status, 'run first task');
  await h.answer({ status: 'Success' });
  await stopping;
  assert.equal(q.status, 'stop');
});

test('fractional and long backoff delays read as Go durations', async () => {
  const h = harness((n) => [6500, 21900, 30000][n]!);
  h.q.addLast(task('A'));
  h.q.start();
  const seen: string[] = [];
  for (let i = 0; i < 3; i++) {
    await flush();
    await h.answer({ status: 'Fail' });
    const s = await h.sleeps.next();
    seen.push(h.q.status);
    s.wake();
  }
  assert.deepEqual(seen, ['sleep after fail for 6.5s', 'sleep after fail for 21.9s', 'sleep after fail for 30s']);
  await flush();
  const stopping = h.q.stop();
  await h.answer({ status: 'Success' });
  await stopping;
});

test('no handler set; the status appears in the queue list dump', async () => {
  const set = new QueueSet<Meta>();
  set.main.addLast(task('A'));
  set.start();
  assert.equal(set.main.status, 'no handler set');
  assert.deepEqual(set.dump().active[0], {
    name: 'main',
    tasksCount: 1,
    status: 'no handler set',
    tasks: [{ index: 1, description: 'ModuleHookRun:main:A' }],
  });
  assert.match(set.dumpText(), /^Queue 'main': length 1, status: 'no handler set'\n/);
  await set.stop();
  assert.equal(set.main.status, 'stop');
});
