/**
 * ModuleDelete (LIFECYCLE-STEPS step 6): deletes a disabled module. Its queued hook runs in named
 * queues go, schedules stop, the release is uninstalled (beforeDeleteHelm first when there is one),
 * afterDeleteHelm hooks run, monitors stop, and its volatile state is forgotten; its config values
 * stay (DESIGN §4.9).
 */
import { TaskResults } from '../../queue/index.js';
import { runLifecycle, type TaskHandler } from './shared.js';

export const moduleDelete: TaskHandler<'ModuleDelete'> = async (rt, task, queue) => {
  const { module } = task.metadata;
  const hooks = await rt.manager.moduleHooks(module);
  for (const q of rt.queues.queues()) {
    if (q === rt.main) continue;
    q.removeWhere((t) => !t.processing && t.metadata.kind === 'ModuleHookRun' && t.metadata.module === module);
  }
  for (const hook of hooks) rt.bindingsOf(hook).disableSchedules();
  const m = rt.manager.module(module);
  const releases = await rt.opts.helm.listReleases(rt.opts.namespace);
  if (releases.includes(module)) {
    await runLifecycle(rt, module, hooks, 'beforeDeleteHelm', queue.name);
    await rt.opts.helm.uninstall(module, rt.opts.namespace);
    rt.log.info({ module, release: module }, 'helm release deleted');
  }
  await runLifecycle(rt, module, hooks, 'afterDeleteHelm', queue.name);
  for (const hook of hooks) await rt.bindingsOf(hook).disable();
  rt.manager.resetModule(m.def.name);
  rt.resetModuleState(module);
  rt.converge.deleteDone(module);
  return TaskResults.success();
};
