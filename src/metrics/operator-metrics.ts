/**
 * The operator's own metrics, served on `/metrics`: names, types and labels of the Go original
 * (reference/addon-operator.md §4, shell-operator §6.2), behind `--prometheus-metrics-prefix`
 * (default `addon_operator_`). Histograms use Prometheus' default buckets, as Go's lazily created
 * ones do. Recording is done through the methods below, so that callers never touch label names.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export const DEFAULT_METRICS_PREFIX = 'addon_operator_';

/** Labels of a hook run: `module` is absent for global hooks. */
export interface HookRunLabels {
  module?: string;
  hook: string;
  /** The binding type (Go's `binding` label of hook run metrics). */
  binding: string;
  queue: string;
  /** What started the run (`OperatorStartup`, or "" later), as Go's `activation` label. */
  activation: string;
}

export type HookRunResult = 'success' | 'error' | 'allowed';

/** Resource use of a hook process, where the platform gives it. */
export interface ProcessUsage {
  userSeconds: number;
  sysSeconds: number;
  maxRssBytes?: number;
}

/** One queue as the periodic queue metrics see it. */
export interface QueueHead {
  queue: string;
  length: number;
  head?: { taskType: string; module: string; hook: string };
}

/** State read at every scrape (Go refreshes these every 5 s or on change). */
export interface ScrapeSources {
  queues(): readonly QueueHead[];
  /** Every module and whether it is enabled now (`mm_module_info`). */
  modules(): readonly { name: string; enabled: boolean }[];
  /** Bindings per loaded hook (`binding_count`); module "" for global hooks. */
  hooks(): readonly { module: string; hook: string; bindings: number }[];
  /** Objects in each kubernetes binding's snapshot (`kube_snapshot_objects`). */
  snapshots(): readonly { module: string; hook: string; binding: string; queue: string; kind: string; objects: number }[];
}

export interface OperatorMetricsOptions {
  prefix?: string;
  sources?: Partial<ScrapeSources>;
}

const HOOK_LABELS = ['hook', 'binding', 'queue', 'activation'] as const;
const MODULE_HOOK_LABELS = ['module', ...HOOK_LABELS] as const;

type Hooks<L extends string> = {
  seconds: Histogram<L>;
  userCpu: Histogram<L>;
  sysCpu: Histogram<L>;
  maxRss: Gauge<L>;
  success: Counter<L>;
  errors: Counter<L>;
  allowed: Counter<L>;
};

export class OperatorMetrics {
  readonly registry = new Registry();
  readonly prefix: string;
  private readonly moduleHooks: Hooks<(typeof MODULE_HOOK_LABELS)[number]>;
  private readonly globalHooks: Hooks<(typeof HOOK_LABELS)[number]>;
  private readonly m;
  private liveTicks: NodeJS.Timeout | undefined;

