import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { TaskQueue } from '../../src/queue/task-queue.js';
import { QueueSet } from '../../src/queue/queue-set.js';
import { deferred, flush, manualSleep, names, recordingSleep, scriptedHandler, task, type Meta } from './helpers.js';

test('graceful stop: the running task finishes and its result is applied, nothing new starts', async () => {
  const gate = deferred();
  const q = new TaskQueue<Meta>('main');
  const stoppedEvents: string[] = [];
  q.on('stopped', (e) => stoppedEvents.push(e.queue));
  const runs: string[] = [];
  let signalAborted: boolean | undefined;
  q.setHandler(async (t, ctx) => {
    runs.push(t.metadata.name);
    if (t.metadata.name === 'A') {
      await gate.promise;
      signalAborted = ctx.signal.aborted;
    }
    return { status: 'Success', tailTasks: [task(`${t.metadata.name}-tail`)] };
  });
  q.addLast(task('A'), task('B'));
  q.start();
  await flush();
  assert.equal(q.current?.metadata.name, 'A');
  let stopped = false;
  const stopping = q.stop().then(() => (stopped = true));
  q.addLast(task('C'));
  await flush();
  assert.equal(stopped, false, 'stop waits for the running task');
  assert.equal(q.status, 'run first task');
  gate.resolve();
  await stopping;
  assert.equal(signalAborted, true);
  assert.deepEqual(runs, ['A']);
  assert.deepEqual(names(q), ['B', 'C', 'A-tail']);
  assert.equal(q.status, 'stop');
  assert.equal(q.stopped, true);
  assert.deepEqual(stoppedEvents, ['main']);
  q.start();
  q.addLast(task('D'));
  await flush();
  assert.deepEqual(runs, ['A'], 'a stopped queue never runs again');
  await q.stop();
});

test('stop ends a backoff sleep at once and an idle wait', async () => {
  const s = manualSleep();
  const q = new TaskQueue<Meta>('main', { sleep: s.sleep, backoff: () => 30000 });
  const { handler, runs } = scriptedHandler({ A: [{ status: 'Fail' }] });
  q.setHandler(handler);
  q.addLast(task('A'));
  q.start();
  const sleeping = await s.next();
  assert.equal(sleeping.signal.aborted, false);
  await q.stop();
  assert.equal(sleeping.signal.aborted, true);
  assert.deepEqual(runs, ['A']);
  assert.equal(q.status, 'stop');

  const idle = new TaskQueue<Meta>('idle', { handler: scriptedHandler().handler });
  idle.start();
  await idle.whenIdle();
  await idle.stop();
  assert.equal(idle.status, 'stop');
});

test('stop before start; start without a handler', async () => {
  const q = new TaskQueue<Meta>('q');
  q.start();
  assert.equal(q.status, 'no handler set');
  assert.equal(q.started, false);
  await q.stop();
  assert.equal(q.status, 'stop');
});

test('cancelDelay ends the current sleep; the head task runs at once', async () => {
  const s = manualSleep();
  const q = new TaskQueue<Meta>('main', { sleep: s.sleep, backoff: () => 20000 });
  const { handler, runs } = scriptedHandler({ A: [{ status: 'Fail' }] });
  q.setHandler(handler);
  q.addLast(task('A'));
  q.start();
  await s.next();
  q.cancelDelay();
  await q.whenIdle();
  assert.deepEqual(runs, ['A', 'A']);
  await q.stop();
});

test('an idle worker sets no timers: adding a task wakes it', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  try {
    const { handler, runs } = scriptedHandler();
    const q = new TaskQueue<Meta>('main', { handler });
    q.start();
    await flush();
    assert.equal(q.isIdle(), true);
    // no timer is ticked: only the wake-up on add can start the task
    q.addLast(task('A'));
    await flush();
    assert.deepEqual(runs, ['A']);
    q.addFirst(task('B'));
    await flush();
    assert.deepEqual(runs, ['A', 'B']);
    await q.stop();
  } finally {
    mock.timers.reset();
  }
});

