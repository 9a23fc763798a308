/**
 * Helpers for the informer layer: turn watched objects into snapshot items of a kubernetes binding (jq
 * applied in batches, keepFullObjectsInMemory honoured) and tell the changes that the hook does not see,
 * whose events are dropped (shell-operator compares an MD5 of the jq result, or of the whole object when
 * the binding has no jqFilter). With a jqFilter the filter results themselves are compared (equal JSON,
 * key order aside, exactly when Go's checksums are equal): no checksum is kept per object.
 *
 * Bindings that keep full objects share one parsed copy of each object version (`SharedObjects`), and
 * the versions share equal `managedFields[].fieldsV1` trees: the kept objects are read, never changed
 * (jq builds new values; in-process hooks get copies).
 */
import { createHash } from 'node:crypto';
import type { JqRuntimeError } from '../jq/index.js';
import { goJsonStringify, isPlainObject, jsonEqual, type JsonObject, type JsonValue } from '../util/json.js';
import { makeSnapshotItem, type KubeObject, type SnapshotItem } from './binding-context.js';
import type { KubernetesBinding } from './config-types.js';

type FilterBinding = Pick<KubernetesBinding, 'keepFullObjectsInMemory' | 'jqFilter' | 'jqProgram'>;

/** What a binding keeps of an object it takes: `SharedObjects.acquire`, or the object itself. */
export type KeepObject = (object: KubeObject) => KubeObject;

interface Kept {
  readonly object: KubeObject;
  refs: number;
}

const metaOf = (o: KubeObject) => (o.metadata ?? {}) as { uid?: unknown; resourceVersion?: unknown; managedFields?: unknown };

/**
 * One parsed copy of each object version for every binding that keeps full objects. Without it, each
 * binding keeps the copy its own informer parsed: with bindings of several hooks watching the same
 * objects (4 per object in bench/memory), most of the operator's heap was identical copies.
 *
 * A version is (uid, resourceVersion, apiVersion, kind): the API server serves one content per
 * resourceVersion of an object in one API version (client-go's caches rely on it too). Objects without
 * a uid or a resourceVersion are kept as they are. Counted references: every `acquire` is matched by a
 * `release` when the binding drops or replaces the object.
 */
export class SharedObjects {
  /** The kept versions by uid: usually one; two while the bindings of an object see a change one after another. */
  private readonly byUid = new Map<string, Kept[]>();

  /** The kept copy equal to `object` (counting one more reference), or `object`, kept from now on. */
  readonly acquire: KeepObject = (object) => {
    const { uid, resourceVersion } = metaOf(object);
    if (typeof uid !== 'string' || uid === '' || typeof resourceVersion !== 'string' || resourceVersion === '') return object;
    let versions = this.byUid.get(uid);
    if (!versions) this.byUid.set(uid, (versions = []));
    for (const v of versions) {
      if (metaOf(v.object).resourceVersion === resourceVersion && v.object.apiVersion === object.apiVersion && v.object.kind === object.kind) {
        v.refs++;
        return v.object;
      }
    }
    this.shareFieldsV1(object);
    versions.push({ object, refs: 1 });
    return object;
  };

  /**
   * The fieldsV1 trees of the kept versions, by their JSON text (key order included, so a shared tree
   * serializes as the object's own did). Weakly: a tree no kept version holds any more is collected,
   * and its entry goes with it, so the table holds only trees that are in memory anyway.
   */
  private readonly fieldsV1 = new Map<string, WeakRef<JsonObject>>();
  private readonly forgetFieldsV1 = new FinalizationRegistry<string>((text) => {
    if (this.fieldsV1.get(text)?.deref() === undefined) this.fieldsV1.delete(text);
  });

  /**
   * Gives a new version's managedFields entries the equal fieldsV1 tree already kept. The objects of one
   * kind written by one manager mostly have equal trees, and a tree is a large part of a small object:
   * about a third of bench/memory's ConfigMaps (seven `{}` leaves and four maps), in the live heap and in
   * the garbage each replaced version leaves. Replacing a subtree by an equal one changes nothing a
   * reader can see.
   */
  private shareFieldsV1(object: KubeObject): void {
    const entries = metaOf(object).managedFields;
    if (!Array.isArray(entries)) return;
    for (const entry of entries) {
      if (!isPlainObject(entry) || !isPlainObject(entry.fieldsV1)) continue;
      const text = JSON.stringify(entry.fieldsV1);
      const known = this.fieldsV1.get(text)?.deref();
      if (known !== undefined) {
        entry.fieldsV1 = known;
        continue;
      }
      this.fieldsV1.set(text, new WeakRef(entry.fieldsV1));
      this.forgetFieldsV1.register(entry.fieldsV1, text);
    }
  }

  /** One reference to a kept object less; forgotten at none. Objects never acquired are ignored. */
  release(object: KubeObject | undefined): void {
    if (!object) return;
    const uid = metaOf(object).uid;
    const versions = typeof uid === 'string' ? this.byUid.get(uid) : undefined;
    const i = versions ? versions.findIndex((v) => v.object === object) : -1;
    if (!versions || i < 0) return;
    if (--versions[i]!.refs > 0) return;
    versions.splice(i, 1);
    if (versions.length === 0) this.byUid.delete(uid as string);
  }

