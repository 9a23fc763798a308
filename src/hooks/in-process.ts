/**
 * Hooks written in JavaScript or TypeScript (compiled to `*.hook.js`/`*.hook.mjs`), run inside the
 * operator without a process: the same inputs as objects, and outputs validated exactly as a shell
 * hook's output files are.
 */
import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { UserError, errorMessage } from '../util/errors.js';
import { cloneJson, type JsonObject, type JsonValue } from '../util/json.js';
import { toPatchOp, type PatchOp } from '../values/patch.js';
import { toMetricOperation, type MetricOperation } from './outputs/metrics.js';
import { toKubeOperation, type KubeOperation } from './outputs/kubernetes.js';
import { HookRunError, type HookLineLogger, type HookOutputs } from './executor.js';
import type { HookContext, HookDefinition, KubernetesTarget, MetricOptions, PatchOperation } from './sdk.js';
import { toAdmissionResponse, toConversionResponse } from './outputs/webhook-response.js';

export interface LoadedInProcessHook {
  config: unknown;
  run: HookDefinition['run'];
}

let sdkResolverRegistered = false;

/**
 * Hooks live in modules dirs, far from any node_modules that holds this package: a resolve hook makes
 * `import ... from 'addon-operator/hooks'` find the operator's own SDK wherever the hook file is.
 */
function registerSdkResolver(): void {
  if (sdkResolverRegistered) return;
  sdkResolverRegistered = true;
  const sdk = import.meta.resolve('./sdk.js');
  const code = `export async function resolve(specifier, context, next) {
  return next(specifier === 'addon-operator/hooks' ? ${JSON.stringify(sdk)} : specifier, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(code)}`);
}

/**
 * Whether a hook's source may import anything (`import`, `export ... from`). The SDK resolver is a
 * loader hook, which Node runs in a thread of its own (about 13 MiB, and every later import resolved
 * through it): it is registered only for the first hook that imports.
 */
