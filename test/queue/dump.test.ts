import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QueueSet } from '../../src/queue/queue-set.js';
import { dumpQueue, dumpQueueList, dumpQueueListText, dumpQueueText, type DumpableQueue } from '../../src/queue/dump.js';
import { task, type Meta } from './helpers.js';

function fill(set: QueueSet<Meta>, queue: string, n: number): void {
  const q = set.getOrCreate(queue);
  for (let i = 0; i < n; i++) q.addFirst(task(`test_task_${queue}_${String(i).padStart(4, '0')}`, { queue }));
}

test('queue list JSON: active queues (main first), empty queues only with showEmpty, summary', () => {
  const set = new QueueSet<Meta>();
  assert.equal(JSON.stringify(set.dump({ showEmpty: true })), '{"active":[],"summary":{"mainQueueTasks":0,"otherQueues":{"active":0,"empty":0,"tasks":0},"totalTasks":0}}');
  fill(set, 'main', 5);
  set.getOrCreate('active-queue');
  fill(set, 'active-queue', 4);
  set.getOrCreate('empty');
  set.getOrCreate('aaa-empty');
  const mainTasks = [4, 3, 2, 1, 0].map((i, k) => ({ index: k + 1, description: `ModuleHookRun:main:test_task_main_000${i}` }));
  const activeTasks = [3, 2, 1, 0].map((i, k) => ({ index: k + 1, description: `ModuleHookRun:active-queue:test_task_active-queue_000${i}` }));
  const expectedActive = [
    { name: 'main', tasksCount: 5, tasks: mainTasks },
    { name: 'active-queue', tasksCount: 4, tasks: activeTasks },
  ];
  const summary = { mainQueueTasks: 5, otherQueues: { active: 1, empty: 2, tasks: 4 }, totalTasks: 9 };
  assert.deepEqual(set.dump({ showEmpty: true }), {
    active: expectedActive,
    empty: [
      { name: 'aaa-empty', tasksCount: 0 },
      { name: 'empty', tasksCount: 0 },
    ],
    summary,
  });
  // key order as Go prints it
  assert.equal(
    JSON.stringify(set.dump({ showEmpty: true })).replace(/"tasks":\[[^\]]*\]/g, '"tasks":[…]'),
    '{"active":[{"name":"main","tasksCount":5,"tasks":[…]},{"name":"active-queue","tasksCount":4,"tasks":[…]}],' +
      '"empty":[{"name":"aaa-empty","tasksCount":0},{"name":"empty","tasksCount":0}],' +
      '"summary":{"mainQueueTasks":5,"otherQueues":{"active":1,"empty":2,"tasks":4},"totalTasks":9}}',
  );
  assert.deepEqual(set.dump(), { active: expectedActive, summary });
  assert.equal('empty' in set.dump(), false);
});

test('queue list JSON: a status is shown when set, an empty main queue is listed with the empty ones', () => {
  const q = (name: string, length: number, status: string): DumpableQueue => ({
    name,
    length,
    status,
    tasks: () => Array.from({ length }, (_, i) => ({ description: () => `T${i}` })),
  });
  const dump = dumpQueueList([q('zz', 1, 'run first task'), q('main', 0, 'waiting for task 2s'), q('b', 0, '')], { showEmpty: true });
  assert.deepEqual(dump, {
    active: [{ name: 'zz', tasksCount: 1, status: 'run first task', tasks: [{ index: 1, description: 'T0' }] }],
    empty: [
      { name: 'main', tasksCount: 0 },
      { name: 'b', tasksCount: 0 },
    ],
    summary: { mainQueueTasks: 0, otherQueues: { active: 1, empty: 1, tasks: 1 }, totalTasks: 1 },
  });
});

test('queue list text: exact format', () => {
  const set = new QueueSet<Meta>();
  fill(set, 'main', 2);
  fill(set, 'active-queue', 12);
  set.getOrCreate('empty');
  const tasks = (queue: string, n: number) =>
    Array.from({ length: n }, (_, k) => `${String(k + 1).padStart(2)}. ModuleHookRun:${queue}:test_task_${queue}_${String(n - 1 - k).padStart(4, '0')}\n`).join('');
  const queues = `Queue 'main': length 2, status: ''\n\n${tasks('main', 2)}\nQueue 'active-queue': length 12, status: ''\n\n${tasks('active-queue', 12)}`;
  assert.equal(
    set.dumpText({ showEmpty: true }),
    `${queues}\nEmpty queues (1):\n- empty\n\nSummary:\n- 'main' queue: 2 tasks.\n- 2 other queues (1 active, 1 empty): 12 tasks.\n- total 14 tasks to handle.\n`,
  );
  assert.equal(
    set.dumpText(),
    `${queues}\nSummary:\n- 'main' queue: 2 tasks.\n- 2 other queues (1 active, 1 empty): 12 tasks.\n- total 14 tasks to handle.\n`,
  );
  assert.match(set.dumpText(), /^Queue 'main': length 2, status: ''\n\n 1\. ModuleHookRun:main:test_task_main_0001\n 2\. /);
  assert.match(set.dumpText(), /\n 9\. [^\n]+\n10\. [^\n]+\n11\. /);
});

test('queue list text: singular wording, empty main, no queues', () => {
  const set = new QueueSet<Meta>();
  assert.equal(set.dumpText({ showEmpty: true }), "Summary:\n- 'main' queue: empty.\n- no tasks to handle.\n");
  set.main.addLast(task('only'));
  assert.equal(set.dumpText(), "Queue 'main': length 1, status: ''\n\n 1. ModuleHookRun:main:only\n\nSummary:\n- 'main' queue: 1 task.\n- total 1 task to handle.\n");
  set.main.clear();
  set.getOrCreate('named').addLast(task('n', { queue: 'named' }));
  assert.equal(
    set.dumpText({ showEmpty: true }),
    "Queue 'named': length 1, status: ''\n\n 1. ModuleHookRun:named:n\n\nEmpty queues (1):\n- main\n\nSummary:\n- 'main' queue: empty.\n- 1 other queue (1 active, 0 empty): 1 task.\n- total 1 task to handle.\n",
  );
  set.get('named')!.clear();
  assert.equal(set.dumpText(), "Summary:\n- 'main' queue: empty.\n- 1 other queue (0 active, 1 empty): 0 tasks.\n- no tasks to handle.\n");
  assert.equal(dumpQueueListText([]), 'Summary:\n  No queues.\n');
});

test('queue main dump: JSON and text; a missing queue', () => {
  const set = new QueueSet<Meta>();
  assert.deepEqual(set.dumpMain(), { name: 'main', tasksCount: 0 });
  assert.equal(set.dumpMainText(), "Queue 'main': length 0, status: ''\n\n");
  const t = task('a');
  set.main.addLast(t, task('b'));
  t.failureCount = 2;
  t.failureMessage = 'exit status 1';
  assert.deepEqual(set.dumpMain(), {
    name: 'main',
    tasksCount: 2,
    tasks: [
      { index: 1, description: 'ModuleHookRun:main:a:failures 2:exit status 1' },
      { index: 2, description: 'ModuleHookRun:main:b' },
    ],
  });
  assert.equal(set.dumpMainText(), "Queue 'main': length 2, status: ''\n\n 1. ModuleHookRun:main:a:failures 2:exit status 1\n 2. ModuleHookRun:main:b\n");
  assert.deepEqual(dumpQueue(undefined), { name: 'main', tasksCount: 0, status: 'Queue is not created' });
  assert.equal(dumpQueueText(undefined), "Queue 'main': length 0, status: 'Queue is not created'\n\n");
});
