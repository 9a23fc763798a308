/**
 * What the operator needs from the layers around it, as interfaces (LIFECYCLE-STEPS, DESIGN §2):
 * - a Kubernetes port: monitors for the kubernetes bindings of hooks, the object operations hooks
 *   write, and the config source (ConfigMap/addon-operator);
 * - a Helm port: install or upgrade a module's release, uninstall it, list releases, render a chart
 *   as its release would get it, and list the objects of a release that are missing.
 *
 * The adapters implement these shapes (src/kube: the client, the binding monitors, the ConfigMap
 * source; src/helm: the release engine); they may import the types of this file, the core never
 * imports them (test/layering.test.ts). `addon-operator start` wires them. Tests may pass in-memory ones.
 */
import type { KubernetesBinding, WatchEvent } from '../hooks/config-types.js';
import type { SnapshotItem } from '../hooks/binding-context.js';
import type { KubeOperation } from '../hooks/outputs/kubernetes.js';
import type { JsonObject } from '../util/json.js';
import type { AdmissionWebhookSpec } from '../hooks/webhook-specs.js';

/** One event of a kubernetes binding, after the binding's jq filter. */
export interface BindingEvent {
  watchEvent: WatchEvent;
  item: SnapshotItem;
}

/** Watches the objects of one kubernetes binding and keeps its snapshot. */
export interface BindingMonitor {
  /** Lists (retrying until it succeeds or stop()); resolves when the snapshot is complete. */
  start(): Promise<void>;
  /** The current snapshot, sorted by namespace then name. */
  snapshot(): readonly SnapshotItem[];
  /** How many items the snapshot holds, without building it (the metrics' scrape counts them). */
  snapshotSize(): number;
  /** The memory the snapshot retains, estimated (`kube_snapshot_bytes`, the snapshot memory guard). */
  retainedBytes(): number;
  stop(): Promise<void>;
}

export interface MonitorOptions {
  /** Called for every change after start() resolved (Modified with an unchanged filter result is skipped). */
  onEvent: (event: BindingEvent) => void;
  /** Errors of the watch (it keeps retrying). */
  onError?: (error: Error) => void;
  /** For logs: `hooks/x.sh` or `module/hooks/x.sh`, binding name. */
  label: string;
  /** Where the monitor reports how long its work took (the `kube_*_duration_seconds` metrics). */
  timings?: MonitorTimings;
}

export interface MonitorTimings {
  /** One object through the binding's jqFilter. */
  jqFilter(seconds: number): void;
  /** One watch event handled: filtered, compared, stored and passed on. */
  event(seconds: number): void;
}

export interface KubernetesPort {
  createMonitor(binding: KubernetesBinding, options: MonitorOptions): BindingMonitor;
  /** Executes the object operations a hook wrote, in order; `hookFailed` keeps only `ignoreHookError` ones. */
  applyOperations(operations: readonly KubeOperation[], options: { hook: string; hookFailed: boolean }): Promise<void>;
}

/** ConfigMap/addon-operator: raw data (key → YAML text); null when the ConfigMap does not exist. */
export type ConfigMapData = Record<string, string> | null;

export interface ConfigSource {
  /** Where the config lives, for messages: `ConfigMap addon-operator/addon-operator`, a file path... */
  readonly description: string;
  /** Reads the current data once. */
  read(): Promise<ConfigMapData>;
  /** Calls `onChange` on every later change of the data (after `read`), until stop(). */
  watch(onChange: (data: ConfigMapData) => void, onError?: (error: Error) => void): Promise<void>;
  /** Writes one section (`global` or a module's camelCase key) as YAML; creates the ConfigMap if missing. */
  writeSection(key: string, values: JsonObject): Promise<void>;
  stop(): Promise<void>;
}

export interface ReleaseRequest {
  /** The module name in kebab-case (LIFECYCLE-STEPS step 5: the chart's name is ignored). */
  release: string;
  namespace: string;
  chartDir: string;
  /** `{"global": ..., "<camelName>": ...}` (the Helm view of VALUES.md). */
  values: JsonObject;
  /**
   * The module's maintenance state NoResourceReconciliation (Go's Unmanaged): the release is upgraded
   * once more with its label `maintenance.deckhouse.io/no-resource-reconciliation` "true"; once it has
   * it, the run leaves the release alone (`unmanaged`) and the resources monitor stops watching it.
   */
  noResourceReconciliation?: boolean;
  /**
   * Wait for the release's objects to be ready before resolving (Helm's `--wait`, bounded by
   * `--helm-timeout`); absent: as `--helm-wait` says. A timeout fails the run naming what is not ready.
   */
  wait?: boolean;
  /** What asked for `wait` (e.g. `helmWait in FILE`), named in the timeout message instead of `--helm-wait`. */
  waitSource?: string;
  /** Told how long each step took (Go's `helm_operation_seconds`): the render, the check, the upgrade. */
  onOperation?: (operation: 'template' | 'check-upgrade' | 'upgrade', seconds: number) => void;
}

