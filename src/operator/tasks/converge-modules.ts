/**
 * ConvergeModules, "reload all modules" (LIFECYCLE-STEPS steps 3–8, reference/addon-operator.md §5.5):
 * beforeAll hooks → module discovery → ModuleDelete/ModuleRun of critical modules → functional modules
 * (functional-scheduler.ts) → afterAll hooks. Each step's tasks go
 * in front of this task, which then runs again for the next step (Keep). A ConvergeModules that is not
 * the converge in progress restarts it (converge-restart.ts).
 */
import { lifecycleContext } from '../../hooks/binding-context.js';
import { hooksInOrder } from '../../hooks/order.js';
import { TaskResults } from '../../queue/index.js';
import { UserErrors, errorMessage } from '../../util/errors.js';
import type { Runtime } from '../runtime.js';
import { endConvergeInProgress } from '../converge-restart.js';
import { makeTask, type OperatorTask } from '../task-meta.js';
import type { TaskHandler } from './shared.js';
import { missingCrdError } from '../webhooks.js';

/**
 * The webhook bindings of the global hooks and the enabled modules, served and registered as discovery
 * left them (a disabled module's leave). A global hook's conversion binding for a CRD that does not
 * exist stops the operator at start-up; a module's CRD may come with its chart (checked after its run).
 */
