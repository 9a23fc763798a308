/**
 * The operator's own metrics, served on `/metrics`: names, types and labels of the Go original
 * (reference/addon-operator.md §4, shell-operator §6.2), behind `--prometheus-metrics-prefix`
 * (default `addon_operator_`). Histograms use Prometheus' default buckets, as Go's lazily created
 * ones do. Recording is done through the methods below, so that callers never touch label names.
 */
import { Counter, Registry } from 'prom-client';
import { FamilySet, HistogramFamily, ValueFamily, type HistogramSeries, type ValueSeries } from './series.js';

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
  modules(): readonly { name: string; enabled: boolean; critical?: boolean; maintenance?: boolean }[];
  /** Bindings per loaded hook (`binding_count`); module "" for global hooks. */
  hooks(): readonly { module: string; hook: string; bindings: number }[];
  /** Objects in each kubernetes binding's snapshot (`kube_snapshot_objects`). */
  /** …and the memory it retains, estimated (`kube_snapshot_bytes`). */
  snapshots(): readonly { module: string; hook: string; binding: string; queue: string; kind: string; objects: number; bytes: number }[];
  /**
   * Each enabled module's health (`module_health`, 1 for its health and 0 for the others) and how
   * many objects of its release are in each status (`module_objects`).
   */
  moduleHealth(): readonly { module: string; health: string; objects?: Record<string, number> }[];
}

/** The values of `module_health`'s `health` label. */
const MODULE_HEALTHS = ['Ready', 'Progressing', 'Degraded', 'Failed', 'Unknown'];

export interface OperatorMetricsOptions {
  prefix?: string;
  sources?: Partial<ScrapeSources>;
}

const HOOK_LABELS = ['hook', 'binding', 'queue', 'activation'] as const;
const MODULE_HOOK_LABELS = ['module', ...HOOK_LABELS] as const;
/** flant/kube-client's buckets of the request latency (0 to 50 s). */
const KUBE_CLIENT_BUCKETS = [0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50];
/** The object patcher's client: its request metrics have the fixed prefix `object_patcher_`. */
const PATCHER_COMPONENT = 'object_patcher';
const KUBE_LABELS = ['module', 'hook', 'binding', 'queue', 'kind'] as const;

/** The families of one kind of hook (module or global). */
interface HookFamilies {
  seconds: HistogramFamily;
  userCpu: HistogramFamily;
  sysCpu: HistogramFamily;
  maxRss: ValueFamily;
  success: ValueFamily;
  errors: ValueFamily;
  allowed: ValueFamily;
}

/**
 * The series of one hook label set, found once per label set: recording a run is then a map lookup
 * and a few additions. Counters and CPU series are made on first use, so that a series appears on
 * `/metrics` only once it has a value, as in Go.
 */
interface HookSeries {
  labels: HookRunLabels;
  values: readonly string[];
  seconds: HistogramSeries;
  userCpu?: HistogramSeries;
  sysCpu?: HistogramSeries;
  maxRss?: ValueSeries;
  success?: ValueSeries;
  errors?: ValueSeries;
  allowed?: ValueSeries;
}

export class OperatorMetrics {
  /** prom-client's registry: the few unlabelled counters, and collectors registered by others. */
  readonly registry = new Registry();
  readonly prefix: string;
  /** The labelled families (reference §4's per-hook and per-module series), rendered by us. */
  private readonly families = new FamilySet();
  private readonly moduleHooks: HookFamilies;
  private readonly globalHooks: HookFamilies;
  /** Hook name → the series of its label sets. */
  private readonly hookSeries = new Map<string, HookSeries[]>();
  private readonly m;
  /** Rebuild the gauges read from the running state, before each scrape. */
  private readonly refreshScraped: (() => void)[];
  private liveTicks: NodeJS.Timeout | undefined;
  private configCheck: NodeJS.Timeout | undefined;
  private configInvalid = false;

