import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskQueue, type TaskFinishedEvent } from '../../src/queue/task-queue.js';
import { deferred, manualSleep, names, recordingSleep, scriptedHandler, task, type Meta, type T } from './helpers.js';

test('Success: after tasks right after the task, the task removed, head tasks at the front, tail tasks at the end', async () => {
  const layouts: string[][] = [];
  const { sleep, delays } = recordingSleep();
  const q = new TaskQueue<Meta>('main', { sleep });
  const { handler, runs } = scriptedHandler({
    A: [
      {
        status: 'Success',
        headTasks: [task('H1'), task('H2')],
        afterTasks: [task('F1'), task('F2')],
        tailTasks: [task('T1'), task('T2')],
        afterHandle: () => layouts.push(names(q)),
      },
    ],
  });
  q.setHandler(handler);
  q.addLast(task('A'), task('X'), task('Y'));
  q.start();
  await q.whenIdle();
  assert.deepEqual(layouts, [['H1', 'H2', 'F1', 'F2', 'X', 'Y', 'T1', 'T2']]);
  assert.deepEqual(runs, ['A', 'H1', 'H2', 'F1', 'F2', 'X', 'Y', 'T1', 'T2']);
  assert.deepEqual(delays, []);
  assert.equal(q.length, 0);
  await q.stop();
});

test('Keep: the same insertions, but the task stays and runs again after its head tasks', async () => {
  const layouts: string[][] = [];
  const q = new TaskQueue<Meta>('main', { sleep: recordingSleep().sleep });
  const { handler, runs } = scriptedHandler({
    A: [
      {
        status: 'Keep',
        headTasks: [task('H1'), task('H2')],
        afterTasks: [task('F1'), task('F2')],
        tailTasks: [task('T1')],
        afterHandle: () => layouts.push(names(q)),
      },
      { status: 'Success', afterHandle: () => layouts.push(names(q)) },
    ],
  });
  q.setHandler(handler);
  q.addLast(task('A'), task('X'));
  q.start();
  await q.whenIdle();
  assert.deepEqual(layouts, [
    ['H1', 'H2', 'A', 'F1', 'F2', 'X', 'T1'],
    ['F1', 'F2', 'X', 'T1'],
  ]);
  assert.deepEqual(runs, ['A', 'H1', 'H2', 'A', 'F1', 'F2', 'X', 'T1']);
  await q.stop();
});

test('Repeat: the task stays at the head, sleeps 25 ms each time, result tasks ignored', async () => {
  const { sleep, delays } = recordingSleep();
  const q = new TaskQueue<Meta>('main', { sleep });
  const seen: string[][] = [];
  const repeat = { status: 'Repeat' as const, headTasks: [task('ignored-head')], tailTasks: [task('ignored-tail')], afterHandle: () => seen.push(names(q)) };
  const { handler, runs } = scriptedHandler({ A: [repeat, { ...repeat, headTasks: [task('ignored-2')], tailTasks: [] }] });
  q.setHandler(handler);
  q.addLast(task('A'), task('X'));
  q.start();
  await q.whenIdle();
  assert.deepEqual(runs, ['A', 'A', 'A', 'X']);
  assert.deepEqual(delays, [25, 25]);
  assert.deepEqual(seen, [['A', 'X'], ['A', 'X']]);
  assert.equal(q.peek(), undefined);
  await q.stop();
});

test('Fail: the task stays at the head, result tasks ignored, retried after backoff(failureCount)', async () => {
  const { sleep, delays } = recordingSleep();
  const asked: number[] = [];
  const q = new TaskQueue<Meta>('main', {
    sleep,
    backoff: (n) => {
      asked.push(n);
      return 1000 * (n + 1);
    },
  });
  const failuresSeen: number[] = [];
  const fail = (t: T) => {
    failuresSeen.push(t.failureCount);
    return { status: 'Fail' as const, error: new Error(`boom ${t.failureCount}`), headTasks: [task('never')], tailTasks: [task('never2')] };
  };
  const descriptions: string[] = [];
  const { handler, runs } = scriptedHandler({
    A: [fail, fail, fail, (t) => (descriptions.push(t.description()), { status: 'Success' })],
  });
  q.setHandler(handler);
  q.addLast(task('A'), task('X'));
  q.start();
  await q.whenIdle();
  assert.deepEqual(runs, ['A', 'A', 'A', 'A', 'X']);
  assert.deepEqual(failuresSeen, [0, 1, 2]);
  assert.deepEqual(asked, [0, 1, 2]);
  assert.deepEqual(delays, [1000, 2000, 3000]);
  assert.deepEqual(descriptions, ['ModuleHookRun:main:A:failures 3:boom 2']);
  await q.stop();
});