/**
 * `unchanged`: the checksum of the values and manifests matched the last release and nothing was absent;
 * `unmanaged`: the release is in maintenance (NoResourceReconciliation) and was left alone.
 */
export type ReleaseOutcome = 'installed' | 'upgraded' | 'unchanged' | 'unmanaged';

/** An object of a release and its kstatus-style status (`Current`, `InProgress`, `Failed`, `Unknown`). */
export interface ObjectStatusEntry {
  /** `Kind namespace/name`. */
  object: string;
  status: 'Current' | 'InProgress' | 'Failed' | 'Unknown';
  message: string;
}

export interface HelmPort {
  /** `helm upgrade --install`, skipped when nothing changed (LIFECYCLE-STEPS step 5). */
  upgradeInstall(request: ReleaseRequest): Promise<ReleaseOutcome>;
  /** `helm uninstall`; false when there was no release. */
  uninstall(release: string, namespace: string): Promise<boolean>;
  /** Names of the releases in the namespace. */
  listReleases(namespace: string): Promise<string[]>;
  /** The manifest `upgradeInstall` would apply now; nothing is applied. */
  render(request: ReleaseRequest): Promise<string>;
  /** What applying that manifest now would change: a unified diff, or `No diff found`. */
  diff(request: ReleaseRequest): Promise<string>;
  /** Objects of the last deployed revision that are missing from the cluster (`Kind namespace/name`). */
  absentObjects(release: string, namespace: string): Promise<string[]>;
  /** What the resources monitor watches, per release (`ns/Kind/name`); absent: no monitor. */
  watched?(): Record<string, string[]>;
  /**
   * The kstatus-style status of each object of the release's deployed revision, as the resources
   * monitor's watches see it; undefined when the release is not watched.
   */
  objectHealth?(release: string, namespace: string): ObjectStatusEntry[] | undefined;
  /**
   * The module directory's crds/ CRDs created or updated and served (ModuleEnsureCRDs, before the
   * converge's module runs): the names of those applied, and `group/version/Kind` of each of their
   * versions (module-sdk's GetAppliedGVKs).
   */
  ensureModuleCrds?(release: string, moduleDir: string): Promise<{ crds: string[]; apiVersions: string[] }>;
  /** The release's ConversionWebhook objects applied ahead of it (ModuleEnsureHooks); how many. */
  ensureConversionWebhooks?(request: ReleaseRequest): Promise<number>;
  /** Stops the resources monitor (at the operator's stop). */
  stop?(): Promise<void>;
}

/** A served webhook binding and whose it is (for messages). */
export interface Served<T> {
  spec: T;
  /** `hooks/x.sh` or `module/hooks/x.sh`. */
  hook: string;
  /** Absent for global hooks. */
  module?: string;
}

/** What the cluster must call: the admission webhooks and the CRDs whose conversion the hooks serve. */
export interface WebhookRegistration {
  validating: Array<Served<AdmissionWebhookSpec>>;
  mutating: Array<Served<AdmissionWebhookSpec>>;
  conversions: Array<Served<{ crdName: string; binding: string }>>;
}

/** The answers of the webhook hooks (operator/webhook-dispatch.ts), for the admission server. */
export interface WebhookHandlers {
  admit(path: string, review: unknown): Promise<{ status: number; body: unknown }>;
  convert(path: string, review: unknown): Promise<{ status: number; body: unknown }>;
}

/**
 * The admission server and the registration of its webhooks in the cluster: the Validating- and
 * MutatingWebhookConfiguration, and `spec.conversion` of the CRDs of conversion bindings.
 */
export interface WebhookPort {
  /** Starts the admission server (called once, when the first webhook binding is served). */
  serve(handlers: WebhookHandlers): Promise<void>;
  /**
   * Creates or updates the configurations to list exactly these webhooks (deleted when none is left)
   * and points the CRDs at the server. Returns the conversions whose CRD does not exist (not patched).
   * A CRD found missing before is asked for again only when `recheck` names it (every one when
   * `recheck` is absent); the others stay missing without a request.
   */
  register(webhooks: WebhookRegistration, recheck?: ReadonlySet<string>): Promise<Array<Served<{ crdName: string; binding: string }>>>;
  stop(): Promise<void>;
}
