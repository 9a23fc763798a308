/**
 * The resources monitor of deployed releases (LIFECYCLE-STEPS step 15, reference §9.3), on watches
 * instead of the Go operator's 5-minute poll:
 *
 * - one informer per resource (group, version, plural) and namespace that some tracked release owns
 *   objects in (cluster-wide for cluster-scoped kinds: no rights beyond the namespaces it writes to),
 *   label selector `app.kubernetes.io/managed-by=Helm` (set on every object a release applies), only
 *   resourceVersions kept; events of objects no tracked release owns are dropped;
 * - absent objects: an owned object deleted (or no longer matching the selector, then read to tell)
 *   raises `onAbsent` for its release, once per burst (collected for `burstMs`, then nothing more
 *   until the release's next run starts);
 * - drift: the fields the release manages are the field set of the operator's `Apply` entry in
 *   managedFields, as the last apply answered it (or as first seen). A field leaving that set means
 *   another manager changed or removed it; the object is read again to be sure, the paths are
 *   reported (`onDrift`) and, with drift mode `fix`, that object alone is applied again (force), which
 *   takes back those fields and leaves every field other managers own alone. `warn` only reports,
 *   `off` does not look;
 * - drift made while the operator was not running (start-drift.ts): an object first seen with no
 *   apply of this process to compare with is checked against the stored manifest once; when its live
 *   values cover the manifest's nothing is sent, else a dry-run apply tells which fields the
 *   operator would take back, fixed or reported as above. A watch keeps the objects it listed that
 *   no release claimed yet for a while (`UNCLAIMED_MS`), so a release tracked after its kind's watch
 *   listed (the next module of a start-up converge) is checked without a read; later, one GET each.
 *   `startChecked` resolves once a release's checks (and fixes) are done;
 * - a release is paused while it is upgraded (its own applies and prunes are no events), and
 *   forgotten when uninstalled; an informer stops when no tracked release owns its resource.
 *
 * - health: every object a watch delivers gets its kstatus-style status (object-health.ts), kept per
 *   watch; `health(release)` lists the tracked objects' statuses and `onHealth` says when one of a
 *   release's changed (no reads, no polling: the watch events carry the status); `notReady` lists
 *   a release's objects not `Current` as of a watch event at least as new as their last apply
 *   (release-wait.ts waits on it, woken by `subscribe`);
 * - a Service with a selector is ready in `health` once one of its endpoints is (service-endpoints.ts:
 *   an EndpointSlice watch per namespace where a tracked release has Services, started and stopped
 *   with them); `notReady` (`--helm-wait`) keeps kstatus's rule, as Helm's wait.
 *
 * Helm hooks are not in the release manifest and are never tracked; CRDs are left out as well.
 */
import type { KubeConfig } from '../kube/kube-config.js';
import { Informer, type KubeObject, type WatchEventType } from '../kube/informer.js';
import { isApiStatus, requestJson } from '../kube/http.js';
import type { RestMapper } from '../kube/mapper.js';
import { errorMessage } from '../util/errors.js';
import type { JsonObject } from '../util/json.js';
import { objectHealth, serviceEndpointsHealth, serviceSelector, type ObjectHealth } from './object-health.js';
import type { PlacedObject } from './objects.js';
import { ServiceEndpoints } from './service-endpoints.js';
import { startDrift } from './start-drift.js';

export type DriftMode = 'fix' | 'warn' | 'off';
export const DRIFT_MODES: readonly DriftMode[] = ['fix', 'warn', 'off'];

/** The label every object of a release carries (objects.ts applies it). */
const RELEASE_OBJECT_SELECTOR = 'app.kubernetes.io/managed-by=Helm';

/** The status of one tracked object of a release, as `health` lists it. */
export interface ReleaseObjectHealth extends ObjectHealth {
  /** `Kind namespace/name`. */
  object: string;
}

export interface DriftReport {
  release: string;
  /** `ns/Kind/name` (`/Kind/name` for cluster-scoped objects), as the Go operator names resources. */
  resource: string;
  /** The fields that left the operator's field set: `.spec.replicas`, `.spec.ports[port=80].port`. */
  paths: string[];
  /** What was done: re-applied (`fix`) or only reported (`warn`). */
  action: 'fixed' | 'reported';
}

