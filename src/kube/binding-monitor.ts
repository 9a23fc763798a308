/**
 * The monitor of one hook's `kubernetes` binding (shell-operator's Monitor, reference §3): one informer
 * per (namespace × object name) the binding selects, the binding's jq filter applied to every object, a
 * snapshot of the filtered items, and an event for every change the hook can see.
 *
 * - `nameSelector.matchNames` ⇒ one informer per name (field selector `metadata.name=<name>`);
 * - `namespace.nameSelector` ⇒ one informer per namespace; `namespace.labelSelector` (which wins when both
 *   are given) ⇒ a Namespace informer starts and stops the informers of matching namespaces; no
 *   `namespace`, or a cluster-scoped kind ⇒ one informer for the whole cluster;
 * - Added/Modified whose checksum (jq result, or the whole object without jqFilter) did not change are
 *   not emitted; the snapshot still takes the new object;
 * - a jq error on an object is reported and the object skipped (not cached, no event);
 * - the monitors of one `KubeMonitors` keep one parsed copy of each object version between them
 *   (`SharedObjects`): bindings of several hooks that watch the same objects do not each keep their own;
 *   those that watch one collection with the same selectors share one informer (shared-informer.ts: one
 *   watch, one parse of each change, one list for those that start together), whatever their jqFilter.
 *
 * Knowingly unlike shell-operator: once started, a namespace that starts matching `namespace.labelSelector`
 * reports its objects as Added, and one that stops matching reports them as Deleted, so that events always
 * describe the changes of the snapshot (Go adds/drops them silently, which makes the Added events of objects
 * created just after their namespace depend on timing).
 */
import { performance } from 'node:perf_hooks';
import type { KubeConfig } from './kube-config.js';
import type { BindingEvent, BindingMonitor, MonitorOptions } from '../operator/ports.js';
import type { FieldSelector, KubernetesBinding, LabelSelector, WatchEvent } from '../hooks/config-types.js';
import type { SnapshotItem } from '../hooks/binding-context.js';
import { SharedObjects, filterObject, filterObjects, sameForHook } from '../hooks/snapshot.js';
import { CHECKSUM_ENTRY_BYTES, itemBytes } from '../hooks/retained-bytes.js';
import { errorMessage } from '../util/errors.js';
import { Informer, type KubeObject, type WatchEventType } from './informer.js';
import { SharedInformer, type InformerHandlers, type InformerSpec } from './shared-informer.js';
import { backoffDelay } from '../util/rate-limit.js';

/** What `RestMapper.resolve` answers for (apiVersion, kind). */
export interface ResolvedKind {
  apiVersion: string;
  resource: string;
  namespaced: boolean;
  group: string;
  version: string;
  kind: string;
}

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export interface KubeMonitorsOptions {
  kc: KubeConfig;
  resolve: (apiVersion: string | undefined, kind: string) => Promise<ResolvedKind>;
  /** Server-side watch timeout of every informer (default: the informer's). */
  watchTimeoutSeconds?: number;
  /** Retry delays of discovery and of the informers (default 0.5 s doubling to 30 s). */
  backoff?: Backoff;
  /** A shared informer was found dead (its loop ended) and made anew (shell-operator's factory_informer_dead_total). */
  onInformerDead?: (gvr: string, namespace: string) => void;
}

export class KubeMonitors {
  /** The objects the monitors keep (keepFullObjectsInMemory), one copy of each version between them. */
  readonly objects = new SharedObjects();
  /** The shared informers by path and selectors, while a monitor uses them. */
  private readonly informers = new Map<string, SharedInformer>();

  constructor(private readonly opts: KubeMonitorsOptions) {}

  createMonitor(binding: KubernetesBinding, options: MonitorOptions): BindingMonitor {
    return new Monitor(binding, options, this.opts, this.objects, (spec, where, keepObjects) => this.informer(spec, where, keepObjects));
  }

