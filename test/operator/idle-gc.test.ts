import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { getHeapStatistics } from 'node:v8';
import { collectWhenIdle, gcFunction, reduceMemory } from '../../src/operator/idle-gc.js';
import { waitFor as until } from '../helpers/wait.js';

class Queues extends EventEmitter {
  totalTasks = 0;
  finish(): void {
    this.emit('taskFinished');
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits (up to 10 s: the machines are shared) until `cond` holds. */

test('gcFunction gives a working gc without --expose-gc: a weakly held object is collected', async () => {
  const gc = gcFunction();
  let ref: WeakRef<object> | undefined;
  (() => {
    ref = new WeakRef({ big: new Array(1000).fill(1) });
  })();
  await sleep(0); // WeakRef targets live at least until the end of the current job
  gc();
  assert.equal(ref!.deref(), undefined);
});

test('reduceMemory gives the heap back: far less stays committed than after a plain full collection', async () => {
  const garbage = () => {
    let keep: unknown[] | undefined = [];
    for (let i = 0; i < 300_000; i++) keep.push({ i, s: `value ${i}` });
    keep = undefined;
    return keep;
  };
  garbage();
  gcFunction()();
  const afterPlain = getHeapStatistics().total_heap_size;
  garbage();
  await reduceMemory();
  const afterReduce = getHeapStatistics().total_heap_size;
  assert.ok(afterReduce < afterPlain / 2, `committed heap ${afterReduce} B after reduceMemory, ${afterPlain} B after gc()`);
});

test('collects once the queues stay empty for the idle time after a finished task, not while tasks wait', async () => {
  const q = new Queues();
  const runs: number[] = [];
  const stop = collectWhenIdle(q, { idleMs: 1000, minIntervalMs: 0, onCollected: (r) => runs.push(r.rssAfterMiB) });
  try {
    await sleep(50);
    assert.equal(runs.length, 0, 'nothing finished yet: no collection');
    q.totalTasks = 1;
    q.finish();
    await sleep(1500);
    assert.equal(runs.length, 0, 'a task still queued: no collection');
    q.totalTasks = 0;
    q.finish();
    for (let i = 0; i < 5; i++) {
      await sleep(20);
      q.finish(); // work goes on: the idle timer starts again
    }
    assert.equal(runs.length, 0, 'not idle yet');
    await until(() => runs.length === 1, 'the collection');
    assert.ok(runs[0]! > 0, 'reports the RSS after');
  } finally {
    stop();
  }
});

test('at most one collection per minIntervalMs; none after stop', async () => {
  const q = new Queues();
  let runs = 0;
  const stop = collectWhenIdle(q, { idleMs: 10, minIntervalMs: 2000, onCollected: () => runs++ });
  q.finish();
  await until(() => runs === 1, 'the first collection');
  q.finish();
  await sleep(300);
  assert.equal(runs, 1, 'the second waits for the interval');
  await until(() => runs === 2, 'the second collection, after the interval');
  stop();
  q.finish();
  await sleep(100);
  assert.equal(runs, 2);
});

test('under steady work (never idle for idleMs) a collection comes at the first empty queues once busyIntervalMs has passed', async () => {
  const q = new Queues();
  let runs = 0;
  const stop = collectWhenIdle(q, { idleMs: 60_000, minIntervalMs: 0, busyIntervalMs: 400, onCollected: () => runs++ });
  try {
    // a task always queued behind the one that finishes: no collection, however long
    q.totalTasks = 1;
    for (let i = 0; i < 30; i++) {
      await sleep(20);
      q.finish();
    }
    assert.equal(runs, 0, 'never empty: no collection');
    // the queues empty between tasks, never idle for idleMs
    q.totalTasks = 0;
    q.finish();
    await until(() => runs === 1, 'the collection of a busy operator');
    for (let i = 0; i < 5; i++) {
      await sleep(20);
      q.finish();
    }
    await sleep(100);
    assert.equal(runs, 1, 'the next one waits for busyIntervalMs again');
    await until(async () => {
      q.finish();
      await sleep(20);
      return runs === 2;
    }, 'the second busy collection');
  } finally {
    stop();
  }
});

test('under steady work a heap in use of maxBusyHeapBytes or more is not collected (the stall would grow with it); once idle it is', async () => {
  const q = new Queues();
  let runs = 0;
  // every heap is over 1 byte: the busy collection never comes; the idle one (idleMs) still does
  const stop = collectWhenIdle(q, { idleMs: 4000, minIntervalMs: 0, busyIntervalMs: 0, maxBusyHeapBytes: 1, onCollected: () => runs++ });
  try {
    for (let i = 0; i < 20; i++) {
      await sleep(20);
      q.finish();
    }
    assert.equal(runs, 0, 'busy with a large heap: no collection');
    await until(() => runs === 1, 'the idle collection');
  } finally {
    stop();
  }
});
