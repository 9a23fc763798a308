/** HTTP routing: authentication, test controls, body limits, discovery, and the resource verbs. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import {
  BODY_TYPES,
  StatusError,
  badRequest,
  gone,
  internalError,
  methodNotAllowed,
  tooLarge,
  tooManyRequests,
  unauthorized,
  unsupportedMediaType,
} from './errors.js';
import { isObject } from './json.js';
import { joinApiVersion, typeKey, type Registry, type ResourceType } from './registry.js';
import type { Resources, WriteContext } from './resources.js';
import { checkForce, parseDryRun, parseListOptions, queryBool, queryOptionalBool, wantsPretty, type ListOptions, type OptionsKind } from './query.js';
import type { Store, StoreEvent } from './store.js';
import { eventLine, type WatchHub } from './watch.js';
import { toTable } from './table.js';
import { podStreamError } from './streams.js';
import { openapiV2Document, openapiV2Protobuf, openapiV3DocumentText, openapiV3Index } from './openapi.js';
import { decodeProtobufObject, isProtobuf } from './protobuf.js';
import type { Admission, AdmissionAttributes } from './admission.js';
import type { Conversion } from './conversion.js';
import { clone } from './json.js';

export interface RequestLogEntry {
  time: string;
  method: string;
  path: string;
  query: Record<string, string>;
  contentType?: string;
  accept?: string;
  userAgent?: string;
  /** The HTTP status sent (set when the response headers go out). */
  status?: number;
  /** The request body as text (only with the logRequestBodies option). */
  body?: string;
}

export interface ControlState {
  failNext: number;
  failCode: number;
  latencyMs: number;
  /** Requests held by the latency control; called when it changes, so that they re-check it. */
  latencyWaiters: Set<() => void>;
  requestLog: RequestLogEntry[];
  requestLogLimit: number;
  logRequestBodies: boolean;
}

export interface ServerDeps {
  registry: Registry;
  store: Store;
  resources: Resources;
  hub: WatchHub;
  token: string;
  maxBodyBytes: number;
  bookmarkIntervalMs: number;
  controls: ControlState;
  version: Record<string, string>;
  /** The UIDs of the FlowSchema and PriorityLevelConfiguration named on every answer, as by an API server running API Priority and Fairness. */
  priorityAndFairness?: { flowSchemaUid: string; priorityLevelUid: string };
  /** Calls the stored admission webhooks on writes (admission.ts). */
  admission?: Admission;
  /** Calls CRDs' conversion webhooks (conversion.ts). */
  conversion?: Conversion;
  /** Told why a watch stream ended early (a conversion webhook that failed on one of its events). */
  onWatchError?: (message: string) => void;
  /** Open watch responses, so that stop() can end them. */
  onWatchOpen?: (close: () => void) => () => void;
}

const JSON_CT = 'application/json';

/** Responses marked so (the `pretty` parameter, curl and browsers) carry indented JSON. */
const PRETTY = new WeakSet<ServerResponse>();

function send(res: ServerResponse, code: number, body: string, contentType = JSON_CT): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (contentType === JSON_CT && PRETTY.has(res)) body = JSON.stringify(JSON.parse(body), null, 2);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache, private' });
  res.end(body);
}

function sendBuffer(res: ServerResponse, code: number, body: Buffer, contentType: string): void {
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': body.length, 'Cache-Control': 'no-cache, private' });
  res.end(body);
}

function sendError(res: ServerResponse, err: unknown): void {
  const se = err instanceof StatusError ? err : internalError(err instanceof Error ? err.message : String(err));
  if (!(err instanceof StatusError)) console.error('sandbox: internal error', err);
  const headers: Record<string, string> = {};
  if (se.code === 429) headers['Retry-After'] = '1';
  if (se.code === 401) headers['WWW-Authenticate'] = 'Bearer realm="addon-operator-sandbox"';
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  send(res, se.code, JSON.stringify(se.toStatus()));
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    const chunks: Buffer[] = [];
    let size = 0;
    let over = declared > limit;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      if (!over) chunks.push(c);
    });
    req.on('end', () => (over ? reject(tooLarge(limit)) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

/** Holds a request until `latencyMs` after its arrival; a change of the setting applies at once. */
async function holdForLatency(c: ControlState, arrived: number): Promise<void> {
  for (;;) {
    const left = arrived + c.latencyMs - performance.now();
    if (c.latencyMs <= 0 || left <= 0) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        c.latencyWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, left);
      c.latencyWaiters.add(done);
    });
  }
}

