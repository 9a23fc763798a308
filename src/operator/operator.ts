/**
 * The operator: start-up (LIFECYCLE.md "Startup sequence"), the main loop that turns Kubernetes
 * events, schedules and config changes into tasks, one handler per task type, and a graceful stop.
 *
 *   const op = new Operator({ manager, namespace, kube, helm, config, logger });
 *   await op.start();            // reads the config, queues the start-up tasks, starts the queues
 *   await op.converge.whenFirstDone();
 *   await op.stop();             // the running task finishes, nothing new starts
 */
import type { Logger } from 'pino';
import type { ModuleManager } from '../modules/manager.js';
import { isValidValuesKey } from '../modules/names.js';
import { parseConfigData } from '../config/configmap.js';
import type { Hook } from '../hooks/hook.js';
import type { KubernetesBinding, ScheduleBinding } from '../hooks/config-types.js';
import { onStartupContext, scheduleContext, type BindingContext } from '../hooks/binding-context.js';
import { hooksInOrder } from '../hooks/order.js';
import { RunDir } from '../hooks/process.js';
import { HookMetricsStorage } from '../metrics/hook-metrics.js';
import type { OperatorMetrics } from '../metrics/operator-metrics.js';
import { observeTasks } from './observe-tasks.js';
import { withTaskLabels } from '../log/task-labels.js';
import { QueueSet, TaskResults, type SleepFn, type TaskQueue, type TaskResult } from '../queue/index.js';
import { ScheduleManager } from '../schedule/index.js';
import { UserError, errorMessage } from '../util/errors.js';
import type { ConfigMapData, ConfigSource, HelmPort, KubernetesPort, WebhookPort } from './ports.js';
import { Runtime } from './runtime.js';
import type { HookEventSink } from './hook-bindings.js';
import { compactContexts, makeTask, taskLogLabels, type ApplyKubeConfigValuesMeta, type GlobalHookRunMeta, type ModuleHookRunMeta, type OperatorTask, type TaskMeta } from './task-meta.js';
import { TASK_HANDLERS, type TaskHandler } from './tasks/index.js';

export interface OperatorOptions {
  manager: ModuleManager;
  /** Namespace of the releases (and of the ConfigMap). */
  namespace: string;
  /** Absent: hooks with kubernetes bindings or operations fail with a clear error. */
  kube?: KubernetesPort;
  helm: HelmPort;
  /** Absent: the config is what the store already has, and config patches stay in memory. */
  config?: ConfigSource;
  logger: Logger;
  hookMetrics?: HookMetricsStorage;
  /** The operator's own metrics (`/metrics`); absent: nothing is recorded. */
  metrics?: OperatorMetrics;
  helmIgnoreRelease?: string;
  proxyHookJsonLogs?: boolean;
  /** `--parallel-module-runs`: modules sharing an order number run this many at once (default 1). */
  parallelModuleRuns?: number;
  /** Serves the hooks' webhook bindings (the admission server, their registration); absent: not served. */
  webhooks?: WebhookPort;
  /** Test and tuning knobs; defaults are the documented ones. */
  timing?: {
    /** Retry delay of a failed task after `failures` failures (default 5 s growing to 30 s). */
    backoff?: (failures: number) => number;
    sleep?: SleepFn;
    /** Delay before a failed module discovery is retried (default 5 s). */
    discoveryRetryMs?: number;
  };
  schedules?: ScheduleManager;
}

