/**
 * Helpers for the informer layer: turn watched objects into snapshot items of a kubernetes binding (jq
 * applied in batches, keepFullObjectsInMemory honoured) and tell the changes that the hook does not see,
 * whose events are dropped (shell-operator compares an MD5 of the jq result, or of the whole object when
 * the binding has no jqFilter). With a jqFilter the filter results themselves are compared (equal JSON,
 * key order aside, exactly when Go's checksums are equal): no checksum is kept per object.
 */
import { createHash } from 'node:crypto';
import type { JqRuntimeError } from '../jq/index.js';
import { goJsonStringify, jsonEqual, type JsonValue } from '../util/json.js';
import { makeSnapshotItem, type KubeObject, type SnapshotItem } from './binding-context.js';
import type { KubernetesBinding } from './config-types.js';

type FilterBinding = Pick<KubernetesBinding, 'keepFullObjectsInMemory' | 'jqFilter' | 'jqProgram'>;

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

/**
 * Filter many objects for one binding. Returns one outcome per object, in
 * order; a jq runtime error is reported for its object only.
 */
export function filterObjects(binding: FilterBinding, objects: readonly KubeObject[]): FilterOutcome[] {
  if (binding.jqFilter === undefined || !binding.jqProgram) {
    return objects.map((o) => ({ ok: true, item: makeSnapshotItem(binding, o), checksum: objectChecksum(o) }));
  }
  const results = binding.jqProgram.applyMany(objects);
  return results.map((r, i) => (r.ok ? { ok: true, item: makeSnapshotItem(binding, objects[i]!, r.outputs) } : { ok: false, error: r.error }));
}

/** Filter one object (a watch event). Throws JqRuntimeError when the filter fails on it. */
export function filterObject(binding: FilterBinding, object: KubeObject): FilteredObject {
  if (binding.jqFilter === undefined || !binding.jqProgram) return { item: makeSnapshotItem(binding, object), checksum: objectChecksum(object) };
  return { item: makeSnapshotItem(binding, object, binding.jqProgram.apply(object)) };
}