export interface ReleaseMonitorOptions {
  kc: KubeConfig;
  mapper: RestMapper;
  fieldManager: string;
  drift?: DriftMode;
  /** Objects of a release went missing (once per burst). */
  onAbsent?: (release: string, resources: string[]) => void;
  /** A managed field was changed by someone else (after it was fixed or reported). */
  onDrift?: (report: DriftReport) => void;
  /** What a forced server-side apply of the object would answer (dry run), for the start-up drift check. */
  dryRunApply?: (release: string, namespace: string, object: PlacedObject) => Promise<JsonObject>;
  /** Applies one object of the release again (the release engine does it under the release's lock). */
  reapply: (release: string, namespace: string, object: PlacedObject) => Promise<void>;
  log?: { info(message: string): void; warn(message: string): void };
  /** The status of an object of the release changed, or the set of its objects did (see `health`). */
  onHealth?: (release: string) => void;
  /** How long deletions are collected into one event (default 200 ms). */
  burstMs?: number;
  /** Server-side watch timeout (default the informer's). */
  watchTimeoutSeconds?: number;
}

interface Tracked {
  release: TrackedRelease;
  placed: PlacedObject;
  resource: string;
  /** The operator's field set (leaf paths) as last applied or first seen. */
  baseline?: Set<string>;
  /** The drift last reported in `warn` mode (not again until it changes). */
  reported?: string;
  /** Checked against the stored manifest at its first sighting (drift made while the operator was down). */
  startChecked?: boolean;
}

/** How long a watch keeps the listed objects no release claimed yet, for the start-up drift check. */
const UNCLAIMED_MS = 120_000;

interface TrackedRelease {
  name: string;
  namespace: string;
  objects: Tracked[];
  paused: boolean;
  /** An absent event was raised: no other until the next run. */
  raised: boolean;
  /** The operator's field set of objects changed while paused, by key: checked when the pause ends. */
  seenWhilePaused: Map<string, Set<string>>;
  burst?: NodeJS.Timeout;
  /** Start-up drift checks under way (reads, dry runs, fixes): `startChecked` waits for them. */
  startChecks: Set<Promise<void>>;
  /** The namespaces where it has Services, with the watch path of Services there (their EndpointSlices are watched). */
  serviceNamespaces: Map<string, string>;
}

interface KindWatch {
  path: string;
  informer: Informer;
  /** `ns/name` of every object the watch sees. */
  live: Set<string>;
  /** The status of every object the watch sees, by `ns/name`, with the resourceVersion it was read at. */
  health: Map<string, KeptHealth>;
  synced: boolean;
  started: Promise<void>;
  /** Resolves when the first list is done or has failed once: the start-up drift check waits no longer. */
  listedOrFailed: Promise<void>;
  /** Listed (or changed) objects no tracked release owns yet, by `ns/name`, until UNCLAIMED_MS after the list. */
  unclaimed?: Map<string, KubeObject>;
}

/** The resource name the Go operator prints: `ns/Kind/name`. */
export function resourceName(p: Pick<PlacedObject, 'placedNamespace' | 'name' | 'info'>): string {
  return `${p.placedNamespace ?? ''}/${p.info.kind}/${p.name}`;
}

/** An object's status as its watch last delivered it; a Service with a selector (serviceSelector) has it. */
type KeptHealth = ObjectHealth & { rv?: string; selector?: string };

const isService = (t: Tracked): boolean => t.placed.info.kind === 'Service' && t.placed.info.group === '';

const objKey = (path: string, namespace: string | undefined, name: string) => `${path}|${namespace ?? ''}/${name}`;

/** The leaf paths of a managedFields fieldsV1 tree (segments joined by NUL). */
export function fieldSetOf(fieldsV1: unknown, out = new Set<string>()): Set<string> {
  const walk = (node: unknown, prefix: string) => {
    let leaf = true;
    if (node && typeof node === 'object') {
      for (const k in node) {
        leaf = false;
        walk((node as Record<string, unknown>)[k], prefix ? `${prefix}\0${k}` : k);
      }
    }
    if (leaf && prefix) out.add(prefix);
  };
  walk(fieldsV1, '');
  return out;
}

