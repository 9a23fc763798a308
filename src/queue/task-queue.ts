/**
 * One FIFO task queue with its worker loop (shell-operator pkg/task/queue, reference/addon-operator.md
 * §5.1, as amended by DESIGN §4.6). The head task is handed to the handler; the result decides what
 * happens next:
 *
 * | Result    | Effect                                                                              |
 * |-----------|-------------------------------------------------------------------------------------|
 * | `Success` | after tasks go right after the task, the task is removed, head tasks go to the       |
 * |           | front, tail tasks to the end (each list keeps its order)                              |
 * | `Keep`    | the same, but the task stays (so head tasks run before it and it runs again)         |
 * | `Fail`    | the task stays at the head, result tasks are ignored; the queue sleeps              |
 * |           | `backoff(failureCount)` (5 s … 30 s), then failureCount + 1; a throwing handler fails |
 * | `Repeat`  | the task stays; sleep 25 ms; result tasks are ignored                                |
 *
 * `delayBeforeNextTask` overrides the sleep. The queue is blocked while it sleeps. An idle worker
 * waits on a promise that adding a task resolves: no polling. Compaction: compaction.ts.
 */
import { errorMessage } from '../util/errors.js';
import { Emitter } from './emitter.js';
import type { TaskResult, TaskStatus } from './result.js';
import type { Task } from './task.js';
import { Compactor, type CompactionEvent, type CompactionOptions } from './compaction.js';
import {
  DELAY_ON_REPEAT_MS,
  WAIT_STATUS_GRANULARITY_MS,
  defaultBackoff,
  defaultSleep,
  formatGoDuration,
} from './timing.js';

export interface HandlerContext<M> {
  queue: TaskQueue<M>;
  /** Aborted when the queue is asked to stop; a handler may use it to cut waits short. */
  signal: AbortSignal;
}

export type TaskHandler<M> = (task: Task<M>, ctx: HandlerContext<M>) => Promise<TaskResult<M>>;

/** Sleeps `ms`; must resolve early (not reject) when `signal` aborts. */
export type SleepFn = (ms: number, signal: AbortSignal) => Promise<void>;

export interface TaskQueueOptions<M> {
  handler?: TaskHandler<M>;
  /** Delay in ms before retrying a task that has failed `failureCount` times before (default 5 s … 30 s with jitter). */
  backoff?: (failureCount: number) => number;
  /** How the worker sleeps (backoff, Repeat, delayBeforeNextTask); default setTimeout. */
  sleep?: SleepFn;
  /** Sleep after `Repeat` (default 25 ms). */
  delayOnRepeat?: number;
  /** Clock for queuedAt, wait times, durations and status texts (default Date.now). */
  now?: () => number;
  compaction?: CompactionOptions<M>;
  /** Receives errors thrown by event listeners and by the merge function (default: process warning). */
  onError?: (err: unknown) => void;
}

export type { CompactionEvent, CompactionOptions } from './compaction.js';

export interface QueueChangedEvent {
  queue: string;
  length: number;
}
export interface TaskStartedEvent<M> {
  queue: string;
  task: Task<M>;
  /** ms between queuedAt and the start. */
  waitMs: number;
}
export interface TaskFinishedEvent<M> {
  queue: string;
  task: Task<M>;
  status: TaskStatus;
  durationMs: number;
  waitMs: number;
  /** Failure message when status is Fail. */
  error?: string;
}
export interface QueueStoppedEvent {
  queue: string;
}

export interface TaskQueueEvents<M> {
  /** Any change of the task list (add, remove, result applied, compaction). */
  changed: QueueChangedEvent;
  taskStarted: TaskStartedEvent<M>;
  taskFinished: TaskFinishedEvent<M>;
  compaction: CompactionEvent<M>;
  stopped: QueueStoppedEvent;
}

type WorkerState =
  | { kind: 'text'; text: string }
  | { kind: 'waiting'; since: number }
  | { kind: 'sleeping'; text: string; since: number; delay: number };