function tokenMatches(header: string | undefined, token: string): boolean {
  if (!header || !header.startsWith('Bearer ')) return false;
  const got = Buffer.from(header.slice(7).trim());
  const want = Buffer.from(token);
  return got.length === want.length && timingSafeEqual(got, want);
}

function wantsTable(accept: string | undefined): boolean {
  return !!accept && /as=Table/.test(accept.split(',')[0] ?? '') ;
}

function decodeBody(buf: Buffer, contentType: string | undefined): unknown {
  const ct = (contentType ?? JSON_CT).split(';')[0].trim().toLowerCase();
  if (isProtobuf(ct)) return decodeProtobufObject(buf);
  const text = buf.toString('utf8');
  if (ct === 'application/json' || ct === '' || ct.endsWith('+json')) {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw badRequest(`error decoding JSON body: ${(err as Error).message}`);
    }
  }
  if (ct === 'application/yaml' || ct === 'application/x-yaml' || ct === 'text/yaml') {
    try {
      return parseYaml(text);
    } catch (err) {
      throw badRequest(`error decoding YAML body: ${(err as Error).message}`);
    }
  }
  throw unsupportedMediaType(BODY_TYPES);
}

function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function createHandler(d: ServerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(d, req, res).catch((err: unknown) => sendError(res, err));
  };
}

/** The object's JSON in `version`: through its CRD's conversion webhook when it has one. */
async function renderJson(d: ServerDeps, t: ResourceType, version: string, json: string): Promise<string> {
  if (d.conversion && !t.builtin) {
    const out = await d.conversion.convert(t, version, [JSON.parse(json)]);
    if (out) return JSON.stringify(out[0]);
  }
  return d.resources.render(t, version, json);
}

/**
 * A write in a version other than the storage one, of a custom resource with a conversion webhook:
 * the object converted to the storage version first, as the API server stores it.
 */
async function toStorage(d: ServerDeps, t: ResourceType, version: string, obj: unknown): Promise<{ obj: unknown; version: string }> {
  const storage = t.versions[0]!;
  if (!d.conversion || t.builtin || version === storage || !isObject(obj)) return { obj, version };
  const out = await d.conversion.convert(t, storage, [obj]);
  return out ? { obj: out[0], version: storage } : { obj, version };
}

/**
 * Admission: the matching mutating webhooks change the object, then the validating ones see it as
 * `dryRun` would store it; their warnings go out as Warning headers.
 */
async function admit(d: ServerDeps, res: ServerResponse, a: AdmissionAttributes, obj: unknown, dry: (o: unknown) => { json: string }): Promise<unknown> {
  const adm = d.admission;
  if (!adm) return obj;
  const warnings: string[] = [];
  if (adm.has('mutating')) {
    const m = await adm.run('mutating', a, obj);
    obj = m.object;
    warnings.push(...m.warnings);
  }
  if (adm.has('validating')) {
    const final = a.operation === 'DELETE' ? null : JSON.parse(dry(clone(obj)).json);
    warnings.push(...(await adm.run('validating', a, final)).warnings);
  }
  if (warnings.length) res.setHeader('Warning', warnings.map((w) => `299 - ${JSON.stringify(w)}`));
  return obj;
}

const admitting = (d: ServerDeps) => !!d.admission && (d.admission.has('mutating') || d.admission.has('validating'));

