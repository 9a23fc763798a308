import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskQueue, type CompactionEvent, type CompactionOptions } from '../../src/queue/task-queue.js';
import { deferred, flush, names, recordingSleep, task, type Meta, type T } from './helpers.js';

/** Merge as the operator does: contexts concatenated in queue order. */
function compaction(threshold?: number): CompactionOptions<Meta> & { calls: [string, string[]][] } {
  const calls: [string, string[]][] = [];
  const opts: CompactionOptions<Meta> & { calls: [string, string[]][] } = {
    types: ['ModuleHookRun', 'GlobalHookRun'],
    merge: (into, from) => {
      calls.push([into.metadata.name, from.map((t) => t.metadata.name)]);
      into.metadata.contexts = [...into.metadata.contexts, ...from.flatMap((t) => t.metadata.contexts)];
    },
    calls,
  };
  if (threshold !== undefined) opts.threshold = threshold;
  return opts;
}

function ev(name: string, module = 'mod-a', hook = 'hooks/pods'): T {
  return task(name, { module, hook });
}

test('500 queued events for one hook end in one task; the other tasks keep their order', async () => {
  const gate = deferred();
  const opts = compaction();
  const q = new TaskQueue<Meta>('main', { compaction: opts, sleep: recordingSleep().sleep });
  const events: CompactionEvent<Meta>[] = [];
  q.on('compaction', (e) => events.push(e));
  const runs: [string, number][] = [];
  q.setHandler(async (t) => {
    runs.push([t.metadata.name, t.metadata.contexts.length]);
    if (t.metadata.name === 'running') await gate.promise;
    return { status: 'Success' };
  });
  // the running task is for the same hook: it must not be merged into
  q.addLast(ev('running'));
  q.start();
  await flush();
  assert.equal(q.current?.metadata.name, 'running');

  const others: string[] = [];
  for (let i = 1; i <= 500; i++) {
    q.addLast(ev(`e${i}`));
    if (i % 50 === 0) {
      // another module's hook with the same file name: a different identity, never merged
      q.addLast(ev(`b${i}`, 'mod-b', 'hooks/pods'));
      q.addLast(task(`run${i}`, { type: 'ModuleRun' }));
      others.push(`b${i}`, `run${i}`);
    }
  }
  assert.deepEqual(names(q), ['running', 'e1', ...others]);
  const merged = q.get(q.tasks()[1]!.id)!;
  assert.deepEqual(merged.metadata.contexts, Array.from({ length: 500 }, (_, i) => `e${i + 1}`));
  assert.equal(q.tasks()[0]!.metadata.contexts.length, 1);
  const key = 'mod-a\0hooks/pods';
  assert.equal(events.reduce((n, e) => n + e.merged, 0), 499);
  assert.ok(events.every((e) => e.compactionId === key && e.into === merged && e.queue === 'main'));
  // the first compaction merged the 98 queued tasks at once (the running one counts toward the 100)
  assert.deepEqual(events[0]!.merged, 98);
  assert.equal(q.compactionCounts().get(key), events.length);
  assert.equal(q.compactionCounts().has('mod-b\0hooks/pods'), false);
  assert.equal(q.compactableTaskCounts().get(key), 2);

  gate.resolve();
  await q.whenIdle();
  assert.deepEqual(runs.slice(0, 3), [
    ['running', 1],
    ['e1', 500],
    ['b50', 1],
  ]);
  assert.deepEqual(
    runs.map(([n]) => n),
    ['running', 'e1', ...others],
  );
  assert.deepEqual([...q.compactableTaskCounts()], [], 'a drained queue counts no compactable task');
  await q.stop();
});

test('compaction merges across other tasks into the first non-running task, as shell-operator does', () => {
  const opts = compaction(3);
  const q = new TaskQueue<Meta>('q', { compaction: opts });
  q.addLast(ev('h1_B'), task('service-1', { type: 'ModuleRun' }), ev('h2_A', 'm', 'hooks/two'), ev('h1_C'));
  assert.deepEqual(names(q), ['h1_B', 'service-1', 'h2_A', 'h1_C']);
  q.addLast(ev('h1_D'));
  // 3 tasks of hook 1 reached the threshold
  assert.deepEqual(names(q), ['h1_B', 'service-1', 'h2_A']);
  assert.deepEqual(opts.calls, [['h1_B', ['h1_C', 'h1_D']]]);
  assert.deepEqual(q.peek()!.metadata.contexts, ['h1_B', 'h1_C', 'h1_D']);
  // later events for the compacted hook merge into it at once while it waits
  q.addLast(ev('h2_B', 'm', 'hooks/two'), ev('h1_E'));
  assert.deepEqual(names(q), ['h1_B', 'service-1', 'h2_A', 'h2_B']);
  assert.deepEqual(q.peek()!.metadata.contexts, ['h1_B', 'h1_C', 'h1_D', 'h1_E']);
  assert.deepEqual(q.compactionCounts(), new Map([['mod-a\0hooks/pods', 2]]));
});