  constructor(opts: OperatorMetricsOptions = {}) {
    const p = (this.prefix = opts.prefix ?? DEFAULT_METRICS_PREFIX);
    const registers = [this.registry];
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Counter<L>({ name: p + name, help, labelNames, registers });
    const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Gauge<L>({ name: p + name, help, labelNames, registers });
    const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Histogram<L>({ name: p + name, help, labelNames, registers });
    const hooks = <L extends string>(kind: 'module' | 'global', labels: readonly L[]): Hooks<L> => ({
      seconds: histogram(`${kind}_hook_run_seconds`, `Duration of ${kind} hook runs`, labels),
      userCpu: histogram(`${kind}_hook_run_user_cpu_seconds`, `User CPU time of ${kind} hook runs`, labels),
      sysCpu: histogram(`${kind}_hook_run_sys_cpu_seconds`, `System CPU time of ${kind} hook runs`, labels),
      maxRss: gauge(`${kind}_hook_run_max_rss_bytes`, `Maximum resident set size of ${kind} hook runs`, labels),
      success: counter(`${kind}_hook_success_total`, `Successful ${kind} hook run tasks`, labels),
      errors: counter(`${kind}_hook_errors_total`, `Failed ${kind} hook run tasks`, labels),
      allowed: counter(`${kind}_hook_allowed_errors_total`, `Failed ${kind} hook run tasks with allowFailure`, labels),
    });
    this.moduleHooks = hooks('module', MODULE_HOOK_LABELS);
    this.globalHooks = hooks('global', HOOK_LABELS);
    const src = opts.sources ?? {};
    /** A gauge whose series are rebuilt from `read` at every scrape. */
    const scraped = <L extends string>(name: string, help: string, labelNames: readonly L[], read: (set: (labels: Record<L, string>, v: number) => void) => void) =>
      new Gauge<L>({
        name: p + name,
        help,
        labelNames,
        registers,
        collect() {
          this.reset();
          read((labels, v) => this.set(labels, v));
        },
      });
    this.m = {
      liveTicks: counter('live_ticks', 'Counts up every 10 s while the operator runs'),
      bindingCount: scraped('binding_count', 'Bindings of a hook', ['module', 'hook'], (set) => {
        for (const h of src.hooks?.() ?? []) set({ module: h.module, hook: h.hook }, h.bindings);
      }),
      configValuesErrors: counter('config_values_errors_total', 'Rejected configurations (ConfigMap parse or validation errors)'),
      discoverErrors: counter('modules_discover_errors_total', 'Failed ConvergeModules or ApplyKubeConfigValues tasks'),
      moduleRunSeconds: histogram('module_run_seconds', 'Duration of ModuleRun tasks', ['module', 'activation']),
      moduleRunErrors: counter('module_run_errors_total', 'Failed ModuleRun tasks', ['module']),
      moduleDeleteErrors: counter('module_delete_errors_total', 'Failed ModuleDelete tasks', ['module']),
      moduleInfo: scraped('mm_module_info', 'Modules and their enabled state', ['module', 'enabled', 'critical'], (set) => {
        for (const m of src.modules?.() ?? []) set({ module: m.name, enabled: String(m.enabled), critical: 'false' }, 1);
      }),
      convergenceSeconds: counter('convergence_seconds', 'Time spent in converges', ['activation']),
      convergenceTotal: counter('convergence_total', 'Finished converges', ['activation']),
      moduleHelmSeconds: histogram('module_helm_seconds', 'Duration of the Helm phase of a module run', ['module', 'activation']),
      helmOperationSeconds: histogram('helm_operation_seconds', 'Duration of Helm operations', ['module', 'activation', 'operation']),
      taskWait: counter('task_wait_in_queue_seconds_total', 'Time tasks waited in their queue', ['module', 'hook', 'binding', 'queue']),
      queueLength: scraped('tasks_queue_length', 'Tasks in a queue', ['queue'], (set) => {
        for (const q of src.queues?.() ?? []) set({ queue: q.queue }, q.length);
      }),
      queueHead: scraped('tasks_queue_head_info', 'The task at the head of a queue', ['queue', 'module', 'task_type', 'hook'], (set) => {
        for (const q of src.queues?.() ?? []) if (q.head) set({ queue: q.queue, module: q.head.module, task_type: q.head.taskType, hook: q.head.hook }, 1);
      }),
      snapshotObjects: scraped('kube_snapshot_objects', 'Objects in the snapshot of a kubernetes binding', ['module', 'hook', 'binding', 'queue', 'kind'], (set) => {
        for (const s of src.snapshots?.() ?? []) set({ module: s.module, hook: s.hook, binding: s.binding, queue: s.queue, kind: s.kind }, s.objects);
      }),
      jqFilterSeconds: histogram('kube_jq_filter_duration_seconds', 'Duration of jqFilter runs of kubernetes bindings', ['module', 'hook', 'binding', 'queue', 'kind']),
      kubeEventSeconds: histogram('kube_event_duration_seconds', 'Duration of handling a Kubernetes event', ['module', 'hook', 'binding', 'queue', 'kind']),
      watchErrors: counter('kubernetes_client_watch_errors_total', 'Errors of Kubernetes watches', ['error_type']),
      requestLatency: histogram('kubernetes_client_request_latency_seconds', 'Latency of Kubernetes API requests', ['component', 'verb', 'url']),
      requestResult: counter('kubernetes_client_request_result_total', 'Results of Kubernetes API requests', ['component', 'code', 'method', 'host']),
    };
  }

