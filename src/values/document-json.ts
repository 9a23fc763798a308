/**
 * The JSON of a hook's values document (`$VALUES_PATH`): `{"global": …, "<module>": …}`, as UTF-8 bytes
 * for the file. A scope's effective values are a shared object that is never changed (scope.ts), so
 * its bytes are made once and reused by every hook run until the values change, instead of
 * serializing and encoding the same hundreds of KB for each run.
 */
import type { JsonObject, JsonValue } from '../util/json.js';

/** Shared effective-values objects, with their JSON bytes once they were needed. */
const sharedJson = new WeakMap<JsonObject, Buffer | undefined>();

/** Declares `values` shared and unchanging from now on: its JSON may be kept. */
export function markShared(values: JsonObject): JsonObject {
  sharedJson.set(values, undefined);
  return values;
}

function bytesOf(value: JsonValue): Buffer | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !sharedJson.has(value)) {
    const text = JSON.stringify(value) as string | undefined;
    return text === undefined ? undefined : Buffer.from(text);
  }
  let bytes = sharedJson.get(value);
  if (bytes === undefined) sharedJson.set(value, (bytes = Buffer.from(JSON.stringify(value))));
  return bytes;
}

/** Exactly the UTF-8 of `JSON.stringify(doc)`, with the JSON of its shared top-level sections reused. */
export function valuesDocumentJson(doc: JsonObject): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(doc)) {
    const bytes = bytesOf(value);
    if (bytes === undefined) continue;
    parts.push(Buffer.from(`${parts.length ? ',' : '{'}${JSON.stringify(key)}:`), bytes);
  }
  if (!parts.length) return Buffer.from('{}');
  parts.push(Buffer.from('}'));
  return Buffer.concat(parts);
}
