/**
 * ModuleRun (LIFECYCLE-STEPS step 5, reference/addon-operator.md §5.6): the phases of a module run —
 * onStartup, Synchronization of its kubernetes bindings, schedules, beforeHelm, Helm, afterHelm. A run
 * of a parallel group reports its success to the group, a functional module's to the functional scheduler;
 * a functional module's failed run goes to the tail of its parallel queue when other tasks wait there.
 */
import { onStartupContext } from '../../hooks/binding-context.js';
import type { Hook } from '../../hooks/hook.js';
import { hooksInOrder } from '../../hooks/order.js';
import { TaskResults, type TaskQueue, type TaskResult } from '../../queue/index.js';
import { MISSING_CRD_RETRY_MS, missingCrdError } from '../webhooks.js';
import type { Runtime } from '../runtime.js';
import { isParallelQueue, makeTask, type OperatorTask, type TaskMeta } from '../task-meta.js';
import { prestartMonitors, stopPrestarted } from '../prestart-monitors.js';
import { runLifecycle, WAIT_POLL_MS, type TaskHandler, type TaskOf } from './shared.js';

/** Starts the module's monitors and queues their Synchronization runs; returns those for this queue. */
async function queueSynchronization(rt: Runtime, module: string, hooks: readonly Hook[], queue: TaskQueue<TaskMeta>): Promise<OperatorTask[]> {
  const state = rt.moduleState(module);
  const head: OperatorTask[] = [];
  for (const hook of hooks) {
    for (const { binding, context } of await rt.bindingsOf(hook).enableKubernetes()) {
      const t = makeTask(
        {
          kind: 'ModuleHookRun',
          module,
          hook,
          bindingType: 'kubernetes',
          contexts: [context],
          event: 'Kubernetes-Synchronization',
          allowFailure: binding.allowFailure,
          sync: { binding: binding.name, wait: binding.waitForSynchronization },
        },
        binding.queue === rt.main.name && isParallelQueue(queue.name) ? queue.name : binding.queue,
      );
      // in a parallel queue, the module's bindings on main run in that queue (as in the Go operator)
      if (binding.queue === queue.name || (binding.queue === rt.main.name && isParallelQueue(queue.name))) head.push(t);
      else {
        if (binding.waitForSynchronization) state.pendingSync.add(t.id);
        rt.queues.addLast(t);
      }
    }
  }
  return head;
}

export const moduleRun: TaskHandler<'ModuleRun'> = async (rt, task, queue) => {
  const result = await runModule(rt, task, queue);
  const meta = task.metadata;
  if (meta.parallelGroup && result.status === 'Success') rt.converge.parallelModuleDone(meta.parallelGroup, meta.module);
  // a functional module is done when its run succeeded without a rerun queued after it (as in Go)
  if (meta.functional && result.status === 'Success' && !result.afterTasks?.length) {
    rt.functional.markDone(meta.module);
    if (rt.functional.finished()) rt.main.cancelDelay();
  }
  // a failed functional module goes behind the modules queued after it in its parallel queue, as in Go
  if (meta.functional && result.status === 'Fail') return { ...result, requeue: true };
  return result;
};

