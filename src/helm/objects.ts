/**
 * The cluster side of a release: the objects of a manifest, resolved through the REST mapper, and
 * the calls made on them — server-side apply (force, one field manager), existence checks and
 * deletes. Namespaced objects without a namespace go to the release namespace; cluster-scoped
 * objects lose a namespace they should not have.
 */
import type { KubeConfig } from '../kube/kube-config.js';
import { isApiStatus, KubeApiError, requestJson } from '../kube/http.js';
import { KindNotServedError, type ResourceInfo, type RestMapper } from '../kube/mapper.js';
import { UserError } from '../util/errors.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { parseYaml } from '../util/yaml.js';
import type { Manifest } from './manifests.js';

export interface ManifestObject {
  /** The template it came from. */
  source: string;
  object: JsonObject;
  apiVersion: string;
  kind: string;
  name: string;
  /** As written in the manifest (may be empty). */
  namespace: string;
  annotations: Record<string, string>;
}

/** A manifest object placed in the cluster: its resource and final namespace. */
export interface PlacedObject extends ManifestObject {
  info: ResourceInfo;
  /** undefined for cluster-scoped kinds. */
  placedNamespace: string | undefined;
  /** Identity across revisions: group, kind, namespace, name (the version may change). */
  key: string;
  /** `Deployment ns/name`, `ClusterRole name` */
  label: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The objects of rendered manifests, in order; comment-only documents are skipped. */
export function manifestObjects(manifests: readonly Pick<Manifest, 'name' | 'content' | 'data'>[]): ManifestObject[] {
  const out: ManifestObject[] = [];
  for (const m of manifests) {
    // a rendered manifest carries its parsed document; a stored release manifest is parsed here
    const data = m.data !== undefined ? m.data : parseYaml(m.content, m.name);
    if (data === null) continue;
    if (!isPlainObject(data as never)) throw new UserError(`${m.name}: a manifest must be an object`);
    const object = data as JsonObject;
    const meta = (isPlainObject(object.metadata ?? null) ? object.metadata : {}) as JsonObject;
    const o: ManifestObject = {
      source: m.name,
      object,
      apiVersion: str(object.apiVersion),
      kind: str(object.kind),
      name: str(meta.name),
      namespace: str(meta.namespace),
      annotations: (isPlainObject(meta.annotations ?? null) ? meta.annotations : {}) as Record<string, string>,
    };
    const missing = [!o.apiVersion && 'apiVersion', !o.kind && 'kind', !o.name && 'metadata.name'].filter(Boolean);
    if (missing.length) throw new UserError(`${m.name}: the object has no ${missing.join(', ')}`);
    out.push(o);
  }
  return out;
}

/** The API server's message of a failed call, without our method/path prefix. */
export function apiMessage(e: unknown): string {
  if (e instanceof KubeApiError) return e.message.replace(/^[A-Z]+ \S+: /, '');
  return (e as Error).message;
}

/**
 * The object as sent: its final namespace (none for cluster-scoped kinds), `extra` merged into its
 * labels and annotations. Nothing else changes: with no extra labels (annotations) the object's own
 * are sent as rendered, and a map the chart did not write is not invented.
 */
function placedBody(p: PlacedObject, extra?: { labels: Record<string, string>; annotations: Record<string, string> }): JsonObject {
  const metadata = { ...(p.object.metadata as JsonObject) };
  if (p.placedNamespace) metadata.namespace = p.placedNamespace;
  else delete metadata.namespace;
  if (extra && Object.keys(extra.labels).length) metadata.labels = { ...((metadata.labels as JsonObject | undefined) ?? {}), ...extra.labels };
  if (extra && Object.keys(extra.annotations).length) metadata.annotations = { ...((metadata.annotations as JsonObject | undefined) ?? {}), ...extra.annotations };
  return { ...p.object, metadata };
}

/** A Deployment's switch to `Recreate` refused for the rollingUpdate the API server defaulted before. */
function isRecreateOverDefaultedRollingUpdate(p: PlacedObject, e: unknown): boolean {
  const strategy = (p.object.spec as JsonObject | undefined)?.strategy;
  return (
    p.info.group === 'apps' &&
    p.info.kind === 'Deployment' &&
    isPlainObject(strategy) &&
    strategy.type === 'Recreate' &&
    strategy.rollingUpdate === undefined &&
    isApiStatus(e, 422) &&
    e.message.includes('spec.strategy.rollingUpdate: Forbidden')
  );
}

export class ClusterObjects {
  constructor(
    private readonly kc: KubeConfig,
    private readonly mapper: RestMapper,
    private readonly fieldManager: string,
    /** Told what each apply answered (the resources monitor takes the operator's field set from it). */
    private readonly onApplied?: (p: PlacedObject, live: JsonObject) => void,
  ) {}