export class Operator {
  readonly queues: QueueSet<TaskMeta>;
  readonly hookMetrics: HookMetricsStorage;
  readonly schedules: ScheduleManager;
  private readonly rt: Runtime;
  private readonly log: Logger;
  private started = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly opts: OperatorOptions) {
    this.log = opts.logger;
    this.hookMetrics = opts.hookMetrics ?? new HookMetricsStorage();
    this.schedules = opts.schedules ?? new ScheduleManager({ onError: (crontab, _id, err) => this.log.error({ crontab, error: errorMessage(err) }, 'schedule subscriber failed') });
    this.queues = new QueueSet<TaskMeta>({
      handler: (task, ctx) => this.handle(task, ctx.queue, ctx.signal),
      backoff: opts.timing?.backoff,
      sleep: opts.timing?.sleep,
      compaction: {
        types: ['ModuleHookRun', 'GlobalHookRun'],
        merge: (into, from) => {
          const meta = into.metadata as GlobalHookRunMeta | ModuleHookRunMeta;
          meta.contexts = compactContexts([meta.contexts, ...from.map((t) => (t.metadata as GlobalHookRunMeta | ModuleHookRunMeta).contexts)].flat());
        },
      },
      onError: (err) => this.log.error({ error: errorMessage(err) }, 'queue listener failed'),
    });
    const sink: HookEventSink = {
      kubernetes: (hook, binding, ctx) => this.onBindingEvent(hook, binding, 'kubernetes', ctx),
      // schedule events before the first converge is done are dropped (LIFECYCLE-STEPS)
      schedule: (hook, binding) => {
        if (this.rt.convergeStatus.ready) this.onBindingEvent(hook, binding, 'schedule', scheduleContext(binding));
      },
      monitorError: (hook, binding, error) => {
        opts.metrics?.watchError(/\b410\b|expired|too old/i.test(error.message) ? 'expired' : 'fail');
        this.log.error({ hook: hook.name, module: hook.module, binding: binding.name, error: error.message }, 'kubernetes monitor error');
      },
      monitorMissing: (hook, binding) => {
        opts.metrics?.bindingMonitorMissing(binding);
        this.log.error({ hook: hook.name, module: hook.module, binding }, 'no monitor for configured kubernetes binding, snapshot is empty');
      },
      ...(opts.metrics ? { timings: (hook: Hook, binding: KubernetesBinding) => opts.metrics!.kubeBindingTimings({ module: hook.module ?? '', hook: hook.name, binding: binding.name, queue: binding.queue, kind: binding.kind }) } : {}),
    };
    this.rt = new Runtime(
      {
        manager: opts.manager,
        namespace: opts.namespace,
        kube: opts.kube,
        helm: opts.helm,
        config: opts.config,
        logger: opts.logger,
        hookMetrics: this.hookMetrics,
        schedules: this.schedules,
        queues: this.queues,
        helmIgnoreRelease: opts.helmIgnoreRelease,
        discoveryRetryMs: opts.timing?.discoveryRetryMs ?? 5000,
        proxyHookJsonLogs: opts.proxyHookJsonLogs,
        metrics: opts.metrics,
        parallelModuleRuns: Math.max(1, opts.parallelModuleRuns ?? 1),
        ...(opts.webhooks ? { webhooks: opts.webhooks } : {}),
      },
      sink,
    );
    this.queues.on('taskFinished', (e) => {
      if (e.status === 'Fail') this.log.error({ queue: e.queue, task: e.task.name(), failures: e.task.failureCount, error: e.error }, 'task failed; it will be retried');
      if (e.queue === this.queues.mainName && this.rt.convergeStatus.update(this.queues.main.tasks())) this.onFirstConvergeDone();
    });
    observeTasks(this.rt);
  }

  /** Read-only view of the running state, for the HTTP server and the debug socket. */
  get runtime(): Runtime {
    return this.rt;
  }

  get manager(): ModuleManager {
    return this.opts.manager;
  }

  /** Converge accounting: the first converge done, counts, restarts. */
  get converge() {
    return this.rt.convergeStatus;
  }

  /** Resolves with an error that must stop the operator (exit 1): a module config found invalid at start-up. */
  get failed(): Promise<Error> {
    return this.rt.failed;
  }

  /**
   * Reads the config (an invalid one is fatal at start-up, as in Go), queues the start-up tasks
   * (reference §5.3) and starts the queues, schedules and the config watch.
   */
  async start(): Promise<void> {
    if (this.started) throw new Error('the operator is already started');
    this.started = true;
    if (this.opts.config) {
      const data = await this.opts.config.read();
      this.opts.manager.applyConfig(this.parseConfig(data));
    }
    this.queues.main.addLast(...this.bootstrapTasks());
    this.rt.convergeStatus.update(this.queues.main.tasks());
    this.queues.start();
    this.schedules.start();
    if (this.opts.config) {
      await this.opts.config.watch(
        (data) => this.onConfigData(data),
        (err) => this.log.error({ error: err.message }, `watching ${this.opts.config!.description} failed; retrying`),
      );
    }
  }

  /** Graceful stop: nothing new starts, running tasks finish, event sources stop. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.schedules.stop();
      await this.opts.config?.stop();
      await this.queues.stop();
      await this.rt.webhooks?.stop();
      await Promise.all(this.allHooks().map((h) => this.rt.bindingsOf(h).disable()));
      await this.opts.helm.stop?.();
      await RunDir.settled();
    })();
    return this.stopping;
  }

  /**
   * The resources monitor found objects of the module's release absent (LIFECYCLE-STEPS step 15): a
   * ModuleRun without start-up hooks, unless one is waiting.
   */
  helmResourcesAbsent(module: string, resources: readonly string[]): void {
    if (this.stopping || !this.opts.manager.enabledModules.includes(module)) return;
    for (const resource of resources) this.opts.metrics?.absentResource(module, resource);
    this.log.info({ module, resources }, 'helm resources absent, the module will run again');
    this.rt.requestModuleRun(module, 'HelmResources-Absent');
  }

  /** The status of an object of the module's release changed (the resources monitor's watches): its health is recomputed. */
  releaseObjectsChanged(module: string): void {
    if (!this.stopping) this.rt.health.refresh(module);
  }

  /** The resources monitor found the module's release in a status other than `deployed` (Go's HelmReleaseUnexpectedStatus). */
  helmReleaseUnexpectedStatus(module: string, status: string): void {
    if (this.stopping || !this.opts.manager.enabledModules.includes(module)) return;
    this.opts.metrics?.helmReleaseRedeployed(module);
    this.log.info({ module, status }, 'helm release not deployed, the module will run again');
    this.rt.requestModuleRun(module, 'HelmReleaseUnexpectedStatus');
  }

  private allHooks(): Hook[] {
    return [...this.opts.manager.globalHooks, ...this.opts.manager.loadedModuleHooks()];
  }

  private bootstrapTasks(): OperatorTask[] {
    const hooks = this.opts.manager.globalHooks;
    const event = 'Operator-Startup';
    return [
      ...hooksInOrder(hooks, 'onStartup').map((hook) =>
        makeTask({ kind: 'GlobalHookRun', hook, bindingType: 'onStartup', contexts: [onStartupContext()], event, allowFailure: false, reloadAllOnValuesChanges: false }),
      ),
      ...hooks.filter((h) => h.config.schedule.length > 0).map((hook) => makeTask({ kind: 'GlobalHookEnableScheduleBindings', hook, event })),
      ...hooks.filter((h) => h.config.kubernetes.length > 0).map((hook) => makeTask({ kind: 'GlobalHookEnableKubernetesBindings', hook, event })),
      makeTask({ kind: 'GlobalHookWaitKubernetesSynchronization', event }),
      this.rt.converge.newTask('OperatorStartup', event),
    ];
  }

  private handle(task: OperatorTask, queue: TaskQueue<TaskMeta>, signal: AbortSignal): Promise<TaskResult<TaskMeta>> {
    return withTaskLabels(taskLogLabels(task, queue.name), () => this.dispatch(task, queue, signal));
  }

  private async dispatch(task: OperatorTask, queue: TaskQueue<TaskMeta>, signal: AbortSignal): Promise<TaskResult<TaskMeta>> {
    const handler = TASK_HANDLERS[task.metadata.kind] as TaskHandler | undefined;
    if (!handler) return TaskResults.fail(`no handler for task type ${task.type}`);
    return handler(this.rt, task, queue, signal);
  }

  private onFirstConvergeDone(): void {
    this.log.info('first converge done');
    this.queues.main.addLast(makeTask({ kind: 'DiscoverHelmReleases', event: 'Discover-Helm-Releases' }));
  }

  /** A kubernetes or schedule event of a hook: a run of the hook in the binding's queue (none for a disabled module's hook). */
  private onBindingEvent(hook: Hook, binding: KubernetesBinding | ScheduleBinding, bindingType: 'kubernetes' | 'schedule', ctx: BindingContext): void {
    if (this.stopping) return;
    const common = { hook, bindingType, contexts: [ctx], event: bindingType === 'kubernetes' ? 'Kubernetes' : 'Schedule', allowFailure: binding.allowFailure };
    if (hook.module) {
      if (!this.rt.isEnabled(hook.module)) return;
      this.queues.addLast(makeTask({ kind: 'ModuleHookRun', module: hook.module, ...common }, binding.queue));
    } else {
      this.queues.addLast(makeTask({ kind: 'GlobalHookRun', reloadAllOnValuesChanges: true, ...common }, binding.queue));
    }
  }

  private parseConfig(data: ConfigMapData) {
    return parseConfigData(data ?? {}, this.opts.config!.description, isValidValuesKey);
  }

  /** A changed ConfigMap: parsed now (a bad one is reported and ignored), applied by a task at the head of main, its payload. */
  private onConfigData(data: ConfigMapData): void {
    if (this.stopping) return;
    let config;
    try {
      config = this.parseConfig(data);
    } catch (e) {
      this.opts.metrics?.configValid(false);
      this.log.error({ error: e instanceof UserError ? e.message : errorMessage(e) }, 'the config is invalid; the operator keeps the last valid one');
      return;
    }
    const main = this.queues.main;
    // a waiting task applies the latest config: one task at most
    const waiting = main.tasks().find((t) => t.metadata.kind === 'ApplyKubeConfigValues' && !t.processing);
    if (waiting) (waiting.metadata as ApplyKubeConfigValuesMeta).config = config;
    else main.addFirst(makeTask({ kind: 'ApplyKubeConfigValues', event: 'KubeConfig-Changed', config }));
    if (this.rt.convergeStatus.firstPhase === 'NotStarted') main.cancelDelay();
  }
}