async function handle(d: ServerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const arrived = performance.now();
  const url = new URL(req.url ?? '/', 'http://sandbox');
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  const entry: RequestLogEntry = {
    time: new Date().toISOString(),
    method: req.method ?? 'GET',
    path: url.pathname,
    query,
    contentType: req.headers['content-type'],
    accept: req.headers.accept,
    userAgent: req.headers['user-agent'],
  };
  if (d.priorityAndFairness) {
    res.setHeader('X-Kubernetes-PF-FlowSchema-UID', d.priorityAndFairness.flowSchemaUid);
    res.setHeader('X-Kubernetes-PF-PriorityLevel-UID', d.priorityAndFairness.priorityLevelUid);
  }
  const c = d.controls;
  c.requestLog.push(entry);
  if (c.requestLog.length > c.requestLogLimit) c.requestLog.splice(0, c.requestLog.length - c.requestLogLimit);
  const origWriteHead = res.writeHead.bind(res);
  (res as any).writeHead = (code: number, ...rest: any[]) => {
    entry.status = code;
    return (origWriteHead as any)(code, ...rest);
  };

  if (!tokenMatches(req.headers.authorization, d.token)) {
    req.resume();
    throw unauthorized();
  }
  if (c.latencyMs > 0) await holdForLatency(c, arrived);
  if (c.failNext > 0) {
    c.failNext--;
    req.resume();
    throw c.failCode === 429 ? tooManyRequests() : new StatusError(c.failCode, c.failCode === 500 ? 'InternalError' : 'ServiceUnavailable', 'injected failure (sandbox test control)');
  }
  const method = req.method ?? 'GET';
  let body: Buffer = Buffer.alloc(0);
  if (method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE') {
    body = await readBody(req, d.maxBodyBytes);
    if (c.logRequestBodies && body.length) entry.body = body.toString('utf8');
  } else req.resume();

  let segs: string[];
  try {
    segs = url.pathname.split('/').filter(Boolean).map((s) => decodeURIComponent(s));
  } catch {
    throw badRequest(`malformed path: ${url.pathname}`);
  }
  const accept = req.headers.accept;

  if (segs.length === 0) {
    const paths = ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/openapi/v2', '/openapi/v3', '/readyz', '/version'];
    for (const [g, vs] of d.registry.groups()) if (g) for (const v of vs) paths.push(`/apis/${g}`, `/apis/${g}/${v}`);
    return send(res, 200, JSON.stringify({ paths: [...new Set(paths)].sort() }));
  }
  const head = segs[0];
  if (head === 'version') return send(res, 200, JSON.stringify(d.version));
  if (head === 'healthz' || head === 'livez' || head === 'readyz') return send(res, 200, 'ok', 'text/plain; charset=utf-8');
  if (head === 'openapi') {
    if (segs[1] === 'v2' && segs.length === 2) {
      if (accept?.includes('protobuf')) {
        // Go's mime parser refuses the '@' of the old name (kubectl 1.27/1.28 fail on it): kube-openapi answers with the dotted one
        return sendBuffer(res, 200, openapiV2Protobuf(), 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
      }
      return send(res, 200, JSON.stringify(openapiV2Document()));
    }
    if (segs[1] === 'v3' && segs.length === 2) return send(res, 200, JSON.stringify(await openapiV3Index(d.registry)));
    if (segs[1] === 'v3') {
      const [g, v] = segs[2] === 'api' ? ['', segs[3]] : [segs[3], segs[4]];
      const doc = v ? await openapiV3DocumentText(d.registry, g ?? '', v) : undefined;
      if (!doc) throw notFoundPath();
      return send(res, 200, doc);
    }
    throw notFoundPath();
  }
  let group: string;
  let version: string;
  let rest: string[];
  if (head === 'api') {
    if (segs.length === 1) {
      if (method !== 'GET') throw methodNotAllowed();
      return send(res, 200, JSON.stringify({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `${req.socket.localAddress}:${req.socket.localPort}` }] }));
    }
    group = '';
    version = segs[1];
    rest = segs.slice(2);
  } else if (head === 'apis') {
    if (segs.length === 1) return send(res, 200, JSON.stringify(d.registry.apiGroupList()));
    if (segs.length === 2) {
      const g = d.registry.apiGroup(segs[1]);
      if (!g) throw notFoundPath();
      return send(res, 200, JSON.stringify(g));
    }
    group = segs[1];
    version = segs[2];
    rest = segs.slice(3);
  } else throw notFoundPath();

  if (!d.registry.hasGroupVersion(group, version)) throw notFoundPath();
  if (rest.length === 0) {
    if (method !== 'GET') throw methodNotAllowed();
    return send(res, 200, JSON.stringify(d.registry.resourceList(group, version)));
  }
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  let ns = '';
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
    ns = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length > 3 || rest.length === 0) throw notFoundPath();
  const [plural, name, sub] = rest;
  const t = d.registry.lookup(group, version, plural);
  if (!t) throw notFoundPath();
  if (ns && !t.namespaced) throw notFoundPath();
  if (sub && t.group === '' && t.plural === 'pods') {
    const streamError = podStreamError(name, sub);
    if (streamError) throw streamError;
  }
  if (sub && !d.registry.subresourcesFor(t, version).includes(sub)) throw notFoundPath();

  const params = url.searchParams;
  const optionsKind: Record<string, OptionsKind> = { POST: 'CreateOptions', PUT: 'UpdateOptions', PATCH: 'PatchOptions', DELETE: 'DeleteOptions' };
  const dryRun = optionsKind[method] ? parseDryRun(params, optionsKind[method]) : false;
  if (method === 'PATCH') checkForce(params, String(req.headers['content-type'] ?? '').startsWith('application/apply-patch'));
  const explicitManager = !!query.fieldManager;
  const ua = String(req.headers['user-agent'] ?? 'unknown');
  const ctx: WriteContext = {
    manager: query.fieldManager || ua.split('/')[0] || 'unknown',
    explicitManager,
    dryRun,
    force: queryBool(params, 'force'),
  };
  const isWatch = watchPath || queryBool(params, 'watch');
  if (!isWatch && wantsPretty(params, req.headers['user-agent'])) PRETTY.add(res);

  // a resource that does not offer the verb (namespaces have no deletecollection; reviews are create-only)
  const verbs: Record<string, string> = { GET: isWatch ? 'watch' : name ? 'get' : 'list', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: name ? 'delete' : 'deletecollection' };
  const verb = verbs[method];
  if (!sub && t.verbs && (!verb || !t.verbs.includes(verb))) throw methodNotAllowed();
  switch (method) {
    case 'GET': {
      if (isWatch) return watch(d, req, res, t, version, ns, parseListOptions(params, t, true, name), wantsTable(accept));
      if (!name) return list(d, res, t, version, ns, parseListOptions(params, t, false), accept);
      if (sub === 'scale') return send(res, 200, JSON.stringify(d.resources.getScale(t, ns, name)));
      const e = d.resources.get(t, ns, name);
      const json = await renderJson(d, t, version, e.json);
      if (wantsTable(accept)) {
        return send(res, 200, JSON.stringify(toTable(t, version, [JSON.parse(json)], { resourceVersion: String(e.rv) }, query.includeObject)));
      }
      return send(res, 200, json);
    }
    case 'POST': {
      if (name) throw methodNotAllowed();
      if (t.group === 'authorization.k8s.io') {
        // everything is allowed: there is one user, with the token
        const review = decodeBody(body, req.headers['content-type']) as any;
        const out = { ...review, apiVersion: joinApiVersion(t.group, version), kind: t.kind, metadata: { ...(review?.metadata ?? {}) }, status: { allowed: true, reason: 'the sandbox allows everything' } };
        return send(res, 201, JSON.stringify(out));
      }
      if (t.namespaced && !ns) throw methodNotAllowed(`the server does not allow this method on the requested resource: create ${t.plural} needs a namespace in the path`);
      const w = await toStorage(d, t, version, decodeBody(body, req.headers['content-type']));
      let obj = w.obj;
      if (admitting(d)) {
        const meta = (isObject(obj) && isObject((obj as any).metadata) ? (obj as any).metadata : {}) as Record<string, unknown>;
        const a: AdmissionAttributes = { operation: 'CREATE', t, version, ns, name: String(meta.name ?? ''), dryRun: ctx.dryRun ?? false };
        obj = await admit(d, res, a, obj, (o) => d.resources.create(t, w.version, ns, o, { ...ctx, dryRun: true }));
      }
      const r = d.resources.create(t, w.version, ns, obj, ctx, true);
      return send(res, r.code, await renderJson(d, t, version, r.json));
    }
    case 'PUT': {
      if (!name) throw methodNotAllowed();
      if (sub === 'scale') {
        const r = d.resources.updateScale(t, version, ns, name, 'application/json', body.toString('utf8'), ctx);
        return send(res, r.code, r.json);
      }
      const obj = decodeBody(body, req.headers['content-type']);
      if (sub === 'finalize') {
        // namespaces/NAME/finalize sets spec.finalizers
        const cur = JSON.parse(d.resources.get(t, ns, name).json);
        const next = { ...cur, spec: { ...(cur.spec ?? {}), finalizers: isObject(obj) ? ((obj as any).spec?.finalizers ?? []) : [] } };
        const r = d.resources.update(t, version, ns, name, next, ctx);
        return send(res, r.code, r.json);
      }
      const w = await toStorage(d, t, version, obj);
      let next = w.obj;
      if (admitting(d)) {
        const oldObject = JSON.parse(await renderJson(d, t, version, d.resources.get(t, ns, name).json));
        const a: AdmissionAttributes = { operation: 'UPDATE', t, version, ns, name, ...(sub ? { subresource: sub } : {}), dryRun: ctx.dryRun ?? false, oldObject };
        next = await admit(d, res, a, next, (o) => d.resources.update(t, w.version, ns, name, o, { ...ctx, dryRun: true }, sub));
      }
      const r = d.resources.update(t, w.version, ns, name, next, ctx, sub);
      return send(res, r.code, await renderJson(d, t, version, r.json));
    }
    case 'PATCH': {
      if (!name) throw methodNotAllowed();
      if (sub === 'scale') {
        const r = d.resources.updateScale(t, version, ns, name, req.headers['content-type'], body.toString('utf8'), ctx);
        return send(res, r.code, r.json);
      }
      const patchType = String(req.headers['content-type'] ?? '');
      if (admitting(d)) {
        // the webhooks see the patched object; a mutation makes the write an update of the result
        // (an apply of a missing object creates it: a CREATE)
        const cur = d.store.get(typeKey(t.group, t.plural), t.namespaced ? ns : '', name);
        const oldObject = cur ? JSON.parse(await renderJson(d, t, version, cur.json)) : undefined;
        const patched = JSON.parse(d.resources.patch(t, version, ns, name, patchType, body.toString('utf8'), { ...ctx, dryRun: true }, sub).json);
        const a: AdmissionAttributes = { operation: cur ? 'UPDATE' : 'CREATE', t, version, ns, name, ...(sub ? { subresource: sub } : {}), dryRun: ctx.dryRun ?? false, ...(cur ? { oldObject } : {}) };
        const write = (o: unknown, c: WriteContext) => (cur ? d.resources.update(t, version, ns, name, o, c, sub) : d.resources.create(t, version, ns, o, c));
        const next = await admit(d, res, a, patched, (o) => write(o, { ...ctx, dryRun: true }));
        if (JSON.stringify(next) !== JSON.stringify(patched)) {
          const r = write(next, ctx);
          return send(res, r.code, await renderJson(d, t, version, r.json));
        }
      }
      const r = d.resources.patch(t, version, ns, name, patchType, body.toString('utf8'), ctx, sub);
      return send(res, r.code, await renderJson(d, t, version, r.json));
    }
    case 'DELETE': {
      let opts: any = {};
      if (body.length) {
        const parsed = decodeBody(body, req.headers['content-type']?.includes('json') || !req.headers['content-type'] ? JSON_CT : req.headers['content-type']);
        if (isObject(parsed)) opts = parsed;
      }
      if (query.propagationPolicy) opts.propagationPolicy = query.propagationPolicy;
      const orphan = queryOptionalBool(params, 'orphanDependents');
      if (orphan !== undefined) opts.orphanDependents = orphan;
      if (opts.dryRun?.includes?.('All')) ctx.dryRun = true;
      if (!name) {
        if (sub) throw methodNotAllowed();
        const { labelSelector, fieldSelector } = parseListOptions(params, t, false);
        const json = d.resources.deleteCollection(t, version, ns, { labelSelector, fieldSelector }, opts, ctx);
        return send(res, 200, json);
      }
      if (sub) throw methodNotAllowed();
      if (admitting(d)) {
        const oldObject = JSON.parse(await renderJson(d, t, version, d.resources.get(t, ns, name).json));
        await admit(d, res, { operation: 'DELETE', t, version, ns, name, dryRun: ctx.dryRun ?? false, oldObject }, null, () => ({ json: 'null' }));
      }
      const r = d.resources.delete(t, version, ns, name, opts, ctx);
      return send(res, r.code, r.json);
    }
    default:
      throw methodNotAllowed();
  }
}

