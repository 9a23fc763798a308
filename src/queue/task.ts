/**
 * Tasks of the task queues: a type (addon-operator's task types), the queue they belong to, a typed
 * metadata payload owned by the operator, and the failure bookkeeping shown by `queue list`.
 */
import { randomUUID } from 'node:crypto';

/** The task types of addon-operator (reference/addon-operator.md §5.4). */
export const TASK_TYPES = [
  'GlobalHookRun',
  'GlobalHookEnableScheduleBindings',
  'GlobalHookEnableKubernetesBindings',
  'GlobalHookWaitKubernetesSynchronization',
  'ConvergeModules',
  'ModuleRun',
  'ParallelModuleRun',
  'ModuleHookRun',
  'ModuleDelete',
  'ModulePurge',
  'DiscoverHelmReleases',
  'ApplyKubeConfigValues',
  'ModuleEnsureCRDs',
  'ModuleEnsureHooks',
] as const;

export type TaskType = (typeof TASK_TYPES)[number];

export function isTaskType(value: string): value is TaskType {
  return (TASK_TYPES as readonly string[]).includes(value);
}

/** The name of the queue that holds all lifecycle work. */
export const MAIN_QUEUE = 'main';

/** Produces the `<meta>` part of a task description from the task's metadata. */
export type MetaDescriber<M> = (metadata: M, task: Task<M>) => string;

export interface TaskInit<M> {
  type: TaskType;
  metadata: M;
  /** Queue name; default `main`. Adding the task to a queue sets it to that queue's name. */
  queue?: string;
  /** Default: a random UUID. */
  id?: string;
  /**
   * Merge key for queue compaction, e.g. `module + "\0" + hookPath` (DESIGN §4.7: never the file name
   * alone). Only used when the queue marks this task's type compactable.
   */
  compactionId?: string;
  /** Supplies `<meta>` in `description()`; without it the description has no meta part. */
  describe?: MetaDescriber<M>;
}

export class Task<M = unknown> {
  readonly id: string;
  readonly type: TaskType;
  /** Name of the queue the task is (or will be) in. */
  queueName: string;
  /** The operator's payload; compaction's merge function may replace or mutate it. */
  metadata: M;
  compactionId: string | undefined;
  /** How many times the handler failed on this task. */
  failureCount = 0;
  /** Message of the last failure ('' when none). */
  failureMessage = '';
  /** When the task was added to its queue (ms since epoch, from the queue's clock); reset on failure. */
  queuedAt: number;
  /**
   * For an observer of the queue's events: when it saw the task start first (its own clock; the queue
   * never reads it). On the task, not in a map by id: a map filled and emptied at every task makes
   * V8 allocate its tables in the old generation, as garbage only a full collection frees.
   */
  firstStartedAt: number | undefined = undefined;
  private readonly describeMeta: MetaDescriber<M> | undefined;
  /** @internal set by the queue while its handler runs this task. */
  _processing = false;

  constructor(init: TaskInit<M>) {
    this.id = init.id ?? randomUUID();
    this.type = init.type;
    this.queueName = init.queue ?? MAIN_QUEUE;
    this.metadata = init.metadata;
    this.compactionId = init.compactionId;
    this.describeMeta = init.describe;
    this.queuedAt = Date.now();
  }

  /** True while a queue's handler runs this task (compaction never merges it then). */
  get processing(): boolean {
    return this._processing;
  }

  /** `<TaskType>:<queue>[:<meta>][:failures N[:<last error>]]` (reference/addon-operator.md §3.2). */
  /** `type:queue:meta`: the task without its failures (a log line names the error on its own). */
  name(): string {
    let s = `${this.type}:${this.queueName}`;
    if (this.describeMeta) s += `:${this.describeMeta(this.metadata, this)}`;
    return s;
  }

  /** Go's `GetDescription()`: the name, then the failures and the last failure's message (queue dumps). */
  description(): string {
    let s = this.name();
    if (this.failureCount > 0) {
      s += `:failures ${this.failureCount}`;
      if (this.failureMessage !== '') s += `:${this.failureMessage}`;
    }
    return s;
  }

  toString(): string {
    return this.description();
  }
}

export function newTask<M>(init: TaskInit<M>): Task<M> {
  return new Task(init);
}
