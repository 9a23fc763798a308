/**
 * Object semantics on top of the store: identity fields, resourceVersion checks, generation, status
 * subresource separation, finalizers, namespaces and their cascade, CRDs serving their resources.
 */
import { randomUUID } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import {
  PATCH_TYPES,
  StatusError,
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  invalid,
  notFound,
  unsupportedMediaType,
} from './errors.js';
import { clone, deepEqual, isObject } from './json.js';
import { applyJsonPatch, applyMergePatch, builtinMergeKey, strategicMerge } from './patch.js';
import { recordUpdate, serverSideApply, type KeyFn } from './apply.js';
import { Registry, applySchemaDefaults, joinApiVersion, splitApiVersion, typeFromCrd, typeKey, type ResourceType } from './registry.js';
import { Store, objectKey, ownershipOf, type Entry } from './store.js';
import { GarbageCollector } from './gc.js';
import { validateCustomResource } from './schema.js';
import { setCrdStatus, validateName, validateObject, validateUpdate } from './validation.js';
import { fieldSubject, type FieldSelector, type LabelSelector, type Labels } from './selectors.js';
import { ServiceAllocator, applyDefaults, prepareForCreate, prepareForUpdate } from './defaults/index.js';

export interface WriteContext {
  /** fieldManager query parameter, or a name derived from the User-Agent. */
  manager: string;
  dryRun?: boolean;
  force?: boolean;
  /** true when fieldManager was given explicitly (server-side apply requires it). */
  explicitManager?: boolean;
}

export interface WriteResult {
  code: number;
  json: string;
}

export interface ListOptions {
  labelSelector?: LabelSelector;
  fieldSelector?: FieldSelector;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  entries: Entry[];
  rv: number;
  continue?: string;
  remaining?: number;
}

const NS_TKEY = typeKey('', 'namespaces');
const CRD_TKEY = typeKey('apiextensions.k8s.io', 'customresourcedefinitions');
/** Namespaces the API server refuses to delete (the NamespaceLifecycle admission plugin). */
const IMMORTAL_NAMESPACES = ['default', 'kube-system', 'kube-public'];
const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

export function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function metaOf(o: any): Record<string, any> {
  if (!isObject(o.metadata)) o.metadata = {};
  return o.metadata;
}

const META_ORDER = [
  'name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers',
  'managedFields',
];

/** Puts apiVersion, kind and metadata first, in the API server's order. */
function normalize(o: any): any {
  const meta = o.metadata ?? {};
  const m: Record<string, unknown> = {};
  for (const k of META_ORDER) if (meta[k] !== undefined) m[k] = meta[k];
  for (const k of Object.keys(meta)) if (!(k in m) && meta[k] !== undefined) m[k] = meta[k];
  const out: Record<string, unknown> = { apiVersion: o.apiVersion, kind: o.kind, metadata: m };
  for (const k of Object.keys(o)) if (!(k in out)) out[k] = o[k];
  return out;
}

function labelsOf(o: any): Labels {
  const l = o?.metadata?.labels;
  return isObject(l) && Object.keys(l).length ? (l as Record<string, string>) : undefined;
}

/** What makes a write a change: all but the resourceVersion and the times of managedFields entries. */
function stripVolatile(o: any): any {
  const c = { ...o, metadata: { ...(o.metadata ?? {}) } };
  delete c.metadata.resourceVersion;
  // a new owner of an unchanged field is a change (server-side apply by a second manager)
  if (Array.isArray(c.metadata.managedFields)) c.metadata.managedFields = c.metadata.managedFields.map(({ time: _t, ...e }: any) => e);
  return c;
}

/** What generation tracks: everything but metadata, and but status when status is a subresource. */
function specPart(o: any, statusIsSubresource: boolean): any {
  const { metadata: _m, ...rest } = o ?? {};
  if (statusIsSubresource) delete rest.status;
  return rest;
}

export class Resources {
  /** Called when a resource type stops being served (CRD deleted), so that its watches can end. */
  onTypeRemoved?: (t: ResourceType) => void;