export class TaskQueue<M = unknown> extends Emitter<TaskQueueEvents<M>> {
  readonly name: string;
  private handler: TaskHandler<M> | undefined;
  private readonly backoff: (failureCount: number) => number;
  private readonly sleepFn: SleepFn;
  private readonly delayOnRepeat: number;
  private readonly now: () => number;
  private readonly compactor: Compactor<M>;

  private items: Task<M>[] = [];
  private readonly byId = new Map<string, Task<M>>();
  private readonly isQueued = (t: Task<M>): boolean => this.byId.get(t.id) === t;

  private state: WorkerState = { kind: 'text', text: '' };
  private running: Task<M> | undefined;
  private loop: Promise<void> | undefined;
  private startedFlag = false;
  private stopRequested = false;
  private readonly stopController = new AbortController();
  private delayController: AbortController | undefined;
  private wakeUp: (() => void) | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(name: string, options: TaskQueueOptions<M> = {}) {
    super();
    this.name = name;
    this.handler = options.handler;
    this.backoff = options.backoff ?? ((n) => defaultBackoff(n));
    this.sleepFn = options.sleep ?? defaultSleep;
    this.delayOnRepeat = options.delayOnRepeat ?? DELAY_ON_REPEAT_MS;
    this.now = options.now ?? Date.now;
    this.compactor = new Compactor(
      options.compaction,
      (compactionId, into, merged) => this.emit('compaction', { queue: this.name, compactionId, into, merged }),
      (err) => this.onListenerError(err),
    );
    if (options.onError) this.onListenerError = options.onError;
  }

  // ---- inspection -------------------------------------------------------------------------------

  get length(): number {
    return this.items.length;
  }

  get isEmpty(): boolean {
    return this.items.length === 0;
  }

  /** The head task (the one that runs next, or runs now). */
  peek(): Task<M> | undefined {
    return this.items[0];
  }

  peekLast(): Task<M> | undefined {
    return this.items[this.items.length - 1];
  }

  get(id: string): Task<M> | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  indexOf(id: string): number {
    if (!this.byId.has(id)) return -1;
    return this.items.findIndex((t) => t.id === id);
  }

  /** A copy of the task list, head first. */
  tasks(): Task<M>[] {
    return [...this.items];
  }

  [Symbol.iterator](): Iterator<Task<M>> {
    return this.tasks()[Symbol.iterator]();
  }

  find(predicate: (task: Task<M>, index: number) => boolean): Task<M> | undefined {
    return this.items.find(predicate);
  }

  /** The task the handler is running now. */
  get current(): Task<M> | undefined {
    return this.running;
  }

  get started(): boolean {
    return this.startedFlag;
  }

  get stopped(): boolean {
    return this.stopRequested;
  }

  /** The status string of `queue list` (reference/addon-operator.md §3.2). */
  get status(): string {
    const s = this.state;
    if (s.kind === 'text') return s.text;
    const elapsed = Math.max(0, this.now() - s.since);
    if (s.kind === 'waiting') {
      return elapsed < WAIT_STATUS_GRANULARITY_MS ? '' : `waiting for task ${formatGoDuration(truncSeconds(elapsed))}`;
    }
    if (elapsed < WAIT_STATUS_GRANULARITY_MS) return s.text;
    const delay = truncSeconds(s.delay);
    const left = Math.max(0, delay - truncSeconds(elapsed));
    return `${s.text} (${formatGoDuration(left)} left of ${formatGoDuration(delay)} delay)`;
  }

  /** Compaction operations per compaction id so far. */
  compactionCounts(): ReadonlyMap<string, number> {
    return this.compactor.counts();
  }

  /** Queued compactable tasks per compaction id. */
  compactableTaskCounts(): ReadonlyMap<string, number> {
    return this.compactor.taskCounts();
  }

  override toString(): string {
    return this.items.map((t) => `[${t.description()},id=${t.id.slice(0, 10)}]`).join(', ');
  }

  // ---- mutation ---------------------------------------------------------------------------------

