/**
 * The operator's parts wired together for the task handlers (tasks/): the module manager, the queues,
 * the ports, the event sources of every hook, the per-module run state, the converge (converge.ts)
 * and its accounting (converge-status.ts), and the hook runner (hook-runner.ts).
 */
import type { Logger } from 'pino';
import type { ModuleManager } from '../modules/manager.js';
import type { Hook } from '../hooks/hook.js';
import type { HookMetricsStorage } from '../metrics/hook-metrics.js';
import type { QueueSet } from '../queue/index.js';
import type { ScheduleManager } from '../schedule/index.js';
import type { ConfigSource, HelmPort, KubernetesPort, WebhookPort } from './ports.js';
import { Webhooks } from './webhooks.js';
import { HookBindings, type HookEventSink } from './hook-bindings.js';
import { ConvergeStatus } from './converge-status.js';
import { Converge } from './converge.js';
import { HookRunner } from './hook-runner.js';
import { Activity } from './activity.js';
import { ModuleHealthTracker } from './module-health.js';
import type { OperatorMetrics } from '../metrics/operator-metrics.js';
import { isParallelQueue, makeTask, PARALLEL_QUEUE_PREFIX, type OperatorTask, type TaskMeta } from './task-meta.js';
import { FunctionalScheduler, type FunctionalRequest } from './functional-scheduler.js';

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
  /** The admission server and the webhooks' registration; absent: webhook bindings are not served. */
  webhooks?: WebhookPort;
}

export class Runtime {
  readonly manager: ModuleManager;
  readonly queues: QueueSet<TaskMeta>;
  readonly log: Logger;
  /** Converge accounting: the first converge, counts, restarts (`/readyz`, `/status/converge`). */
  readonly convergeStatus = new ConvergeStatus();
  /** The converge in progress and the rules that queue one. */
  readonly converge: Converge;
  /** The converge's functional modules: each runs in a parallel queue once what it requires is done. */
  readonly functional: FunctionalScheduler;
  readonly activity = new Activity();
  /** `group/version/Kind` of every CRD ModuleEnsureCRDs applied since the start (Go's DiscoveredGVKs). */
  readonly crdApiVersions = new Set<string>();
  /** Each enabled module's health (module-health.ts), refreshed on its runs and its objects' changes. */
  readonly health: ModuleHealthTracker;
  readonly hookRunner: HookRunner;
  /** The webhook bindings served (webhooks.ts), when the operator has a WebhookPort. */
  readonly webhooks: Webhooks | undefined;
  private readonly bindings = new Map<string, HookBindings>();
  private readonly modules = new Map<string, ModuleState>();
  /** The enabled modules' list the monitors were last started ahead for (prestart-monitors.ts). */
  prestartedFor: readonly string[] | undefined;

  /** Resolves with the error that stops the operator (an invalid module config found at start-up). */
  readonly failed: Promise<Error>;
  /** Makes `failed` resolve: whoever runs the operator stops it with this error. */
  readonly fail: (e: Error) => void;

  constructor(
    readonly opts: RuntimeOptions,
    private readonly sink: HookEventSink,
  ) {
    this.manager = opts.manager;
    this.queues = opts.queues;
    this.log = opts.logger;
    this.converge = new Converge(opts.queues.main, opts.logger);
    this.functional = new FunctionalScheduler((r) => this.startFunctional(r));
    this.hookRunner = new HookRunner({
      manager: opts.manager,
      logger: opts.logger,
      kube: opts.kube,
      config: opts.config,
      hookMetrics: opts.hookMetrics,
      metrics: opts.metrics,
      proxyHookJsonLogs: opts.proxyHookJsonLogs,
      activity: this.activity,
      snapshots: (hook) => this.bindingsOf(hook).snapshots,
      activation: () => this.activation(),
    });
    this.webhooks = opts.webhooks && new Webhooks(opts.webhooks, opts.manager, (hook, contexts, type, ms) => this.hookRunner.runWebhookHook(hook, contexts, type, ms), opts.logger);
    this.health = new ModuleHealthTracker({
      activity: this.activity,
      helm: opts.helm,
      namespace: opts.namespace,
      log: opts.logger,
      isEnabled: (m) => this.isEnabled(m),
      hasChart: (m) => this.manager.set.byName.get(m)?.def.hasChart ?? false,
    });
    this.activity.onModuleActivity = (m) => void this.health.refresh(m);
    let fail!: (e: Error) => void;
    this.failed = new Promise((resolve) => (fail = resolve));
    this.fail = fail;
  }

  get main() {
    return this.queues.main;
  }

  bindingsOf(hook: Hook): HookBindings {
    let b = this.bindings.get(hook.id);
    if (!b) this.bindings.set(hook.id, (b = new HookBindings(hook, { kube: this.opts.kube, schedules: this.opts.schedules, sink: this.sink })));
    return b;
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

  /** Go's `activation` label: `OperatorStartup` during the first converge, else empty. */
  activation(): string {
    return this.convergeStatus.ready ? '' : 'OperatorStartup';
  }

  /** A ModuleRun for the module waits in main or a parallel queue (a running one does not count). */
  moduleRunPending(module: string): boolean {
    const waiting = (t: OperatorTask) =>
      !t.processing &&
      ((t.metadata.kind === 'ModuleRun' && t.metadata.module === module) || (t.metadata.kind === 'ParallelModuleRun' && t.metadata.modules.some((m) => m.module === module)));
    return this.queues.queues().some((q) => (q === this.main || isParallelQueue(q.name)) && q.tasks().some(waiting));
  }

  /**
   * Queues a functional module's converge run in the parallel queue with the fewest tasks, of
   * `--parallel-module-runs` queues (at least one): at most that many functional modules run at once.
   */
  private startFunctional(r: FunctionalRequest): void {
    const n = Math.max(1, this.opts.parallelModuleRuns);
    let best = 0;
    let bestLength = Infinity;
    for (let i = 0; i < n; i++) {
      const length = this.queues.get(`${PARALLEL_QUEUE_PREFIX}${i}`)?.length ?? 0;
      if (length < bestLength) [best, bestLength] = [i, length];
    }
    this.log.info({ module: r.module, queue: `${PARALLEL_QUEUE_PREFIX}${best}` }, 'functional module run queued: what it requires is done');
    this.queues.addLast(
      makeTask({ kind: 'ModuleRun', module: r.module, doStartup: r.doStartup, reloadAll: true, event: 'Reload-All-Modules', functional: true }, `${PARALLEL_QUEUE_PREFIX}${best}`),
    );
  }

  /** Appends a ModuleRun (no start-up) to main unless one is already waiting. */
  requestModuleRun(module: string, event: string): void {
    if (this.moduleRunPending(module)) return;
    this.main.addLast(makeTask({ kind: 'ModuleRun', module, doStartup: false, reloadAll: false, event }));
  }
}
