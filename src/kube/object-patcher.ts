/**
 * Executes the object operations hooks write to `$KUBERNETES_PATCH_PATH` (shell-operator §5.2, as its
 * object_patch package does): Create / CreateIfNotExists / CreateOrUpdate (full update), Delete with
 * foreground, background or orphan propagation, JQPatch (get, filter, update; retried on conflict),
 * MergePatch and JSONPatch. Scope comes from the REST mapper: the namespace is ignored for
 * cluster-scoped kinds.
 */
import type { KubeConfig } from './kube-config.js';
import type { KubeOperation } from '../hooks/outputs/kubernetes.js';
import { compileJq } from '../jq/index.js';
import { errorMessage } from '../util/errors.js';
import { isPlainObject, jsonEqual, type JsonObject, type JsonValue } from '../util/json.js';
import { isApiStatus, requestJson } from './http.js';
import { subresourceName, type ResourceInfo, type RestMapper } from './mapper.js';
import { jittered, sleep } from '../util/rate-limit.js';

export interface ObjectPatcherOptions {
  kc: KubeConfig;
  mapper: RestMapper;
  /** How long Delete (foreground) waits for the object to go (default 20 s, as shell-operator). */
  foregroundDeleteTimeoutMs?: number;
}

/** An operation failed; the message names the hook, the operation and its object. */
export class ObjectOperationError extends Error {
  override name = 'ObjectOperationError';
  constructor(
    readonly hook: string,
    /** 1-based, in the hook's output. */
    readonly index: number,
    readonly operation: KubeOperation,
    cause: unknown,
  ) {
    super(`hook ${hook}: Kubernetes operation ${index} (${describe(operation)}) failed: ${errorMessage(cause)}`, { cause });
  }
}

type CreateOp = Extract<KubeOperation, { object: JsonObject }>;
type TargetOp = Exclude<KubeOperation, CreateOp>;

const PROPAGATION = { Delete: 'Foreground', DeleteInBackground: 'Background', DeleteNonCascading: 'Orphan' } as const;

/** Conflicts are retried this many times in all (client-go's DefaultBackoff allows 4). */
const CONFLICT_ATTEMPTS = 5;

function describe(op: KubeOperation): string {
  if ('object' in op) {
    const meta = isPlainObject(op.object.metadata) ? op.object.metadata : {};
    const name = String(meta.name ?? meta.generateName ?? '');
    return `${op.operation} ${String(op.object.kind)} ${meta.namespace ? `${String(meta.namespace)}/` : ''}${name}`;
  }
  return `${op.operation} ${op.kind} ${op.namespace ? `${op.namespace}/` : ''}${op.name}`;
}

/**
 * After a failed hook only patches of the status subresource marked ignoreHookError run, as in
 * shell-operator; `status` is accepted as well as `/status`.
 */
function runsAfterHookFailure(op: KubeOperation): boolean {
  const isPatch = op.operation === 'JQPatch' || op.operation === 'MergePatch' || op.operation === 'JSONPatch';
  return isPatch && op.ignoreHookError && subresourceName(op.subresource) === 'status';
}

/** The API server clears the namespace of cluster-scoped objects; done here so that no check trips on it. */
function withoutNamespace(object: JsonObject): JsonObject {
  const { namespace: _namespace, ...metadata } = object.metadata as JsonObject;
  return { ...object, metadata };
}

async function retryOnConflict<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isApiStatus(e, 409, 'Conflict') || attempt >= CONFLICT_ATTEMPTS) throw e;
      await sleep(jittered(20 * 5 ** (attempt - 1)));
    }
  }
}

export class ObjectPatcher {
  private readonly kc: KubeConfig;
  private readonly mapper: RestMapper;
  private readonly foregroundDeleteTimeoutMs: number;

  constructor(opts: ObjectPatcherOptions) {
    this.kc = opts.kc;
    this.mapper = opts.mapper;
    this.foregroundDeleteTimeoutMs = opts.foregroundDeleteTimeoutMs ?? 20_000;
  }

  /**
   * Executes in order; when hookFailed only operations with ignoreHookError run. Stops at the first
   * failure with an ObjectOperationError.
   */
  async applyOperations(operations: readonly KubeOperation[], options: { hook: string; hookFailed: boolean }): Promise<void> {
    for (const [i, op] of operations.entries()) {
      if (options.hookFailed && !runsAfterHookFailure(op)) continue;
      try {
        await this.execute(op);
      } catch (e) {
        throw new ObjectOperationError(options.hook, i + 1, op, e);
      }
    }
  }

