/** Results of a task handler (reference/addon-operator.md §5.1). */
import type { Task } from './task.js';

export type TaskStatus = 'Success' | 'Fail' | 'Repeat' | 'Keep';

export interface TaskResult<M = unknown> {
  status: TaskStatus;
  /** Success/Keep: pushed to the front of the queue, in this order (the first becomes the new head). */
  headTasks?: readonly Task<M>[];
  /** Success/Keep: inserted right after the current task, in this order. */
  afterTasks?: readonly Task<M>[];
  /** Success/Keep: appended to the queue, in this order. */
  tailTasks?: readonly Task<M>[];
  /** Milliseconds to sleep before the next task; overrides the backoff and the Repeat delay when > 0. */
  delayBeforeNextTask?: number;
  /**
   * Fail: when other tasks wait in the queue, the task goes to its tail and the next one runs at once,
   * instead of the task being retried at the head after the backoff (the Go operator's functional
   * ModuleRun: a failed module must not hold the modules queued behind it).
   */
  requeue?: boolean;
  /** Fail: the failure message stored on the task (shown by `queue list`). */
  error?: unknown;
  /** Called after the result has been applied to the queue. */
  afterHandle?: () => void;
}

type Extra<M> = Omit<TaskResult<M>, 'status'>;

export const TaskResults = {
  success<M>(extra: Extra<M> = {}): TaskResult<M> {
    return { ...extra, status: 'Success' };
  },
  keep<M>(extra: Extra<M> = {}): TaskResult<M> {
    return { ...extra, status: 'Keep' };
  },
  fail<M>(error?: unknown, extra: Omit<Extra<M>, 'error'> = {}): TaskResult<M> {
    return { ...extra, status: 'Fail', error };
  },
  repeat<M>(extra: Pick<Extra<M>, 'delayBeforeNextTask' | 'afterHandle'> = {}): TaskResult<M> {
    return { ...extra, status: 'Repeat' };
  },
};
