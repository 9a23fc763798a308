/**
 * ModuleRun and ModuleDelete (LIFECYCLE-STEPS steps 5–6, reference/addon-operator.md §5.6): the phases
 * of a module run — onStartup, Synchronization of its kubernetes bindings, schedules, beforeHelm,
 * Helm, afterHelm — and the deletion of a disabled module.
 */
import { lifecycleContext, onStartupContext } from '../../hooks/binding-context.js';
import type { Hook } from '../../hooks/hook.js';
import { hooksInOrder } from '../../hooks/order.js';
import type { ModuleLifecycleBinding } from '../../hooks/config-types.js';
import { TaskResults, type TaskQueue, type TaskResult } from '../../queue/index.js';
import type { Runtime } from '../runtime.js';
import { makeTask, type ModuleDeleteMeta, type ModuleRunMeta, type OperatorTask, type ParallelModuleRunMeta, type TaskMeta } from '../tasks.js';
import { WAIT_POLL_MS } from './converge.js';

async function runLifecycle(rt: Runtime, module: string, hooks: readonly Hook[], binding: ModuleLifecycleBinding, queue: string): Promise<void> {
  for (const hook of hooksInOrder(hooks, binding)) {
    await rt.runModuleHook(module, hook, [lifecycleContext(hook.config, binding)], binding, queue);
  }
}

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

/** Queues of parallel module runs: `parallel_queue_N`, as in the Go operator. */
export const PARALLEL_QUEUE_PREFIX = 'parallel_queue_';
const isParallelQueue = (name: string) => name.startsWith(PARALLEL_QUEUE_PREFIX);

/**
 * ParallelModuleRun: one ModuleRun per module of the group into at most N parallel queues (each
 * queue runs its modules one by one, so at most N run at once); done when every one has succeeded. A
 * failing module is retried in its own queue, alone. Main waits here, so the next order number
 * starts only after the whole group.
 */
export function parallelModuleRun(rt: Runtime, task: OperatorTask): TaskResult<TaskMeta> {
  const meta = task.metadata as ParallelModuleRunMeta;
  let pending = rt.parallelGroups.get(task.id);
  if (!pending) {
    const live = meta.modules.filter((m) => rt.isEnabled(m.module));
    pending = new Set(live.map((m) => m.module));
    rt.parallelGroups.set(task.id, pending);
    const n = Math.min(rt.opts.parallelModuleRuns, live.length);
    live.forEach((m, i) =>
      rt.queues.addLast(
        makeTask({ kind: 'ModuleRun', module: m.module, doStartup: m.doStartup, reloadAll: meta.reloadAll, event: meta.event, parallelGroup: task.id }, `${PARALLEL_QUEUE_PREFIX}${i % n}`),
      ),
    );
    rt.log.info({ modules: live.map((m) => m.module), queues: n }, 'parallel module run started');
  }
  // woken by the last module's success (Runtime.parallelModuleDone); the poll is a fallback
  if (pending.size > 0) return TaskResults.repeat({ delayBeforeNextTask: 1000 });
  rt.parallelGroups.delete(task.id);
  return TaskResults.success();
}

export async function moduleRun(rt: Runtime, task: OperatorTask, queue: TaskQueue<TaskMeta>): Promise<TaskResult<TaskMeta>> {
  const result = await runModule(rt, task, queue);
  const meta = task.metadata as ModuleRunMeta;
  if (meta.parallelGroup && result.status === 'Success') rt.parallelModuleDone(meta.parallelGroup, meta.module);
  return result;
}

async function runModule(rt: Runtime, task: OperatorTask, queue: TaskQueue<TaskMeta>): Promise<TaskResult<TaskMeta>> {
  const meta = task.metadata as ModuleRunMeta;
  const { module } = meta;
  if (!rt.isEnabled(module)) return TaskResults.success();
  const state = rt.moduleState(module);
  const hooks = await rt.manager.moduleHooks(module);
  try {
    if (state.phase === 'Startup') {
      // once per enabling: a run cut short by a converge restart does not repeat them (docs/operator.md)
      if (!state.startupDone) {
        for (const hook of hooksInOrder(hooks, 'onStartup')) await rt.runModuleHook(module, hook, [onStartupContext()], 'onStartup', queue.name);
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
      afterTasks: [makeTask({ kind: 'ModuleRun', module, doStartup: false, reloadAll: meta.reloadAll, event: 'AfterHelm-Hooks-Change-Values' })],
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
    // the values Helm gets must satisfy openapi/values.yaml with x-required-for-helm (Go's checkHelmValues)
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
      ...(metrics ? { onOperation: (operation, seconds) => metrics.helmOperation(module, activation, operation, seconds) } : {}),
    });
    metrics?.moduleHelm(module, activation, (performance.now() - started) / 1000);
    rt.activity.release(module, outcome);
    rt.log.debug({ module, release: module, outcome }, outcome === 'unchanged' ? 'helm release is up to date' : `helm release ${outcome}`);
  }
  const before = m.values.checksum();
  await runLifecycle(rt, module, hooks, 'afterHelm', queue);
  return m.values.checksum() !== before;
}

/**
 * Deletes a disabled module: its queued hook runs in named queues go, schedules stop, the release is
 * uninstalled (beforeDeleteHelm first when there is one), afterDeleteHelm hooks run, monitors stop, and
 * its volatile state is forgotten; its config values stay (DESIGN §4.9).
 */
export async function moduleDelete(rt: Runtime, task: OperatorTask, queue: TaskQueue<TaskMeta>): Promise<TaskResult<TaskMeta>> {
  const { module } = task.metadata as ModuleDeleteMeta;
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
  rt.pendingDeletes.delete(module);
  return TaskResults.success();
}
