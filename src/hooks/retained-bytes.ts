/**
 * The memory a binding's snapshot retains, estimated from what it keeps (the `kube_snapshot_bytes`
 * gauge and the snapshot memory guard): per object its map entry, key and item, the filter result
 * and the full object where the binding keeps it. Values are counted as V8 lays them out on 64 bits
 * (object headers, one 8-byte slot per property or element, strings of one byte per character,
 * numbers that are not small integers boxed); property names are shared and not counted. An object
 * several bindings keep is counted in each. A full object's size is computed once: kept objects are
 * never changed.
 */
import type { SnapshotItem } from './binding-context.js';

/** A Map entry of the snapshot (hash table slots), the item object with its one or two fields. */
const ENTRY_BYTES = 40 + 40;
const OBJECT_HEADER = 24;
const ARRAY_HEADER = 32;
const STRING_HEADER = 16;
const BOXED_NUMBER = 16;
const SLOT = 8;

/** A checksum kept beside an item (bindings without a jqFilter): a Map entry and a 32-character string. */
export const CHECKSUM_ENTRY_BYTES = 40 + STRING_HEADER + 32;

const objectSizes = new WeakMap<object, number>();

/** The estimated heap bytes of a JSON value (its slot in the container aside). */
export function valueBytes(v: unknown): number {
  if (typeof v === 'string') return STRING_HEADER + ((v.length + 7) & ~7);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 30 ? 0 : BOXED_NUMBER;
  if (v === null || typeof v !== 'object') return 0;
  if (Array.isArray(v)) {
    let n = ARRAY_HEADER + SLOT * v.length;
    for (const e of v) n += valueBytes(e);
    return n;
  }
  let n = OBJECT_HEADER;
  for (const k in v) n += SLOT + valueBytes((v as Record<string, unknown>)[k]);
  return n;
}

/** The estimated heap bytes of a kept object, computed once per object. */
function objectBytes(o: object): number {
  let n = objectSizes.get(o);
  if (n === undefined) objectSizes.set(o, (n = valueBytes(o)));
  return n;
}

/** What one snapshot entry retains: its key (shared with the informer's cache, counted here), its item. */
export function itemBytes(key: string, item: SnapshotItem): number {
  let n = ENTRY_BYTES + valueBytes(key);
  if (item.object) n += objectBytes(item.object);
  if ('filterResult' in item) n += valueBytes(item.filterResult);
  return n;
}
