/**
 * GlobalHookRun (reference/addon-operator.md §5.4): runs a global hook, then reacts to the values it
 * changed (LIFECYCLE-STEPS steps 9, 11, 13): changed enabled flags reload all modules, changed global values
 * converge again (after afterAll, a schedule run, or a kubernetes run that asks for it).
 */
import { TaskResults } from '../../queue/index.js';
import { attemptHookRun, finishSync, skipsSynchronization, type TaskHandler } from './shared.js';

export const globalHookRun: TaskHandler<'GlobalHookRun'> = async (rt, task, queue, signal) => {
  const meta = task.metadata;
  if (skipsSynchronization(meta)) {
    finishSync(rt, task, meta);
    return TaskResults.success();
  }
  const checksumBefore = rt.manager.store.global.checksum();
  const r = await attemptHookRun(rt, task, meta, queue, signal);
  if (r.failure) return r.failure;
  finishSync(rt, task, meta);
  if (!r.outcome) return TaskResults.success();

  if (r.outcome.enabledFlagsChanged && rt.convergeStatus.firstPhase !== 'NotStarted') {
    rt.converge.requestReloadAll('ReloadAll-After-GlobalHookDynamicUpdate', true);
  }
  const changed = rt.manager.store.global.checksum() !== checksumBefore;
  if (meta.afterAllChecksum !== undefined) {
    if (rt.manager.store.global.checksum() !== meta.afterAllChecksum) rt.converge.request('GlobalValuesChanged', 'AfterAll-Hooks-Change-GlobalValues');
  } else if (changed && !meta.sync) {
    if (meta.bindingType === 'schedule') rt.converge.request('GlobalValuesChanged', 'Schedule-Change-GlobalValues');
    else if (meta.bindingType === 'kubernetes' && meta.reloadAllOnValuesChanges) rt.converge.request('GlobalValuesChanged', 'Kubernetes-Change-GlobalValues');
  }
  return TaskResults.success();
};
