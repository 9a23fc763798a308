/**
 * The controller runtime of the sandbox: simulated controllers (kube-controller-manager's, the scheduler's,
 * the kubelet's) watch the store's changes in-process, reconcile keys in batches (one pass per event-loop
 * turn, each key once), write through the same object paths the API uses, and wait on one timer queue.
 */
import { typeKey, type ResourceType } from '../registry.js';
import type { Resources } from '../resources.js';
import type { StoreEvent } from '../store.js';

export type Obj = Record<string, any>;

/** A simulated controller: which changes concern which of its keys (`ns/name`), and how to reconcile one. */
export interface Controller {
  readonly name: string;
  /** For each resource type key (`group/plural`), the keys of this controller an event of it concerns. */
  readonly watches: Record<string, (ev: StoreEvent, rt: Runtime) => string | string[] | undefined>;
  /** Brings the world in line with the object of `key`; throws only on unexpected errors (logged). */
  reconcile(key: string, rt: Runtime): void;
  /** Resource type keys whose objects are reconciled at start (objects restored from a data dir). */
  readonly resync?: string[];
}

export interface RuntimeOptions {
  /** How long a Pod takes from its scheduling to Running (and a Job's Pod from Running to its end). */
  podStartMs: number;
  /** Where controller errors go (default: console.error). */
  log?: (message: string) => void;
}

interface Timer {
  due: number;
  controller: string;
  key: string;
}

export const TKEY = {
  pods: typeKey('', 'pods'),
  nodes: typeKey('', 'nodes'),
  services: typeKey('', 'services'),
  pvcs: typeKey('', 'persistentvolumeclaims'),
  pvs: typeKey('', 'persistentvolumes'),
  namespaces: typeKey('', 'namespaces'),
  deployments: typeKey('apps', 'deployments'),
  replicasets: typeKey('apps', 'replicasets'),
  statefulsets: typeKey('apps', 'statefulsets'),
  daemonsets: typeKey('apps', 'daemonsets'),
  jobs: typeKey('batch', 'jobs'),
  cronjobs: typeKey('batch', 'cronjobs'),
  endpointslices: typeKey('discovery.k8s.io', 'endpointslices'),
} as const;

/** Kinds whose controller owner this runtime indexes (children found by owner uid without a scan). */
const INDEXED = new Set<string>([TKEY.pods, TKEY.replicasets, TKEY.jobs, TKEY.pvcs, TKEY.endpointslices]);

export function key(ns: string, name: string): string {
  return ns ? `${ns}/${name}` : name;
}

export function splitKey(k: string): [string, string] {
  const i = k.indexOf('/');
  return i < 0 ? ['', k] : [k.slice(0, i), k.slice(i + 1)];
}

/** The controlling owner reference in an object's JSON text, without parsing the rest of it. */
export function controllerRefOf(json: string): Obj | undefined {
  if (!json.includes('"controller":true')) return undefined;
  const i = json.indexOf('"ownerReferences":[');
  if (i < 0) return undefined;
  const end = json.indexOf(']', i);
  try {
    const refs = JSON.parse(json.slice(i + 18, end + 1)) as Obj[];
    return refs.find((r) => r?.controller === true);
  } catch {
    return controllerRef(JSON.parse(json));
  }
}

/** The controlling owner reference of an object, if any. */
export function controllerRef(o: Obj | undefined): Obj | undefined {
  const refs = o?.metadata?.ownerReferences;
  return Array.isArray(refs) ? refs.find((r: Obj) => r?.controller === true) : undefined;
}