/** A resourceVersion parameter as a number (400 when it is not one). */
function parseRV(rv: string): number {
  const n = Number(rv);
  if (!/^\d+$/.test(rv) || !Number.isSafeInteger(n)) throw badRequest(`invalid resource version: ${rv}`);
  return n;
}

/** 504 Timeout, as when the API server's storage has not reached a requested resourceVersion. */
function tooLargeRV(rv: number, current: number): StatusError {
  return new StatusError(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${current}`, {
    causes: [{ type: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

async function list(d: ServerDeps, res: ServerResponse, t: ResourceType, version: string, ns: string, o: ListOptions, accept: string | undefined): Promise<void> {
  if (o.continue && o.resourceVersion && o.resourceVersion !== '0') throw badRequest('specifying resource version is not allowed when using continue');
  if (o.resourceVersion && o.resourceVersion !== '0') {
    const rv = parseRV(o.resourceVersion);
    if (rv > d.store.rv) throw tooLargeRV(rv, d.store.rv);
    if (o.resourceVersionMatch === 'Exact' && rv < d.store.floor) throw gone(`too old resource version: ${rv} (${d.store.floor})`);
  }
  // a negative limit is no limit, as in the API server
  const r = d.resources.list(t, ns, { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: Math.max(0, o.limit), continue: o.continue });
  // a custom resource with a conversion webhook: the items in other versions converted in one review
  const converted = d.conversion && !t.builtin && d.conversion.webhookOf(t) ? await d.conversion.convert(t, version, r.entries.map((e) => JSON.parse(e.json))) : undefined;
  const renderAt = (i: number): string => (converted ? JSON.stringify(converted[i]) : d.resources.render(t, version, r.entries[i].json));
  const meta: Record<string, unknown> = { resourceVersion: String(r.rv) };
  if (r.continue) meta.continue = r.continue;
  if (r.remaining !== undefined && !o.labelSelector && !o.fieldSelector) meta.remainingItemCount = r.remaining;
  if (wantsTable(accept)) {
    const objs = r.entries.map((_e, i) => JSON.parse(renderAt(i)));
    return send(res, 200, JSON.stringify(toTable(t, version, objs, meta, o.includeObject)));
  }
  const av = joinApiVersion(t.group, version);
  const head = `{"kind":"${t.listKind}","apiVersion":"${av}","metadata":${JSON.stringify(meta)},"items":[`;
  const n = r.entries.length;
  if (PRETTY.has(res)) return send(res, 200, `${head}${r.entries.map((_e, i) => renderAt(i)).join(',')}]}`);
  // built-in kinds go out as stored, their bytes copied once; others as rendered in the version asked
  const asStored = t.builtin && !converted;
  const items = (start: number, end: number): Buffer => {
    const parts: Buffer[] = [];
    for (let i = start; i < end; i++) {
      if (i > 0) parts.push(COMMA);
      parts.push(asStored ? r.entries[i].bytes : Buffer.from(renderAt(i)));
    }
    return Buffer.concat(parts);
  };
  if (n <= LIST_BATCH) return sendBuffer(res, 200, Buffer.concat([Buffer.from(head), items(0, n), LIST_END]), JSON_CT);
  // Large lists go out in batches (chunked), waiting for the socket to drain: no single giant buffer,
  // and memory stays bounded while a slow client reads.
  res.writeHead(200, { 'Content-Type': JSON_CT, 'Cache-Control': 'no-cache, private' });
  res.write(head);
  for (let start = 0; start < n; start += LIST_BATCH) {
    const ok = res.write(items(start, Math.min(n, start + LIST_BATCH)));
    if (!ok && !res.destroyed) await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
    if (res.destroyed) return;
  }
  res.end(LIST_END);
}

const COMMA = Buffer.from(',');
const LIST_END = Buffer.from(']}');
const LIST_BATCH = 256;
const SLOW_WATCHER_BYTES = 64 * 1024 * 1024;

function watch(
  d: ServerDeps,
  _req: IncomingMessage,
  res: ServerResponse,
  t: ResourceType,
  version: string,
  ns: string,
  o: ListOptions,
  table: boolean,
): void {
  const { labelSelector, fieldSelector } = o;
  const rvParam = o.resourceVersion;
  // where the stream starts: the current state as ADDED events (sendInitialEvents, set by default for a
  // watch from no or "0" resourceVersion), after a resourceVersion, or from now (sendInitialEvents=false)
  const sendInitial = o.sendInitialEvents === true;
  const from = rvParam === '' || rvParam === '0' ? d.store.rv : parseRV(rvParam);
  const bookmarks = o.allowWatchBookmarks;
  const timeoutSeconds = o.timeoutSeconds ?? 0;
  if (timeoutSeconds < 0) throw badRequest(`invalid timeoutSeconds: ${timeoutSeconds}`);
  const tkey = typeKey(t.group, t.plural);
  const av = joinApiVersion(t.group, version);

  res.writeHead(200, { 'Content-Type': JSON_CT, 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  res.socket?.setNoDelay(true);

  // a custom resource whose CRD has a conversion webhook: events in another version go through it
  const conversion = !t.builtin && d.conversion ? d.conversion : undefined;
  let firstTable = true;
  const line = (type: string, rendered: string): string => {
    if (!table) return eventLine(type, rendered);
    const obj = JSON.parse(rendered);
    const tbl = toTable(t, version, [obj], { resourceVersion: obj.metadata?.resourceVersion ?? '' }, o.includeObject, firstTable);
    firstTable = false;
    return eventLine(type, JSON.stringify(tbl));
  };
  const format = (type: string, json: string): string | Promise<string> | undefined => {
    if (conversion?.webhookOf(t)) {
      const obj = JSON.parse(json);
      if (obj.apiVersion !== av) {
        return conversion.convert(t, version, [obj]).then((out) => line(type, out ? JSON.stringify(out[0]) : d.resources.render(t, version, json)));
      }
    }
    if (table) return line(type, d.resources.render(t, version, json));
    if (!t.builtin) {
      const rendered = d.resources.render(t, version, json);
      if (rendered !== json) return eventLine(type, rendered);
    }
    return undefined;
  };

  const bookmarkLine = (initialEnd = false): string => {
    const meta: Record<string, unknown> = { resourceVersion: String(d.store.rv) };
    if (initialEnd) meta.annotations = { 'k8s.io/initial-events-end': 'true' };
    return eventLine('BOOKMARK', JSON.stringify({ kind: t.kind, apiVersion: av, metadata: meta }));
  };

  // Lines go out in the order of their events: one that waits for a conversion holds back those after
  // it (bookmarks and the end included). A conversion that fails ends the stream, as kube-apiserver's
  // watch ends when it cannot encode an event.
  let tail: Promise<void> | undefined;
  const put = (text: string | Buffer): void => {
    if (res.writableEnded || res.destroyed) return;
    res.write(text);
    // a watcher that stops reading is dropped (as the API server does) rather than buffered forever
    if (res.writableLength > SLOW_WATCHER_BYTES) w.close();
  };
  const send = (next: string | Buffer | Promise<string>): void => {
    if (tail === undefined && !(next instanceof Promise)) return put(next);
    const mine: Promise<void> = (tail ?? Promise.resolve())
      .then(() => next)
      .then(put, (err: unknown) => {
        d.onWatchError?.(`sandbox: watch of ${t.plural}.${t.group} ended: ${err instanceof Error ? err.message : String(err)}`);
        w.close();
      })
      .finally(() => {
        if (tail === mine) tail = undefined;
      });
    tail = mine;
  };

  let timers: NodeJS.Timeout[] = [];
  // filled after the watch exists: onWatchOpen closes a watch at once when the server is stopping
  const registration: { unregister?: () => void } = {};
  const w = d.hub.add({
    tkey,
    ns: t.namespaced ? ns : '',
    labelSelector,
    fieldSelector,
    format,
    write: send,
    end: () => {
      for (const tm of timers) clearTimeout(tm);
      timers = [];
      registration.unregister?.();
      if (tail) void tail.then(() => res.end());
      else res.end();
    },
  });
  registration.unregister = d.onWatchOpen?.(() => w.close());

  // Catch-up: the current state as ADDED events, or everything after `from`.
  if (!sendInitial) {
    const events = d.store.eventsSince(from);
    if (!events) {
      const st = gone(`too old resource version: ${from} (${d.store.floor})`).toStatus();
      res.write(eventLine('ERROR', JSON.stringify(st)));
      w.close();
      return;
    }
    for (const ev of events) d.hub.deliver(w, ev);
  } else {
    const entries = d.resources.list(t, t.namespaced ? ns : '', { labelSelector, fieldSelector }).entries;
    for (const e of entries) {
      const ev: StoreEvent = { rv: e.rv, type: 'ADDED', tkey, ns: e.ns, name: e.name, labels: e.labels, json: e.json };
      d.hub.deliver(w, ev);
    }
    if (bookmarks) send(bookmarkLine(true));
  }

  if (bookmarks && d.bookmarkIntervalMs > 0) {
    const tick = (): void => {
      if (w.closed) return;
      send(bookmarkLine());
      timers.push(setTimeout(tick, d.bookmarkIntervalMs).unref());
    };
    timers.push(setTimeout(tick, d.bookmarkIntervalMs).unref());
  }
  if (timeoutSeconds > 0) {
    timers.push(
      setTimeout(() => {
        if (bookmarks && !w.closed) send(bookmarkLine());
        w.close();
      }, timeoutSeconds * 1000),
    );
  }
  res.on('close', () => w.close());
}