test('only the marked task types with a compaction id are compacted', () => {
  const opts = compaction(2);
  opts.types = ['ModuleHookRun'];
  const q = new TaskQueue<Meta>('q', { compaction: opts });
  q.addLast(
    task('g1', { type: 'GlobalHookRun', hook: 'h' }),
    task('g2', { type: 'GlobalHookRun', hook: 'h' }),
    task('n1'),
    task('n2'),
    task('r1', { type: 'ModuleRun', module: 'x', hook: 'h2' }),
    task('r2', { type: 'ModuleRun', module: 'x', hook: 'h2' }),
  );
  assert.deepEqual(names(q), ['g1', 'g2', 'n1', 'n2', 'r1', 'r2']);
  assert.deepEqual(opts.calls, []);
  const noCompaction = new TaskQueue<Meta>('plain');
  for (let i = 0; i < 150; i++) noCompaction.addLast(ev(`e${i}`));
  assert.equal(noCompaction.length, 150);
});

test('a compacted task that starts running takes no more events; new ones queue again', async () => {
  const gate = deferred();
  const opts = compaction(4);
  const q = new TaskQueue<Meta>('q', { compaction: opts, sleep: recordingSleep().sleep });
  const runs: [string, string[]][] = [];
  q.setHandler(async (t) => {
    runs.push([t.metadata.name, [...t.metadata.contexts]]);
    if (t.metadata.name === 'a') await gate.promise;
    return { status: 'Success' };
  });
  q.addLast(ev('a'), ev('b'), ev('c'), ev('c2'));
  assert.deepEqual(names(q), ['a']);
  q.start();
  await flush();
  q.addLast(ev('d'), ev('e'));
  assert.deepEqual(names(q), ['a', 'd', 'e']);
  gate.resolve();
  await q.whenIdle();
  assert.deepEqual(runs, [
    ['a', ['a', 'b', 'c', 'c2']],
    ['d', ['d']],
    ['e', ['e']],
  ]);
  await q.stop();
});

test('a task with a compaction id reached at the head is compacted before it runs', async () => {
  const opts = compaction(3);
  const q = new TaskQueue<Meta>('q', { compaction: opts, sleep: recordingSleep().sleep });
  const runs: [string, number][] = [];
  q.setHandler(async (t) => {
    runs.push([t.metadata.name, t.metadata.contexts.length]);
    return { status: 'Success' };
  });
  // added at the front: no merge on add-last, compaction still happens (on add and before running)
  q.addFirst(ev('x3'));
  q.addFirst(ev('x2'));
  q.addFirst(ev('x1'));
  assert.deepEqual(names(q), ['x1']);
  q.start();
  await q.whenIdle();
  assert.deepEqual(runs, [['x1', 3]]);
  await q.stop();
});

test('a merge function that throws leaves the tasks as they were', () => {
  const errors: unknown[] = [];
  const q = new TaskQueue<Meta>('q', {
    onError: (e) => errors.push(e),
    compaction: {
      types: ['ModuleHookRun'],
      threshold: 2,
      merge: () => {
        throw new Error('merge bug');
      },
    },
  });
  q.addLast(ev('a'), ev('b'), ev('c'));
  assert.deepEqual(names(q), ['a', 'b', 'c']);
  assert.ok(errors.length >= 1);
  assert.equal(q.compactionCounts().size, 0);
});

test('run-time combining with takeFollowing: consecutive tasks of the same (module, hook) only', async () => {
  const q = new TaskQueue<Meta>('main', { sleep: recordingSleep().sleep });
  const runs: [string, string[]][] = [];
  q.setHandler(async (t) => {
    const same = q.takeFollowing(t, (n) => n.type === t.type && n.compactionId === t.compactionId);
    t.metadata.contexts.push(...same.flatMap((n) => n.metadata.contexts));
    runs.push([t.metadata.name, [...t.metadata.contexts]]);
    return { status: 'Success' };
  });
  q.addLast(
    ev('a1'),
    ev('a2'),
    ev('a3'),
    ev('b1', 'mod-b', 'hooks/pods'),
    ev('a4'),
    task('a5', { type: 'GlobalHookRun', module: 'mod-a', hook: 'hooks/pods' }),
  );
  q.start();
  await q.whenIdle();
  assert.deepEqual(runs, [
    ['a1', ['a1', 'a2', 'a3']],
    ['b1', ['b1']],
    ['a4', ['a4']],
    ['a5', ['a5']],
  ]);
  await q.stop();
});
