/**
 * Helpers for the informer layer: turn watched objects into snapshot items of a kubernetes binding (jq
 * applied in batches, keepFullObjectsInMemory honoured) and compute the checksum used to drop events that
 * do not change what the hook sees (shell-operator: MD5 of the jq result, or of the whole object when the
 * binding has no jqFilter).
 */
import { createHash } from 'node:crypto';
import { toFilterResult, type JqRuntimeError } from '../jq/index.js';
import { goJsonStringify } from '../util/json.js';
import { makeSnapshotItem, type KubeObject, type SnapshotItem } from './binding-context.js';
import type { KubernetesBinding } from './config-types.js';

type FilterBinding = Pick<KubernetesBinding, 'keepFullObjectsInMemory' | 'jqFilter' | 'jqProgram'>;

export interface FilteredObject {
  readonly item: SnapshotItem;
  /** MD5 hex of the filter result (jqFilter) or of the whole object (no jqFilter). */
  readonly checksum: string;
}

export type FilterOutcome = ({ readonly ok: true } & FilteredObject) | { readonly ok: false; readonly error: JqRuntimeError };

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

/** The checksum of an object for a binding, given its filter result when the binding has a jqFilter. */
export function snapshotChecksum(binding: Pick<KubernetesBinding, 'jqFilter'>, object: KubeObject, filterResult?: unknown): string {
  return md5(goJsonStringify(binding.jqFilter !== undefined ? (filterResult ?? null) : object));
}

/**
 * Filter many objects for one binding. Returns one outcome per object, in
 * order; a jq runtime error is reported for its object only.
 */
export function filterObjects(binding: FilterBinding, objects: readonly KubeObject[]): FilterOutcome[] {
  if (binding.jqFilter === undefined || !binding.jqProgram) {
    return objects.map((o) => ({ ok: true, item: makeSnapshotItem(binding, o), checksum: snapshotChecksum(binding, o) }));
  }
  const results = binding.jqProgram.applyMany(objects);
  return results.map((r, i) => {
    const object = objects[i]!;
    if (!r.ok) return { ok: false, error: r.error };
    return { ok: true, item: makeSnapshotItem(binding, object, r.outputs), checksum: snapshotChecksum(binding, object, toFilterResult(r.outputs)) };
  });
}

/** Filter one object (a watch event). Throws JqRuntimeError when the filter fails on it. */
export function filterObject(binding: FilterBinding, object: KubeObject): FilteredObject {
  if (binding.jqFilter === undefined || !binding.jqProgram) return { item: makeSnapshotItem(binding, object), checksum: snapshotChecksum(binding, object) };
  const outputs = binding.jqProgram.apply(object);
  return { item: makeSnapshotItem(binding, object, outputs), checksum: snapshotChecksum(binding, object, toFilterResult(outputs)) };
}