async function refreshWebhooks(rt: Runtime): Promise<Error | undefined> {
  if (!rt.webhooks) return undefined;
  const missing = (await rt.webhooks.refresh()).filter((m) => m.module === undefined);
  if (!missing.length) return undefined;
  const err = missingCrdError(missing);
  if (!rt.convergeStatus.ready) {
    rt.fail(err);
    return err;
  }
  rt.log.error({ error: err.message }, 'conversion webhooks not registered');
  return undefined;
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

/** onStartup is owed until it ran once since the module was enabled, even if a restart cut that run. */
const startupOwed = (rt: Runtime, module: string) => !rt.peekModuleState(module)?.startupDone;

/**
 * One ModuleRun per enabled critical module, in order; with `--parallel-module-runs` above 1, modules
 * that share an order number go as one ParallelModuleRun (DESIGN decision 7).
 */
function moduleRunTasks(rt: Runtime, enabled: readonly string[]): OperatorTask[] {
  const event = 'Reload-All-Modules';
  const owed = (module: string) => startupOwed(rt, module);
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
 * The enabled functional modules go to the functional scheduler, each with the functional modules it
 * requires (critical ones are done before any functional module starts, as in Go); they start once the critical
 * modules' runs are done (the WaitDeleteAndRunModules phase).
 */
function scheduleFunctional(rt: Runtime, functional: readonly string[]): void {
  const set = new Set(functional);
  rt.functional.reset();
  rt.functional.add(
    ...functional.map((module) => ({
      module,
      doStartup: startupOwed(rt, module),
      // a required module outside this set is critical (done first) or disabled (so is this one then)
      requires: rt.manager.module(module).def.requires.filter((r) => set.has(r.module)),
    })),
  );
}

/**
 * Ahead of the converge's deletes and runs, as the Go operator queues them: ModuleEnsureCRDs for each
 * newly enabled module with crds/ (every enabled one at the first converge), then ModuleEnsureHooks
 * for each enabled module whose templates name a ConversionWebhook.
 */
function ensureTasks(rt: Runtime, enabled: readonly string[], newlyEnabled: ReadonlySet<string>): OperatorTask[] {
  const first = !rt.convergeStatus.ready;
  const def = (m: string) => rt.manager.module(m).def;
  return [
    ...enabled.filter((m) => def(m).hasCrds && (first || newlyEnabled.has(m))).map((module) => makeTask({ kind: 'ModuleEnsureCRDs', module, event: 'EnsureCRDs' })),
    ...enabled.filter((m) => def(m).hasChart && def(m).hasConversionWebhooks).map((module) => makeTask({ kind: 'ModuleEnsureHooks', module, event: 'EnsureHooks' })),
  ];
}

/**
 * A module whose module.yaml asks for a confirmation before it is disabled (`disable.confirmation`),
 * disabled by the ConfigMap: Deckhouse's webhook would have refused its ModuleConfig without the
 * `modules.deckhouse.io/allow-disabling` annotation; this operator has no such gate, so it says so
 * with the module's message (docs/compatibility.md).
 */
function warnUnconfirmedDisable(rt: Runtime, module: string): void {
  const { disable, definitionFile } = rt.manager.module(module).def;
  const reason = rt.manager.decision(module)?.reason;
  if (!disable?.confirmation || reason?.kind !== 'configmap') return;
  rt.log.warn(
    { module, key: reason.key, definition: definitionFile, message: disable.message },
    `module ${module} disabled by ConfigMap key "${reason.key}" without the confirmation its module.yaml asks for (disable.confirmation; not enforced here)${disable.message ? `: ${disable.message}` : ''}`,
  );
}

export const convergeModules: TaskHandler<'ConvergeModules'> = async (rt, task, queue) => {
  // another converge in progress: this task was put in front of it (a restart), and it ends here
  await rt.converge.takeOver(task, () => endConvergeInProgress(rt, task, queue));
  for (;;) {
    switch (rt.converge.phase) {
      case 'StandBy': {
        // converges waiting in main add nothing: this one reads the latest state
        queue.removeWhere((t) => t !== task && !t.processing && t.metadata.kind === 'ConvergeModules');
        rt.converge.begin(task);
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
        if (discovery.invalidConfigs.length) {
          // checked as the modules become enabled: fatal at start-up (VALUES.md), later the last valid config stays
          const err = new UserErrors('config values are not valid', discovery.invalidConfigs);
          if (!rt.convergeStatus.ready) {
            rt.fail(err);
            return TaskResults.fail(err, { delayBeforeNextTask: rt.opts.discoveryRetryMs });
          }
          rt.log.error({ error: err.message }, 'a module being enabled has an invalid config; it keeps its last valid one');
        }
        const fatal = await refreshWebhooks(rt);
        if (fatal) return TaskResults.fail(fatal, { delayBeforeNextTask: rt.opts.discoveryRetryMs });
        for (const name of discovery.toDisable) {
          for (const hook of await rt.manager.moduleHooks(name)) rt.bindingsOf(hook).disableSchedules();
          rt.converge.owesDelete(name);
          warnUnconfirmedDisable(rt, name);
        }
        // deletions a restart cut short are still owed, unless the module is enabled again
        const enabledNow = new Set(discovery.enabled);
        for (const name of rt.converge.forgiveDeletes(enabledNow)) {
          if (rt.peekModuleState(name)?.completedOnce) for (const hook of await rt.manager.moduleHooks(name)) rt.bindingsOf(hook).enableSchedules();
        }
        // in reverse module order
        const toDelete = rt.manager.set.modules.map((m) => m.def.name).filter((n) => rt.converge.owes(n)).reverse();
        const critical = discovery.enabled.filter((m) => rt.manager.module(m).def.critical);
        const functional = discovery.enabled.filter((m) => !rt.manager.module(m).def.critical);
        scheduleFunctional(rt, functional);
        const head: OperatorTask[] = [
          ...ensureTasks(rt, discovery.enabled, new Set(discovery.toEnable)),
          ...toDelete.map((module) => makeTask({ kind: 'ModuleDelete', module, event: 'Reload-All-Modules' })),
          ...moduleRunTasks(rt, critical),
        ];
        // every module not enabled now, in module order; `deleting`: those whose release goes now
        const disabled = rt.manager.set.modules.map((m) => m.def.name).filter((n) => !enabledNow.has(n));
        rt.log.info({ enabled: discovery.enabled, disabled, deleting: toDelete, ...(functional.length ? { functional } : {}) }, 'modules discovered');
        rt.converge.modulesQueued();
        if (head.length) return TaskResults.keep({ headTasks: head });
        break;
      }
      case 'WaitDeleteAndRunModules': {
        // the critical modules are done: the functional ones run in the parallel queues as their requirements allow
        rt.functional.kick();
        // woken by the last functional module's success (module-run.ts); the poll is a fallback
        if (!rt.functional.finished()) return TaskResults.repeat({ delayBeforeNextTask: 1000 });
        rt.converge.afterAllQueued();
        const after = globalLifecycleTasks(rt, 'afterAll');
        if (after.length) return TaskResults.keep({ headTasks: after });
        break;
      }
      case 'WaitAfterAll':
        rt.converge.finish();
        return TaskResults.success();
    }
  }
};
