/**
 * ModuleHookRun (reference/addon-operator.md §5.4): runs a module hook of an enabled module; module
 * values changed by a schedule or kubernetes run queue a run of the module (LIFECYCLE-STEPS steps 10, 12, 14).
 */
import { TaskResults } from '../../queue/index.js';
import { attemptHookRun, finishSync, skipsSynchronization, type TaskHandler } from './shared.js';

export const moduleHookRun: TaskHandler<'ModuleHookRun'> = async (rt, task, queue, signal) => {
  const meta = task.metadata;
  if (!rt.isEnabled(meta.module) || skipsSynchronization(meta)) {
    finishSync(rt, task, meta);
    return TaskResults.success();
  }
  const r = await attemptHookRun(rt, task, meta, queue, signal);
  if (r.failure) return r.failure;
  finishSync(rt, task, meta);
  if (r.outcome?.valuesChanged && !meta.sync && (meta.bindingType === 'schedule' || meta.bindingType === 'kubernetes')) {
    rt.requestModuleRun(meta.module, meta.bindingType === 'schedule' ? 'Schedule-Change-ModuleValues' : 'Kubernetes-Change-ModuleValues');
  }
  return TaskResults.success();
};
