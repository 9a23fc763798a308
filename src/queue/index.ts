/**
 * Task queue engine: main + named queues, results, backoff, compaction, dumps, events.
 *
 * ```ts
 * type Meta = OperatorTaskMeta; // the operator's own (discriminated) payload
 * const queues = new QueueSet<Meta>({
 *   handler: (task, { queue, signal }) => operator.handle(task), // → Promise<TaskResult<Meta>>
 *   compaction: { types: ['ModuleHookRun'], merge: (into, from) => { ...concat binding contexts... } },
 *   // tests: backoff: () => 10, sleep: recordingSleep, now: fakeClock
 * });
 * queues.on('taskFinished', (e) => metrics.observe(e.queue, e.durationMs, e.waitMs));
 * const t = newTask<Meta>({ type: 'ModuleHookRun', queue: 'main', metadata, describe: (m) => ...,
 *                           compactionId: `${module}\0${hookPath}` });
 * queues.addLast(t);            // routed to t.queueName, queue created (and started) on demand
 * queues.start();
 * await queues.stop();          // running tasks finish, nothing new starts
 * ```
 * Run-time combining: inside the handler,
 * `queue.takeFollowing(task, (n) => n.type === task.type && n.compactionId === task.compactionId)`.
 * `allowFailure` is the handler's business: return Success (and count the allowed error).
 */
export { TASK_TYPES, MAIN_QUEUE, Task, newTask, isTaskType } from './task.js';
export type { TaskType, TaskInit, MetaDescriber } from './task.js';
export { TaskResults } from './result.js';
export type { TaskResult, TaskStatus } from './result.js';
export { TaskQueue } from './task-queue.js';
export type {
  TaskHandler,
  HandlerContext,
  SleepFn,
  TaskQueueOptions,
  TaskQueueEvents,
  QueueChangedEvent,
  TaskStartedEvent,
  TaskFinishedEvent,
  QueueStoppedEvent,
} from './task-queue.js';
export type { CompactionOptions, CompactionEvent } from './compaction.js';
export { QueueSet } from './queue-set.js';
export type { QueueSetOptions, QueueSetEvents } from './queue-set.js';
export { dumpQueueList, dumpQueueListText, dumpQueue, dumpQueueText } from './dump.js';
export type { DumpableQueue, QueueDump, QueueListDump, QueueListSummary, QueueListOptions, TaskDump } from './dump.js';
export {
  defaultBackoff,
  defaultSleep,
  formatGoDuration,
  INITIAL_FAIL_DELAY_MS,
  MAX_FAIL_DELAY_MS,
  DELAY_ON_REPEAT_MS,
  COMPACTION_THRESHOLD,
  WAIT_STATUS_GRANULARITY_MS,
} from './timing.js';
export type { Listener } from './emitter.js';