  /** Resolves the resource; undefined when the kind is not served (a CRD that is gone). */
  async place(o: ManifestObject, releaseNamespace: string): Promise<PlacedObject | undefined> {
    let info: ResourceInfo;
    try {
      info = await this.mapper.resolve(o.apiVersion, o.kind);
    } catch (e) {
      if (e instanceof KindNotServedError) return undefined;
      throw e;
    }
    const placedNamespace = info.namespaced ? o.namespace || releaseNamespace : undefined;
    return {
      ...o,
      info,
      placedNamespace,
      key: `${info.group}/${info.kind}/${placedNamespace ?? ''}/${o.name}`,
      label: placedNamespace ? `${info.kind} ${placedNamespace}/${o.name}` : `${info.kind} ${o.name}`,
    };
  }

  /** Like place, but a kind that is not served is an error. */
  async placeOrFail(o: ManifestObject, releaseNamespace: string): Promise<PlacedObject> {
    const p = await this.place(o, releaseNamespace);
    if (!p) throw new KindNotServedError(o.kind, o.apiVersion);
    return p;
  }

  /** Server-side apply with force; `extra` labels/annotations are merged into the object's. */
  async apply(p: PlacedObject, extra: { labels: Record<string, string>; annotations: Record<string, string> }): Promise<void> {
    let live: JsonObject;
    try {
      live = await this.serverSideApply(p, this.fieldManager, extra);
    } catch (e) {
      if (!isRecreateOverDefaultedRollingUpdate(p, e)) throw e;
      // Helm 3's three-way patch drops rollingUpdate with the type (retainKeys); a server-side apply
      // cannot remove the defaulted rollingUpdate nobody owns (kubernetes#24198): drop it, then apply
      await requestJson<JsonObject>(this.kc, 'PATCH', this.mapper.objectPath(p.info, p.placedNamespace, p.name), { fieldManager: this.fieldManager }, JSON.stringify({ spec: { strategy: { type: 'Recreate', rollingUpdate: null } } }), 'application/merge-patch+json');
      live = await this.serverSideApply(p, this.fieldManager, extra);
    }
    this.onApplied?.(p, live);
  }

  /** What a server-side apply with force under `fieldManager` would make of the object; nothing is changed. */
  applyDryRun(p: PlacedObject, fieldManager: string, extra?: { labels: Record<string, string>; annotations: Record<string, string> }): Promise<JsonObject> {
    return this.serverSideApply(p, fieldManager, extra, true);
  }

  /** Creates the object (a POST, as Helm creates hooks): one that exists is an AlreadyExists error. */
  async create(p: PlacedObject, extra: { labels: Record<string, string>; annotations: Record<string, string> }): Promise<void> {
    const path = this.mapper.collectionPath(p.info, p.placedNamespace);
    await requestJson<JsonObject>(this.kc, 'POST', path, { fieldManager: this.fieldManager }, placedBody(p, extra));
  }

  private serverSideApply(p: PlacedObject, fieldManager: string, extra?: { labels: Record<string, string>; annotations: Record<string, string> }, dryRun = false): Promise<JsonObject> {
    const body = JSON.stringify(placedBody(p, extra));
    const query = { fieldManager, force: true, ...(dryRun ? { dryRun: 'All' } : {}) };
    return requestJson<JsonObject>(this.kc, 'PATCH', this.mapper.objectPath(p.info, p.placedNamespace, p.name), query, body, 'application/apply-patch+yaml');
  }

  /** The live object, or undefined when there is none. */
  async get(p: PlacedObject): Promise<JsonObject | undefined> {
    try {
      return await requestJson<JsonObject>(this.kc, 'GET', this.mapper.objectPath(p.info, p.placedNamespace, p.name));
    } catch (e) {
      if (isApiStatus(e, 404)) return undefined;
      throw e;
    }
  }

  async exists(p: PlacedObject): Promise<boolean> {
    return (await this.get(p)) !== undefined;
  }

  /** Deletes in the background (as Helm does); false when it was already gone. */
  async delete(p: PlacedObject): Promise<boolean> {
    try {
      await requestJson(this.kc, 'DELETE', this.mapper.objectPath(p.info, p.placedNamespace, p.name), { propagationPolicy: 'Background' });
      return true;
    } catch (e) {
      if (isApiStatus(e, 404)) return false;
      throw e;
    }
  }
}