/** The field set of `manager`'s Apply entry in the object's managedFields. */
function appliedFields(object: KubeObject | JsonObject, manager: string): Set<string> {
  const entries = (object.metadata as { managedFields?: unknown } | undefined)?.managedFields;
  const set = new Set<string>();
  if (!Array.isArray(entries)) return set;
  for (const e of entries as Array<{ manager?: string; operation?: string; subresource?: string; fieldsV1?: unknown }>) {
    if (e.manager !== manager || e.operation !== 'Apply' || e.subresource) continue;
    fieldSetOf(e.fieldsV1, set);
  }
  return set;
}

/** `f:spec\0f:ports\0k:{"port":80}\0f:port` → `.spec.ports[port=80].port`. */
export function displayField(path: string): string {
  let out = '';
  for (const seg of path.split('\0')) {
    if (seg.startsWith('f:')) out += `.${seg.slice(2)}`;
    else if (seg.startsWith('k:')) {
      try {
        const key = JSON.parse(seg.slice(2)) as Record<string, unknown>;
        out += `[${Object.entries(key).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(',')}]`;
      } catch {
        out += `[${seg.slice(2)}]`;
      }
    } else if (seg.startsWith('v:')) out += `[${seg.slice(2)}]`;
    else if (seg.startsWith('i:')) out += `[${seg.slice(2)}]`;
  }
  return out || '.';
}

/** Whether resourceVersion `a` is newer than `b` (both numbers, as every API server writes them; else not). */
function newer(a: string, b: string): boolean {
  return /^\d+$/.test(a) && /^\d+$/.test(b) && (a.length !== b.length ? a.length > b.length : a > b);
}

export class ReleaseMonitor {
  private readonly releases = new Map<string, TrackedRelease>();
  private readonly kinds = new Map<string, KindWatch>();
  /** Tracked objects by watch path and `ns/name`. */
  private readonly byKey = new Map<string, Tracked>();
  /** Field sets answered by the last applies, until the release is tracked again. */
  private readonly appliedSets = new Map<string, Set<string>>();
  /** The resourceVersion each object's last apply answered, by key: older watch events are stale. */
  private readonly appliedVersions = new Map<string, string>();
  /** Who waits on a release's objects (`ns/release`): told on every event of one of them. */
  private readonly subscribers = new Map<string, Set<() => void>>();
  private readonly drift: DriftMode;
  private readonly burstMs: number;
  private stopped = false;
  /** The ready endpoints of the tracked Services. */
  private readonly endpoints: ServiceEndpoints;
  /** The watch path of Services per namespace where a tracked release has some. */
  private readonly servicePaths = new Map<string, string>();

  constructor(private readonly opts: ReleaseMonitorOptions) {
    this.drift = opts.drift ?? 'fix';
    this.burstMs = opts.burstMs ?? 200;
    this.endpoints = new ServiceEndpoints({
      kc: opts.kc,
      ...(opts.log ? { log: opts.log } : {}),
      ...(opts.watchTimeoutSeconds ? { watchTimeoutSeconds: opts.watchTimeoutSeconds } : {}),
      onChange: (namespace, service) => this.endpointsChanged(namespace, service),
    });
  }

  /** The release is being upgraded or installed: no events until `track`. */
  pause(release: string, namespace: string): void {
    const r = this.releases.get(`${namespace}/${release}`);
    if (!r) return;
    r.paused = true;
    r.raised = false;
    clearTimeout(r.burst);
    r.burst = undefined;
  }

  /** Ends a pause without changing what is tracked (a failed run). */
  resume(release: string, namespace: string): void {
    const r = this.releases.get(`${namespace}/${release}`);
    if (r?.paused) this.unpause(r);
  }

  /** Ends the pause; a change seen meanwhile that may be someone else's is checked now. */
  private unpause(r: TrackedRelease): void {
    r.paused = false;
    const seen = r.seenWhilePaused;
    r.seenWhilePaused = new Map();
    for (const [key, fields] of seen) {
      const t = this.byKey.get(key);
      if (t?.release === r) this.compareFields(t, fields, false);
    }
    if (r.objects.some((t) => this.isAbsent(t))) this.raiseAbsent(r);
  }