  /** How many shared informers run. */
  get sharedInformers(): number {
    return this.informers.size;
  }

  /**
   * The informer of `spec`: one keeping full objects, or (`keepObjects` false) the one keeping full
   * objects if it runs, else one keeping resourceVersions only. One found dead is dropped and made
   * anew, and reported (`where`: its GVR and namespace).
   */
  private informer(spec: InformerSpec, where: { gvr: string; namespace: string }, keepObjects: boolean): SharedInformer {
    const key = (full: boolean) => `${full ? 'objects' : 'versions'}\0${spec.path}\0${spec.labelSelector ?? ''}\0${spec.fieldSelector ?? ''}`;
    if (!keepObjects) {
      const full = this.informers.get(key(true));
      if (full && !full.dead) return full;
    }
    const k = key(keepObjects);
    let informer = this.informers.get(k);
    if (informer?.dead) {
      this.opts.onInformerDead?.(where.gvr, where.namespace);
      this.informers.delete(k);
      informer = undefined;
    }
    if (!informer) {
      const made = new SharedInformer(spec, { kc: this.opts.kc, backoff: this.opts.backoff, watchTimeoutSeconds: this.opts.watchTimeoutSeconds, keepObjects }, () => {
        if (this.informers.get(k) === made) this.informers.delete(k);
      });
      informer = made;
      this.informers.set(k, informer);
    }
    return informer;
  }
}

/** metav1.LabelSelectorAsSelector(...).String(): requirements sorted by key, set values sorted. */
export function labelSelectorString(selector: LabelSelector): string {
  const reqs: Array<{ key: string; text: string }> = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) reqs.push({ key, text: `${key}=${value}` });
  for (const e of selector.matchExpressions ?? []) {
    let text: string;
    if ('values' in e) text = `${e.key} ${e.operator === 'In' ? 'in' : 'notin'} (${[...e.values].sort().join(',')})`;
    else text = e.operator === 'Exists' ? e.key : `!${e.key}`;
    reqs.push({ key: e.key, text });
  }
  return reqs
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(',');
}

/** fields.AndSelectors(...).String(), plus `metadata.name=<name>` for one name of nameSelector. */
export function fieldSelectorString(selector: FieldSelector | undefined, name?: string): string {
  const escape = (v: string) => v.replace(/[\\,=]/g, (c) => `\\${c}`);
  const terms = (selector?.matchExpressions ?? []).map((r) => `${r.field}${r.operator}${escape(r.value)}`);
  if (name !== undefined) terms.push(`metadata.name=${escape(name)}`);
  return terms.join(',');
}

/** The REST path of a resource collection, in one namespace or across all ('' ). */
export function collectionPath(target: ResolvedKind, namespace: string): string {
  const base = target.group === '' ? `/api/${target.version}` : `/apis/${target.group}/${target.version}`;
  return target.namespaced && namespace !== '' ? `${base}/namespaces/${namespace}/${target.resource}` : `${base}/${target.resource}`;
}

const unique = (list: readonly string[]) => [...new Set(list)];

/**
 * One informer of the monitor and the filtered objects it has seen. An object costs one Map entry:
 * the informer's key string (shared with the informer's own cache), its snapshot item; without a
 * jqFilter also its checksum.
 */
interface Source {
  /** Stops its informer, or leaves the shared one. */
  stop(): Promise<void>;
  /** Snapshot items by the informer's key (namespace NUL name: keys sort as the snapshot does). */
  cache: Map<string, SnapshotItem>;
  /** Checksums of the whole objects by key, kept only for a binding without a jqFilter. */
  sums: Map<string, string>;
  /** What cache and sums retain (retained-bytes.ts). */
  bytes: number;
  synced: boolean;
  ready: Promise<void>;
  closed: boolean;
}

type Keyed = [key: string, item: SnapshotItem];

