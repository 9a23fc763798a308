/**
 * The `main` queue plus named queues created on demand, all with the same handler and options
 * (reference/addon-operator.md §5.2). Events of every queue are re-emitted by the set.
 */
import { Emitter } from './emitter.js';
import {
  dumpQueue,
  dumpQueueList,
  dumpQueueListText,
  dumpQueueText,
  type QueueDump,
  type QueueListDump,
} from './dump.js';
import { MAIN_QUEUE, type Task } from './task.js';
import { TaskQueue, type TaskHandler, type TaskQueueEvents, type TaskQueueOptions } from './task-queue.js';

export interface QueueSetOptions<M> extends TaskQueueOptions<M> {
  /** Name of the main queue (default `main`). */
  mainName?: string;
}

export interface QueueSetEvents<M> extends TaskQueueEvents<M> {
  queueCreated: { queue: TaskQueue<M> };
}

export class QueueSet<M = unknown> extends Emitter<QueueSetEvents<M>> {
  readonly mainName: string;
  private readonly options: TaskQueueOptions<M>;
  private readonly byName = new Map<string, TaskQueue<M>>();
  private startedFlag = false;
  private stopping = false;

  constructor(options: QueueSetOptions<M> = {}) {
    super();
    const { mainName, ...rest } = options;
    this.mainName = mainName ?? MAIN_QUEUE;
    this.options = rest;
    if (options.onError) this.onListenerError = options.onError;
    this.getOrCreate(this.mainName);
  }

  get main(): TaskQueue<M> {
    return this.byName.get(this.mainName)!;
  }

  get(name: string): TaskQueue<M> | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The queue `name`, created (and started, if the set runs) when missing. */
  getOrCreate(name: string): TaskQueue<M> {
    let q = this.byName.get(name);
    if (q) return q;
    q = new TaskQueue<M>(name, this.options);
    this.byName.set(name, q);
    this.forward(q);
    this.emit('queueCreated', { queue: q });
    if (this.startedFlag && !this.stopping) q.start();
    return q;
  }

  /** Queue names: main first, then by name. */
  names(): string[] {
    return this.queues().map((q) => q.name);
  }

  /** Queues: main first, then by name. */
  queues(): TaskQueue<M>[] {
    const others = [...this.byName.values()].filter((q) => q.name !== this.mainName).sort((a, b) => (a.name < b.name ? -1 : 1));
    return [this.main, ...others];
  }

  /** Appends the task to its queue (`task.queueName`), creating the queue when needed. */
  addLast(...tasks: Task<M>[]): void {
    for (const t of tasks) this.getOrCreate(t.queueName).addLast(t);
  }

  /** Pushes the task to the front of its queue (`task.queueName`), creating the queue when needed. */
  addFirst(...tasks: Task<M>[]): void {
    for (let i = tasks.length - 1; i >= 0; i--) this.getOrCreate(tasks[i]!.queueName).addFirst(tasks[i]!);
  }

  /** Sets the handler of every queue, present and future. */
  setHandler(handler: TaskHandler<M>): void {
    this.options.handler = handler;
    for (const q of this.byName.values()) q.setHandler(handler);
  }

  get started(): boolean {
    return this.startedFlag;
  }

  /** Starts every queue; queues created later start at once. */
  start(): void {
    if (this.startedFlag || this.stopping) return;
    this.startedFlag = true;
    for (const q of this.queues()) q.start();
  }

  /** Graceful stop of every queue (running tasks finish); resolves when all workers have ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.byName.values()].map((q) => q.stop()));
  }

  /** Resolves when every queue is idle at the same moment (empty and waiting, or stopped). */
  async whenIdle(): Promise<void> {
    for (;;) {
      const queues = [...this.byName.values()];
      if (queues.every((q) => q.isIdle())) return;
      await Promise.all(queues.map((q) => q.whenIdle()));
    }
  }

  /** Tasks in all queues. */
  get totalTasks(): number {
    let n = 0;
    for (const q of this.byName.values()) n += q.length;
    return n;
  }

  /** `queue list -o json|yaml`. */
  dump(opts: { showEmpty?: boolean } = {}): QueueListDump {
    return dumpQueueList(this.byName.values(), { ...opts, mainName: this.mainName });
  }

  /** `queue list -o text`. */
  dumpText(opts: { showEmpty?: boolean } = {}): string {
    return dumpQueueListText(this.byName.values(), { ...opts, mainName: this.mainName });
  }

  /** `queue main -o json|yaml`. */
  dumpMain(): QueueDump {
    return dumpQueue(this.main, this.mainName);
  }

  /** `queue main -o text`. */
  dumpMainText(): string {
    return dumpQueueText(this.main, this.mainName);
  }

  /** Compaction operations per queue and compaction id. */
  compactionCounts(): Map<string, ReadonlyMap<string, number>> {
    const out = new Map<string, ReadonlyMap<string, number>>();
    for (const q of this.queues()) out.set(q.name, q.compactionCounts());
    return out;
  }

  private forward(q: TaskQueue<M>): void {
    q.on('changed', (e) => this.emit('changed', e));
    q.on('taskStarted', (e) => this.emit('taskStarted', e));
    q.on('taskFinished', (e) => this.emit('taskFinished', e));
    q.on('compaction', (e) => this.emit('compaction', e));
    q.on('stopped', (e) => this.emit('stopped', e));
  }
}