test('Fail with the default backoff asks for 5 s, then 6–7 s, then 7–8 s', async () => {
  const { sleep, delays } = recordingSleep();
  const q = new TaskQueue<Meta>('main', { sleep });
  const { handler } = scriptedHandler({ A: [{ status: 'Fail' }, { status: 'Fail' }, { status: 'Fail' }] });
  q.setHandler(handler);
  q.addLast(task('A'));
  q.start();
  await q.whenIdle();
  assert.equal(delays.length, 3);
  assert.equal(delays[0], 5000);
  assert.ok(delays[1]! >= 6000 && delays[1]! < 7000 && delays[1]! % 100 === 0, String(delays[1]));
  assert.ok(delays[2]! >= 7000 && delays[2]! < 8000 && delays[2]! % 100 === 0, String(delays[2]));
  await q.stop();
});

test('a failing task blocks its queue during the backoff sleep; new tasks wait behind it', async () => {
  const s = manualSleep();
  const q = new TaskQueue<Meta>('main', { sleep: s.sleep, backoff: () => 5000, now: () => 0 });
  const { handler, runs } = scriptedHandler({ A: [{ status: 'Fail', error: 'exit status 1' }] });
  q.setHandler(handler);
  q.addLast(task('A'));
  q.start();
  const first = await s.next();
  assert.equal(first.ms, 5000);
  assert.equal(q.status, 'sleep after fail for 5s');
  q.addLast(task('B'));
  q.addFirst(task('C'));
  // the worker is still asleep: nothing else ran
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(runs, ['A']);
  assert.deepEqual(names(q), ['C', 'A', 'B']);
  assert.equal(q.get(q.tasks()[1]!.id)!.description(), 'ModuleHookRun:main:A:failures 1:exit status 1');
  first.wake();
  await q.whenIdle();
  // after the sleep the head task runs: C was pushed to the front meanwhile
  assert.deepEqual(runs, ['A', 'C', 'A', 'B']);
  assert.deepEqual(s.delays, [5000]);
  await q.stop();
});

test('a handler that throws counts as Fail: message stored, backoff, retried', async () => {
  const { sleep, delays } = recordingSleep();
  const q = new TaskQueue<Meta>('main', { sleep, backoff: (n) => 10 + n });
  const finished: TaskFinishedEvent<Meta>[] = [];
  q.on('taskFinished', (e) => finished.push(e));
  let calls = 0;
  const messages: string[] = [];
  q.setHandler(async (t) => {
    calls++;
    messages.push(t.failureMessage);
    if (calls === 1) throw new Error('kaput');
    if (calls === 2) throw 'plain string';
    return { status: 'Success' };
  });
  q.addLast(task('A'));
  q.start();
  await q.whenIdle();
  assert.equal(calls, 3);
  assert.deepEqual(messages, ['', 'kaput', 'plain string']);
  assert.deepEqual(delays, [10, 11]);
  assert.deepEqual(
    finished.map((e) => [e.task.metadata.name, e.status, e.error]),
    [
      ['A', 'Fail', 'kaput'],
      ['A', 'Fail', 'plain string'],
      ['A', 'Success', undefined],
    ],
  );
  await q.stop();
});

