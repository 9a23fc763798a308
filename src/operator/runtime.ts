/**
 * What the task handlers share: the module manager, the queues, the ports, the event sources of
 * every hook, the per-module run state and the converge state; and the one way to run a hook and
 * apply all of its outputs (values, config, metrics, Kubernetes operations).
 */
import type { Logger } from 'pino';
import type { ModuleManager, HookRunOutcome } from '../modules/manager.js';
import type { Hook } from '../hooks/hook.js';
import type { CpuUsage } from '../hooks/spawner.js';
import { HookRunError } from '../hooks/executor.js';
import { errorMessage } from '../util/errors.js';
import type { BindingContext } from '../hooks/binding-context.js';
import { hookLineLogger } from '../log/logger.js';
import type { HookMetricsStorage } from '../metrics/hook-metrics.js';
import type { QueueSet } from '../queue/index.js';
import type { ScheduleManager } from '../schedule/index.js';
import type { ConfigData } from '../config/configmap.js';
import type { ConfigSource, HelmPort, KubernetesPort } from './ports.js';
import { HookBindings, type HookEventSink } from './hook-bindings.js';
import { ConvergeStatus } from './converge-status.js';
import { RateLimiter } from '../util/rate-limit.js';
import { Activity } from './activity.js';
import type { OperatorMetrics } from '../metrics/operator-metrics.js';
import { hookLabel, isParallelQueue, makeTask, type BindingType, type ConvergeEvent, type OperatorTask, type TaskMeta } from './task-meta.js';

/** ModuleRun phases (reference/addon-operator.md §5.6). */
export type ModulePhase = 'Startup' | 'QueueSynchronizationTasks' | 'WaitForSynchronization' | 'EnableScheduleBindings' | 'CanRunHelm' | 'Ready';

export interface ModuleState {
  phase: ModulePhase;
  /** A run reached Ready once since the module was enabled (DESIGN §4.13). */
  completedOnce: boolean;
  /** The onStartup hooks ran since the module was enabled: the next run skips them. */
  startupDone: boolean;
  /** Synchronization runs in other queues that the module run waits for, by task id. */
  pendingSync: Set<string>;
}

/** Phases of a ConvergeModules task (reference §5.5). */
export type ConvergePhase = 'StandBy' | 'WaitBeforeAll' | 'WaitDeleteAndRunModules' | 'WaitAfterAll';

export interface RuntimeOptions {
  manager: ModuleManager;
  namespace: string;
  kube: KubernetesPort | undefined;
  helm: HelmPort;
  config: ConfigSource | undefined;
  logger: Logger;
  hookMetrics: HookMetricsStorage | undefined;
  schedules: ScheduleManager;
  queues: QueueSet<TaskMeta>;
  /** A release never purged (HELM_IGNORE_RELEASE, DESIGN §4.10). */
  helmIgnoreRelease?: string;
  /** Delay before retrying a failed module discovery (LIFECYCLE.md: 5 s). */
  discoveryRetryMs: number;
  proxyHookJsonLogs?: boolean;
  metrics?: OperatorMetrics;
  /** Modules of one order number run at most this many at once (1: one by one; DESIGN decision 7). */
  parallelModuleRuns: number;
}

const contextBinding = (c: BindingContext): string => (c.type === 'onStartup' ? 'onStartup' : c.binding);

/** The bindings of a run's contexts, once each, in order ("a,b"); undefined without contexts. */
function bindingsOf(contexts: readonly BindingContext[]): string | undefined {
  // one context is most runs: no arrays
  if (contexts.length <= 1) return contexts.length ? contextBinding(contexts[0]!) : undefined;
  return [...new Set(contexts.map(contextBinding))].join(',');
}

export class Runtime {
  readonly manager: ModuleManager;
  readonly queues: QueueSet<TaskMeta>;
  readonly log: Logger;
  readonly converge = new ConvergeStatus();
  readonly activity = new Activity();
  convergePhase: ConvergePhase = 'StandBy';
  /** The ConvergeModules task in progress (phase ≠ StandBy). */
  convergeTaskId: string | undefined;
  /** Global sync runs in other queues that start-up waits for, by task id. */
  readonly pendingGlobalSync = new Set<string>();
  /** The last config read from the source, waiting for an ApplyKubeConfigValues task. */
  pendingConfig: ConfigData | undefined;
  /** Modules a discovery disabled whose ModuleDelete has not run yet (a restart keeps them). */
  readonly pendingDeletes = new Set<string>();
  private readonly bindings = new Map<string, HookBindings>();
  private readonly limiters = new Map<string, RateLimiter>();
  private readonly modules = new Map<string, ModuleState>();
  /** ParallelModuleRun task id → modules of the group that have not succeeded yet. */
  readonly parallelGroups = new Map<string, Set<string>>();
  /** module → the end of its last hook run (kept once settled): one module's hooks never run at the same time. */
  private readonly moduleHookChains = new Map<string, Promise<unknown>>();