  /** Pushes tasks to the front, in the given order (tasks[0] becomes the head). */
  addFirst(...tasks: Task<M>[]): void {
    if (tasks.length === 0) return;
    this.prepare(tasks);
    this.items.unshift(...tasks);
    for (const t of tasks) this.track(t);
    this.afterAdd();
  }

  /**
   * Appends tasks in order. A compactable task whose compaction id was compacted before and whose
   * merge target still waits in the queue is merged into that target at once instead of being added.
   */
  addLast(...tasks: Task<M>[]): void {
    if (tasks.length === 0) return;
    this.prepare(tasks);
    for (const t of tasks) {
      if (this.compactor.mergeIntoTarget(t, this.isQueued)) continue;
      this.items.push(t);
      this.track(t);
    }
    this.afterAdd();
  }

  /** Inserts tasks right after the task `id`, in the given order. Throws if `id` is not queued. */
  addAfter(id: string, ...tasks: Task<M>[]): void {
    this.insertRelative(id, 1, tasks);
  }

  /** Inserts tasks right before the task `id`, in the given order. Throws if `id` is not queued. */
  addBefore(id: string, ...tasks: Task<M>[]): void {
    this.insertRelative(id, 0, tasks);
  }

  /** Removes the task `id`; returns it, or undefined when it is not queued. */
  remove(id: string): Task<M> | undefined {
    const t = this.byId.get(id);
    if (!t) return undefined;
    this.items.splice(this.items.indexOf(t), 1);
    this.untrack(t);
    this.changed();
    return t;
  }

  /** Removes every task for which `predicate` is true; returns them in queue order. */
  removeWhere(predicate: (task: Task<M>) => boolean): Task<M>[] {
    const removed: Task<M>[] = [];
    const kept: Task<M>[] = [];
    for (const t of this.items) (predicate(t) ? removed : kept).push(t);
    if (removed.length === 0) return removed;
    this.items = kept;
    for (const t of removed) this.untrack(t);
    this.changed();
    return removed;
  }

  /** Removes all tasks (e.g. draining a module's named queue); returns them. */
  clear(): Task<M>[] {
    return this.removeWhere(() => true);
  }

  /**
   * Removes and returns the tasks that directly follow `after` and match `predicate`, stopping at the
   * first one that does not: run-time combining of consecutive tasks for one (module, hook).
   */
  takeFollowing(after: Task<M> | string, predicate: (task: Task<M>) => boolean): Task<M>[] {
    const id = typeof after === 'string' ? after : after.id;
    const start = this.indexOf(id);
    if (start < 0) return [];
    let end = start + 1;
    while (end < this.items.length && predicate(this.items[end]!)) end++;
    if (end === start + 1) return [];
    const taken = this.items.splice(start + 1, end - start - 1);
    for (const t of taken) this.untrack(t);
    this.changed();
    return taken;
  }

  // ---- worker -----------------------------------------------------------------------------------

  setHandler(handler: TaskHandler<M>): void {
    this.handler = handler;
  }

  /** Starts the worker loop (once). Without a handler the status becomes `no handler set`. */
  start(): void {
    if (this.startedFlag || this.stopRequested) return;
    if (!this.handler) {
      this.state = { kind: 'text', text: 'no handler set' };
      return;
    }
    this.startedFlag = true;
    this.state = { kind: 'text', text: '' };
    this.loop = this.run();
  }

  /**
   * Graceful stop: a running task finishes (its result is applied), nothing new starts, sleeps are cut
   * short. Resolves when the worker has ended.
   */
  stop(): Promise<void> {
    if (!this.stopRequested) {
      this.stopRequested = true;
      this.stopController.abort();
      this.delayController?.abort();
      this.wake();
      if (!this.loop) {
        this.state = { kind: 'text', text: 'stop' };
        this.emit('stopped', { queue: this.name });
      }
    }
    return this.loop ?? Promise.resolve();
  }

  /** Ends the current backoff/delay sleep at once (the head task then runs). */
  cancelDelay(): void {
    this.delayController?.abort();
  }

