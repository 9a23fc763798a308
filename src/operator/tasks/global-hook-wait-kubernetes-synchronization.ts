/**
 * GlobalHookWaitKubernetesSynchronization (start-up, reference/addon-operator.md §5.3): main waits
 * until the global Synchronization runs queued elsewhere with waitForSynchronization have finished.
 */
import { TaskResults } from '../../queue/index.js';
import { WAIT_POLL_MS, type TaskHandler } from './shared.js';

export const waitKubernetesSynchronization: TaskHandler<'GlobalHookWaitKubernetesSynchronization'> = (rt) => {
  if (rt.converge.waitsForGlobalSync) return TaskResults.repeat({ delayBeforeNextTask: WAIT_POLL_MS });
  return TaskResults.success();
};
