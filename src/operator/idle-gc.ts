/**
 * A full garbage collection when the operator falls idle after work: every queue empty for `idleMs`
 * after at least one task finished since the last collection, at most once per `minIntervalMs`.
 *
 * A collection is V8's low-memory notification (`reduceMemory`): full collections that compact the
 * heap and give its free pages back to the OS (a plain `gc()` frees objects but leaves the heap
 * committed: 48 -> 43 MB committed for 28 MB live in a soak, against about 30 MB after this one).
 *
 * Why: V8 sizes its old-generation limit from the machine's memory (about 4 GiB on a 16+ GiB host),
 * so after a burst of events (a converge, 10,000 object changes) the garbage of that burst stays
 * resident until the next burst pushes the heap over a far-away limit; V8's own memory reducer comes
 * only after seconds of a low allocation rate (in `--trace-gc`, a `Mark-Compact (reduce)` about 7 s
 * after bench/memory's events), and never under a steady stream. Go's runtime forces a collection every 2 minutes and
 * returns freed memory to the OS; this is the operator's equivalent, taken when nothing runs, so it
 * never delays a task. A collection of the operator's live heap (tens of MiB) takes tens of ms.
 *
 * Under steady work (a stream of events) the queues are never empty for `idleMs`, and V8 lets its
 * committed heap creep up while the live heap stays flat (a 26-minute soak: 28 MB live, 42 -> 51 MB
 * committed in 9 minutes). So once `busyIntervalMs` (Go's forced-collection period, 2 minutes) has
 * passed without a collection, one is taken the first time every queue is empty after a task, idle
 * or not, as long as the heap in use is under `maxBusyHeapBytes` (64 MiB). A forced collection stops
 * the operator for as long as marking and moving its live heap takes, several ms per MiB: on a heap
 * of a large cluster's snapshots (150,000 watched Pods: hundreds of MiB) that is seconds, which every
 * event of the steady stream would wait (docs/performance.md, "Large clusters"). Such a heap under
 * steady work is left to V8's own collections, whose marking runs beside the operator, in steps.
 */
import { performance } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleQueues {
  on(event: 'taskFinished', listener: () => void): unknown;
  readonly totalTasks: number;
}

export interface IdleGcOptions {
  /** Quiet time after the last finished task (default 3 s). */
  idleMs?: number;
  /** At most one collection per this long (default 30 s). */
  minIntervalMs?: number;
  /** Under steady work: a collection at the first empty queues this long after the last one (default 2 min). */
  busyIntervalMs?: number;
  /** Under steady work: no collection while the heap in use is this large or larger (default 64 MiB). */
  maxBusyHeapBytes?: number;
  /** Told after each collection: RSS before and after, and the time it took. */
  onCollected?: (r: { rssBeforeMiB: number; rssAfterMiB: number; ms: number }) => void;
}

/** The `gc` function: the one `--expose-gc` gave, else one made available now (as jest-leak-detector does). */
export function gcFunction(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * A collection that shrinks the heap: V8's low-memory notification, which the inspector protocol's
 * `HeapProfiler.collectGarbage` sends (an in-process session: no port, no debugger). Without the
 * inspector (a Node built without it) a plain full collection.
 */
export async function reduceMemory(): Promise<void> {
  let session: import('node:inspector').Session;
  try {
    const { Session } = await import('node:inspector');
    session = new Session();
    session.connect();
  } catch {
    gcFunction()();
    return;
  }
  try {
    await new Promise<void>((resolve) => session.post('HeapProfiler.collectGarbage', () => resolve()));
  } finally {
    session.disconnect();
  }
}

const MiB = 1024 * 1024;

/** Starts watching `queues`; returns the function that stops it. */
export function collectWhenIdle(queues: IdleQueues, opts: IdleGcOptions = {}): () => void {
  const idleMs = opts.idleMs ?? 3000;
  const minIntervalMs = opts.minIntervalMs ?? 30_000;
  const busyIntervalMs = Math.max(minIntervalMs, opts.busyIntervalMs ?? 120_000);
  const maxBusyHeapBytes = opts.maxBusyHeapBytes ?? 64 * MiB;
  let lastGc = 0;
  /** The last collection, or the start (ms): the busy interval counts from it. */
  let busySince = Date.now();
  let collecting = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const collect = () => {
    timer = undefined;
    if (stopped || collecting) return;
    if (queues.totalTasks > 0) return; // a task is queued: its finish will arm the timer again
    const wait = lastGc + minIntervalMs - Date.now();
    if (wait > 0) {
      timer = setTimeout(collect, wait).unref();
      return;
    }
    const before = process.memoryUsage.rss();
    const t0 = performance.now();
    lastGc = busySince = Date.now();
    collecting = true;
    void reduceMemory().then(() => {
      collecting = false;
      if (!stopped) opts.onCollected?.({ rssBeforeMiB: before / MiB, rssAfterMiB: process.memoryUsage.rss() / MiB, ms: performance.now() - t0 });
    });
  };

  queues.on('taskFinished', () => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    if (queues.totalTasks === 0 && Date.now() - busySince >= busyIntervalMs && getHeapStatistics().used_heap_size < maxBusyHeapBytes) collect();
    else timer = setTimeout(collect, idleMs).unref();
  });
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