  /** Resolves when the worker is waiting on an empty queue (at once if it already is) or has stopped. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Waiting on an empty queue, stopped, or never started. */
  isIdle(): boolean {
    if (!this.loop) return true;
    if (this.state.kind === 'text' && this.state.text === 'stop') return true;
    return this.state.kind === 'waiting' && this.items.length === 0;
  }

  private async run(): Promise<void> {
    let delay = 0;
    let delayText = '';
    while (!this.stopRequested) {
      if (delay > 0) {
        await this.sleep(delay, delayText);
        delay = 0;
        continue;
      }
      if (this.items.length === 0) {
        await this.waitForTask();
        continue;
      }
      if (this.compactor.due && this.compact()) this.changed();
      const task = this.items[0]!;
      ({ delay, text: delayText } = await this.process(task));
    }
    this.state = { kind: 'text', text: 'stop' };
    this.emit('stopped', { queue: this.name });
    this.notifyIdle();
  }

  private async process(task: Task<M>): Promise<{ delay: number; text: string }> {
    const handler = this.handler!;
    task._processing = true;
    this.compactor.started(task);
    this.running = task;
    this.state = { kind: 'text', text: 'run first task' };
    const startedAt = this.now();
    const waitMs = Math.max(0, startedAt - task.queuedAt);
    this.emit('taskStarted', { queue: this.name, task, waitMs });

    let result: TaskResult<M>;
    let thrown = false;
    try {
      result = await handler(task, { queue: this, signal: this.stopController.signal });
      if (!result || !isStatus(result.status)) {
        result = { status: 'Fail', error: `task handler returned an invalid result: ${safeJson(result)}` };
      }
    } catch (err) {
      thrown = true;
      result = { status: 'Fail', error: err };
    }
    task._processing = false;
    this.running = undefined;
    const durationMs = Math.max(0, this.now() - startedAt);

    if (result.status === 'Success' || result.status === 'Keep') {
      try {
        this.applyResult(task, result);
      } catch (err) {
        // e.g. a result task that is already queued: nothing was applied, retry like a failure
        result = { status: 'Fail', error: err };
      }
    }

    let delay = 0;
    let text = '';
    let error: string | undefined;
    switch (result.status) {
      case 'Fail':
        delay = this.retryDelay(task.failureCount);
        task.failureCount++;
        if (result.error !== undefined || thrown) {
          error = errorMessage(result.error);
          task.failureMessage = error;
        } else {
          error = task.failureMessage;
        }
        task.queuedAt = this.now();
        text = `sleep after fail for ${formatGoDuration(delay)}`;
        if (result.requeue && this.moveToTail(task)) {
          delay = 0;
          text = 'failed task moved to the tail';
        }
        break;
      case 'Repeat':
        delay = this.delayOnRepeat;
        text = 'repeat head task';
        break;
      case 'Success':
      case 'Keep':
        break;
    }
    if (result.delayBeforeNextTask !== undefined && result.delayBeforeNextTask > 0) {
      delay = result.delayBeforeNextTask;
      text = `sleep for ${formatGoDuration(delay)}`;
    }
    this.state = { kind: 'text', text: delay > 0 ? text : '' };
    const finished: TaskFinishedEvent<M> = { queue: this.name, task, status: result.status, durationMs, waitMs };
    if (error !== undefined) finished.error = error;
    this.emit('taskFinished', finished);
    if (result.afterHandle) {
      try {
        result.afterHandle();
      } catch (err) {
        this.onListenerError(err);
      }
    }
    return { delay, text };
  }

  private retryDelay(failureCount: number): number {
    try {
      const d = this.backoff(failureCount);
      if (Number.isFinite(d) && d >= 0) return d;
      this.onListenerError(new Error(`backoff returned ${d}`));
    } catch (err) {
      this.onListenerError(err);
    }
    return defaultBackoff(failureCount);
  }

