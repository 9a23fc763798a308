/** Shared helpers of the queue tests: tasks with a small metadata payload, scripted handlers, controllable sleeps. */
import { Task, type TaskInit, type TaskType } from '../../src/queue/task.js';
import type { TaskResult } from '../../src/queue/result.js';
import type { SleepFn, TaskHandler } from '../../src/queue/task-queue.js';

export interface Meta {
  name: string;
  module?: string;
  hook?: string;
  contexts: string[];
}

export type T = Task<Meta>;

export function describeMeta(m: Meta): string {
  return m.contexts.length > 1 ? `${m.name} in ${m.contexts.length} contexts` : m.name;
}

export function task(name: string, opts: { type?: TaskType; queue?: string; module?: string; hook?: string; contexts?: string[] } = {}): T {
  const meta: Meta = { name, contexts: opts.contexts ?? [name] };
  if (opts.module !== undefined) meta.module = opts.module;
  if (opts.hook !== undefined) meta.hook = opts.hook;
  const init: TaskInit<Meta> = {
    type: opts.type ?? 'ModuleHookRun',
    metadata: meta,
    describe: describeMeta,
  };
  if (opts.queue !== undefined) init.queue = opts.queue;
  if (opts.hook !== undefined) init.compactionId = `${opts.module ?? ''}\0${opts.hook}`;
  return new Task<Meta>(init);
}

export function names(tasks: Iterable<T>): string[] {
  return [...tasks].map((t) => t.metadata.name);
}

export interface Deferred<V = void> {
  promise: Promise<V>;
  resolve: (v: V) => void;
  reject: (e: unknown) => void;
}

export function deferred<V = void>(): Deferred<V> {
  let resolve!: (v: V) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A sleep that only records the delays asked for and returns at once. */
export function recordingSleep(): { sleep: SleepFn; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: (ms) => {
      delays.push(ms);
      return Promise.resolve();
    },
  };
}

/** A sleep the test ends by hand: `next()` resolves with the pending sleep once one is requested. */
export function manualSleep(): {
  sleep: SleepFn;
  delays: number[];
  next: () => Promise<{ ms: number; wake: () => void; signal: AbortSignal }>;
} {
  const delays: number[] = [];
  const waiting: ((s: { ms: number; wake: () => void; signal: AbortSignal }) => void)[] = [];
  const ready: { ms: number; wake: () => void; signal: AbortSignal }[] = [];
  return {
    delays,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        delays.push(ms);
        signal.addEventListener('abort', () => resolve(), { once: true });
        const s = { ms, wake: () => resolve(), signal };
        const w = waiting.shift();
        if (w) w(s);
        else ready.push(s);
      }),
    next: () => {
      const s = ready.shift();
      if (s) return Promise.resolve(s);
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}

/**
 * A handler that logs every run (task name) and answers from a script: per task name a list of
 * results or functions, used in turn; when a list runs out the answer is Success.
 */
export function scriptedHandler(
  script: Record<string, (TaskResult<Meta> | ((t: T) => TaskResult<Meta> | Promise<TaskResult<Meta>>))[]> = {},
): { handler: TaskHandler<Meta>; runs: string[] } {
  const runs: string[] = [];
  const handler: TaskHandler<Meta> = async (t) => {
    runs.push(t.metadata.name);
    const next = script[t.metadata.name]?.shift();
    if (next === undefined) return { status: 'Success' };
    return typeof next === 'function' ? await next(t) : next;
  };
  return { handler, runs };
}

/** Lets pending promise callbacks run. */
export async function flush(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise<void>((r) => setImmediate(r));
}