/** shell-operator's ByNamespaceAndName order: the order of the keys. */
const byKey = (a: Keyed, b: Keyed) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

const WATCH_EVENTS: Record<WatchEventType, WatchEvent> = { ADDED: 'Added', MODIFIED: 'Modified', DELETED: 'Deleted' };

class Monitor implements BindingMonitor {
  private readonly backoff: Backoff;
  /** Object informers by namespace ('' = all namespaces, or a cluster-scoped kind). */
  private readonly sources = new Map<string, Source[]>();
  private readonly closing = new Set<Promise<void>>();
  private target: ResolvedKind | undefined;
  private nsInformer: Informer | undefined;
  private starting: Promise<void> | undefined;
  /** Set when start() resolves: from then on changes are emitted. */
  private live = false;
  private stopped = false;
  /** Ends the current wait of start() (a discovery call or a retry delay) on stop(). */
  private wake: (() => void) | undefined;

  constructor(
    private readonly binding: KubernetesBinding,
    private readonly options: MonitorOptions,
    private readonly opts: KubeMonitorsOptions,
    private readonly shared: SharedObjects,
    private readonly sharedInformer: (spec: InformerSpec, where: { gvr: string; namespace: string }, keepObjects: boolean) => SharedInformer,
  ) {
    this.backoff = opts.backoff ?? { initialMs: 500, maxMs: 30_000 };
  }

  start(): Promise<void> {
    this.starting ??= this.run();
    return this.starting;
  }

  snapshot(): readonly SnapshotItem[] {
    const entries: Keyed[] = [];
    // one by one: a spread of 150,000 entries into push() overflows the stack
    for (const list of this.sources.values()) for (const s of list) for (const e of s.cache) entries.push(e);
    return entries.sort(byKey).map((e) => e[1]);
  }

  snapshotSize(): number {
    let n = 0;
    for (const list of this.sources.values()) for (const s of list) n += s.cache.size;
    return n;
  }

  retainedBytes(): number {
    let n = 0;
    for (const list of this.sources.values()) for (const s of list) n += s.bytes;
    return n;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.live = false;
    this.wake?.();
    const stops = [...this.sources.values()].flat().map((s) => this.close(s));
    if (this.nsInformer) stops.push(this.nsInformer.stop());
    await Promise.all([...stops, ...this.closing]);
    await this.starting;
  }

  private async run(): Promise<void> {
    this.target = await this.resolveKind();
    if (!this.target || this.stopped) return;
    const nsSelector = this.binding.namespace;
    if (this.target.namespaced && nsSelector?.labelSelector) {
      this.nsInformer = this.namespaceInformer(nsSelector.labelSelector);
      await this.nsInformer.start();
    } else {
      const names = this.target.namespaced ? unique(nsSelector?.nameSelector?.matchNames ?? []) : [];
      for (const ns of names.length > 0 ? names : ['']) this.addNamespace(ns);
    }
    // informers of namespaces that appear meanwhile are part of the start too
    for (;;) {
      const pending = [...this.sources.values()].flat().filter((s) => !s.synced && !s.closed);
      if (pending.length === 0 || this.stopped) break;
      await Promise.all(pending.map((s) => s.ready));
    }
    if (!this.stopped) this.live = true;
  }