  /** The failed `task` goes behind the tasks waiting after it; false when none waits (it stays, to be retried). */
  private moveToTail(task: Task<M>): boolean {
    const i = this.items.indexOf(task);
    if (i === -1 || this.items.length < 2) return false;
    this.items.splice(i, 1);
    this.items.push(task);
    this.changed();
    return true;
  }

  private applyResult(task: Task<M>, result: TaskResult<M>): void {
    const after = [...(result.afterTasks ?? [])];
    const head = [...(result.headTasks ?? [])];
    const tail = [...(result.tailTasks ?? [])];
    this.prepare([...after, ...head, ...tail]);
    const inQueue = this.byId.get(task.id) === task;
    if (after.length > 0) {
      // The current task may have been removed by the handler: its after tasks then go first.
      const at = inQueue ? this.items.indexOf(task) + 1 : 0;
      this.items.splice(at, 0, ...after);
      for (const t of after) this.track(t);
    }
    if (result.status === 'Success' && inQueue) {
      this.items.splice(this.items.indexOf(task), 1);
      this.untrack(task);
    }
    if (head.length > 0) {
      this.items.unshift(...head);
      for (const t of head) this.track(t);
    }
    for (const t of tail) {
      if (this.compactor.mergeIntoTarget(t, this.isQueued)) continue;
      this.items.push(t);
      this.track(t);
    }
    this.afterAdd();
  }

  private async sleep(ms: number, text: string): Promise<void> {
    const ctl = new AbortController();
    this.delayController = ctl;
    if (this.stopRequested) ctl.abort();
    this.state = { kind: 'sleeping', text, since: this.now(), delay: ms };
    try {
      await this.sleepFn(ms, ctl.signal);
    } catch {
      // a sleep that rejects ends the delay
    }
    if (this.delayController === ctl) this.delayController = undefined;
    this.state = { kind: 'text', text: '' };
  }

  private waitForTask(): Promise<void> {
    this.state = { kind: 'waiting', since: this.now() };
    const p = new Promise<void>((resolve) => {
      this.wakeUp = resolve;
    });
    this.notifyIdle();
    return p;
  }

  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = undefined;
    w?.();
  }

  private notifyIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  // ---- bookkeeping ------------------------------------------------------------------------------

  private prepare(tasks: readonly Task<M>[]): void {
    const seen = new Set<string>();
    for (const t of tasks) {
      if (this.byId.has(t.id) || seen.has(t.id)) throw new Error(`task ${t.id} (${t.type}) is already in queue '${this.name}'`);
      seen.add(t.id);
    }
    const now = this.now();
    for (const t of tasks) {
      t.queueName = this.name;
      t.queuedAt = now;
    }
  }

  private insertRelative(id: string, offset: 0 | 1, tasks: Task<M>[]): void {
    if (tasks.length === 0) return;
    const ref = this.byId.get(id);
    if (!ref) throw new Error(`task ${id} is not in queue '${this.name}'`);
    this.prepare(tasks);
    this.items.splice(this.items.indexOf(ref) + offset, 0, ...tasks);
    for (const t of tasks) this.track(t);
    this.afterAdd();
  }

  private afterAdd(): void {
    if (this.compactor.due) this.compact();
    this.changed();
    this.wake();
  }

  private changed(): void {
    this.emit('changed', { queue: this.name, length: this.items.length });
  }

  private track(t: Task<M>): void {
    this.byId.set(t.id, t);
    this.compactor.added(t);
  }

  private untrack(t: Task<M>): void {
    this.byId.delete(t.id);
    this.compactor.removed(t);
  }

  /** Compacts the ids that reached the threshold (compaction.ts); true when tasks were merged away. */
  private compact(): boolean {
    const drop = this.compactor.compact(this.items);
    if (drop.size === 0) return false;
    this.items = this.items.filter((t) => !drop.has(t));
    for (const t of drop) this.byId.delete(t.id);
    return true;
  }
}

function truncSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

function isStatus(s: unknown): s is TaskStatus {
  return s === 'Success' || s === 'Fail' || s === 'Repeat' || s === 'Keep';
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