test('an invalid result counts as Fail', async () => {
  const { sleep, delays } = recordingSleep();
  const q = new TaskQueue<Meta>('main', { sleep, backoff: () => 7 });
  let n = 0;
  const errors: string[] = [];
  q.on('taskFinished', (e) => errors.push(e.error ?? ''));
  q.setHandler(async () => (n++ === 0 ? ({ status: 'Done' } as never) : { status: 'Success' }));
  q.addLast(task('A'));
  q.start();
  await q.whenIdle();
  assert.deepEqual(delays, [7]);
  assert.match(errors[0]!, /invalid result/);
  assert.equal(errors[1], '');
  await q.stop();
});

test('delayBeforeNextTask overrides the sleep of any result', async () => {
  const { sleep, delays } = recordingSleep();
  const q = new TaskQueue<Meta>('main', { sleep, backoff: () => 5000 });
  const { handler, runs } = scriptedHandler({
    A: [{ status: 'Success', delayBeforeNextTask: 3000 }],
    B: [{ status: 'Fail', delayBeforeNextTask: 1500 }, { status: 'Repeat', delayBeforeNextTask: 40 }],
  });
  q.setHandler(handler);
  q.addLast(task('A'), task('B'), task('C'));
  q.start();
  await q.whenIdle();
  assert.deepEqual(runs, ['A', 'B', 'B', 'B', 'C']);
  assert.deepEqual(delays, [3000, 1500, 40]);
  await q.stop();
});

test('the handler may change the queue; a removed current task puts its after tasks first', async () => {
  const q = new TaskQueue<Meta>('main', { sleep: recordingSleep().sleep });
  const layouts: string[][] = [];
  const { handler, runs } = scriptedHandler({
    A: [
      (t) => {
        q.remove(t.id);
        q.addFirst(task('Pushed'));
        return { status: 'Success', afterTasks: [task('F')], afterHandle: () => layouts.push(names(q)) };
      },
    ],
  });
  q.setHandler(handler);
  q.addLast(task('A'), task('X'));
  q.start();
  await q.whenIdle();
  assert.deepEqual(layouts, [['F', 'Pushed', 'X']]);
  assert.deepEqual(runs, ['A', 'F', 'Pushed', 'X']);
  await q.stop();
});

test('a result task that is already queued is refused: nothing applied, the task is retried', async () => {
  const { sleep, delays } = recordingSleep();
  const q = new TaskQueue<Meta>('main', { sleep, backoff: () => 9 });
  const x = task('X');
  const { handler, runs } = scriptedHandler({ A: [{ status: 'Success', tailTasks: [x] }] });
  q.setHandler(handler);
  q.addLast(task('A'), x);
  q.start();
  await q.whenIdle();
  assert.deepEqual(runs, ['A', 'A', 'X']);
  assert.deepEqual(delays, [9]);
  await q.stop();
});

test('queue operations: add first/last/after/before, remove, removeWhere, takeFollowing, clear', () => {
  const q = new TaskQueue<Meta>('q');
  const [a, b, c, d] = [task('a'), task('b'), task('c'), task('d')];
  q.addLast(a, b);
  q.addFirst(c, d);
  assert.deepEqual(names(q), ['c', 'd', 'a', 'b']);
  q.addAfter(d.id, task('e'), task('f'));
  q.addBefore(c.id, task('g'));
  assert.deepEqual(names(q), ['g', 'c', 'd', 'e', 'f', 'a', 'b']);
  assert.throws(() => q.addAfter('nope', task('z')), /not in queue 'q'/);
  assert.throws(() => q.addLast(a), /already in queue 'q'/);
  assert.equal(q.length, 7);
  assert.equal(q.isEmpty, false);
  assert.equal(q.peek()!.metadata.name, 'g');
  assert.equal(q.peekLast(), b);
  assert.equal(q.indexOf(a.id), 5);
  assert.equal(q.get(a.id), a);
  assert.equal(a.queueName, 'q');
  assert.equal(q.remove(a.id), a);
  assert.equal(q.remove(a.id), undefined);
  assert.deepEqual(names(q.removeWhere((t) => t.metadata.name === 'e' || t.metadata.name === 'g')), ['g', 'e']);
  assert.deepEqual(names(q), ['c', 'd', 'f', 'b']);
  assert.deepEqual(names(q.takeFollowing(c, (t) => t.metadata.name !== 'b')), ['d', 'f']);
  assert.deepEqual(names(q.takeFollowing(c.id, () => true)), ['b']);
  assert.deepEqual(names(q.takeFollowing(c, () => true)), []);
  assert.deepEqual(names(q.clear()), ['c']);
  assert.equal(q.isEmpty, true);
  assert.equal(q.length, 0);
});