async function runModule(rt: Runtime, task: TaskOf<'ModuleRun'>, queue: TaskQueue<TaskMeta>): Promise<TaskResult<TaskMeta>> {
  const meta = task.metadata;
  const { module } = meta;
  if (!rt.isEnabled(module)) {
    await stopPrestarted(rt, module);
    return TaskResults.success();
  }
  const state = rt.moduleState(module);
  const hooks = await rt.manager.moduleHooks(module);
  // after the converge's CRDs are in place and before the first Synchronization
  await prestartMonitors(rt, rt.manager.enabledModules);
  try {
    if (state.phase === 'Startup') {
      // once per enabling: a run cut short by a converge restart does not repeat them (docs/operator.md)
      if (!state.startupDone) {
        for (const hook of hooksInOrder(hooks, 'onStartup')) await rt.hookRunner.runModuleHook(module, hook, [onStartupContext()], 'onStartup', queue.name);
        state.startupDone = true;
      }
      state.phase = 'QueueSynchronizationTasks';
    }
    if (state.phase === 'QueueSynchronizationTasks') {
      const head = await queueSynchronization(rt, module, hooks, queue);
      state.phase = 'WaitForSynchronization';
      if (head.length) return TaskResults.keep({ headTasks: head });
    }
    if (state.phase === 'WaitForSynchronization') {
      if (state.pendingSync.size > 0) return TaskResults.repeat({ delayBeforeNextTask: WAIT_POLL_MS });
      state.phase = 'EnableScheduleBindings';
    }
    if (state.phase === 'EnableScheduleBindings') {
      for (const hook of hooks) rt.bindingsOf(hook).enableSchedules();
      state.phase = 'CanRunHelm';
    }
    const changedByAfterHelm = await runHelmPhase(rt, module, hooks, queue.name);
    state.phase = 'Ready';
    state.completedOnce = true;
    if (!changedByAfterHelm) return TaskResults.success();
    return TaskResults.success({
      afterTasks: [makeTask({ kind: 'ModuleRun', module, doStartup: false, reloadAll: meta.reloadAll, event: 'AfterHelm-Hooks-Change-Values', ...(meta.functional ? { functional: true } : {}) }, queue.name)],
    });
  } catch (e) {
    // a module that never completed a run starts over from its onStartup hooks (DESIGN §4.13)
    state.phase = state.completedOnce ? 'CanRunHelm' : 'Startup';
    if (!state.completedOnce) state.startupDone = false;
    return TaskResults.fail(e);
  }
}

/** beforeHelm → helm upgrade --install → afterHelm; true when afterHelm changed the module's values. */
async function runHelmPhase(rt: Runtime, module: string, hooks: readonly Hook[], queue: string): Promise<boolean> {
  const m = rt.manager.module(module);
  await runLifecycle(rt, module, hooks, 'beforeHelm', queue);
  if (m.def.hasChart) {
    // the values Helm gets must satisfy openapi/values.yaml with x-required-for-helm (Go's checkHelmValues),
    // the global ones the global schema's too (Go checks only the module's: docs/compatibility.md)
    rt.manager.store.global.validateEffective('helm');
    m.values.validateEffective('helm');
    const values = rt.manager.store.helmValues(m.def.valuesKey);
    const started = performance.now();
    const activation = rt.activation();
    const metrics = rt.opts.metrics;
    const outcome = await rt.opts.helm.upgradeInstall({
      release: module,
      namespace: rt.opts.namespace,
      chartDir: m.def.path,
      values,
      ...(rt.manager.inMaintenance(module) ? { noResourceReconciliation: true } : {}),
      ...(m.def.helmWait !== undefined ? { wait: m.def.helmWait, waitSource: `helmWait in ${m.def.definitionFile ?? 'module.yaml'}` } : {}),
      ...(metrics ? { onOperation: (operation, seconds) => metrics.helmOperation(module, activation, operation, seconds) } : {}),
    });
    metrics?.moduleHelm(module, activation, (performance.now() - started) / 1000);
    rt.activity.release(module, outcome);
    rt.log.debug({ module, release: module, outcome }, outcome === 'unchanged' ? 'helm release is up to date' : outcome === 'unmanaged' ? 'helm release is unmanaged (maintenance NoResourceReconciliation), skip helm upgrade' : `helm release ${outcome}`);
  }
  // the module's conversion webhooks go to its CRDs once its chart made them
  if (rt.webhooks && hooks.some((h) => h.config.webhooks.length)) {
    const missing = (await rt.webhooks.refresh(module)).filter((w) => w.module === module);
    if (missing.length) rt.log.error({ module, error: missingCrdError(missing).message }, `conversion webhooks not registered; tried again after ${MISSING_CRD_RETRY_MS / 1000} s, then less often, while the module is enabled`);
  }
  const before = m.values.checksum();
  await runLifecycle(rt, module, hooks, 'afterHelm', queue);
  return m.values.checksum() !== before;
}
