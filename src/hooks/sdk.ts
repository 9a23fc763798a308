/**
 * `addon-operator/hooks`: what a hook written in TypeScript or JavaScript needs. A file named
 * `*.hook.js` or `*.hook.mjs` in a hooks dir exports `config` (the same schema a shell hook prints
 * for `--config`) and `run(ctx)`; it runs inside the operator with the same inputs and outputs.
 *
 *   import { defineHook } from 'addon-operator/hooks';
 *   export const { config, run } = defineHook({
 *     config: { configVersion: 'v1', beforeHelm: 10 },
 *     run(ctx) { ctx.patchValues([{ op: 'add', path: '/myModule/ready', value: true }]); },
 *   });
 */

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** An RFC 6902 operation; a path without a leading `/` is read as dot-separated keys. */
export type PatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: Json }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

/** The hook configuration (see HOOKS.md); validated exactly as a shell hook's `--config` output. */
export interface HookConfigInput {
  configVersion?: 'v1' | 'v0';
  onStartup?: number;
  beforeAll?: number;
  afterAll?: number;
  beforeHelm?: number;
  afterHelm?: number;
  afterDeleteHelm?: number;
  schedule?: Array<{ name?: string; crontab: string; allowFailure?: boolean; queue?: string; group?: string; includeSnapshotsFrom?: string[] }>;
  kubernetes?: Array<{ name?: string; apiVersion?: string; kind: string; [key: string]: unknown }>;
  settings?: { executionMinInterval?: string; executionBurst?: number };
  [key: string]: unknown;
}

export interface MetricOptions {
  labels?: Record<string, string>;
  /** Defaults to the hook's name: each run that writes metrics replaces the hook's previous set. */
  group?: string;
}

export interface KubernetesTarget {
  apiVersion?: string;
  kind: string;
  namespace?: string;
  name: string;
  subresource?: string;
}

export interface HookContext {
  /** The binding contexts of this run, as a shell hook reads them from $BINDING_CONTEXT_PATH. */
  readonly bindingContext: ReadonlyArray<Record<string, unknown>>;
  /** $VALUES_PATH: a private copy. */
  readonly values: { [key: string]: Json };
  /** $CONFIG_VALUES_PATH: a private copy. */
  readonly configValues: { [key: string]: Json };
  /** $VALUES_JSON_PATCH_PATH: volatile values. */
  patchValues(ops: PatchOperation | PatchOperation[]): void;
  /** $CONFIG_VALUES_JSON_PATCH_PATH: saved to the ConfigMap. */
  patchConfigValues(ops: PatchOperation | PatchOperation[]): void;
  /** $METRICS_PATH. */
  readonly metrics: {
    set(name: string, value: number, options?: MetricOptions): void;
    add(name: string, value: number, options?: MetricOptions): void;
    observe(name: string, value: number, buckets: number[], options?: MetricOptions): void;
    expire(group: string): void;
  };
  /** $KUBERNETES_PATCH_PATH. */
  readonly kubernetes: {
    create(object: Record<string, unknown>, options?: { subresource?: string }): void;
    createIfNotExists(object: Record<string, unknown>): void;
    createOrUpdate(object: Record<string, unknown>): void;
    delete(target: KubernetesTarget, options?: { propagation?: 'Foreground' | 'Background' | 'Orphan' }): void;
    mergePatch(target: KubernetesTarget, patch: Record<string, unknown>, options?: { ignoreMissingObject?: boolean; ignoreHookError?: boolean }): void;
    jsonPatch(target: KubernetesTarget, ops: PatchOperation[], options?: { ignoreMissingObject?: boolean; ignoreHookError?: boolean }): void;
    jqPatch(target: KubernetesTarget, jqFilter: string, options?: { ignoreMissingObject?: boolean }): void;
  };
  /**
   * $VALIDATING_RESPONSE_PATH: the answer of a kubernetesValidating or kubernetesMutating run. `patch`
   * (mutating) is the JSON patch's operations, or them base64-encoded as a shell hook writes them.
   */
  admissionResponse(response: { allowed: boolean; message?: string; warnings?: string[]; patch?: PatchOperation[] | string }): void;
  /** $CONVERSION_RESPONSE_PATH: the objects of a kubernetesCustomResourceConversion run, or why it failed. */
  conversionResponse(response: { convertedObjects: Array<Record<string, unknown>> } | { failedMessage: string }): void;
  /** Logs a line with the hook's labels. */
  log(message: string, fields?: Record<string, unknown>): void;
  /** Aborted when the run passes its timeout. */
  readonly signal: AbortSignal;
}

export interface HookDefinition {
  config: HookConfigInput;
  run(ctx: HookContext): void | Promise<void>;
}

/** Identity helper that gives a hook module its types. */
export function defineHook(hook: HookDefinition): HookDefinition {
  return hook;
}
