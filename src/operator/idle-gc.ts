/**
 * A full garbage collection when the operator falls idle after work: every queue empty for `idleMs`
 * after at least one task finished since the last collection, at most once per `minIntervalMs`.
 *
 * A collection is two full collections a second apart (the second returns the pages the first freed).
 *
 * Why: V8 sizes its old-generation limit from the machine's memory (about 4 GiB on a 16+ GiB host),
 * so after a burst of events (a converge, 10,000 object changes) the garbage of that burst stays
 * resident until the next burst pushes the heap over a far-away limit; V8's own memory reducer does
 * not run for a process that sits idle in epoll. Go's runtime forces a collection every 2 minutes and
 * returns freed memory to the OS; this is the operator's equivalent, taken when nothing runs, so it
 * never delays a task. A collection of the operator's live heap (tens of MiB) takes tens of ms.
 */
import { setFlagsFromString } from 'node:v8';
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
  /** Delay of the second collection of a pair (default 1 s). */
  secondAfterMs?: number;
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

const MiB = 1024 * 1024;

/** Starts watching `queues`; returns the function that stops it. */
export function collectWhenIdle(queues: IdleQueues, opts: IdleGcOptions = {}): () => void {
  const idleMs = opts.idleMs ?? 3000;
  const minIntervalMs = opts.minIntervalMs ?? 30_000;
  const secondAfterMs = opts.secondAfterMs ?? 1000;
  const gc = gcFunction();
  let lastGc = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const collect = () => {
    timer = undefined;
    if (stopped) return;
    if (queues.totalTasks > 0) return; // a task is queued: its finish will arm the timer again
    const wait = lastGc + minIntervalMs - Date.now();
    if (wait > 0) {
      timer = setTimeout(collect, wait).unref();
      return;
    }
    const before = process.memoryUsage.rss();
    let t0 = performance.now();
    gc();
    lastGc = Date.now();
    let ms = performance.now() - t0;
    // the pages the first collection freed are given back to the OS by the next one's sweep (measured:
    // one collection left the RSS at 233 MiB, a second a second later brought it to 178 MiB)
    setTimeout(() => {
      if (stopped) return;
      if (queues.totalTasks === 0) {
        t0 = performance.now();
        gc();
        ms += performance.now() - t0;
      }
      opts.onCollected?.({ rssBeforeMiB: before / MiB, rssAfterMiB: process.memoryUsage.rss() / MiB, ms });
    }, secondAfterMs).unref();
  };

  queues.on('taskFinished', () => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(collect, idleMs).unref();
  });
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
