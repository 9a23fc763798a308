/**
 * Binding contexts: what a hook run receives in $BINDING_CONTEXT_PATH (shell-operator's format, v1 and v0)
 * plus addon-operator's lifecycle contexts, and the combining of several contexts into one run.
 *
 * A `BindingContext` is a small descriptor kept in a task. Snapshots (and Synchronization `objects` when not
 * given) are read at execution time from a `SnapshotSource`, once per binding name per run, as shell-operator
 * does. `bindingContextsToJson` then writes exactly what the Go operator writes: one compact JSON array and a
 * trailing newline, object keys sorted at every level (Go marshals maps with sorted keys), `<`, `>`, `&`,
 * U+2028 and U+2029 escaped as Go's encoding/json does.
 *
 * v1 emission rules (shell-operator `MapV1`, reference §2.1):
 * - onStartup ⇒ `{"binding":"onStartup"}` only;
 * - `snapshots` when the binding has a non-empty `includeSnapshotsFrom` (after group expansion), and always for
 *   addon-operator's beforeAll/afterAll/beforeHelm/afterHelm/beforeDeleteHelm/afterDeleteHelm (all kubernetes
 *   bindings of the hook; `{}` when it has none: DESIGN §4.14; v1 only: v0 contexts are `{"binding": ...}`);
 * - kubernetesValidating / kubernetesMutating ⇒ `type: "Validating"|"Mutating"`, `review`; conversion ⇒
 *   `type: "Conversion"`, `fromVersion`, `toVersion`, `review` (before grouping: a group changes nothing);
 * - a binding with `group` ⇒ `type: "Group"`, `groupName`, nothing else;
 * - schedule ⇒ `type: "Schedule"`;
 * - Synchronization ⇒ `objects` (`[]` when empty); Event ⇒ `watchEvent` and the item's `object`/`filterResult`
 *   at top level (`object: null` and, with a jqFilter, `filterResult: ""` when the event has no object).
 * Items: `object` unless keepFullObjectsInMemory is false; `filterResult` iff the binding has a jqFilter.
 */
import { goJsonStringify } from '../util/json.js';
import { toFilterResult } from '../jq/index.js';
import type { HookConfig, HookConfigVersion, KubernetesBinding, LifecycleBinding, ScheduleBinding, WatchEvent } from './config-types.js';

export type KubeObject = Readonly<Record<string, unknown>>;

/** One entry of a snapshot, of Synchronization `objects`, or the object of an Event. */
export interface SnapshotItem {
  /** The full object; absent when the binding has `keepFullObjectsInMemory: false`. */
  readonly object?: KubeObject;
  /** Present (possibly null) exactly when the binding has a jqFilter. */
  readonly filterResult?: unknown;
}

/**
 * Build a snapshot item for a binding: drops the object when keepFullObjectsInMemory is false and sets
 * filterResult from the jq outputs (0 ⇒ null, 1 ⇒ value, n ⇒ array) when the binding has a jqFilter.
 */
export function makeSnapshotItem(
  binding: Pick<KubernetesBinding, 'keepFullObjectsInMemory' | 'jqFilter'>,
  object: KubeObject,
  jqOutputs?: readonly unknown[],
): SnapshotItem {
  // object literals of the exact shape: an item is kept per watched object, and `{}` grown property by
  // property would reserve room for four
  if (binding.jqFilter === undefined) return binding.keepFullObjectsInMemory ? { object } : {};
  const filterResult = jqOutputs === undefined ? null : toFilterResult(jqOutputs);
  return binding.keepFullObjectsInMemory ? { object, filterResult } : { filterResult };
}

function metaOf(item: SnapshotItem): { namespace: string; name: string } {
  const meta = (item.object?.metadata ?? {}) as Record<string, unknown>;
  return {
    namespace: typeof meta.namespace === 'string' ? meta.namespace : '',
    name: typeof meta.name === 'string' ? meta.name : '',
  };
}