  /** Background deletion of dependents (ownerReferences). */
  readonly gc: GarbageCollector;

  /** The ClusterIPs and node ports Services hold. */
  readonly services: ServiceAllocator;

  constructor(
    readonly registry: Registry,
    readonly store: Store,
  ) {
    this.services = new ServiceAllocator(store);
    this.gc = new GarbageCollector(store, registry, (t, ns, name) => this.delete(t, t.versions[0], ns, name, {}, { manager: 'garbage-collector' }));
  }

  keyFn(t: ResourceType): KeyFn {
    if (t.builtin) return builtinMergeKey;
    const keys = t.listMapKeys ?? {};
    return (path) => {
      const k = keys[path.join('.')];
      if (k) return k;
      if (path.length === 2 && path[0] === 'metadata') return builtinMergeKey(path);
      return undefined;
    };
  }

  private hasStatus(t: ResourceType, version?: string): boolean {
    return this.registry.subresourcesFor(t, version ?? t.versions[0]).includes('status');
  }

  private usesGeneration(t: ResourceType, o: any): boolean {
    if (!t.builtin) return true;
    return t.kind !== 'Namespace' && o != null && o.spec !== undefined;
  }

  // ------------------------------------------------------------------ reading

  /** The object's JSON as served in `version` (custom resources may be stored in another version). */
  render(t: ResourceType, version: string, json: string): string {
    const av = joinApiVersion(t.group, version);
    if (t.builtin || json.startsWith(`{"apiVersion":"${av}"`)) return json;
    const o = JSON.parse(json);
    o.apiVersion = av;
    return JSON.stringify(o);
  }

  get(t: ResourceType, ns: string, name: string): Entry {
    const e = this.store.get(typeKey(t.group, t.plural), t.namespaced ? ns : '', name);
    if (!e) throw notFound(t.group, t.plural, name);
    return e;
  }