test('named queues run beside main: a blocked main queue does not stop them', async () => {
  const gate = deferred();
  const s = manualSleep();
  const runs: string[] = [];
  const set = new QueueSet<Meta>({
    sleep: s.sleep,
    now: () => 0,
    backoff: () => 5000,
    handler: async (t) => {
      runs.push(`${t.queueName}:${t.metadata.name}`);
      if (t.metadata.name === 'main-long') await gate.promise;
      if (t.metadata.name === 'fails') return { status: 'Fail' };
      return { status: 'Success' };
    },
  });
  const created: string[] = [];
  set.on('queueCreated', (e) => created.push(e.queue.name));
  set.start();
  set.addLast(task('main-long'));
  set.addLast(task('s1', { queue: 'schedules' }), task('s2', { queue: 'schedules' }));
  set.addLast(task('fails', { queue: 'flaky' }), task('after-fail', { queue: 'flaky' }));
  set.getOrCreate('kube').addLast(task('k1', { queue: 'kube' }));
  await set.get('schedules')!.whenIdle();
  await set.get('kube')!.whenIdle();
  await s.next(); // 'flaky' sleeps after its failure
  assert.deepEqual(created, ['schedules', 'flaky', 'kube']);
  assert.equal(set.main.current?.metadata.name, 'main-long');
  const of = (queue: string) => runs.filter((r) => r.startsWith(`${queue}:`));
  assert.deepEqual(of('main'), ['main:main-long']);
  assert.deepEqual(of('schedules'), ['schedules:s1', 'schedules:s2']);
  assert.deepEqual(of('kube'), ['kube:k1']);
  assert.deepEqual(of('flaky'), ['flaky:fails']);
  assert.deepEqual(set.names(), ['main', 'flaky', 'kube', 'schedules']);
  assert.equal(set.get('flaky')!.status, 'sleep after fail for 5s');
  gate.resolve();
  await set.main.whenIdle();
  await set.stop();
  assert.deepEqual(
    set.queues().map((q) => q.status),
    ['stop', 'stop', 'stop', 'stop'],
  );
  assert.deepEqual(names(set.get('flaky')!), ['fails', 'after-fail']);
});

test('queue set: one handler for all, queues created after start are started, whenIdle waits for all', async () => {
  const { sleep } = recordingSleep();
  const set = new QueueSet<Meta>({ sleep });
  const runs: string[] = [];
  set.setHandler(async (t) => {
    runs.push(`${t.queueName}:${t.metadata.name}`);
    // main hands work to a named queue, which hands some back to main
    if (t.metadata.name === 'm1') set.addLast(task('n1', { queue: 'named' }));
    if (t.metadata.name === 'n1') set.addLast(task('m2'));
    return { status: 'Success' };
  });
  set.addLast(task('m1'));
  assert.equal(set.totalTasks, 1);
  set.start();
  await set.whenIdle();
  assert.deepEqual(runs, ['main:m1', 'named:n1', 'main:m2']);
  assert.equal(set.get('named')!.started, true);
  assert.equal(set.totalTasks, 0);
  await set.stop();
  const late = set.getOrCreate('late');
  assert.equal(late.started, false, 'a queue created while stopping is not started');
});

test('queue set re-emits the events of every queue', async () => {
  const set = new QueueSet<Meta>({ handler: scriptedHandler().handler });
  const events: string[] = [];
  set.on('changed', (e) => events.push(`changed ${e.queue} ${e.length}`));
  set.on('taskStarted', (e) => events.push(`started ${e.queue} ${e.task.metadata.name}`));
  set.on('taskFinished', (e) => events.push(`finished ${e.queue} ${e.task.metadata.name} ${e.status}`));
  set.on('stopped', (e) => events.push(`stopped ${e.queue}`));
  set.addLast(task('a', { queue: 'q1' }));
  set.start();
  await set.whenIdle();
  await set.stop();
  assert.deepEqual(events, ['changed q1 1', 'started q1 a', 'changed q1 0', 'finished q1 a Success', 'stopped main', 'stopped q1']);
});

test('queue set: addFirst keeps the given order per queue; compaction counts per queue', () => {
  const set = new QueueSet<Meta>({ compaction: { types: ['ModuleHookRun'], threshold: 2, merge: () => undefined } });
  set.addLast(task('m0'));
  set.addFirst(task('m1'), task('n1', { queue: 'n' }), task('m2'), task('n2', { queue: 'n' }));
  assert.deepEqual(names(set.main), ['m1', 'm2', 'm0']);
  assert.deepEqual(names(set.get('n')!), ['n1', 'n2']);
  set.getOrCreate('n').addLast(task('h1', { queue: 'n', module: 'x', hook: 'h' }), task('h2', { queue: 'n', module: 'x', hook: 'h' }));
  assert.deepEqual(names(set.get('n')!), ['n1', 'n2', 'h1']);
  assert.deepEqual(set.compactionCounts(), new Map([['main', new Map()], ['n', new Map([['x\0h', 1]])]]));
});