  /** What an apply answered: the operator's field set of that object becomes its baseline. */
  applied(p: PlacedObject, live: JsonObject): void {
    const path = this.watchPath(p);
    const key = objKey(path, p.placedNamespace, p.name);
    const set = appliedFields(live, this.opts.fieldManager);
    const rv = (live.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
    if (typeof rv === 'string') this.appliedVersions.set(key, rv);
    const t = this.byKey.get(key);
    if (t) {
      t.baseline = set;
      t.reported = undefined;
    }
    this.appliedSets.set(key, set);
  }

  /**
   * Watches the objects of the release's deployed revision (replacing what was watched for it) and
   * ends its pause. Resolves once the watches of their kinds have listed.
   */
  async track(release: string, namespace: string, objects: readonly PlacedObject[]): Promise<void> {
    if (this.stopped) return;
    const id = `${namespace}/${release}`;
    const r: TrackedRelease = this.releases.get(id) ?? { name: release, namespace, objects: [], paused: false, raised: false, seenWhilePaused: new Map(), startChecks: new Set(), serviceNamespaces: new Map() };
    const previous = r.objects;
    r.objects = [];
    for (const placed of objects) {
      if (placed.info.kind === 'CustomResourceDefinition') continue;
      const resource = this.watchPath(placed);
      const key = objKey(resource, placed.placedNamespace, placed.name);
      const before = this.byKey.get(key);
      const t: Tracked = { release: r, placed, resource, baseline: this.appliedSets.get(key) ?? (before?.release === r ? before.baseline : undefined) };
      this.appliedSets.delete(key);
      r.objects.push(t);
      this.byKey.set(key, t);
    }
    for (const t of previous) {
      const key = objKey(t.resource, t.placed.placedNamespace, t.placed.name);
      if (this.byKey.get(key)?.release === r && !r.objects.some((o) => objKey(o.resource, o.placed.placedNamespace, o.placed.name) === key)) this.byKey.delete(key);
    }
    r.serviceNamespaces = new Map();
    for (const t of r.objects) if (isService(t)) r.serviceNamespaces.set(t.placed.placedNamespace ?? '', t.resource);
    this.releases.set(id, r);
    this.unpause(r);
    const starting: Promise<void>[] = [this.watchEndpoints()];
    for (const t of r.objects) starting.push(this.watchKind(t.resource));
    for (const t of r.objects) this.claim(t);
    await Promise.all(starting);
    if (this.releases.get(id) === r) this.opts.onHealth?.(release);
    this.wake(id);
    await this.stopUnused();
    // objects missing once the watches have listed
    if (!r.paused && r.objects.some((t) => this.isAbsent(t))) this.raiseAbsent(r);
  }

  /** Stops watching the release's objects (uninstall, module disabled or purged). */
  async forget(release: string, namespace: string): Promise<void> {
    const id = `${namespace}/${release}`;
    const r = this.releases.get(id);
    if (!r) return;
    clearTimeout(r.burst);
    this.releases.delete(id);
    for (const t of r.objects) {
      const key = objKey(t.resource, t.placed.placedNamespace, t.placed.name);
      if (this.byKey.get(key) === t) this.byKey.delete(key);
    }
    await Promise.all([this.stopUnused(), this.watchEndpoints()]);
  }

  /**
   * The tracked objects of the release missing from the cluster as the watches see them (`Kind
   * ns/name`); undefined when the release is not tracked or a watch has not listed yet.
   */
  absent(release: string, namespace: string): string[] | undefined {
    const r = this.releases.get(`${namespace}/${release}`);
    if (!r) return undefined;
    if (r.objects.some((t) => !this.kinds.get(t.resource)?.synced)) return undefined;
    return r.objects.filter((t) => this.isAbsent(t)).map((t) => t.placed.label);
  }

  /**
   * The status of each tracked object of the release (absent: `InProgress`, as the module runs again;
   * not listed yet: `Unknown`); undefined when the release is not tracked.
   */
  health(release: string, namespace: string): ReleaseObjectHealth[] | undefined {
    const r = this.releases.get(`${namespace}/${release}`);
    if (!r) return undefined;
    return r.objects.map((t) => {
      const w = this.kinds.get(t.resource);
      const h = w?.health.get(`${t.placed.placedNamespace ?? ''}/${t.placed.name}`);
      let status: ObjectHealth = h ? { status: h.status, message: h.message } : w?.synced ? { status: 'InProgress', message: 'absent: the module runs again' } : { status: 'Unknown', message: 'not listed yet' };
      if (h?.selector !== undefined) status = serviceEndpointsHealth(status, h.selector, this.endpoints.state(t.placed.placedNamespace ?? '', t.placed.name));
      return { object: t.placed.label, ...status };
    });
  }

  /**
   * The release's objects that are not `Current` as of a watch event at least as new as their last
   * apply (an older status is `InProgress`, "not seen since it was applied"), with the object's
   * kind, namespace and name; undefined when the release is not tracked.
   */
  notReady(release: string, namespace: string): { kind: string; namespace: string; name: string; status: string; message: string }[] | undefined {
    const r = this.releases.get(`${namespace}/${release}`);
    if (!r) return undefined;
    const out: { kind: string; namespace: string; name: string; status: string; message: string }[] = [];
    for (const t of r.objects) {
      const w = this.kinds.get(t.resource);
      const name = `${t.placed.placedNamespace ?? ''}/${t.placed.name}`;
      const h = w?.health.get(name);
      const applied = this.appliedVersions.get(objKey(t.resource, t.placed.placedNamespace, t.placed.name));
      const fresh = !!h && (applied === undefined || h.rv === undefined || !newer(applied, h.rv));
      const status = !w?.synced ? { status: 'Unknown', message: 'not listed yet' } : !h ? { status: 'InProgress', message: 'absent' } : !fresh ? { status: 'InProgress', message: 'not seen since it was applied' } : h;
      if (status.status !== 'Current') out.push({ kind: t.placed.info.kind, namespace: t.placed.placedNamespace ?? '', name: t.placed.name, status: status.status, message: status.message });
    }
    return out;
  }

  /** Calls `fn` on every watch event of the release's objects and when it is tracked again; returns the unsubscribe. */
  subscribe(release: string, namespace: string, fn: () => void): () => void {
    const id = `${namespace}/${release}`;
    const set = this.subscribers.get(id) ?? new Set();
    set.add(fn);
    this.subscribers.set(id, set);
    return () => {
      set.delete(fn);
      if (!set.size && this.subscribers.get(id) === set) this.subscribers.delete(id);
    };
  }

  private wake(id: string): void {
    for (const fn of this.subscribers.get(id) ?? []) fn();
  }

  /**
   * Resolves once the release's objects that this process has not applied were checked against its
   * stored manifest (drift made while the operator was not running) and what drifted was fixed or
   * reported; at once when there is nothing to check. A watch that failed to list is not waited for.
   */
  async startChecked(release: string, namespace: string): Promise<void> {
    const r = this.releases.get(`${namespace}/${release}`);
    if (!r || this.drift === 'off' || !this.opts.dryRunApply) return;
    await this.listedOrFailed(r, (t) => !t.baseline && !t.startChecked);
    while (r.startChecks.size && !this.stopped) await Promise.all(r.startChecks);
  }

  /** Resolves once the watches of the release's objects have listed, or failed to once (then `absent` stays undefined). */
  async listed(release: string, namespace: string): Promise<void> {
    const r = this.releases.get(`${namespace}/${release}`);
    if (r) await this.listedOrFailed(r, () => true);
  }

  private async listedOrFailed(r: TrackedRelease, which: (t: Tracked) => boolean): Promise<void> {
    const kinds = new Set<KindWatch>();
    for (const t of r.objects) {
      const w = this.kinds.get(t.resource);
      if (w && which(t)) kinds.add(w);
    }
    await Promise.all([...kinds].map((w) => w.listedOrFailed));
  }

  /** Counts a start-up drift check of the release until it settles. */
  private startCheck(r: TrackedRelease, check: Promise<void>): void {
    const p = check.finally(() => r.startChecks.delete(p));
    r.startChecks.add(p);
  }

  /**
   * A newly tracked object of a kind whose watch listed it before: checked now, from what the watch
   * kept of it, or read when it kept nothing (an object not listed yet is checked when it comes).
   */
  private claim(t: Tracked): void {
    const w = this.kinds.get(t.resource);
    const name = `${t.placed.placedNamespace ?? ''}/${t.placed.name}`;
    const kept = w?.unclaimed?.get(name);
    // kept no longer, whether checked or not (an object this process applied has its baseline)
    if (kept) w!.unclaimed!.delete(name);
    if (t.baseline || t.startChecked || this.drift === 'off' || t.release.paused) return;
    if (kept) this.checkFields(t, kept);
    else if (w?.synced && w.live.has(name)) this.startCheck(t.release, this.recheck(t));
  }

  /** Whether the release's objects are watched. */
  isTracking(release: string, namespace: string): boolean {
    return this.releases.has(`${namespace}/${release}`);
  }

  /** Whether this very object (of the current revision) is watched: a re-apply of a replaced one is dropped. */
  tracks(p: PlacedObject): boolean {
    return this.byKey.get(objKey(this.watchPath(p), p.placedNamespace, p.name))?.placed === p;
  }

  /** What is watched, per release: `ns/Kind/name` of each object, sorted. */
  watched(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const r of this.releases.values()) out[r.name] = r.objects.map((t) => resourceName(t.placed)).sort();
    return out;
  }

