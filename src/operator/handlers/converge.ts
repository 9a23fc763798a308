/**
 * The "reload all modules" process and the start-up tasks around it (LIFECYCLE-STEPS steps 1–8,
 * reference/addon-operator.md §5.3–§5.5): enabling global bindings, waiting for their
 * Synchronization, ConvergeModules with its phases, DiscoverHelmReleases, ModulePurge and
 * ApplyKubeConfigValues.
 */
import { lifecycleContext } from '../../hooks/binding-context.js';
import { hooksInOrder } from '../../hooks/order.js';
import { TaskResults, type TaskQueue, type TaskResult } from '../../queue/index.js';
import { errorMessage } from '../../util/errors.js';
import type { Runtime } from '../runtime.js';
import { endConvergeInProgress } from '../converge-restart.js';
import { makeTask, type EnableBindingsMeta, type OperatorTask, type TaskMeta } from '../tasks.js';

/** How long a waiting task sleeps between checks (shell-operator polls every 125 ms). */
export const WAIT_POLL_MS = 100;

export function enableScheduleBindings(rt: Runtime, task: OperatorTask): TaskResult<TaskMeta> {
  rt.bindingsOf((task.metadata as EnableBindingsMeta).hook).enableSchedules();
  return TaskResults.success();
}

/**
 * Starts the monitors of a global hook and queues one Synchronization run per binding: runs for
 * `main` go first; runs for other queues are appended there, and start-up waits for those with
 * waitForSynchronization.
 */
export async function enableKubernetesBindings(rt: Runtime, task: OperatorTask): Promise<TaskResult<TaskMeta>> {
  const hook = (task.metadata as EnableBindingsMeta).hook;
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
      if (binding.waitForSynchronization) rt.pendingGlobalSync.add(t.id);
      rt.queues.addLast(t);
    }
  }
  return TaskResults.success({ headTasks: head });
}

export function waitKubernetesSynchronization(rt: Runtime): TaskResult<TaskMeta> {
  if (rt.pendingGlobalSync.size > 0) return TaskResults.repeat({ delayBeforeNextTask: WAIT_POLL_MS });
  return TaskResults.success();
}

function globalLifecycleTasks(rt: Runtime, binding: 'beforeAll' | 'afterAll'): OperatorTask[] {
  const hooks = hooksInOrder(rt.manager.globalHooks, binding);
  const checksum = binding === 'afterAll' ? rt.manager.store.global.checksum() : undefined;
  return hooks.map((hook, i) =>
    makeTask({
      kind: 'GlobalHookRun',
      hook,
      bindingType: binding,
      contexts: [lifecycleContext(hook.config, binding)],
      event: binding === 'beforeAll' ? 'BeforeAll' : 'AfterAll',
      allowFailure: false,
      reloadAllOnValuesChanges: false,
      // the last afterAll hook compares the global values with those before the first one
      ...(checksum !== undefined && i === hooks.length - 1 ? { afterAllChecksum: checksum } : {}),
    }),
  );
}

/**
 * One ModuleRun per enabled module, in order; with `--parallel-module-runs` above 1, modules that
 * share an order number go as one ParallelModuleRun (DESIGN decision 7).
 */
function moduleRunTasks(rt: Runtime, enabled: readonly string[]): OperatorTask[] {
  const event = 'Reload-All-Modules';
  // onStartup is owed until it ran once since the module was enabled, even if a restart cut that run
  const owed = (module: string) => !rt.peekModuleState(module)?.startupDone;
  const single = (module: string) => makeTask({ kind: 'ModuleRun', module, doStartup: owed(module), reloadAll: true, event });
  if (rt.opts.parallelModuleRuns <= 1) return enabled.map(single);
  const groups: string[][] = [];
  let order: number | undefined;
  for (const module of enabled) {
    const o = rt.manager.module(module).def.order;
    if (o === order) groups.at(-1)!.push(module);
    else groups.push([module]);
    order = o;
  }
  return groups.map((g) =>
    g.length === 1 ? single(g[0]!) : makeTask({ kind: 'ParallelModuleRun', modules: g.map((module) => ({ module, doStartup: owed(module) })), reloadAll: true, event }),
  );
}

/**
 * ConvergeModules: beforeAll hooks → module discovery → ModuleDelete/ModuleRun → afterAll hooks. Each
 * step's tasks go in front of this task, which then runs again for the next step (Keep).
 */