  constructor(
    readonly opts: RuntimeOptions,
    private readonly sink: HookEventSink,
  ) {
    this.manager = opts.manager;
    this.queues = opts.queues;
    this.log = opts.logger;
  }

  get main() {
    return this.queues.main;
  }

  bindingsOf(hook: Hook): HookBindings {
    let b = this.bindings.get(hook.id);
    if (!b) this.bindings.set(hook.id, (b = new HookBindings(hook, { kube: this.opts.kube, schedules: this.opts.schedules, sink: this.sink })));
    return b;
  }

  /** Waits for the hook's rate limit (`settings`), if it has one; false when the wait was cut short. */
  async rateLimit(hook: Hook, signal: AbortSignal): Promise<boolean> {
    const s = hook.config.settings;
    if (!s || s.executionMinIntervalMs <= 0) return true;
    let limiter = this.limiters.get(hook.id);
    if (!limiter) this.limiters.set(hook.id, (limiter = new RateLimiter(s.executionMinIntervalMs, s.executionBurst)));
    return limiter.take(signal);
  }

  moduleState(name: string): ModuleState {
    let s = this.modules.get(name);
    if (!s) this.modules.set(name, (s = { phase: 'Startup', completedOnce: false, startupDone: false, pendingSync: new Set() }));
    return s;
  }

  /** The module's run state, without creating one. */
  peekModuleState(name: string): ModuleState | undefined {
    return this.modules.get(name);
  }

  resetModuleState(name: string): void {
    this.modules.delete(name);
  }

  isEnabled(module: string): boolean {
    return this.manager.enabledModules.includes(module);
  }

  /** Runs a global hook with its snapshots and applies every output. */
  runGlobalHook(hook: Hook, contexts: BindingContext[], bindingType: BindingType, queue: string): Promise<HookRunOutcome> {
    return this.withOutputs(hook, bindingType, queue, contexts, (rt) => this.manager.runGlobalHook(hook, contexts, this.bindingsOf(hook).snapshots, rt));
  }

  /** Runs a module hook with its snapshots and applies every output. */
  runModuleHook(module: string, hook: Hook, contexts: BindingContext[], bindingType: BindingType, queue: string): Promise<HookRunOutcome> {
    // hooks of one module may be queued in several queues (parallel and named ones): one at a time
    const before = this.moduleHookChains.get(module) ?? Promise.resolve();
    const run = before.then(() =>
      this.withOutputs(hook, bindingType, queue, contexts, (rt) => this.manager.runModuleHook(module, hook, contexts, this.bindingsOf(hook).snapshots, rt)),
    );
    // settles with nothing (the outcome is not kept); the entry stays, one settled promise per module:
    // deleting it whenever a chain ended made V8 allocate the map a new table in its old generation
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.moduleHookChains.set(module, tail);
    return run;
  }

  /** A module of a parallel group succeeded; main goes on at once when it was the last one. */
  parallelModuleDone(group: string, module: string): void {
    const pending = this.parallelGroups.get(group);
    if (!pending?.delete(module)) return;
    this.log.info({ module }, 'module of a parallel run done');
    if (pending.size === 0) this.main.cancelDelay();
  }

