/**
 * The labels of the task being handled (queue, task type, event, module, hook, binding), carried
 * through its async calls so that every log line written while it runs has them, whoever writes it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type TaskLabels = Readonly<Record<string, string>>;

const current = new AsyncLocalStorage<TaskLabels>();

export function withTaskLabels<T>(labels: TaskLabels, fn: () => T): T {
  return current.run(labels, fn);
}

/** The labels of the running task, or an empty object outside of one. */
export function taskLabels(): TaskLabels {
  return current.getStore() ?? {};
}

/**
 * Runs `fn` outside any task: what it starts and outlives the task (a watch, a timer) logs without
 * the labels of the task that happened to start it.
 */
export function outsideTask<T>(fn: () => T): T {
  return current.exit(fn);
}