export async function convergeModules(rt: Runtime, task: OperatorTask, queue: TaskQueue<TaskMeta>): Promise<TaskResult<TaskMeta>> {
  if (rt.convergeTaskId !== task.id) {
    // a restart: this task was put in front of the converge in progress, which ends here
    if (rt.convergeTaskId !== undefined) await endConvergeInProgress(rt, task, queue);
    rt.convergePhase = 'StandBy';
  }
  for (;;) {
    switch (rt.convergePhase) {
      case 'StandBy': {
        // converges waiting in main add nothing: this one reads the latest state
        queue.removeWhere((t) => t !== task && !t.processing && t.metadata.kind === 'ConvergeModules');
        rt.convergeTaskId = task.id;
        rt.convergePhase = 'WaitBeforeAll';
        const before = globalLifecycleTasks(rt, 'beforeAll');
        if (before.length) return TaskResults.keep({ headTasks: before });
        break;
      }
      case 'WaitBeforeAll': {
        let discovery;
        try {
          discovery = await rt.manager.discover();
        } catch (e) {
          rt.log.error({ error: errorMessage(e) }, `module discovery failed; retrying in ${rt.opts.discoveryRetryMs / 1000}s`);
          return TaskResults.fail(e, { delayBeforeNextTask: rt.opts.discoveryRetryMs });
        }
        for (const name of discovery.toDisable) {
          for (const hook of await rt.manager.moduleHooks(name)) rt.bindingsOf(hook).disableSchedules();
          rt.pendingDeletes.add(name);
        }
        // deletions a restart cut short are still owed, unless the module is enabled again
        const enabledNow = new Set(discovery.enabled);
        for (const name of rt.pendingDeletes) {
          if (!enabledNow.has(name)) continue;
          rt.pendingDeletes.delete(name);
          if (rt.peekModuleState(name)?.completedOnce) for (const hook of await rt.manager.moduleHooks(name)) rt.bindingsOf(hook).enableSchedules();
        }
        // in reverse module order
        const toDelete = rt.manager.set.modules.map((m) => m.def.name).filter((n) => rt.pendingDeletes.has(n)).reverse();
        const head: OperatorTask[] = [
          ...toDelete.map((module) => makeTask({ kind: 'ModuleDelete', module, event: 'Reload-All-Modules' })),
          ...moduleRunTasks(rt, discovery.enabled),
        ];
        // every module not enabled now, in module order; `deleting`: those whose release goes now
        const disabled = rt.manager.set.modules.map((m) => m.def.name).filter((n) => !enabledNow.has(n));
        rt.log.info({ enabled: discovery.enabled, disabled, deleting: toDelete }, 'modules discovered');
        rt.convergePhase = 'WaitDeleteAndRunModules';
        if (head.length) return TaskResults.keep({ headTasks: head });
        break;
      }
      case 'WaitDeleteAndRunModules': {
        rt.convergePhase = 'WaitAfterAll';
        const after = globalLifecycleTasks(rt, 'afterAll');
        if (after.length) return TaskResults.keep({ headTasks: after });
        break;
      }
      case 'WaitAfterAll':
        rt.convergePhase = 'StandBy';
        rt.convergeTaskId = undefined;
        return TaskResults.success();
    }
  }
}

/** After the first converge: releases in the namespace that no enabled module owns are purged. */
export async function discoverHelmReleases(rt: Runtime): Promise<TaskResult<TaskMeta>> {
  const releases = await rt.opts.helm.listReleases(rt.opts.namespace);
  const enabled = new Set(rt.manager.enabledModules);
  const purge = releases.filter((r) => !enabled.has(r) && r !== rt.opts.helmIgnoreRelease).sort().reverse();
  return TaskResults.success({ afterTasks: purge.map((release) => makeTask({ kind: 'ModulePurge', release, event: 'Discover-Helm-Releases' })) });
}

/** Uninstalls a release that no module owns; failures are only logged (no hooks, no retry). */
export async function modulePurge(rt: Runtime, task: OperatorTask): Promise<TaskResult<TaskMeta>> {
  const release = (task.metadata as { release: string }).release;
  try {
    await rt.opts.helm.uninstall(release, rt.opts.namespace);
    rt.log.info({ release }, 'release without a module purged');
  } catch (e) {
    rt.log.error({ release, error: errorMessage(e) }, 'purging a release without a module failed');
  }
  return TaskResults.success();
}

/**
 * Applies the latest config read from the ConfigMap (LIFECYCLE-STEPS step 16): a changed global
 * section or Enabled flag reloads all modules (restarting a converge in progress); changed module
 * sections run those modules, after their run in a converge in progress, never before it. A module
 * with an `enabled` script may change its state with its values: that reloads all modules too.
 */
export function applyKubeConfigValues(rt: Runtime, queue: TaskQueue<TaskMeta>): TaskResult<TaskMeta> {
  const config = rt.pendingConfig;
  rt.pendingConfig = undefined;
  if (!config) return TaskResults.success();
  let change;
  try {
    change = rt.manager.applyConfig(config);
    rt.opts.metrics?.configValid(true);
  } catch (e) {
    rt.opts.metrics?.configValid(false);
    rt.log.error({ error: errorMessage(e) }, 'the new config is invalid; the operator keeps the last valid one');
    return TaskResults.success();
  }
  if (rt.converge.firstPhase === 'NotStarted') return TaskResults.success();
  const scripted = change.modulesChanged.filter((m) => rt.manager.module(m).def.enabledScript !== undefined);
  if (change.globalChanged || change.enabledFlagsChanged || scripted.length > 0) {
    rt.requestReloadAll('ReloadAll-After-KubeConfigChange');
    return TaskResults.success();
  }
  const head: OperatorTask[] = [];
  for (const module of change.modulesChanged) {
    if (!rt.isEnabled(module) || extraRunWaiting(queue, module)) continue;
    const run = makeTask({ kind: 'ModuleRun', module, doStartup: false, reloadAll: false, event: 'KubeConfig-Changed-Modules' });
    const inConverge = queue.tasks().find((t) => !t.processing && runsModule(t, module) && (t.metadata as { reloadAll: boolean }).reloadAll);
    if (inConverge) queue.addAfter(inConverge.id, run);
    else head.push(run);
  }
  return TaskResults.success({ afterTasks: head });
}

/** A ModuleRun or ParallelModuleRun task that runs `module`. */
function runsModule(t: OperatorTask, module: string): boolean {
  const m = t.metadata;
  return (m.kind === 'ModuleRun' && m.module === module) || (m.kind === 'ParallelModuleRun' && m.modules.some((x) => x.module === module));
}

/** A run of the module outside any converge waits in main already. */
function extraRunWaiting(queue: TaskQueue<TaskMeta>, module: string): boolean {
  return queue.tasks().some((t) => !t.processing && t.metadata.kind === 'ModuleRun' && !t.metadata.reloadAll && t.metadata.module === module);
}