  /** How many fieldsV1 trees are remembered for sharing (those of kept versions, until collected). */
  get fieldsV1Trees(): number {
    return this.fieldsV1.size;
  }

  /** How many object versions are kept. */
  get size(): number {
    let n = 0;
    for (const versions of this.byUid.values()) n += versions.length;
    return n;
  }
}

export interface FilteredObject {
  readonly item: SnapshotItem;
  /** MD5 hex of the whole object; only without a jqFilter (with one, the filter results are compared). */
  readonly checksum?: string;
}

export type FilterOutcome = ({ readonly ok: true } & FilteredObject) | { readonly ok: false; readonly error: JqRuntimeError };

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

/** The checksum of a whole object: MD5 hex of its Go JSON encoding (a binding without a jqFilter). */
export function objectChecksum(object: KubeObject): string {
  return md5(goJsonStringify(object));
}

/**
 * Whether a change is invisible to the hook: the same filter result (jqFilter), or the same checksum of
 * the whole object. `before` is what was kept of the object: with a jqFilter its item alone is enough.
 */
export function sameForHook(before: { readonly item: SnapshotItem; readonly checksum?: string }, after: FilteredObject): boolean {
  if (after.checksum !== undefined) return before.checksum === after.checksum;
  return jsonEqual(before.item.filterResult as JsonValue, after.item.filterResult as JsonValue);
}

const asIs: KeepObject = (o) => o;

/**
 * The last filter run, by the input's identity and the filter's text. The bindings of several hooks that
 * watch the same objects with the same jqFilter get each change one after another, as one parsed object
 * (a shared informer), and each list as one array: the later ones take the first one's results (jq's
 * results are read, never changed) instead of filtering again and keeping a copy each.
 */
const lastRun: { input: unknown; filter: string | undefined; results: unknown; forgetting: boolean } = { input: undefined, filter: undefined, results: undefined, forgetting: false };

/**
 * What the bindings that keep no objects built from the last run's results: the same for each of them
 * (`{filterResult}` items, read and never changed), so they share it instead of keeping one item each
 * per object (150,000 watched Pods and 4 such bindings: 450,000 objects fewer for the collector to mark).
 */
const lastItems: { results: unknown; built: unknown } = { results: undefined, built: undefined };

/** Forgets the last run once the handlers of its change are done (they run in one go), so that no list stays referenced. */
function forgetLastRun(): void {
  lastRun.input = lastRun.filter = lastRun.results = undefined;
  lastItems.results = lastItems.built = undefined;
  lastRun.forgetting = false;
}

/** What `build` makes of `results`, made once for every binding keeping no objects that takes these results. */
function sharedBuild<T>(results: unknown, build: () => T): T {
  if (lastItems.results === results) return lastItems.built as T;
  const built = build();
  lastItems.results = results;
  lastItems.built = built;
  return built;
}

function remembered<T>(input: unknown, filter: string, run: () => T): T {
  if (lastRun.input === input && lastRun.filter === filter) return lastRun.results as T;
  const results = run();
  lastRun.input = input;
  lastRun.filter = filter;
  lastRun.results = results;
  if (!lastRun.forgetting) {
    lastRun.forgetting = true;
    queueMicrotask(forgetLastRun);
  }
  return results;
}

/**
 * Filter many objects for one binding. Returns one outcome per object, in order; a jq runtime error is
 * reported for its object only. `keep` gives the object an item holds (keepFullObjectsInMemory), for
 * the objects filtered without error only.
 */
export function filterObjects(binding: FilterBinding, objects: readonly KubeObject[], keep: KeepObject = asIs): FilterOutcome[] {
  const kept = binding.keepFullObjectsInMemory ? keep : asIs;
  if (binding.jqFilter === undefined || !binding.jqProgram) {
    return objects.map((o) => ({ ok: true, item: makeSnapshotItem(binding, kept(o)), checksum: objectChecksum(o) }));
  }
  const program = binding.jqProgram;
  const results = remembered(objects, binding.jqFilter, () => program.applyMany(objects));
  const build = () => results.map((r, i): FilterOutcome => (r.ok ? { ok: true, item: makeSnapshotItem(binding, kept(objects[i]!), r.outputs) } : { ok: false, error: r.error }));
  return binding.keepFullObjectsInMemory ? build() : sharedBuild(results, build);
}

/** Filter one object (a watch event). Throws JqRuntimeError when the filter fails on it (nothing kept then). */
export function filterObject(binding: FilterBinding, object: KubeObject, keep: KeepObject = asIs): FilteredObject {
  const kept = binding.keepFullObjectsInMemory ? keep : asIs;
  if (binding.jqFilter === undefined || !binding.jqProgram) return { item: makeSnapshotItem(binding, kept(object)), checksum: objectChecksum(object) };
  const program = binding.jqProgram;
  const outputs = remembered(object, binding.jqFilter, () => program.apply(object));
  const build = () => makeSnapshotItem(binding, kept(object), outputs);
  return { item: binding.keepFullObjectsInMemory ? build() : sharedBuild(outputs, build) };
}