  constructor(opts: OperatorMetricsOptions = {}) {
    const p = (this.prefix = opts.prefix ?? DEFAULT_METRICS_PREFIX);
    const fam = this.families;
    const plainCounter = (name: string, help: string) => new Counter({ name: p + name, help, registers: [this.registry] });
    const counter = (name: string, help: string, labels: readonly string[]) => fam.add(new ValueFamily(p + name, help, 'counter', labels));
    const gauge = (name: string, help: string, labels: readonly string[]) => fam.add(new ValueFamily(p + name, help, 'gauge', labels));
    const histogram = (name: string, help: string, labels: readonly string[], buckets?: readonly number[]) => fam.add(new HistogramFamily(p + name, help, labels, buckets));
    const hooks = (kind: 'module' | 'global', labels: readonly string[]): HookFamilies => ({
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
    const scraped = (name: string, help: string, labels: readonly string[], read: (set: (values: readonly string[], v: number) => void) => void) => {
      const g = gauge(name, help, labels);
      return () => g.refresh(read);
    };
    this.m = {
      liveTicks: plainCounter('live_ticks', 'Counts up every 10 s while the operator runs'),
      configValuesErrors: plainCounter('config_values_errors_total', 'Checks (every 5 s) that found the configuration invalid (ConfigMap parse or validation errors)'),
      discoverErrors: plainCounter('modules_discover_errors_total', 'Failed ConvergeModules or ApplyKubeConfigValues tasks'),
      moduleRunSeconds: histogram('module_run_seconds', 'Duration of ModuleRun tasks', ['module', 'activation']),
      moduleRunErrors: counter('module_run_errors_total', 'Failed ModuleRun tasks', ['module']),
      moduleDeleteErrors: counter('module_delete_errors_total', 'Failed ModuleDelete tasks', ['module']),
      convergenceSeconds: counter('convergence_seconds', 'Time spent in converges', ['activation']),
      convergenceTotal: counter('convergence_total', 'Finished converges', ['activation']),
      moduleHelmSeconds: histogram('module_helm_seconds', 'Duration of the Helm phase of a module run', ['module', 'activation']),
      helmOperationSeconds: histogram('helm_operation_seconds', 'Duration of Helm operations', ['module', 'activation', 'operation']),
      absentResources: counter('modules_absent_resources_total', 'Objects of a module release found absent by the resources monitor', ['module', 'resource']),
      helmReleaseRedeployed: counter('modules_helm_release_redeployed_total', 'Module releases the resources monitor found in a status other than deployed', ['module']),
      helmDrift: counter('modules_helm_drift_total', 'Objects of a module release whose managed fields another field manager changed', ['module', 'resource', 'action']),
      taskWait: counter('task_wait_in_queue_seconds_total', 'Time tasks waited in their queue', ['module', 'hook', 'binding', 'queue']),
      jqFilterSeconds: histogram('kube_jq_filter_duration_seconds', 'Duration of jqFilter runs of kubernetes bindings', KUBE_LABELS),
      kubeEventSeconds: histogram('kube_event_duration_seconds', 'Duration of handling a Kubernetes event', KUBE_LABELS),
      watchErrors: counter('kubernetes_client_watch_errors_total', 'Errors of Kubernetes watches', ['error_type']),
      // shell-operator's #922: a hook fed an empty snapshot, and an informer found dead and recreated
      monitorMissing: counter('binding_monitor_missing_total', 'Snapshot reads of a configured kubernetes binding whose monitor is not running (the hook got an empty snapshot)', ['binding']),
      informerDead: counter('factory_informer_dead_total', 'Shared informers found stopped and recreated when a monitor started', ['gvr', 'namespace']),
      requestLatency: histogram('kubernetes_client_request_latency_seconds', 'Latency of Kubernetes API requests', ['component', 'verb', 'url'], KUBE_CLIENT_BUCKETS),
      requestResult: counter('kubernetes_client_request_result_total', 'Results of Kubernetes API requests', ['component', 'code', 'method', 'host']),
      patcherRequestLatency: fam.add(new HistogramFamily('object_patcher_kubernetes_client_request_latency_seconds', 'Latency of the object patcher\'s Kubernetes API requests', ['component', 'verb', 'url'], KUBE_CLIENT_BUCKETS)),
      patcherRequestResult: fam.add(new ValueFamily('object_patcher_kubernetes_client_request_result_total', 'Results of the object patcher\'s Kubernetes API requests', 'counter', ['component', 'code', 'method', 'host'])),
    };
    this.refreshScraped = [
      scraped('binding_count', 'Bindings of a hook', ['module', 'hook'], (set) => {
        for (const h of src.hooks?.() ?? []) set([h.module, h.hook], h.bindings);
      }),
      scraped('mm_module_info', 'Modules and their enabled state', ['module', 'enabled', 'critical'], (set) => {
        // critical: a module without module.yaml is critical, as the Go fs loader marks every module
        for (const m of src.modules?.() ?? []) set([m.name, String(m.enabled), String(m.critical ?? true)], 1);
      }),
      scraped('mm_module_maintenance', 'Modules in a maintenance state', ['module', 'state'], (set) => {
        for (const m of src.modules?.() ?? []) if (m.maintenance) set([m.name, 'NoResourceReconciliation'], 1);
      }),
      scraped('tasks_queue_length', 'Tasks in a queue', ['queue'], (set) => {
        for (const q of src.queues?.() ?? []) set([q.queue], q.length);
      }),
      scraped('tasks_queue_head_info', 'The task at the head of a queue', ['queue', 'module', 'task_type', 'hook'], (set) => {
        for (const q of src.queues?.() ?? []) if (q.head) set([q.queue, q.head.module, q.head.taskType, q.head.hook], 1);
      }),
      scraped('module_health', 'A module\'s health: 1 for the one it has, 0 for the others', ['module', 'health'], (set) => {
        for (const m of src.moduleHealth?.() ?? []) for (const h of MODULE_HEALTHS) set([m.module, h], m.health === h ? 1 : 0);
      }),
      scraped('module_objects', 'Objects of a module\'s release by status (Current, InProgress, Failed, Unknown)', ['module', 'health'], (set) => {
        for (const m of src.moduleHealth?.() ?? []) for (const [h, n] of Object.entries(m.objects ?? {})) set([m.module, h], n);
      }),
      scraped('kube_snapshot_objects', 'Objects in the snapshot of a kubernetes binding', KUBE_LABELS, (set) => {
        for (const s of src.snapshots?.() ?? []) set([s.module, s.hook, s.binding, s.queue, s.kind], s.objects);
      }),
      scraped('kube_snapshot_bytes', 'Memory the snapshot of a kubernetes binding retains, estimated', KUBE_LABELS, (set) => {
        for (const s of src.snapshots?.() ?? []) set([s.module, s.hook, s.binding, s.queue, s.kind], s.bytes);
      }),
    ];
  }

  /** Starts `live_ticks` (+1 every 10 s) and the 5-second check of the config's validity. */
  start(): void {
    this.liveTicks ??= setInterval(() => this.m.liveTicks.inc(), 10_000).unref();
    this.configCheck ??= setInterval(() => {
      if (this.configInvalid) this.m.configValuesErrors.inc();
    }, 5_000).unref();
  }

  stop(): void {
    clearInterval(this.liveTicks);
    clearInterval(this.configCheck);
    this.liveTicks = this.configCheck = undefined;
  }

  /**
   * The series of a hook label set: found by the hook's name, then among the few label sets of that
   * hook (its binding types and activations), by comparing strings that are usually the same objects.
   */
  private hookSeriesOf(l: HookRunLabels): HookSeries {
    let list = this.hookSeries.get(l.hook);
    if (list === undefined) this.hookSeries.set(l.hook, (list = []));
    for (const s of list) if (s.labels.module === l.module && s.labels.binding === l.binding && s.labels.queue === l.queue && s.labels.activation === l.activation) return s;
    const values = l.module === undefined ? [l.hook, l.binding, l.queue, l.activation] : [l.module, l.hook, l.binding, l.queue, l.activation];
    const s: HookSeries = { labels: { ...l }, values, seconds: this.hookFamilies(l).seconds.series(values) };
    list.push(s);
    return s;
  }

  private hookFamilies(l: HookRunLabels): HookFamilies {
    return l.module === undefined ? this.globalHooks : this.moduleHooks;
  }

  /** A hook run: duration and, when known, CPU and memory of its process. */
  hookRun(l: HookRunLabels, seconds: number, usage?: ProcessUsage): void {
    const s = this.hookSeriesOf(l);
    const f = this.hookFamilies(l);
    f.seconds.observeIn(s.seconds, seconds);
    if (!usage) return;
    f.userCpu.observeIn((s.userCpu ??= f.userCpu.series(s.values)), usage.userSeconds);
    f.sysCpu.observeIn((s.sysCpu ??= f.sysCpu.series(s.values)), usage.sysSeconds);
    if (usage.maxRssBytes !== undefined) f.maxRss.setIn((s.maxRss ??= f.maxRss.series(s.values)), usage.maxRssBytes);
  }

  /** The result of a GlobalHookRun or ModuleHookRun task. */
  hookTaskResult(l: HookRunLabels, result: HookRunResult): void {
    const s = this.hookSeriesOf(l);
    const f = this.hookFamilies(l);
    if (result === 'success') f.success.incIn((s.success ??= f.success.series(s.values)));
    else if (result === 'error') f.errors.incIn((s.errors ??= f.errors.series(s.values)));
    else f.allowed.incIn((s.allowed ??= f.allowed.series(s.values)));
  }

  /**
   * Whether the config last read from the ConfigMap could not be used (parse or validation error):
   * while it could not, `config_values_errors_total` counts up every 5 s, as Go's `checkConfig` does.
   */
  configValid(valid: boolean): void {
    this.configInvalid = !valid;
  }

  discoverError(): void {
    this.m.discoverErrors.inc();
  }

  moduleRun(module: string, activation: string, seconds: number, ok: boolean): void {
    this.m.moduleRunSeconds.observe([module, activation], seconds);
    if (!ok) this.m.moduleRunErrors.inc([module]);
  }

  moduleDeleteError(module: string): void {
    this.m.moduleDeleteErrors.inc([module]);
  }

  convergence(activation: string, seconds: number): void {
    this.m.convergenceSeconds.inc([activation], seconds);
    this.m.convergenceTotal.inc([activation]);
  }

  moduleHelm(module: string, activation: string, seconds: number): void {
    this.m.moduleHelmSeconds.observe([module, activation], seconds);
  }

  absentResource(module: string, resource: string): void {
    this.m.absentResources.inc([module, resource]);
  }

  helmReleaseRedeployed(module: string): void {
    this.m.helmReleaseRedeployed.inc([module]);
  }

  helmDrift(module: string, resource: string, action: 'fixed' | 'reported'): void {
    this.m.helmDrift.inc([module, resource, action]);
  }

    helmOperation(module: string, activation: string, operation: 'template' | 'check-upgrade' | 'upgrade', seconds: number): void {
    this.m.helmOperationSeconds.observe([module, activation, operation], seconds);
  }

  taskWait(l: { module: string; hook: string; binding: string; queue: string }, seconds: number): void {
    this.m.taskWait.inc([l.module, l.hook, l.binding, l.queue], seconds);
  }

  /** The recorder of one kubernetes binding's jqFilter and event timings, its series found once. */
  kubeBindingTimings(l: { module: string; hook: string; binding: string; queue: string; kind: string }): { jqFilter(seconds: number): void; event(seconds: number): void } {
    const values = [l.module, l.hook, l.binding, l.queue, l.kind];
    const jq = this.m.jqFilterSeconds;
    const ev = this.m.kubeEventSeconds;
    // found on first use, so that a binding without a jqFilter shows no jq series
    let jqSeries: HistogramSeries | undefined;
    let evSeries: HistogramSeries | undefined;
    return { jqFilter: (s) => jq.observeIn((jqSeries ??= jq.series(values)), s), event: (s) => ev.observeIn((evSeries ??= ev.series(values)), s) };
  }

  watchError(errorType: string): void {
    this.m.watchErrors.inc([errorType]);
  }

  /** A snapshot of the binding was read while its monitor was not running (shell-operator's #922). */
  bindingMonitorMissing(binding: string): void {
    this.m.monitorMissing.inc([binding]);
  }

  /** A shared informer was found stopped and made anew (`gvr`: Go's `group/version, Resource=r`). */
  informerDead(gvr: string, namespace: string): void {
    this.m.informerDead.inc([gvr, namespace]);
  }

  /**
   * The latency of one request to the Kubernetes API (`url`: client-go's URL template). The object
   * patcher's requests go to its own set, prefixed `object_patcher_`, as in the Go operator.
   */
  kubeRequestLatency(r: { component: string; verb: string; url: string; seconds: number }): void {
    const f = r.component === PATCHER_COMPONENT ? this.m.patcherRequestLatency : this.m.requestLatency;
    f.observe([r.component, r.verb, r.url], r.seconds);
  }

  /** The result of one request to the Kubernetes API (`code`: the status, or `<error>`). */
  kubeRequestResult(r: { component: string; code: string; method: string; host: string }): void {
    const f = r.component === PATCHER_COMPONENT ? this.m.patcherRequestResult : this.m.requestResult;
    f.inc([r.component, r.code, r.method, r.host]);
  }

  /** The Prometheus text exposition of every metric. */
  async render(): Promise<string> {
    return (await this.renderParts()).join('');
  }

  /** render()'s text in parts, for a response that sends them one after another without joining them. */
  async renderParts(): Promise<string[]> {
    for (const refresh of this.refreshScraped) refresh();
    const families = this.families.renderParts();
    families.push('\n', await this.registry.metrics());
    return families;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
