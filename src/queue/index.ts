/** Task queue engine: main + named queues, results, backoff, compaction, dumps, events. */
export { TASK_TYPES, MAIN_QUEUE, Task, newTask, isTaskType } from './task.js';
export type { TaskType, TaskInit, MetaDescriber } from './task.js';
export { TaskResults } from './result.js';
export type { TaskResult, TaskStatus } from './result.js';
export { TaskQueue } from './task-queue.js';
export type {
  TaskHandler,
  HandlerContext,
  SleepFn,
  CompactionOptions,
  TaskQueueOptions,
  TaskQueueEvents,
  QueueChangedEvent,
  TaskStartedEvent,
  TaskFinishedEvent,
  CompactionEvent,
  QueueStoppedEvent,
} from './task-queue.js';
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