/** Order of snapshot arrays: by namespace, then name (shell-operator ByNamespaceAndName). */
export function compareSnapshotItems(a: SnapshotItem, b: SnapshotItem): number {
  const ma = metaOf(a);
  const mb = metaOf(b);
  if (ma.namespace !== mb.namespace) return ma.namespace < mb.namespace ? -1 : 1;
  if (ma.name !== mb.name) return ma.name < mb.name ? -1 : 1;
  return 0;
}

interface SnapshotsPart {
  /** Kubernetes binding names whose snapshots the context carries (empty ⇒ no `snapshots` key). */
  readonly includeSnapshotsFrom: readonly string[];
}

interface GroupPart {
  readonly group?: string;
}

export interface OnStartupContext {
  readonly type: 'onStartup';
}

/** addon-operator's beforeAll/afterAll/beforeHelm/afterHelm/beforeDeleteHelm/afterDeleteHelm. */
export interface LifecycleContext extends SnapshotsPart {
  readonly type: 'lifecycle';
  readonly binding: LifecycleBinding;
}

export interface ScheduleContext extends SnapshotsPart, GroupPart {
  readonly type: 'Schedule';
  readonly binding: string;
}

export interface SynchronizationContext extends SnapshotsPart, GroupPart {
  readonly type: 'Synchronization';
  readonly binding: string;
  /** Objects captured earlier; absent ⇒ read from the SnapshotSource (this binding's snapshot) at run time. */
  readonly objects?: readonly SnapshotItem[];
}

export interface EventContext extends SnapshotsPart, GroupPart {
  readonly type: 'Event';
  readonly binding: string;
  readonly watchEvent: WatchEvent;
  /** The object at event time (built with makeSnapshotItem); null for a synthetic event without object. */
  readonly item: SnapshotItem | null;
  readonly hasJqFilter: boolean;
}

/** A kubernetesValidating / kubernetesMutating request: `review` is the AdmissionReview with its `request`. */
interface AdmissionPart<T extends 'Validating' | 'Mutating'> extends SnapshotsPart, GroupPart {
  readonly type: T;
  readonly binding: string;
  readonly review: Readonly<Record<string, unknown>>;
}

export type AdmissionContext = AdmissionPart<'Validating'> | AdmissionPart<'Mutating'>;

/** One step of a kubernetesCustomResourceConversion chain: `review` is the ConversionReview with its `request`. */
export interface ConversionContext extends SnapshotsPart, GroupPart {
  readonly type: 'Conversion';
  readonly binding: string;
  readonly fromVersion: string;
  readonly toVersion: string;
  readonly review: Readonly<Record<string, unknown>>;
}

export type WebhookContext = AdmissionContext | ConversionContext;

export type BindingContext = OnStartupContext | LifecycleContext | ScheduleContext | SynchronizationContext | EventContext | AdmissionContext | ConversionContext;

export type KubernetesContext = SynchronizationContext | EventContext;

// ---------------------------------------------------------------------------------------------------
// constructors

export function onStartupContext(): OnStartupContext {
  return { type: 'onStartup' };
}

/** A lifecycle context carries the snapshots of all the hook's kubernetes bindings. */
export function lifecycleContext(config: Pick<HookConfig, 'kubernetes'>, binding: LifecycleBinding): LifecycleContext {
  return { type: 'lifecycle', binding, includeSnapshotsFrom: config.kubernetes.map((k) => k.name) };
}

function groupOf(b: { group?: string }): GroupPart {
  return b.group !== undefined ? { group: b.group } : {};
}

export function scheduleContext(b: ScheduleBinding): ScheduleContext {
  return { type: 'Schedule', binding: b.name, ...groupOf(b), includeSnapshotsFrom: b.includeSnapshotsFrom };
}

export function synchronizationContext(b: KubernetesBinding, objects?: readonly SnapshotItem[]): SynchronizationContext {
  return {
    type: 'Synchronization',
    binding: b.name,
    ...groupOf(b),
    includeSnapshotsFrom: b.includeSnapshotsFrom,
    ...(objects ? { objects } : {}),
  };
}