test('changed events on every change of the list; wait time and duration on task events', async () => {
  let clock = 1000;
  const q = new TaskQueue<Meta>('main', { now: () => clock, sleep: recordingSleep().sleep });
  const lengths: number[] = [];
  q.on('changed', (e) => lengths.push(e.length));
  const started: [string, number][] = [];
  const finished: [string, number, number][] = [];
  q.on('taskStarted', (e) => started.push([e.task.metadata.name, e.waitMs]));
  q.on('taskFinished', (e) => finished.push([e.task.metadata.name, e.waitMs, e.durationMs]));
  const gate = deferred();
  q.setHandler(async (t) => {
    if (t.metadata.name === 'A') {
      clock += 50;
      await gate.promise;
    }
    return { status: 'Success' };
  });
  q.addLast(task('A'));
  q.addLast(task('B'));
  clock += 200;
  q.start();
  await new Promise((r) => setImmediate(r));
  const removed = q.remove(q.tasks()[1]!.id);
  assert.ok(removed);
  gate.resolve();
  await q.whenIdle();
  assert.deepEqual(lengths, [1, 2, 1, 0]);
  assert.deepEqual(started, [['A', 200]]);
  assert.deepEqual(finished, [['A', 200, 50]]);
  await q.stop();
});

test('a throwing event listener does not break the queue', async () => {
  const errors: unknown[] = [];
  const q = new TaskQueue<Meta>('main', { onError: (e) => errors.push(e) });
  q.on('taskStarted', () => {
    throw new Error('listener bug');
  });
  const { handler, runs } = scriptedHandler();
  q.setHandler(handler);
  q.addLast(task('A'), task('B'));
  q.start();
  await q.whenIdle();
  assert.deepEqual(runs, ['A', 'B']);
  assert.equal(errors.length, 2);
  await q.stop();
});

test('a broken backoff function falls back to the default delay', async () => {
  const { sleep, delays } = recordingSleep();
  const errors: unknown[] = [];
  const q = new TaskQueue<Meta>('main', {
    sleep,
    onError: (e) => errors.push(e),
    backoff: (n) => {
      if (n === 0) throw new Error('bad backoff');
      return Number.NaN;
    },
  });
  const { handler, runs } = scriptedHandler({ A: [{ status: 'Fail' }, { status: 'Fail' }] });
  q.setHandler(handler);
  q.addLast(task('A'));
  q.start();
  await q.whenIdle();
  assert.deepEqual(runs, ['A', 'A', 'A']);
  assert.equal(delays[0], 5000);
  assert.ok(delays[1]! >= 6000 && delays[1]! < 7000);
  assert.equal(errors.length, 2);
  await q.stop();
});

test('Fail with requeue: the task goes behind the waiting tasks, which run at once; alone it is retried after the backoff', async () => {
  const { sleep, delays } = recordingSleep();
  const q = new TaskQueue<Meta>('main', { sleep });
  const failed: Array<[string, number]> = [];
  q.on('taskFinished', (e: TaskFinishedEvent<Meta>) => {
    if (e.status === 'Fail') failed.push([e.task.metadata.name, e.task.failureCount]);
  });
  const { handler, runs } = scriptedHandler({
    A: [
      { status: 'Fail', error: 'a', requeue: true },
      { status: 'Fail', error: 'a', requeue: true },
      { status: 'Success' },
    ],
  });
  q.setHandler(handler);
  q.addLast(task('A'), task('X'));
  q.start();
  await q.whenIdle();
  // behind X at once; then alone: retried where it is, after the backoff
  assert.deepEqual(runs, ['A', 'X', 'A', 'A']);
  assert.deepEqual(failed, [['A', 1], ['A', 2]]);
  assert.equal(delays.length, 1);
  await q.stop();
});