const IMPORTS = /\bimport\b|\bfrom\s*['"`]/;

/** Imports a hook module; it must export `config` and `run` (or a default export that has them). */
export async function importInProcessHook(path: string, name: string): Promise<LoadedInProcessHook> {
  let mod: Record<string, unknown>;
  try {
    // read at once: a hook file is small, and four asynchronous calls per file cost more than the read
    if (!sdkResolverRegistered && IMPORTS.test(readFileSync(path, 'utf8'))) registerSdkResolver();
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (e) {
    throw new UserError(`hook ${name}: cannot load ${path}: ${errorMessage(e)}`);
  }
  const source = (mod.config === undefined && mod.default && typeof mod.default === 'object' ? mod.default : mod) as Record<string, unknown>;
  const problems: string[] = [];
  if (source.config === undefined || source.config === null || typeof source.config !== 'object') problems.push('it must export "config", an object');
  if (typeof source.run !== 'function') problems.push('it must export "run(ctx)", a function');
  if (problems.length) throw new UserError(`hook ${name}: ${problems.join('; ')}`);
  return { config: source.config, run: source.run as HookDefinition['run'] };
}

export interface InProcessRun {
  name: string;
  hook: LoadedInProcessHook;
  bindingContext: Array<Record<string, unknown>>;
  values: JsonObject;
  configValues: JsonObject;
  timeoutMs: number;
  log?: HookLineLogger;
  /** A webhook run: its answer (ctx.admissionResponse / ctx.conversionResponse) is part of the outputs. */
  webhook?: 'admission' | 'conversion';
}

function asList(ops: PatchOperation | PatchOperation[]): unknown[] {
  return Array.isArray(ops) ? ops : [ops];
}

/**
 * ctx.signal, made when the hook first reads it: most hooks never do, and each Node AbortSignal left
 * about 0.7 KB in V8's old generation (docs/performance.md, "Profile and fix"). Outside of
 * runInProcessHook, so that the getter holds none of the run's values: a getter written in the ctx
 * literal made every run's values, contexts and logger survive until a full collection.
 */
function lazyAbort(): { signal: () => AbortSignal; abort: () => void } {
  let controller: AbortController | undefined;
  let aborted = false;
  return {
    signal: () => {
      if (!controller) {
        controller = new AbortController();
        if (aborted) controller.abort();
      }
      return controller.signal;
    },
    abort: () => {
      aborted = true;
      controller?.abort();
    },
  };
}

export async function runInProcessHook(r: InProcessRun): Promise<HookOutputs> {
  const out: HookOutputs = { valuesPatch: [], configValuesPatch: [], metrics: [], kubernetes: [] };
  if (r.webhook === 'admission') out.admission = null;
  if (r.webhook === 'conversion') out.conversion = null;
  const where = (what: string, n: number) => `${what} of hook ${r.name}, operation ${n + 1}`;
  const patch = (target: PatchOp[], what: string) => (ops: PatchOperation | PatchOperation[]) => {
    for (const op of asList(ops)) target.push(toPatchOp(op, where(what, target.length)));
  };
  const metric = (op: Record<string, unknown>) => out.metrics.push(toMetricOperation(op, r.name, where('metrics', out.metrics.length)) as MetricOperation);
  const kube = (spec: Record<string, unknown>) => out.kubernetes.push(toKubeOperation(spec, where('kubernetes', out.kubernetes.length)) as KubeOperation);
  const target = (t: KubernetesTarget) => ({ apiVersion: t.apiVersion, kind: t.kind, namespace: t.namespace, name: t.name, ...(t.subresource ? { subresource: t.subresource } : {}) });
  const abort = lazyAbort();
  const fields: Omit<HookContext, 'signal'> = {
    // a copy: the objects of snapshots are the monitors' own, shared between bindings (hooks/snapshot.ts)
    bindingContext: cloneJson(r.bindingContext as JsonValue[]) as Array<Record<string, unknown>>,
    values: cloneJson(r.values as JsonValue) as JsonObject,
    configValues: cloneJson(r.configValues as JsonValue) as JsonObject,
    patchValues: patch(out.valuesPatch, 'values patch'),
    patchConfigValues: patch(out.configValuesPatch, 'config values patch'),
    metrics: {
      set: (name: string, value: number, o: MetricOptions = {}) => metric({ name, action: 'set', value, ...o }),
      add: (name: string, value: number, o: MetricOptions = {}) => metric({ name, action: 'add', value, ...o }),
      observe: (name: string, value: number, buckets: number[], o: MetricOptions = {}) => metric({ name, action: 'observe', value, buckets, ...o }),
      expire: (group: string) => metric({ action: 'expire', group }),
    },
    kubernetes: {
      create: (object, o = {}) => kube({ operation: 'Create', object, ...o }),
      createIfNotExists: (object) => kube({ operation: 'CreateIfNotExists', object }),
      createOrUpdate: (object) => kube({ operation: 'CreateOrUpdate', object }),
      delete: (t, o = {}) => kube({ operation: o.propagation === 'Background' ? 'DeleteInBackground' : o.propagation === 'Orphan' ? 'DeleteNonCascading' : 'Delete', ...target(t) }),
      mergePatch: (t, mergePatch, o = {}) => kube({ operation: 'MergePatch', ...target(t), mergePatch, ...o }),
      jsonPatch: (t, jsonPatch, o = {}) => kube({ operation: 'JSONPatch', ...target(t), jsonPatch, ...o }),
      jqPatch: (t, jqFilter, o = {}) => kube({ operation: 'JQPatch', ...target(t), jqFilter, ...o }),
    },
    log: (message, fields) => r.log?.('stdout', message, fields),
    admissionResponse: (response) => {
      out.admission = toAdmissionResponse(response, `the admission response of hook ${r.name}`);
    },
    conversionResponse: (response) => {
      out.conversion = toConversionResponse(response, `the conversion response of hook ${r.name}`);
    },
  };
  const ctx = Object.defineProperty(fields, 'signal', { get: abort.signal, enumerable: true }) as HookContext;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new HookRunError(`hook ${r.name} failed: timed out after ${r.timeoutMs / 1000}s`));
    }, r.timeoutMs);
  });
  try {
    await Promise.race([Promise.resolve().then(() => r.hook.run(ctx)), timeout]);
  } catch (e) {
    const onFailure = out.kubernetes.filter((op) => op.ignoreHookError && (op.subresource === '/status' || op.subresource === 'status'));
    if (e instanceof HookRunError) throw new HookRunError(e.message, onFailure);
    throw new HookRunError(`hook ${r.name} failed: ${errorMessage(e)}`, onFailure);
  } finally {
    clearTimeout(timer);
  }
  return out;
}