export class Runtime {
  private readonly controllers = new Map<string, Controller>();
  private readonly byTkey = new Map<string, { c: Controller; fn: Controller['watches'][string] }[]>();
  private readonly queues = new Map<string, Set<string>>();
  private flushScheduled: NodeJS.Immediate | undefined;
  private readonly timers: Timer[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Infinity;
  /** `tkey\0ownerUid` -> names (`ns/name`) of the objects it controls. */
  private readonly children = new Map<string, Set<string>>();
  private readonly unsubscribe: () => void;
  private lastEv: StoreEvent | undefined;
  private lastObj: Obj | undefined;
  /** Stored versions parsed during the current pass (dropped after it, so that they hold no memory). */
  private readonly parsed = new Map<object, Obj>();
  private stopped = false;
  readonly podStartMs: number;

  constructor(
    readonly resources: Resources,
    controllers: Controller[],
    private readonly opts: RuntimeOptions,
  ) {
    this.podStartMs = opts.podStartMs;
    for (const c of controllers) {
      this.controllers.set(c.name, c);
      this.queues.set(c.name, new Set());
      for (const [tkey, fn] of Object.entries(c.watches)) {
        let l = this.byTkey.get(tkey);
        if (!l) this.byTkey.set(tkey, (l = []));
        l.push({ c, fn });
      }
    }
    const store = resources.store;
    for (const tkey of INDEXED) for (const e of store.list(tkey)) this.index('ADDED', tkey, e.ns, e.name, e.json);
    this.unsubscribe = store.onEvent((ev) => this.onEvent(ev));
    for (const c of controllers) for (const tkey of c.resync ?? []) for (const e of store.list(tkey)) this.enqueue(c.name, key(e.ns, e.name));
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    if (this.flushScheduled) clearImmediate(this.flushScheduled);
    if (this.timer) clearTimeout(this.timer);
    this.timers.length = 0;
  }

  // ------------------------------------------------------------------ events and queues

  /** The object of a change event, parsed once for every controller that looks at it. */
  objectOf(ev: StoreEvent): Obj {
    if (this.lastEv !== ev) {
      this.lastEv = ev;
      this.lastObj = JSON.parse(ev.json);
    }
    return this.lastObj!;
  }

  private onEvent(ev: StoreEvent): void {
    if (INDEXED.has(ev.tkey)) this.index(ev.type, ev.tkey, ev.ns, ev.name, ev.json);
    const l = this.byTkey.get(ev.tkey);
    if (!l) return;
    for (const { c, fn } of l) {
      let keys: string | string[] | undefined;
      try {
        keys = fn(ev, this);
      } catch (err) {
        this.log(`${c.name}: ${ev.tkey} ${key(ev.ns, ev.name)}: ${(err as Error).message}`);
        continue;
      }
      if (keys === undefined) continue;
      if (typeof keys === 'string') this.enqueue(c.name, keys);
      else for (const k of keys) this.enqueue(c.name, k);
    }
  }

  private index(type: string, tkey: string, ns: string, name: string, json: string): void {
    const ref = controllerRefOf(json);
    if (!ref?.uid) return;
    const ik = `${tkey}\0${ref.uid}`;
    const k = key(ns, name);
    let set = this.children.get(ik);
    if (type === 'DELETED') {
      set?.delete(k);
      if (set && !set.size) this.children.delete(ik);
      return;
    }
    if (!set) this.children.set(ik, (set = new Set()));
    set.add(k);
  }

  enqueue(controller: string, k: string): void {
    if (this.stopped) return;
    this.queues.get(controller)?.add(k);
    this.flushScheduled ??= setImmediate(() => this.flush());
  }

  /** Reconciles `key` of `controller` again in `ms` (one timer for all: a sorted queue). */
  after(ms: number, controller: string, k: string): void {
    if (this.stopped) return;
    const due = Date.now() + Math.max(0, ms);
    const t = { due, controller, key: k };
    // delays are mostly equal: the new timer goes at the end, found from the back
    let i = this.timers.length;
    while (i > 0 && this.timers[i - 1].due > due) i--;
    this.timers.splice(i, 0, t);
    this.arm();
  }

  private arm(): void {
    const head = this.timers[0];
    if (!head) return;
    if (this.timer && this.timerDue <= head.due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = head.due;
    this.timer = setTimeout(() => this.fire(), Math.max(0, head.due - Date.now()));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.timerDue = Infinity;
    const now = Date.now();
    let n = 0;
    while (n < this.timers.length && this.timers[n].due <= now) {
      this.enqueue(this.timers[n].controller, this.timers[n].key);
      n++;
    }
    this.timers.splice(0, n);
    this.arm();
  }

  private flush(): void {
    this.flushScheduled = undefined;
    try {
      this.pass();
    } finally {
      this.parsed.clear();
    }
  }

  private pass(): void {
    for (const [name, q] of this.queues) {
      if (!q.size) continue;
      const keys = [...q];
      q.clear();
      const c = this.controllers.get(name)!;
      for (const k of keys) {
        if (this.stopped) return;
        try {
          c.reconcile(k, this);
        } catch (err) {
          this.log(`${name}: ${k}: ${(err as Error).message}`);
        }
      }
    }
  }

  private log(message: string): void {
    (this.opts.log ?? ((m: string) => console.error(m)))(`sandbox: controller ${message}`);
  }

  // ------------------------------------------------------------------ reading

  type(tkey: string): ResourceType {
    const t = this.resources.registry.byKey(tkey);
    if (!t) throw new Error(`no resource type ${tkey}`);
    return t;
  }

  get(tkey: string, ns: string, name: string): Obj | undefined {
    const e = this.resources.store.get(tkey, ns, name);
    return e ? JSON.parse(e.json) : undefined;
  }

  /** Objects of `tkey` (in `ns`), parsed; with `labels`, only those matching them, picked before parsing. */
  list(tkey: string, ns?: string, labels?: Record<string, string>): Obj[] {
    const entries = this.resources.store.list(tkey, ns);
    return (labels ? entries.filter((e) => selectorMatches({ matchLabels: labels }, e.labels)) : entries).map((e) => JSON.parse(e.json));
  }

  count(tkey: string): number {
    return this.resources.store.count(tkey);
  }

  /**
   * Objects of `tkey` whose controller owner has `uid` (live ones, parsed). They are shared within a
   * pass (parsed once per stored version): read them, or write a copy.
   */
  owned(tkey: string, uid: string): Obj[] {
    const set = this.children.get(`${tkey}\0${uid}`);
    if (!set) return [];
    const out: Obj[] = [];
    for (const k of set) {
      const [ns, name] = splitKey(k);
      const e = this.resources.store.get(tkey, ns, name);
      if (!e) continue;
      let o = this.parsed.get(e);
      if (!o) {
        o = JSON.parse(e.json) as Obj;
        this.parsed.set(e, o);
      }
      if (controllerRef(o)?.uid === uid) out.push(o);
    }
    return out;
  }

  /** The key of the controller owner of an event's object when the owner is of `kind`. */
  ownerKey(ev: StoreEvent, kind: string): string | undefined {
    const ref = controllerRefOf(ev.json);
    return ref?.kind === kind ? key(ev.ns, ref.name) : undefined;
  }

  // ------------------------------------------------------------------ writing (the API's paths)

  create(tkey: string, obj: Obj, manager: string): Obj {
    const t = this.type(tkey);
    const ns = t.namespaced ? String(obj.metadata?.namespace ?? '') : '';
    const r = this.resources.create(t, t.versions[0], ns, obj, { manager, explicitManager: true });
    return JSON.parse(r.json);
  }

  /** Replaces the object (not its status); `obj` carries the current resourceVersion or none. */
  update(tkey: string, obj: Obj, manager: string): void {
    const t = this.type(tkey);
    const m = obj.metadata;
    this.resources.update(t, t.versions[0], t.namespaced ? m.namespace : '', m.name, obj, { manager, explicitManager: true });
  }

  /** Replaces the status of the object. */
  updateStatus(tkey: string, obj: Obj, manager: string): void {
    const t = this.type(tkey);
    const m = obj.metadata;
    this.resources.update(t, t.versions[0], t.namespaced ? m.namespace : '', m.name, obj, { manager, explicitManager: true }, 'status');
  }

  remove(tkey: string, ns: string, name: string, manager: string): void {
    const t = this.type(tkey);
    this.resources.delete(t, t.versions[0], ns, name, { propagationPolicy: 'Background' }, { manager });
  }
}

/** RFC 3339 time with seconds, as the API server writes times. */
export function isoNow(ms = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Sets a condition as kube-controller-manager does: unchanged when status and reason are; moved last when changed. */
export function setCondition(conds: Obj[], c: Obj, now: string, withUpdateTime = true): Obj[] {
  const cur = conds.find((x) => x.type === c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason && cur.message === c.message) return conds;
  const next: Obj = { type: c.type, status: c.status };
  if (withUpdateTime) next.lastUpdateTime = now;
  next.lastTransitionTime = cur && cur.status === c.status ? cur.lastTransitionTime : now;
  if (c.reason) next.reason = c.reason;
  if (c.message) next.message = c.message;
  if (cur && cur.status === c.status && cur.reason === c.reason) {
    // only the message changed: the condition keeps its place
    return conds.map((x) => (x === cur ? next : x));
  }
  return [...conds.filter((x) => x.type !== c.type), next];
}

export function condition(o: Obj | undefined, type: string): Obj | undefined {
  const conds = o?.status?.conditions;
  return Array.isArray(conds) ? conds.find((c: Obj) => c?.type === type) : undefined;
}

export function isPodReady(p: Obj): boolean {
  return p.status?.phase === 'Running' && condition(p, 'Ready')?.status === 'True';
}

export function isTerminating(o: Obj): boolean {
  return !!o.metadata?.deletionTimestamp;
}

/** An owner reference that makes `owner` the controller of the object. */
export function ownerRefTo(owner: Obj): Obj {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The alphabet kube uses for generated names and hashes (no vowels, no look-alikes). */
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/** A template hash as the controllers name their children with (FNV-1a of the JSON, in the safe alphabet). */
export function templateHash(v: unknown, collisionCount = 0): string {
  const text = JSON.stringify(v) + (collisionCount ? String(collisionCount) : '');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  let out = '';
  for (const ch of String(h)) out += SAFE[(ch.charCodeAt(0) * 7) % SAFE.length];
  return out.slice(0, 10);
}

/** Does the label map satisfy a LabelSelector object (matchLabels and matchExpressions)? */
export function selectorMatches(sel: Obj | undefined, labels: Record<string, string> | undefined): boolean {
  if (!sel) return false;
  const l = labels ?? {};
  const ml = sel.matchLabels ?? {};
  const exprs: Obj[] = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  if (!Object.keys(ml).length && !exprs.length) return true;
  for (const [k, v] of Object.entries(ml)) if (l[k] !== v) return false;
  for (const e of exprs) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const vals: string[] = Array.isArray(e.values) ? e.values : [];
    switch (e.operator) {
      case 'In':
        if (!has || !vals.includes(l[e.key])) return false;
        break;
      case 'NotIn':
        if (has && vals.includes(l[e.key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** An int-or-percent of a total (`25%` of 3, rounded up or down), as intstr.GetScaledValueFromIntOrPercent. */
export function scaled(v: unknown, total: number, roundUp: boolean, dflt: string): number {
  const x = v === undefined || v === null ? dflt : v;
  if (typeof x === 'number') return x;
  const s = String(x);
  if (s.endsWith('%')) {
    const pct = Number(s.slice(0, -1)) || 0;
    return roundUp ? Math.ceil((pct * total) / 100) : Math.floor((pct * total) / 100);
  }
  return Number(s) || 0;
}