  list(t: ResourceType, ns: string, opts: ListOptions): ListResult {
    let rv = this.store.rv;
    let after: string | undefined;
    if (opts.continue) {
      let tok: { rv: number; k: string };
      try {
        tok = JSON.parse(Buffer.from(opts.continue, 'base64url').toString('utf8'));
        if (typeof tok.k !== 'string' || typeof tok.rv !== 'number') throw new Error('bad token');
      } catch {
        throw badRequest('continue key is not valid: illegal base64 data');
      }
      if (tok.rv < this.store.floor) {
        throw new StatusError(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
      }
      rv = tok.rv;
      after = tok.k;
    }
    const { labelSelector: ls, fieldSelector: fs } = opts;
    const match =
      ls || fs
        ? (e: Entry) => {
            if (ls && !ls(e.labels)) return false;
            if (fs) return fs(fieldSubject(e));
            return true;
          }
        : undefined;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const page = this.store.page(typeKey(t.group, t.plural), t.namespaced ? ns : undefined, after, limit, match);
    if (!page.more) return { entries: page.entries, rv };
    const last = page.entries[page.entries.length - 1]!;
    const token = Buffer.from(JSON.stringify({ rv, k: objectKey(last.ns, last.name) })).toString('base64url');
    return { entries: page.entries, rv, continue: token, ...(page.remaining !== undefined ? { remaining: page.remaining } : {}) };
  }

  // ------------------------------------------------------------------ writing helpers

  private checkNamespace(t: ResourceType, ns: string, name: string): void {
    const e = this.store.get(NS_TKEY, '', ns);
    if (!e) throw notFound('', 'namespaces', ns);
    if (e.json.includes('"deletionTimestamp"')) {
      const o = JSON.parse(e.json);
      if (o.metadata?.deletionTimestamp) {
        throw forbidden(t.group, t.plural, name, `unable to create new content in namespace ${ns} because it is being terminated`);
      }
    }
  }

  private checkTypeOf(t: ResourceType, version: string, body: any): void {
    const av = joinApiVersion(t.group, version);
    if (body.kind !== undefined && body.kind !== '' && body.kind !== t.kind) {
      throw badRequest(`the kind in the data (${body.kind}) does not match the expected kind (${t.kind})`);
    }
    if (body.apiVersion !== undefined && body.apiVersion !== '' && body.apiVersion !== av) {
      const [g, v] = splitApiVersion(String(body.apiVersion));
      if (g !== t.group || !t.versions.includes(v)) {
        throw badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${av})`);
      }
    }
  }

  private serialize(o: any): string {
    return JSON.stringify(normalize(o));
  }

  private afterWrite(t: ResourceType, o: any): void {
    if (t.group === 'apiextensions.k8s.io' && t.kind === 'CustomResourceDefinition') {
      const nt = typeFromCrd(o);
      if (nt.plural && nt.group && nt.versions.length) this.registry.add(nt);
    }
  }

  private commitNew(t: ResourceType, o: any, dryRun: boolean | undefined): WriteResult {
    prepareForCreate(t, o, this.services);
    const meta = metaOf(o);
    const rv = this.store.nextRV();
    meta.resourceVersion = String(rv);
    const json = this.serialize(o);
    if (!dryRun) {
      this.store.put(typeKey(t.group, t.plural), 'ADDED', t.namespaced ? meta.namespace : '', meta.name, labelsOf(o), ownershipOf(o), json, rv);
      this.afterWrite(t, o);
    }
    return { code: 201, json };
  }

  // ------------------------------------------------------------------ create

  /** Creates an object; `owned` says the body may be used as is (a freshly decoded request body). */
  create(t: ResourceType, version: string, ns: string, body: unknown, ctx: WriteContext, owned = false): WriteResult {
    const o = this.prepareCreate(t, version, ns, body, owned);
    recordUpdate(undefined, o, ctx.manager, joinApiVersion(t.group, version), this.keyFn(t), now());
    return this.commitNew(t, o, ctx.dryRun);
  }

  private prepareCreate(t: ResourceType, version: string, ns: string, body: unknown, owned = false): any {
    if (!isObject(body)) throw badRequest('the body of the request must be a JSON or YAML object');
    this.checkTypeOf(t, version, body);
    const o: any = owned ? body : clone(body);
    o.apiVersion = joinApiVersion(t.group, version);
    o.kind = t.kind;
    const meta = metaOf(o);
    if (t.namespaced) {
      if (meta.namespace && meta.namespace !== ns) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = ns;
    } else delete meta.namespace;
    const tkey = typeKey(t.group, t.plural);
    if (!meta.name) {
      if (meta.generateName) {
        for (let i = 0; i < 8; i++) {
          let suffix = '';
          for (let j = 0; j < 5; j++) suffix += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
          const candidate = `${String(meta.generateName)}${suffix}`;
          if (!this.store.get(tkey, t.namespaced ? ns : '', candidate)) {
            meta.name = candidate;
            break;
          }
        }
      } else {
        throw invalid(t.group, t.kind, '', [{ field: 'metadata.name', type: 'FieldValueRequired', message: 'Required value: name or generateName is required' }]);
      }
    }
    validateName(t, String(meta.name));
    if (t.namespaced) this.checkNamespace(t, ns, String(meta.name));
    if (this.store.get(tkey, t.namespaced ? ns : '', meta.name)) throw alreadyExists(t.group, t.plural, meta.name);
    meta.uid = randomUUID();
    meta.creationTimestamp = now();
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (this.usesGeneration(t, o)) meta.generation = 1;
    else delete meta.generation;
    if (this.hasStatus(t, version) && t.kind !== 'Namespace') delete o.status;
    if (t.kind === 'Namespace' && t.group === '') {
      meta.labels = { ...(meta.labels ?? {}), 'kubernetes.io/metadata.name': meta.name };
      o.spec = { finalizers: ['kubernetes'], ...(o.spec ?? {}) };
      o.status = { phase: 'Active' };
    }
    if (t.kind === 'Secret' && t.group === '') {
      if (isObject(o.stringData)) {
        o.data = { ...(o.data ?? {}) };
        for (const [k, v] of Object.entries(o.stringData)) o.data[k] = Buffer.from(String(v)).toString('base64');
        delete o.stringData;
      }
      if (!o.type) o.type = 'Opaque';
    }
    if (!t.builtin) {
      applySchemaDefaults(o, t.schemas?.[version]);
      validateCustomResource(t, version, o);
    } else applyDefaults(t, o);
    validateObject(t, o, this.registry);
    if (t.group === 'apiextensions.k8s.io' && t.kind === 'CustomResourceDefinition') setCrdStatus(o);
    return o;
  }

  // ------------------------------------------------------------------ update

  update(t: ResourceType, version: string, ns: string, name: string, body: unknown, ctx: WriteContext, subresource?: string): WriteResult {
    if (!isObject(body)) throw badRequest('the body of the request must be a JSON or YAML object');
    this.checkTypeOf(t, version, body);
    const cur = this.get(t, ns, name);
    const bmeta = isObject(body.metadata) ? body.metadata : {};
    if (bmeta.name && bmeta.name !== name) {
      throw badRequest(`the name of the object (${bmeta.name}) does not match the name on the URL (${name})`);
    }
    if (t.namespaced && bmeta.namespace && bmeta.namespace !== ns) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const brv = bmeta.resourceVersion;
    if (brv !== undefined && brv !== '' && String(brv) !== String(cur.rv)) {
      throw conflict(t.group, t.plural, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    if ((brv === undefined || brv === '') && !t.builtin) {
      throw invalid(t.group, t.kind, name, [{ field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' }]);
    }
    const old = JSON.parse(cur.json);
    const next = this.mergeForWrite(t, version, old, body, subresource);
    return this.commitUpdate(t, version, old, next, ctx, subresource, false);
  }

  private mergeForWrite(t: ResourceType, version: string, old: any, body: any, subresource?: string): any {
    if (subresource === 'status') {
      const next = clone(old);
      if (body.status === undefined) delete next.status;
      else next.status = clone(body.status);
      return next;
    }
    const next: any = clone(body);
    next.apiVersion = joinApiVersion(t.group, version);
    next.kind = t.kind;
    const m = metaOf(next);
    const om = old.metadata ?? {};
    m.name = om.name;
    if (t.namespaced) m.namespace = om.namespace;
    else delete m.namespace;
    m.uid = om.uid;
    m.creationTimestamp = om.creationTimestamp;
    m.resourceVersion = om.resourceVersion;
    for (const f of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) {
      if (om[f] === undefined) delete m[f];
      else m[f] = om[f];
    }
    if (m.managedFields === undefined && om.managedFields !== undefined) m.managedFields = om.managedFields;
    if (this.hasStatus(t, version) || (t.kind === 'Namespace' && t.group === '')) {
      if (old.status === undefined) delete next.status;
      else next.status = clone(old.status);
    }
    if (t.kind === 'Secret' && t.group === '' && isObject(next.stringData)) {
      next.data = { ...(next.data ?? {}) };
      for (const [k, v] of Object.entries(next.stringData)) next.data[k] = Buffer.from(String(v)).toString('base64');
      delete next.stringData;
    }
    return next;
  }

  private commitUpdate(
    t: ResourceType,
    version: string,
    old: any,
    next: any,
    ctx: WriteContext,
    subresource: string | undefined,
    managedDone: boolean,
  ): WriteResult {
    applyDefaults(t, next);
    prepareForUpdate(t, next, old, this.services);
    const m = metaOf(next);
    if (t.kind === 'Namespace' && t.group === '' && m.labels?.['kubernetes.io/metadata.name'] !== m.name) {
      m.labels = { ...(m.labels ?? {}), 'kubernetes.io/metadata.name': m.name };
    }
    if (this.usesGeneration(t, next) || old.metadata?.generation !== undefined) {
      const g = Number(old.metadata?.generation ?? 0) || 1;
      const sub = t.builtin || this.hasStatus(t, version);
      m.generation = deepEqual(specPart(old, sub), specPart(next, sub)) ? g : g + 1;
    }
    if (t.group === 'apiextensions.k8s.io' && t.kind === 'CustomResourceDefinition' && subresource !== 'status') setCrdStatus(next, old);
    if (!t.builtin) {
      applySchemaDefaults(next, t.schemas?.[version]);
      validateCustomResource(t, version, next);
    }
    validateObject(t, next, this.registry);
    validateUpdate(t, old, next);
    if (deepEqual(stripVolatile(old), stripVolatile(next))) {
      return { code: 200, json: JSON.stringify(normalize(old)) };
    }
    if (!managedDone) recordUpdate(old, next, ctx.manager, joinApiVersion(t.group, version), this.keyFn(t), now(), subresource);
    if (ctx.dryRun) return { code: 200, json: this.serialize(next) };
    const tkey = typeKey(t.group, t.plural);
    const ns = t.namespaced ? m.namespace : '';
    if (m.deletionTimestamp && !(Array.isArray(m.finalizers) && m.finalizers.length)) {
      if (t.kind === 'Namespace' && t.group === '') {
        // the namespace goes once its content is gone
        const rv = this.store.nextRV();
        m.resourceVersion = String(rv);
        const json = this.serialize(next);
        this.store.put(tkey, 'MODIFIED', ns, m.name, labelsOf(next), ownershipOf(next), json, rv);
        this.tryFinalizeNamespace(m.name);
        return { code: 200, json };
      }
      return { code: 200, json: this.removeObject(t, next) };
    }
    const rv = this.store.nextRV();
    m.resourceVersion = String(rv);
    const json = this.serialize(next);
    this.store.put(tkey, 'MODIFIED', ns, m.name, labelsOf(next), ownershipOf(next), json, rv);
    this.afterWrite(t, next);
    return { code: 200, json };
  }

  // ------------------------------------------------------------------ patch

  patch(
    t: ResourceType,
    version: string,
    ns: string,
    name: string,
    contentType: string,
    text: string,
    ctx: WriteContext,
    subresource?: string,
  ): WriteResult {
    const ct = contentType.split(';')[0].trim().toLowerCase();
    // custom resources have no strategic merge patch (the API server answers 415 too)
    const accepted = t.builtin ? PATCH_TYPES : PATCH_TYPES.filter((x) => x !== 'application/strategic-merge-patch+json');
    if (!accepted.includes(ct) && ct !== 'application/apply-patch+json') throw unsupportedMediaType(accepted);
    const tkey = typeKey(t.group, t.plural);
    const cur = this.store.get(tkey, t.namespaced ? ns : '', name);
    if (ct === 'application/apply-patch+yaml' || ct === 'application/apply-patch+json') {
      if (!ctx.explicitManager) {
        throw invalid(t.group, 'PatchOptions', '', [{ field: 'fieldManager', type: 'FieldValueRequired', message: 'Required value: is required for apply patch' }]);
      }
      let applied: any;
      try {
        applied = parseYaml(text);
      } catch (err) {
        throw badRequest(`error decoding YAML: ${(err as Error).message}`);
      }
      if (!isObject(applied)) throw badRequest('the apply configuration must be an object');
      if (!applied.apiVersion || !applied.kind) {
        throw badRequest(`invalid object type: ${applied.apiVersion ?? ''}, Kind=${applied.kind ?? ''}`);
      }
      this.checkTypeOf(t, version, applied);
      const am = isObject(applied.metadata) ? applied.metadata : {};
      if (am.name && am.name !== name) throw badRequest(`the name of the object (${am.name}) does not match the name on the URL (${name})`);
      if (t.namespaced && am.namespace && am.namespace !== ns) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      const av = joinApiVersion(t.group, version);
      if (!cur) {
        if (subresource) throw notFound(t.group, t.plural, name);
        // the manager owns what it applied; then the object is created like any other
        const base = { ...applied, metadata: { ...am, name } };
        const merged = serverSideApply(undefined, base, ctx.manager, true, av, this.keyFn(t), this.hasStatus(t, version), now());
        return this.commitNew(t, this.prepareCreate(t, version, ns, merged, true), ctx.dryRun);
      }
      if (am.resourceVersion && String(am.resourceVersion) !== String(cur.rv)) {
        throw conflict(t.group, t.plural, name, 'the object has been modified; please apply your changes to the latest version and try again');
      }
      const old = JSON.parse(cur.json);
      const merged = serverSideApply(old, applied, ctx.manager, !!ctx.force, av, this.keyFn(t), this.hasStatus(t, version), now(), subresource);
      const next = subresource === 'status' ? this.mergeForWrite(t, version, old, merged, 'status') : this.mergeForWrite(t, version, old, merged);
      if (subresource === 'status' && merged.metadata?.managedFields) metaOf(next).managedFields = merged.metadata.managedFields;
      return this.commitUpdate(t, version, old, next, ctx, subresource, true);
    }
    if (!cur) throw notFound(t.group, t.plural, name);
    let body: unknown;
    if (ct === 'application/json-patch+json' || ct === 'application/merge-patch+json' || ct === 'application/strategic-merge-patch+json') {
      try {
        body = JSON.parse(text);
      } catch (err) {
        throw badRequest(`error decoding patch: ${(err as Error).message}`);
      }
    }
    const old = JSON.parse(cur.json);
    let patched: any;
    switch (ct) {
      case 'application/json-patch+json':
        patched = applyJsonPatch(old, body);
        break;
      case 'application/merge-patch+json':
        if (!isObject(body)) throw badRequest('merge patch must be a JSON object');
        patched = applyMergePatch(old, body);
        break;
      case 'application/strategic-merge-patch+json':
        if (!isObject(body)) throw badRequest('strategic merge patch must be a JSON object');
        patched = strategicMerge(old, body, [], this.keyFn(t));
        break;
      default:
        throw unsupportedMediaType(accepted);
    }
    if (!isObject(patched)) throw badRequest('the patch did not produce an object');
    const pm = isObject(patched.metadata) ? patched.metadata : {};
    if (pm.resourceVersion !== undefined && String(pm.resourceVersion) !== String(cur.rv)) {
      throw conflict(t.group, t.plural, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    if (pm.name !== undefined && pm.name !== name) throw badRequest(`the name of the object (${pm.name}) does not match the name on the URL (${name})`);
    if (t.namespaced && pm.namespace !== undefined && pm.namespace !== ns) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const next = this.mergeForWrite(t, version, old, patched, subresource);
    return this.commitUpdate(t, version, old, next, ctx, subresource, false);
  }

  // ------------------------------------------------------------------ scale subresource

  getScale(t: ResourceType, ns: string, name: string): any {
    const o = JSON.parse(this.get(t, ns, name).json);
    return this.scaleOf(o);
  }

  private scaleOf(o: any): any {
    const sel = o.spec?.selector?.matchLabels;
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: o.metadata.name, namespace: o.metadata.namespace, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion, creationTimestamp: o.metadata.creationTimestamp },
      spec: { replicas: o.spec?.replicas ?? 0 },
      status: {
        replicas: o.status?.replicas ?? 0,
        selector: sel ? Object.entries(sel).map(([k, v]) => `${k}=${v}`).join(',') : '',
      },
    };
  }

  updateScale(t: ResourceType, version: string, ns: string, name: string, contentType: string | undefined, text: string, ctx: WriteContext): WriteResult {
    const cur = this.get(t, ns, name);
    const old = JSON.parse(cur.json);
    let scale: any = this.scaleOf(old);
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      throw badRequest('invalid JSON body');
    }
    const ct = (contentType ?? 'application/json').split(';')[0].trim();
    if (ct === 'application/json') scale = body;
    else if (ct === 'application/merge-patch+json' || ct === 'application/strategic-merge-patch+json') scale = applyMergePatch(scale, body);
    else if (ct === 'application/json-patch+json') scale = applyJsonPatch(scale, body);
    else throw unsupportedMediaType(PATCH_TYPES.filter((x) => x !== 'application/apply-patch+yaml'));
    const brv = scale?.metadata?.resourceVersion;
    if (brv && String(brv) !== String(cur.rv)) {
      throw conflict(t.group, t.plural, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    const replicas = Number(scale?.spec?.replicas);
    if (!Number.isInteger(replicas) || replicas < 0) {
      throw invalid('autoscaling', 'Scale', name, [{ field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(scale?.spec?.replicas)}: must be greater than or equal to 0` }]);
    }
    const next = clone(old);
    next.spec = { ...(next.spec ?? {}), replicas };
    const r = this.commitUpdate(t, version, old, next, ctx, 'scale', false);
    return { code: 200, json: JSON.stringify(this.scaleOf(JSON.parse(r.json))) };
  }

  // ------------------------------------------------------------------ delete

  /** Removes an object for good (DELETED event); returns its final JSON. */
  private removeObject(t: ResourceType, o: any): string {
    const m = metaOf(o);
    const rv = this.store.nextRV();
    m.resourceVersion = String(rv);
    const json = this.serialize(o);
    const tkey = typeKey(t.group, t.plural);
    const ns = t.namespaced ? m.namespace : '';
    this.store.remove(tkey, ns, m.name, ownershipOf(o), json, rv);
    if (t.group === 'apiextensions.k8s.io' && t.kind === 'CustomResourceDefinition') this.removeCrdType(o);
    if (ns) this.tryFinalizeNamespace(ns);
    return json;
  }

  private removeCrdType(crd: any): void {
    const group = crd.spec?.group;
    const plural = crd.spec?.names?.plural;
    const t = group && plural ? this.registry.get(group, plural) : undefined;
    if (!t || t.builtin) return;
    const tkey = typeKey(group, plural);
    for (const e of this.store.list(tkey)) {
      const o = JSON.parse(e.json);
      const rv = this.store.nextRV();
      metaOf(o).resourceVersion = String(rv);
      this.store.remove(tkey, e.ns, e.name, ownershipOf(o), this.serialize(o), rv);
    }
    this.registry.remove(group, plural);
    this.store.dropBucket(tkey);
    this.onTypeRemoved?.(t);
  }

  private tryFinalizeNamespace(ns: string): void {
    const e = this.store.get(NS_TKEY, '', ns);
    if (!e) return;
    const o = JSON.parse(e.json);
    if (!o.metadata?.deletionTimestamp) return;
    if (Array.isArray(o.metadata.finalizers) && o.metadata.finalizers.length) return;
    for (const t of this.registry.all()) {
      if (!t.namespaced) continue;
      if (this.store.list(typeKey(t.group, t.plural), ns).length) return;
    }
    const nsType = this.registry.get('', 'namespaces')!;
    this.removeObject(nsType, o);
  }

  delete(t: ResourceType, version: string, ns: string, name: string, opts: any, ctx: WriteContext): WriteResult {
    const cur = this.get(t, ns, name);
    const o = JSON.parse(cur.json);
    const pre = isObject(opts?.preconditions) ? opts.preconditions : {};
    if (pre.uid && pre.uid !== o.metadata.uid) {
      throw conflict(t.group, t.plural, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${o.metadata.uid}`);
    }
    if (pre.resourceVersion && String(pre.resourceVersion) !== String(cur.rv)) {
      throw conflict(t.group, t.plural, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in meta: ${cur.rv}`);
    }
    const returnObject = !t.builtin || t.kind === 'Pod' || t.kind === 'Namespace' || t.kind === 'CustomResourceDefinition';
    const done = (json: string): WriteResult => {
      if (returnObject) return { code: 200, json: this.render(t, version, json) };
      return {
        code: 200,
        json: JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: { name, group: t.group || undefined, kind: t.plural, uid: o.metadata.uid },
        }),
      };
    };
    if (ctx.dryRun) return done(cur.json);
    if (opts?.propagationPolicy === 'Orphan' || opts?.orphanDependents === true) this.gc.orphan(o.metadata.uid);
    const isNs = t.kind === 'Namespace' && t.group === '';
    if (isNs && IMMORTAL_NAMESPACES.includes(name)) throw forbidden('', 'namespaces', name, 'this namespace may not be deleted');
    const hasFinalizers = Array.isArray(o.metadata.finalizers) && o.metadata.finalizers.length > 0;
    if (hasFinalizers || isNs) {
      let json = cur.json;
      if (!o.metadata.deletionTimestamp) {
        o.metadata.deletionTimestamp = now();
        o.metadata.deletionGracePeriodSeconds = 0;
        if (isNs) o.status = { ...(o.status ?? {}), phase: 'Terminating' };
        const rv = this.store.nextRV();
        o.metadata.resourceVersion = String(rv);
        json = this.serialize(o);
        this.store.put(typeKey(t.group, t.plural), 'MODIFIED', t.namespaced ? ns : '', name, labelsOf(o), ownershipOf(o), json, rv);
      }
      if (isNs) {
        this.deleteNamespaceContent(name);
        this.tryFinalizeNamespace(name);
        const after = this.store.get(NS_TKEY, '', name);
        return { code: after ? 202 : 200, json: after ? after.json : json };
      }
      return { code: 202, json: this.render(t, version, json) };
    }
    return done(this.removeObject(t, o));
  }

  private deleteNamespaceContent(ns: string): void {
    for (const t of this.registry.all()) {
      if (!t.namespaced) continue;
      const tkey = typeKey(t.group, t.plural);
      for (const e of this.store.list(tkey, ns)) {
        const o = JSON.parse(e.json);
        if (Array.isArray(o.metadata?.finalizers) && o.metadata.finalizers.length) {
          if (!o.metadata.deletionTimestamp) {
            o.metadata.deletionTimestamp = now();
            o.metadata.deletionGracePeriodSeconds = 0;
            const rv = this.store.nextRV();
            o.metadata.resourceVersion = String(rv);
            this.store.put(tkey, 'MODIFIED', ns, e.name, labelsOf(o), ownershipOf(o), this.serialize(o), rv);
          }
        } else {
          const rv = this.store.nextRV();
          o.metadata.resourceVersion = String(rv);
          this.store.remove(tkey, ns, e.name, ownershipOf(o), this.serialize(o), rv);
          if (t.group === 'apiextensions.k8s.io') this.removeCrdType(o);
        }
      }
    }
  }

  deleteCollection(t: ResourceType, version: string, ns: string, opts: ListOptions, delOpts: any, ctx: WriteContext): string {
    const { entries } = this.list(t, ns, { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector });
    const items: string[] = [];
    for (const e of entries) {
      if (!this.store.get(typeKey(t.group, t.plural), e.ns, e.name)) continue;
      const o = JSON.parse(e.json);
      if (ctx.dryRun) {
        items.push(this.render(t, version, e.json));
        continue;
      }
      const r = this.delete(t, version, e.ns, e.name, delOpts, { ...ctx });
      const parsed = JSON.parse(r.json);
      items.push(parsed.kind === 'Status' ? this.render(t, version, JSON.stringify(o)) : r.json);
    }
    return `{"kind":"${t.listKind}","apiVersion":"${joinApiVersion(t.group, version)}","metadata":{"resourceVersion":"${this.store.rv}"},"items":[${items.join(',')}]}`;
  }

  // ------------------------------------------------------------------ start-up

  /** Creates the namespaces every cluster has. */
  bootstrap(): void {
    const nsType = this.registry.get('', 'namespaces')!;
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      if (!this.store.get(NS_TKEY, '', name)) this.create(nsType, 'v1', '', { metadata: { name } }, { manager: 'sandbox' });
    }
  }

  /** Re-registers the types of stored CRDs (after loading persisted state). */
  registerStoredCrds(): void {
    for (const e of this.store.list(CRD_TKEY)) this.afterWrite(this.registry.get('apiextensions.k8s.io', 'customresourcedefinitions')!, JSON.parse(e.json));
  }
}