export function eventContext(b: KubernetesBinding, watchEvent: WatchEvent, item: SnapshotItem | null): EventContext {
  return {
    type: 'Event',
    binding: b.name,
    ...groupOf(b),
    includeSnapshotsFrom: b.includeSnapshotsFrom,
    watchEvent,
    item,
    hasJqFilter: b.jqFilter !== undefined,
  };
}

/** The `binding` value of a context (for logs and metrics labels). */
export function bindingNameOf(ctx: BindingContext): string {
  return ctx.type === 'onStartup' ? 'onStartup' : ctx.binding;
}

// ---------------------------------------------------------------------------------------------------
// rendering

/** Current snapshot of a kubernetes binding by name, sorted (compareSnapshotItems). Unknown name ⇒ []. */
export type SnapshotSource = (bindingName: string) => readonly SnapshotItem[];

export interface RenderOptions {
  readonly version: HookConfigVersion;
  /** Where snapshots and Synchronization objects come from; absent ⇒ every snapshot is empty. */
  readonly snapshots?: SnapshotSource;
}

function cachedSource(source: SnapshotSource | undefined): SnapshotSource {
  const cache = new Map<string, readonly SnapshotItem[]>();
  return (name) => {
    let items = cache.get(name);
    if (items === undefined) {
      items = source?.(name) ?? [];
      cache.set(name, items);
    }
    return items;
  };
}

function itemMap(item: SnapshotItem): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  if ('object' in item && item.object !== undefined) m.object = item.object;
  if ('filterResult' in item) m.filterResult = item.filterResult === undefined ? null : item.filterResult;
  return m;
}

function snapshotsMap(names: readonly string[], source: SnapshotSource): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  for (const name of names) m[name] = source(name).map(itemMap);
  return m;
}

function mapV1(ctx: BindingContext, source: SnapshotSource): Record<string, unknown> {
  if (ctx.type === 'onStartup') return { binding: 'onStartup' };
  const res: Record<string, unknown> = { binding: ctx.binding };
  if (ctx.type === 'lifecycle') {
    res.snapshots = snapshotsMap(ctx.includeSnapshotsFrom, source);
    return res;
  }
  if (ctx.includeSnapshotsFrom.length > 0) res.snapshots = snapshotsMap(ctx.includeSnapshotsFrom, source);
  // admission and conversion before grouping, as shell-operator's MapV1
  if (ctx.type === 'Validating' || ctx.type === 'Mutating') {
    res.type = ctx.type;
    res.review = ctx.review;
    return res;
  }
  if (ctx.type === 'Conversion') {
    res.type = 'Conversion';
    res.fromVersion = ctx.fromVersion;
    res.toVersion = ctx.toVersion;
    res.review = ctx.review;
    return res;
  }
  if (ctx.group !== undefined && ctx.group !== '') {
    res.type = 'Group';
    res.groupName = ctx.group;
    return res;
  }
  if (ctx.type === 'Schedule') {
    res.type = 'Schedule';
    return res;
  }
  res.type = ctx.type;
  if (ctx.type === 'Synchronization') {
    res.objects = (ctx.objects ?? source(ctx.binding)).map(itemMap);
    return res;
  }
  res.watchEvent = ctx.watchEvent;
  if (ctx.item === null) {
    res.object = null;
    if (ctx.hasJqFilter) res.filterResult = '';
  } else {
    Object.assign(res, itemMap(ctx.item));
  }
  return res;
}

const V0_EVENTS: Readonly<Record<WatchEvent, string>> = { Added: 'add', Modified: 'update', Deleted: 'delete' };

function mapV0(ctx: BindingContext, _source: SnapshotSource): Record<string, unknown> {
  if (ctx.type === 'onStartup') return { binding: 'onStartup' };
  const res: Record<string, unknown> = { binding: ctx.binding };
  // v0 contexts carry only the keys of shell-operator's MapV0 (reference §2.9): `{"binding": ...}` for every
  // binding that is not kubernetes, lifecycle ones included (DESIGN §4.14's snapshots are v1's).
  if (ctx.type !== 'Synchronization' && ctx.type !== 'Event') return res;
  res.resourceEvent = ctx.type === 'Event' ? V0_EVENTS[ctx.watchEvent] : '';
  const obj = ctx.type === 'Event' ? ctx.item?.object : undefined;
  if (obj) {
    const meta = (obj.metadata ?? {}) as Record<string, unknown>;
    res.resourceNamespace = typeof meta.namespace === 'string' ? meta.namespace : '';
    res.resourceKind = typeof obj.kind === 'string' ? obj.kind : '';
    res.resourceName = typeof meta.name === 'string' ? meta.name : '';
  }
  return res;
}

