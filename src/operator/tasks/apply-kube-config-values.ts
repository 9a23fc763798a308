/**
 * ApplyKubeConfigValues (LIFECYCLE-STEPS step 16): applies the latest config read from the ConfigMap,
 * its payload (parsed when read; a newer one replaces the payload of a task still waiting).
 * A changed global section or Enabled flag reloads all modules (restarting a converge in progress);
 * changed module sections run those modules, after their run in a converge in progress, never before
 * it; so do modules whose maintenance state changed. A module with an `enabled` script may change its state with its values: that reloads all
 * modules too.
 */
import { TaskResults, type TaskQueue } from '../../queue/index.js';
import { errorMessage } from '../../util/errors.js';
import { makeTask, type OperatorTask, type TaskMeta } from '../task-meta.js';
import type { TaskHandler } from './shared.js';

export const applyKubeConfigValues: TaskHandler<'ApplyKubeConfigValues'> = (rt, task, queue) => {
  let change;
  try {
    change = rt.manager.applyConfig(task.metadata.config);
    rt.opts.metrics?.configValid(true);
  } catch (e) {
    rt.opts.metrics?.configValid(false);
    rt.log.error({ error: errorMessage(e) }, 'the new config is invalid; the operator keeps the last valid one');
    return TaskResults.success();
  }
  if (rt.convergeStatus.firstPhase === 'NotStarted') return TaskResults.success();
  const scripted = change.modulesChanged.filter((m) => rt.manager.module(m).def.enabledScript !== undefined);
  if (change.globalChanged || change.enabledFlagsChanged || scripted.length > 0) {
    rt.converge.requestReloadAll('ReloadAll-After-KubeConfigChange');
    return TaskResults.success();
  }
  const head: OperatorTask[] = [];
  // a module whose maintenance state changed runs again, as one whose section changed (Go's ModuleMaintenanceChanged)
  for (const module of new Set([...change.modulesChanged, ...change.maintenanceChanged])) {
    if (!rt.isEnabled(module) || extraRunWaiting(queue, module)) continue;
    const run = makeTask({ kind: 'ModuleRun', module, doStartup: false, reloadAll: false, event: 'KubeConfig-Changed-Modules' });
    const inConverge = queue.tasks().find((t) => !t.processing && runsModule(t, module) && (t.metadata as { reloadAll: boolean }).reloadAll);
    if (inConverge) queue.addAfter(inConverge.id, run);
    else head.push(run);
  }
  return TaskResults.success({ afterTasks: head });
};

/** A ModuleRun or ParallelModuleRun task that runs `module`. */
function runsModule(t: OperatorTask, module: string): boolean {
  const m = t.metadata;
  return (m.kind === 'ModuleRun' && m.module === module) || (m.kind === 'ParallelModuleRun' && m.modules.some((x) => x.module === module));
}

/** A run of the module outside any converge waits in main already. */
function extraRunWaiting(queue: TaskQueue<TaskMeta>, module: string): boolean {
  return queue.tasks().some((t) => !t.processing && t.metadata.kind === 'ModuleRun' && !t.metadata.reloadAll && t.metadata.module === module);
}
