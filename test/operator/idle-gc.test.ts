import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { collectWhenIdle, gcFunction } from '../../src/operator/idle-gc.js';
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

test('collects once the queues stay empty for the idle time after a finished task, not while tasks wait', async () => {
  const q = new Queues();
  const runs: number[] = [];
  const stop = collectWhenIdle(q, { idleMs: 1000, minIntervalMs: 0, secondAfterMs: 5, onCollected: (r) => runs.push(r.rssAfterMiB) });
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
  const stop = collectWhenIdle(q, { idleMs: 10, minIntervalMs: 2000, secondAfterMs: 5, onCollected: () => runs++ });
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