  private async resolveKind(): Promise<ResolvedKind | undefined> {
    const { apiVersion, kind } = this.binding;
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        const target = await this.unlessStopped(this.opts.resolve(apiVersion, kind));
        return this.stopped ? undefined : target;
      } catch (e) {
        if (this.stopped) break;
        this.report(
          `cannot get GroupVersionResource info for apiVersion '${apiVersion ?? ''}' kind '${kind}' from the API server ` +
            `(possibly the CRD is not created yet): ${errorMessage(e)}`,
          e,
        );
        let timer: NodeJS.Timeout | undefined;
        await this.unlessStopped(new Promise((resolve) => (timer = setTimeout(resolve, backoffDelay(attempt, this.backoff.initialMs, this.backoff.maxMs)))));
        clearTimeout(timer);
      }
    }
    return undefined;
  }

  /** Waits for `promise`, or resolves with undefined on stop(). */
  private unlessStopped<T>(promise: Promise<T>): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      this.wake = () => resolve(undefined);
      promise.then(resolve, reject);
    });
  }

  private namespaceInformer(selector: LabelSelector): Informer {
    const name = (o: KubeObject) => o.metadata?.name ?? '';
    return new Informer({
      kc: this.opts.kc,
      path: '/api/v1/namespaces',
      labelSelector: labelSelectorString(selector),
      keepObjects: false,
      backoff: this.backoff,
      watchTimeoutSeconds: this.opts.watchTimeoutSeconds,
      onSync: (namespaces) => {
        for (const ns of namespaces) this.addNamespace(name(ns));
      },
      // the server reports a namespace that stops matching the selector as DELETED
      onEvent: (type, ns) => (type === 'DELETED' ? this.removeNamespace(name(ns)) : this.addNamespace(name(ns))),
      onError: (e) => this.report(`namespaces informer: ${e.message}`, e),
    });
  }

  private addNamespace(namespace: string): void {
    if (this.stopped || this.sources.has(namespace)) return;
    const names = unique(this.binding.nameSelector?.matchNames ?? []);
    const objectNames = names.length > 0 ? names : [undefined];
    this.sources.set(
      namespace,
      objectNames.map((name) => this.startSource(namespace, name)),
    );
  }

  /** The namespace no longer matches: its objects leave the snapshot (reported as Deleted once started). */
  private removeNamespace(namespace: string): void {
    const list = this.sources.get(namespace);
    if (!list) return;
    this.sources.delete(namespace);
    for (const s of list) {
      const gone = [...s.cache].sort(byKey);
      const closing = this.close(s);
      this.closing.add(closing);
      void closing.then(() => this.closing.delete(closing));
      for (const e of gone) this.emit('Deleted', e[1]);
    }
  }

  private close(s: Source): Promise<void> {
    s.closed = true;
    for (const item of s.cache.values()) this.shared.release(item.object);
    s.cache.clear();
    s.sums.clear();
    s.bytes = 0;
    return s.stop();
  }

  private startSource(namespace: string, name: string | undefined): Source {
    const path = collectionPath(this.target!, namespace);
    const { labelSelector, fieldSelector } = this.binding;
    const spec: InformerSpec = {
      path,
      labelSelector: labelSelector ? labelSelectorString(labelSelector) : undefined,
      fieldSelector: fieldSelectorString(fieldSelector, name) || undefined,
    };
    const handlers: InformerHandlers = {
      onSync: (objects, keys) => this.onSync(source, objects, keys),
      onEvent: (type, object, key) => this.onEvent(source, type, object, key),
      onError: (e) => this.report(`${this.binding.kind} informer ${path}${name !== undefined ? ` (name ${name})` : ''}: ${e.message}`, e),
    };
    const t = this.target!;
    // keeping only filter results, the informer keeps resourceVersions only (or shares one keeping objects)
    const shared = this.sharedInformer(spec, { gvr: `${t.group}/${t.version}, Resource=${t.resource}`, namespace }, this.binding.keepFullObjectsInMemory);
    const started = shared.join(handlers);
    const stop = () => shared.leave(handlers);
    const source: Source = {
      stop,
      cache: new Map(),
      sums: new Map(),
      bytes: 0,
      synced: false,
      closed: false,
      ready: started.then(() => {
        source.synced = true;
      }),
    };
    return source;
  }

  /** The first list of an informer; after start() only a namespace that started matching has one. */
  private onSync(source: Source, objects: KubeObject[], keys: string[]): void {
    if (source.closed) return;
    const started = performance.now();
    const outcomes = filterObjects(this.binding, objects, this.shared.acquire);
    // the list is filtered in one batch; each object is counted with its share of the batch's time
    const timings = this.options.timings;
    if (timings && this.binding.jqFilter !== undefined && objects.length > 0) {
      const each = (performance.now() - started) / 1000 / objects.length;
      for (let i = 0; i < objects.length; i++) timings.jqFilter(each);
    }
    const added: Keyed[] = [];
    outcomes.forEach((outcome, i) => {
      if (!outcome.ok) return this.reportFilterError(objects[i]!, outcome.error);
      const key = keys[i]!;
      this.put(source, key, outcome.item, outcome.checksum);
      added.push([key, outcome.item]);
    });
    if (!this.live) return;
    for (const e of added.sort(byKey)) this.emit('Added', e[1]);
  }

  private onEvent(source: Source, type: WatchEventType, object: KubeObject, key: string): void {
    if (source.closed) return;
    const timings = this.options.timings;
    if (!timings) return this.handleEvent(source, type, object, key);
    const started = performance.now();
    this.handleEvent(source, type, object, key);
    timings.event((performance.now() - started) / 1000);
  }

  private handleEvent(source: Source, type: WatchEventType, object: KubeObject, key: string): void {
    const cached = source.cache.get(key);
    if (type === 'DELETED') {
      // an object the hook never saw (its filter failed) has nothing to report
      if (!cached) return;
      source.cache.delete(key);
      source.sums.delete(key);
      source.bytes -= this.entryBytes(key, cached);
      this.shared.release(cached.object);
      return this.emit('Deleted', cached);
    }
    let filtered;
    const started = performance.now();
    try {
      filtered = filterObject(this.binding, object, this.shared.acquire);
    } catch (e) {
      return this.reportFilterError(object, e);
    } finally {
      if (this.binding.jqFilter !== undefined) this.options.timings?.jqFilter((performance.now() - started) / 1000);
    }
    const same = cached !== undefined && sameForHook({ item: cached, checksum: source.sums.get(key) }, filtered);
    this.put(source, key, filtered.item, filtered.checksum);
    if (same) return;
    this.emit(WATCH_EVENTS[type], filtered.item);
  }

  /** Sets the entry of `key` (releasing the object of the one it replaces) and counts what it retains. */
  private put(source: Source, key: string, item: SnapshotItem, checksum: string | undefined): void {
    const old = source.cache.get(key);
    source.cache.set(key, item);
    if (checksum !== undefined) source.sums.set(key, checksum);
    source.bytes += this.entryBytes(key, item);
    if (old === undefined) return;
    source.bytes -= this.entryBytes(key, old);
    this.shared.release(old.object);
  }

  private entryBytes(key: string, item: SnapshotItem): number {
    return itemBytes(key, item) + (this.binding.jqFilter === undefined ? CHECKSUM_ENTRY_BYTES : 0);
  }

  private emit(watchEvent: WatchEvent, item: SnapshotItem): void {
    if (!this.live || this.stopped) return;
    const event: BindingEvent = { watchEvent, item };
    try {
      this.options.onEvent(event);
    } catch (e) {
      this.report(`onEvent failed: ${errorMessage(e)}`, e);
    }
  }

  private reportFilterError(object: KubeObject, error: unknown): void {
    const namespace = object.metadata?.namespace ?? '';
    const name = object.metadata?.name ?? '';
    const id = namespace !== '' ? `${namespace}/${name}` : name;
    this.report(`jqFilter failed on ${object.kind ?? this.binding.kind} ${id}, the object is skipped: ${errorMessage(error)}`, error);
  }

  private report(message: string, cause: unknown): void {
    if (this.stopped) return;
    const onError = this.options.onError;
    if (!onError) return;
    try {
      onError(new Error(`${this.options.label}: ${message}`, { cause }));
    } catch {
      // a failing error handler must not break the watch
    }
  }
}