  private execute(op: KubeOperation): Promise<void> {
    switch (op.operation) {
      case 'Create':
      case 'CreateIfNotExists':
      case 'CreateOrUpdate':
        return this.create(op);
      case 'Delete':
      case 'DeleteInBackground':
      case 'DeleteNonCascading':
        return this.delete(op, PROPAGATION[op.operation]);
      case 'JQPatch':
        return this.jqPatch(op);
      case 'MergePatch':
        return this.patch(op, 'application/merge-patch+json', op.mergePatch);
      case 'JSONPatch':
        return this.patch(op, 'application/json-patch+json', op.jsonPatch);
    }
  }

  /** The subresource is not used for creates (shell-operator ignores it there too). */
  private async create(op: CreateOp): Promise<void> {
    const info = await this.mapper.resolve(String(op.object.apiVersion), String(op.object.kind));
    const meta = op.object.metadata as JsonObject;
    const namespace = info.namespaced ? (meta.namespace as string | undefined) : undefined;
    const name = meta.name as string | undefined;
    if (info.namespaced && !namespace) throw new Error(`${info.kind} is namespaced: the object needs metadata.namespace`);
    const object = info.namespaced ? op.object : withoutNamespace(op.object);
    try {
      await requestJson(this.kc, 'POST', this.mapper.collectionPath(info, namespace), {}, object);
      return;
    } catch (e) {
      if (!isApiStatus(e, 409, 'AlreadyExists') || !name || op.operation === 'Create') throw e;
    }
    if (op.operation === 'CreateIfNotExists') return;
    const path = this.mapper.objectPath(info, namespace, name);
    await retryOnConflict(async () => {
      const current = await requestJson<{ metadata?: { resourceVersion?: string } }>(this.kc, 'GET', path);
      const body = { ...object, metadata: { ...(object.metadata as JsonObject), resourceVersion: current.metadata?.resourceVersion } };
      await requestJson(this.kc, 'PUT', path, {}, body);
    });
  }

  private async target(op: TargetOp): Promise<{ info: ResourceInfo; namespace: string | undefined }> {
    const info = await this.mapper.resolve(op.apiVersion, op.kind);
    return { info, namespace: info.namespaced ? op.namespace : undefined };
  }

  /** A missing object is not an error (as in shell-operator). Foreground waits until it is gone. */
  private async delete(op: TargetOp, propagationPolicy: 'Foreground' | 'Background' | 'Orphan'): Promise<void> {
    const { info, namespace } = await this.target(op);
    const path = this.mapper.objectPath(info, namespace, op.name);
    try {
      await requestJson(this.kc, 'DELETE', path, {}, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy });
    } catch (e) {
      if (isApiStatus(e, 404)) return;
      throw e;
    }
    if (propagationPolicy === 'Foreground') await this.waitUntilGone(path);
  }

  private async waitUntilGone(path: string): Promise<void> {
    const deadline = Date.now() + this.foregroundDeleteTimeoutMs;
    let delay = 50;
    for (;;) {
      let current: { metadata?: { finalizers?: string[] } };
      try {
        current = await requestJson(this.kc, 'GET', path);
      } catch (e) {
        if (isApiStatus(e, 404)) return;
        throw e;
      }
      if (Date.now() >= deadline) {
        const finalizers = current.metadata?.finalizers ?? [];
        const pending = finalizers.length ? ` (finalizers: ${finalizers.join(', ')})` : '';
        throw new Error(`the object still exists ${this.foregroundDeleteTimeoutMs / 1000}s after its foreground deletion${pending}`);
      }
      await sleep(Math.min(delay, Math.max(0, deadline - Date.now())));
      delay = Math.min(delay * 2, 1000);
    }
  }

  private async jqPatch(op: Extract<KubeOperation, { operation: 'JQPatch' }>): Promise<void> {
    const filter = compileJq(op.jqFilter);
    const { info, namespace } = await this.target(op);
    const path = this.mapper.objectPath(info, namespace, op.name);
    const updatePath = this.mapper.objectPath(info, namespace, op.name, op.subresource);
    await retryOnConflict(async () => {
      let current: JsonObject;
      try {
        current = await requestJson<JsonObject>(this.kc, 'GET', path);
      } catch (e) {
        if (op.ignoreMissingObject && isApiStatus(e, 404)) return;
        throw e;
      }
      const result = filter.filterResult(current) as JsonValue;
      if (!isPlainObject(result)) throw new Error(`the jq filter must produce one object, it produced ${JSON.stringify(result)?.slice(0, 200)}`);
      if (jsonEqual(current, result)) return;
      await requestJson(this.kc, 'PUT', updatePath, {}, result);
    });
  }

  private async patch(op: TargetOp, contentType: string, body: unknown): Promise<void> {
    const { info, namespace } = await this.target(op);
    const path = this.mapper.objectPath(info, namespace, op.name, op.subresource);
    try {
      await requestJson(this.kc, 'PATCH', path, {}, body, contentType);
    } catch (e) {
      if ('ignoreMissingObject' in op && op.ignoreMissingObject && isApiStatus(e, 404)) return;
      throw e;
    }
  }
}