/**
 * The binding contexts as plain objects (what `JSON.parse` of the file gives), e.g. for in-process hooks.
 * Snapshots are fetched once per binding name for the whole list.
 */
export function bindingContextsToObjects(contexts: readonly BindingContext[], options: RenderOptions): Array<Record<string, unknown>> {
  const source = cachedSource(options.snapshots);
  const map = options.version === 'v0' ? mapV0 : mapV1;
  return contexts.map((ctx) => map(ctx, source));
}

/** The exact $BINDING_CONTEXT_PATH content: compact JSON array, keys sorted at every level, trailing newline. */
export function bindingContextsToJson(contexts: readonly BindingContext[], options: RenderOptions): string {
  return `${goJsonStringify(bindingContextsToObjects(contexts, options))}\n`;
}

// ---------------------------------------------------------------------------------------------------
// combining (reference §2.5, §2.6)

/** What the combiner needs to know about a queued hook-run task. */
export interface CombinableTask {
  /** Identity of the hook: (module, hook path), never the file name alone (DESIGN §4.7). */
  readonly hookKey: string;
  /** Task type (HookRun, ModuleHookRun, GlobalHookRun...): only equal types combine. */
  readonly taskType: string;
  readonly contexts: readonly BindingContext[];
  readonly monitorIds?: readonly string[];
}

export interface CombineResult<T> {
  /** The head's contexts followed by the combined tasks' contexts, with grouped runs compacted. */
  readonly contexts: BindingContext[];
  readonly monitorIds: string[];
  /** The following tasks that were merged into the head: the caller removes them from the queue. */
  readonly combined: T[];
}

/**
 * Drop every context that is immediately followed by a context of the same non-empty group: a run of
 * adjacent same-group contexts collapses to its last one. Non-adjacent contexts are kept.
 */
export function compactGroupedContexts(contexts: readonly BindingContext[]): BindingContext[] {
  const groupOfCtx = (c: BindingContext | undefined): string | undefined =>
    c && c.type !== 'onStartup' && c.type !== 'lifecycle' ? c.group : undefined;
  return contexts.filter((c, i) => {
    const g = groupOfCtx(c);
    return !(g !== undefined && g !== '' && groupOfCtx(contexts[i + 1]) === g);
  });
}

/**
 * Combine the head task of a queue with the tasks that immediately follow it (in queue order) and belong
 * to the same hook with the same task type; stops at the first other task. Returns null when nothing is
 * combined: a v0 hook, an onStartup head, a head whose first context is a Synchronization without group,
 * or no suitable following task.
 */
export function combineBindingContexts<T extends CombinableTask>(
  head: T,
  following: Iterable<T>,
  options: { readonly hookVersion: HookConfigVersion },
): CombineResult<T> | null {
  if (options.hookVersion === 'v0') return null;
  const first = head.contexts[0];
  if (!first || first.type === 'onStartup') return null;
  if (first.type === 'Synchronization' && (first.group === undefined || first.group === '')) return null;
  const combined: T[] = [];
  for (const t of following) {
    if (t.hookKey !== head.hookKey || t.taskType !== head.taskType) break;
    combined.push(t);
  }
  if (combined.length === 0) return null;
  const all: BindingContext[] = [...head.contexts];
  const monitorIds: string[] = [...(head.monitorIds ?? [])];
  for (const t of combined) {
    all.push(...t.contexts);
    monitorIds.push(...(t.monitorIds ?? []));
  }
  return { contexts: compactGroupedContexts(all), monitorIds, combined };
}