  /** Starts `live_ticks` (+1 every 10 s). */
  start(): void {
    this.liveTicks ??= setInterval(() => this.m.liveTicks.inc(), 10_000).unref();
  }

  stop(): void {
    clearInterval(this.liveTicks);
    this.liveTicks = undefined;
  }

  /** A hook run: duration and, when known, CPU and memory of its process. */
  hookRun(l: HookRunLabels, seconds: number, usage?: ProcessUsage): void {
    const set = l.module === undefined ? this.globalHooks : this.moduleHooks;
    const labels = this.hookLabels(l);
    set.seconds.observe(labels, seconds);
    if (!usage) return;
    set.userCpu.observe(labels, usage.userSeconds);
    set.sysCpu.observe(labels, usage.sysSeconds);
    if (usage.maxRssBytes !== undefined) set.maxRss.set(labels, usage.maxRssBytes);
  }

  /** The result of a GlobalHookRun or ModuleHookRun task. */
  hookTaskResult(l: HookRunLabels, result: HookRunResult): void {
    const set = l.module === undefined ? this.globalHooks : this.moduleHooks;
    const c = result === 'success' ? set.success : result === 'error' ? set.errors : set.allowed;
    c.inc(this.hookLabels(l));
  }

  private hookLabels(l: HookRunLabels): Record<string, string> {
    const common = { hook: l.hook, binding: l.binding, queue: l.queue, activation: l.activation };
    return l.module === undefined ? common : { module: l.module, ...common };
  }

  configValuesError(): void {
    this.m.configValuesErrors.inc();
  }

  discoverError(): void {
    this.m.discoverErrors.inc();
  }

  moduleRun(module: string, activation: string, seconds: number, ok: boolean): void {
    this.m.moduleRunSeconds.observe({ module, activation }, seconds);
    if (!ok) this.m.moduleRunErrors.inc({ module });
  }

  moduleDeleteError(module: string): void {
    this.m.moduleDeleteErrors.inc({ module });
  }

  convergence(activation: string, seconds: number): void {
    this.m.convergenceSeconds.inc({ activation }, seconds);
    this.m.convergenceTotal.inc({ activation });
  }

  moduleHelm(module: string, activation: string, seconds: number): void {
    this.m.moduleHelmSeconds.observe({ module, activation }, seconds);
  }

  helmOperation(module: string, activation: string, operation: 'template' | 'check-upgrade' | 'upgrade', seconds: number): void {
    this.m.helmOperationSeconds.observe({ module, activation, operation }, seconds);
  }

  taskWait(l: { module: string; hook: string; binding: string; queue: string }, seconds: number): void {
    this.m.taskWait.inc(l, seconds);
  }

  jqFilter(l: { module: string; hook: string; binding: string; queue: string; kind: string }, seconds: number): void {
    this.m.jqFilterSeconds.observe(l, seconds);
  }

  kubeEvent(l: { module: string; hook: string; binding: string; queue: string; kind: string }, seconds: number): void {
    this.m.kubeEventSeconds.observe(l, seconds);
  }

  watchError(errorType: string): void {
    this.m.watchErrors.inc({ error_type: errorType });
  }

  /** One request to the Kubernetes API (`url` is the path with names replaced, as client-go's template). */
  kubeRequest(component: string, r: { verb: string; url: string; method: string; host: string; code: string }, seconds: number): void {
    this.m.requestLatency.observe({ component, verb: r.verb, url: r.url }, seconds);
    this.m.requestResult.inc({ component, code: r.code, method: r.method, host: r.host });
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
