/**
 * The normalised, typed hook configuration produced by `parseHookConfig` (./config.ts). Every default of
 * shell-operator / addon-operator is already applied; v0 configs are converted to the same shape.
 */
import type { JqFilter } from '../jq/index.js';

export type HookConfigVersion = 'v0' | 'v1';

/** A global hook lives under $GLOBAL_HOOKS_DIR; a module hook under <module>/hooks. */
export type HookKind = 'global' | 'module';

export type WatchEvent = 'Added' | 'Modified' | 'Deleted';
export const WATCH_EVENTS: readonly WatchEvent[] = ['Added', 'Modified', 'Deleted'];

export const GLOBAL_LIFECYCLE_BINDINGS = ['beforeAll', 'afterAll'] as const;
export const MODULE_LIFECYCLE_BINDINGS = ['beforeHelm', 'afterHelm', 'beforeDeleteHelm', 'afterDeleteHelm'] as const;
export type GlobalLifecycleBinding = (typeof GLOBAL_LIFECYCLE_BINDINGS)[number];
export type ModuleLifecycleBinding = (typeof MODULE_LIFECYCLE_BINDINGS)[number];
/** addon-operator's own bindings (their binding context always carries `snapshots`). */
export type LifecycleBinding = GlobalLifecycleBinding | ModuleLifecycleBinding;

export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export type LabelSelectorRequirement =
  | { readonly key: string; readonly operator: 'In' | 'NotIn'; readonly values: readonly string[] }
  | { readonly key: string; readonly operator: 'Exists' | 'DoesNotExist' };

/** metav1.LabelSelector; at least one of the two parts is present. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/** `=`, `==` and `Equals` are normalised to `=`; `!=` and `NotEquals` to `!=`. */
export interface FieldSelectorRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  readonly matchExpressions: readonly FieldSelectorRequirement[];
}

/** `matchNames: []` means "all". */
export interface NameSelector {
  readonly matchNames: readonly string[];
}

/**
 * Which namespaces to watch. Absent ⇒ all namespaces. When both parts are given, shell-operator uses only
 * `labelSelector` (its quirk, reproduced by the informer layer; both are kept here as written).
 */
export interface NamespaceSelector {
  readonly nameSelector?: NameSelector;
  readonly labelSelector?: LabelSelector;
}

interface BindingCommon {
  /** Binding name: the `binding` field of the binding context and the key of `snapshots`. */
  readonly name: string;
  readonly allowFailure: boolean;
  /** Queue for this binding's tasks; default `main`. */
  readonly queue: string;
  /** Present only when set. */
  readonly group?: string;
  /**
   * Names of kubernetes bindings whose snapshots this binding's contexts carry, after `group` expansion
   * (own list first, then the group's kubernetes bindings, de-duplicated). Empty ⇒ no `snapshots` key.
   */
  readonly includeSnapshotsFrom: readonly string[];
}

export interface ScheduleBinding extends BindingCommon {
  readonly type: 'schedule';
  /** As written by the hook (the identity of its timer); validated by src/schedule. */
  readonly crontab: string;
}

export interface KubernetesBinding extends BindingCommon {
  readonly type: 'kubernetes';
  /** Absent ⇒ preferred version from discovery. */
  readonly apiVersion?: string;
  readonly kind: string;
  readonly nameSelector?: NameSelector;
  readonly labelSelector?: LabelSelector;
  readonly fieldSelector?: FieldSelector;
  readonly namespace?: NamespaceSelector;
  /** The jq filter as written, and compiled. Both absent when the binding has no jqFilter. */
  readonly jqFilter?: string;
  readonly jqProgram?: JqFilter;
  /** Events that run the hook (`executeHookOnEvent`, or legacy `watchEvent`); `[]` ⇒ snapshot only. */
  readonly executeHookOnEvent: readonly WatchEvent[];
  /** Default true. Always false for v0 hooks (they never get a Synchronization run). */
  readonly executeHookOnSynchronization: boolean;
  /** Default true; `false` is honoured only when `queue` is set explicitly. */
  readonly waitForSynchronization: boolean;
  /** Default true; false ⇒ `object` is dropped from contexts and snapshots. */
  readonly keepFullObjectsInMemory: boolean;
  /** Accepted and kept, but (as in shell-operator) not used. */
  readonly resynchronizationPeriod?: string;
}

/** kubernetesValidating / kubernetesMutating / kubernetesCustomResourceConversion: checked as shell-operator checks them (config-webhooks.ts), not served. */
export interface WebhookBinding {
  readonly type: 'kubernetesValidating' | 'kubernetesMutating' | 'kubernetesCustomResourceConversion';
  readonly name: string;
  readonly group?: string;
  readonly includeSnapshotsFrom: readonly string[];
  /** The binding as written. */
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface HookSettings {
  /** Token-bucket period in ms (`executionMinInterval`, alias `executionMinPeriod`); 0 ⇒ unlimited. */
  readonly executionMinIntervalMs: number;
  /** Burst size (`executionBurst`); 0 in the config becomes 1. */
  readonly executionBurst: number;
}

interface HookConfigCommon {
  readonly version: HookConfigVersion;
  /** Hook path as given to the parser (used in messages). */
  readonly hookPath: string;
  /** ORDER of the onStartup binding; absent ⇒ no onStartup binding. */
  readonly onStartup?: number;
  readonly schedule: readonly ScheduleBinding[];
  readonly kubernetes: readonly KubernetesBinding[];
  readonly webhooks: readonly WebhookBinding[];
  readonly settings?: HookSettings;
}

export interface GlobalHookConfig extends HookConfigCommon {
  readonly kind: 'global';
  readonly beforeAll?: number;
  readonly afterAll?: number;
}

export interface ModuleHookConfig extends HookConfigCommon {
  readonly kind: 'module';
  readonly beforeHelm?: number;
  readonly afterHelm?: number;
  readonly beforeDeleteHelm?: number;
  readonly afterDeleteHelm?: number;
}

export type HookConfig = GlobalHookConfig | ModuleHookConfig;

/** ORDER of a lifecycle binding for this hook, or undefined when the hook does not have it. */
export function lifecycleOrder(config: HookConfig, binding: LifecycleBinding): number | undefined {
  if (config.kind === 'global') {
    return binding === 'beforeAll' || binding === 'afterAll' ? config[binding] : undefined;
  }
  return binding === 'beforeAll' || binding === 'afterAll' ? undefined : config[binding];
}

/** Names of the hook's kubernetes bindings, in config order (the snapshots of lifecycle contexts). */
export function kubernetesBindingNames(config: HookConfig): string[] {
  return config.kubernetes.map((b) => b.name);
}