  /** The informers running (one per resource, and one of EndpointSlices per namespace with Services), for tests and the debug output. */
  watches(): string[] {
    return [...this.kinds.keys(), ...this.endpoints.paths()].sort();
  }

  /** Whether `stop` was called (a waiter gives up then). */
  hasStopped(): boolean {
    return this.stopped;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const r of this.releases.values()) clearTimeout(r.burst);
    this.releases.clear();
    this.byKey.clear();
    for (const id of [...this.subscribers.keys()]) this.wake(id);
    await Promise.all([this.stopUnused(), this.endpoints.stop()]);
  }

  /**
   * Watches the EndpointSlices of the namespaces where a tracked release has Services (and no
   * others); resolves when the new watches have listed or failed to once.
   */
  private watchEndpoints(): Promise<void> {
    this.servicePaths.clear();
    if (!this.stopped) for (const r of this.releases.values()) for (const [ns, path] of r.serviceNamespaces) this.servicePaths.set(ns, path);
    return this.endpoints.watch(new Set(this.servicePaths.keys()));
  }

  /** A Service's endpoints became ready or unready (`service` undefined: the namespace's watch listed or failed): its release's health changed. */
  private endpointsChanged(namespace: string, service: string | undefined): void {
    if (this.stopped) return;
    const path = this.servicePaths.get(namespace);
    if (path === undefined) return;
    if (service !== undefined) {
      const t = this.byKey.get(objKey(path, namespace, service));
      if (t && this.kinds.get(path)?.health.get(`${namespace}/${service}`)?.selector !== undefined) this.opts.onHealth?.(t.release.name);
      return;
    }
    for (const r of this.releases.values()) if (r.serviceNamespaces.has(namespace)) this.opts.onHealth?.(r.name);
  }

  /** The collection watched for an object: its namespace's (a namespaced kind), or the cluster's. */
  private watchPath(p: PlacedObject): string {
    return this.opts.mapper.collectionPath(p.info, p.placedNamespace);
  }

    private isAbsent(t: Tracked): boolean {
    const w = this.kinds.get(t.resource);
    return !!w?.synced && !w.live.has(`${t.placed.placedNamespace ?? ''}/${t.placed.name}`);
  }

  private watchKind(path: string): Promise<void> {
    const existing = this.kinds.get(path);
    if (existing) return existing.started;
    const live = new Set<string>();
    const health = new Map<string, KeptHealth>();
    const withVersion = (o: KubeObject): KeptHealth => {
      const selector = o.kind === 'Service' ? serviceSelector(o) : undefined;
      return { ...objectHealth(o), ...(o.metadata?.resourceVersion ? { rv: o.metadata.resourceVersion } : {}), ...(selector !== undefined ? { selector } : {}) };
    };
    const nameOf = (o: KubeObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
    let listedOrFailed = () => {};
    const w: KindWatch = {
      path,
      live,
      health,
      synced: false,
      started: Promise.resolve(),
      listedOrFailed: new Promise((resolve) => (listedOrFailed = resolve)),
      ...(this.drift !== 'off' && this.opts.dryRunApply ? { unclaimed: new Map<string, KubeObject>() } : {}),
      informer: new Informer({
        kc: this.opts.kc,
        path,
        labelSelector: RELEASE_OBJECT_SELECTOR,
        keepObjects: false,
        ...(this.opts.watchTimeoutSeconds ? { watchTimeoutSeconds: this.opts.watchTimeoutSeconds } : {}),
        // a page of the first list at a time; `synced` once the last one came
        onSync: (objects) => {
          for (const o of objects) live.add(nameOf(o));
          for (const o of objects) this.updateHealth(path, health, nameOf(o), withVersion(o));
          for (const o of objects) this.onObject(path, 'ADDED', o);
        },
        onEvent: (type, o) => {
          if (type === 'DELETED') live.delete(nameOf(o));
          else live.add(nameOf(o));
          this.updateHealth(path, health, nameOf(o), type === 'DELETED' ? undefined : withVersion(o));
          this.onObject(path, type, o);
        },
        onError: (e) => {
          listedOrFailed();
          this.opts.log?.warn(`resources monitor: watch of ${path}: ${errorMessage(e)}`);
        },
      }),
    };
    this.kinds.set(path, w);
    w.started = w.informer.start().then(() => {
      w.synced = true;
      listedOrFailed();
      if (w.unclaimed) setTimeout(() => delete w.unclaimed, UNCLAIMED_MS).unref?.();
      // what was not listed is absent now, no longer unknown
      if (this.stopped) return;
      for (const r of this.releases.values()) {
        if (!r.objects.some((t) => t.resource === path)) continue;
        this.opts.onHealth?.(r.name);
        this.wake(`${r.namespace}/${r.name}`);
      }
    });
    return w.started;
  }

  /** Keeps an object's status; a change of a tracked one is told to `onHealth`. */
  private updateHealth(path: string, health: Map<string, KeptHealth>, name: string, h: KeptHealth | undefined): void {
    const before = health.get(name);
    if (h) health.set(name, h);
    else health.delete(name);
    if (this.subscribers.size) {
      const waited = this.byKey.get(`${path}|${name}`);
      if (waited) this.wake(`${waited.release.namespace}/${waited.release.name}`);
    }
    if (before?.status === h?.status && before?.message === h?.message && before?.selector === h?.selector) return;
    const t = this.byKey.get(`${path}|${name}`);
    if (t && !this.stopped) this.opts.onHealth?.(t.release.name);
  }

  private async stopUnused(): Promise<void> {
    // a kind is looked for until its first tracked object (the set of every object's kind, built on
    // each track, grew with the fleet: 3,000 objects looked at for each of 100 releases)
    const inUse = (path: string): boolean => {
      for (const r of this.releases.values()) for (const t of r.objects) if (t.resource === path) return true;
      return false;
    };
    const stopping: Promise<void>[] = [];
    for (const [path, w] of this.kinds) {
      if (inUse(path)) continue;
      this.kinds.delete(path);
      stopping.push(w.informer.stop());
    }
    await Promise.all(stopping);
  }

  private onObject(path: string, type: WatchEventType, o: KubeObject): void {
    const key = objKey(path, o.metadata?.namespace, o.metadata?.name ?? '');
    const t = this.byKey.get(key);
    if (!t) {
      // kept for a release tracked later (its start-up drift check), as current as the watch
      const unclaimed = this.kinds.get(path)?.unclaimed;
      const name = `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
      if (unclaimed && type === 'DELETED') unclaimed.delete(name);
      else unclaimed?.set(name, o);
      return;
    }
    if (this.stopped) return;
    if (t.release.paused) {
      // the release's own run, or someone else meanwhile: looked at when the run ends
      if (type !== 'DELETED' && this.drift !== 'off') t.release.seenWhilePaused.set(key, appliedFields(o, this.opts.fieldManager));
      return;
    }
    if (type === 'DELETED') {
      // deleted, or its label removed: only a read tells
      void this.recheck(t);
      return;
    }
    this.checkFields(t, o);
  }

  private raiseAbsent(r: TrackedRelease): void {
    if (r.raised || r.burst || r.paused) return;
    r.burst = setTimeout(() => {
      r.burst = undefined;
      if (r.paused || this.stopped || this.releases.get(`${r.namespace}/${r.name}`) !== r) return;
      const absent = r.objects.filter((t) => this.isAbsent(t)).map((t) => resourceName(t.placed));
      if (!absent.length) return;
      r.raised = true;
      this.opts.log?.warn(`release ${r.name}: ${absent.length} object(s) absent (${absent.slice(0, 3).join(', ')}${absent.length > 3 ? ', ...' : ''})`);
      this.opts.onAbsent?.(r.name, absent);
    }, this.burstMs);
    r.burst.unref?.();
  }

  /** Reads the object: absent → the absent event; present → its fields are checked. */
  private async recheck(t: Tracked): Promise<void> {
    let live: JsonObject | undefined;
    try {
      live = await requestJson<JsonObject>(this.opts.kc, 'GET', this.opts.mapper.objectPath(t.placed.info, t.placed.placedNamespace, t.placed.name));
    } catch (e) {
      if (!isApiStatus(e, 404)) {
        this.opts.log?.warn(`release ${t.release.name}: reading ${t.placed.label} failed: ${errorMessage(e)}`);
        return;
      }
    }
    if (t.release.paused || this.byKey.get(objKey(t.resource, t.placed.placedNamespace, t.placed.name)) !== t) return;
    if (!live) {
      this.kinds.get(t.resource)?.live.delete(`${t.placed.placedNamespace ?? ''}/${t.placed.name}`);
      this.raiseAbsent(t.release);
      return;
    }
    this.checkFields(t, live, true);
  }

  private checkFields(t: Tracked, o: KubeObject | JsonObject, fresh = false): void {
    if (this.drift === 'off') return;
    if (!t.baseline && !t.startChecked && this.opts.dryRunApply) {
      // no apply of this process to compare with: what the stored manifest says
      t.startChecked = true;
      const dryRun = this.opts.dryRunApply;
      const check = startDrift(t.placed, o as JsonObject, (p) => dryRun(t.release.name, t.release.namespace, p), (x) => appliedFields(x, this.opts.fieldManager))
        .then(async (paths) => {
          if (paths.length && this.byKey.get(objKey(t.resource, t.placed.placedNamespace, t.placed.name)) === t && !this.stopped) await this.drifted(t, paths.map(displayField).sort(), appliedFields(o, this.opts.fieldManager), ' while the operator was not running');
        })
        .catch((e: unknown) => this.opts.log?.warn(`release ${t.release.name}: ${resourceName(t.placed)}: drift check at start failed: ${errorMessage(e)}`));
      this.startCheck(t.release, check);
    }
    this.compareFields(t, appliedFields(o, this.opts.fieldManager), fresh);
  }

  private compareFields(t: Tracked, current: Set<string>, fresh: boolean): void {
    if (this.drift === 'off') return;
    if (!t.baseline) {
      if (current.size) t.baseline = current;
      return;
    }
    const lost = [...t.baseline].filter((p) => !current.has(p));
    if (!lost.length) {
      t.baseline = current;
      t.reported = undefined;
      return;
    }
    // an event may be older than the apply that set the baseline: read the object to be sure
    if (!fresh) {
      void this.recheck(t);
      return;
    }
    const paths = lost.filter((p) => !p.endsWith('\0.')).map(displayField);
    void this.drifted(t, (paths.length ? paths : lost.map(displayField)).sort(), current, '');
  }

  /** Reports the drifted fields of an object and, with `fix`, applies it again (resolves when applied or failed). */
  private async drifted(t: Tracked, shown: string[], current: Set<string>, when: string): Promise<void> {
    const resource = resourceName(t.placed);
    if (this.drift === 'warn') {
      const key = shown.join(',');
      if (t.reported === key) return;
      t.reported = key;
      this.opts.log?.warn(`release ${t.release.name}: ${resource} drifted: ${shown.join(', ')} changed by another field manager${when} (--helm-drift warn: not restored)`);
      this.opts.onDrift?.({ release: t.release.name, resource, paths: shown, action: 'reported' });
      return;
    }
    this.opts.log?.warn(`release ${t.release.name}: ${resource} drifted: ${shown.join(', ')} changed by another field manager${when}; applying it again`);
    this.opts.onDrift?.({ release: t.release.name, resource, paths: shown, action: 'fixed' });
    // until the apply answers, the same drift is not fixed twice; a failed apply leaves it to the next event
    const before = t.baseline;
    t.baseline = current;
    await this.opts.reapply(t.release.name, t.release.namespace, t.placed).catch((e: unknown) => {
      if (t.baseline === current) t.baseline = before;
      this.opts.log?.warn(`release ${t.release.name}: restoring ${resource} failed: ${errorMessage(e)}`);
    });
  }
}
