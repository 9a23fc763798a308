/**
 * GlobalHookEnableKubernetesBindings (start-up, LIFECYCLE-STEPS step 2, reference/addon-operator.md §5.3): starts the monitors
 * of a global hook and queues one Synchronization run per binding: runs for `main` go first; runs for
 * other queues are appended there, and start-up waits for those with waitForSynchronization.
 */
import { TaskResults } from '../../queue/index.js';
import { makeTask, type OperatorTask } from '../task-meta.js';
import type { TaskHandler } from './shared.js';

export const enableKubernetesBindings: TaskHandler<'GlobalHookEnableKubernetesBindings'> = async (rt, task) => {
  const hook = task.metadata.hook;
  const runs = await rt.bindingsOf(hook).enableKubernetes();
  const head: OperatorTask[] = [];
  for (const { binding, context } of runs) {
    const t = makeTask(
      {
        kind: 'GlobalHookRun',
        hook,
        bindingType: 'kubernetes',
        contexts: [context],
        event: 'Kubernetes-Synchronization',
        allowFailure: binding.allowFailure,
        reloadAllOnValuesChanges: false,
        sync: { binding: binding.name, wait: binding.waitForSynchronization },
      },
      binding.queue,
    );
    if (binding.queue === rt.main.name) head.push(t);
    else {
      if (binding.waitForSynchronization) rt.converge.awaitGlobalSync(t.id);
      rt.queues.addLast(t);
    }
  }
  return TaskResults.success({ headTasks: head });
};