  private async withOutputs(
    hook: Hook,
    bindingType: BindingType,
    queue: string,
    contexts: BindingContext[],
    run: (rt: { log: ReturnType<typeof hookLineLogger>; proxyJsonLogs?: boolean }) => Promise<HookRunOutcome>,
  ): Promise<HookRunOutcome> {
    const label = hookLabel(hook);
    const binding = bindingsOf(contexts) ?? bindingType;
    const log = hookLineLogger(this.log, { module: hook.module, hook: hook.name, binding, queue });
    let outcome: HookRunOutcome;
    const at = Date.now();
    const started = performance.now();
    const record = (error?: unknown, usage?: CpuUsage) => {
      const durationMs = performance.now() - started;
      const cpu = usage && { userSeconds: usage.user, sysSeconds: usage.sys, ...(usage.maxRssBytes === undefined ? {} : { maxRssBytes: usage.maxRssBytes }) };
      this.opts.metrics?.hookRun({ module: hook.module, hook: hook.name, binding: bindingType, queue, activation: this.activation() }, durationMs / 1000, cpu);
      this.activity.hookRun({ at, durationMs, hook: hook.name, module: hook.module, binding, queue, result: error === undefined ? 'success' : 'error', ...(error === undefined ? {} : { error: errorMessage(error) }) });
    };
    try {
      outcome = await run({ log, proxyJsonLogs: this.opts.proxyHookJsonLogs });
      record(undefined, outcome.outputs.usage);
    } catch (e) {
      record(e);
      if (e instanceof HookRunError && e.kubernetesOnFailure.length && this.opts.kube) {
        await this.opts.kube.applyOperations(e.kubernetesOnFailure, { hook: label, hookFailed: true });
      }
      throw e;
    }
    const { outputs, savedConfig } = outcome;
    if (savedConfig && this.opts.config) await this.opts.config.writeSection(savedConfig.key, savedConfig.values);
    if (outputs.metrics.length) this.opts.hookMetrics?.apply(hook.name, outputs.metrics, hook.module);
    if (outputs.kubernetes.length) {
      if (!this.opts.kube) throw new Error(`hook ${label} wrote Kubernetes operations, but the operator runs without a Kubernetes API`);
      await this.opts.kube.applyOperations(outputs.kubernetes, { hook: label, hookFailed: false });
    }
    return outcome;
  }

  /** Go's `activation` label: `OperatorStartup` during the first converge, else empty. */
  activation(): string {
    return this.converge.ready ? '' : 'OperatorStartup';
  }

  // ---- queue helpers ------------------------------------------------------------------------------

  /** A ConvergeModules task waits in main (not the one in progress). */
  convergePending(): boolean {
    return this.main.tasks().some((t) => t.metadata.kind === 'ConvergeModules' && t.id !== this.convergeTaskId && !t.processing);
  }

  newConverge(convergeEvent: ConvergeEvent, event: string): OperatorTask {
    return makeTask({ kind: 'ConvergeModules', convergeEvent, event });
  }

  /** Appends a converge to main unless one is already waiting. */
  requestConverge(convergeEvent: ConvergeEvent, event: string): void {
    if (this.convergePending()) return;
    this.main.addLast(this.newConverge(convergeEvent, event));
  }

  /**
   * Modules must be discovered again (an enabled flag or the global config changed): a converge in
   * progress is restarted (a new ConvergeModules at the head of main ends it when it starts, see
   * docs/operator.md), otherwise one is appended. `flagsOnly`: nothing but enabled flags changed, so
   * a converge that has not discovered modules yet needs no restart.
   */
  requestReloadAll(event: string, flagsOnly = false): void {
    const current = this.convergeTaskId === undefined ? undefined : this.main.get(this.convergeTaskId);
    if (!current) return this.requestConverge('ReloadAllModules', event);
    if (flagsOnly && this.convergePhase === 'WaitBeforeAll' && !current.processing) return;
    // one restart at most: a waiting one reads the latest state when it starts
    if (this.main.tasks().some((t) => t.metadata.kind === 'ConvergeModules' && t.metadata.restart && t !== current && !t.processing)) return;
    this.main.addFirst(makeTask({ kind: 'ConvergeModules', convergeEvent: 'ReloadAllModules', event, restart: true }));
  }

  /** A ModuleRun for the module waits in main or a parallel queue (a running one does not count). */
  moduleRunPending(module: string): boolean {
    const waiting = (t: OperatorTask) =>
      !t.processing &&
      ((t.metadata.kind === 'ModuleRun' && t.metadata.module === module) || (t.metadata.kind === 'ParallelModuleRun' && t.metadata.modules.some((m) => m.module === module)));
    return this.queues.queues().some((q) => (q === this.main || isParallelQueue(q.name)) && q.tasks().some(waiting));
  }

  /** Appends a ModuleRun (no start-up) to main unless one is already waiting. */
  requestModuleRun(module: string, event: string): void {
    if (this.moduleRunPending(module)) return;
    this.main.addLast(makeTask({ kind: 'ModuleRun', module, doStartup: false, reloadAll: false, event }));
  }
}
