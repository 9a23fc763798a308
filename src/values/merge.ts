import { cloneJson, isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';

/**
 * Deep merge of `src` into `dst` (which the caller owns and which is changed): when both sides are
 * maps the merge recurses, otherwise the source value (a list, a scalar, null) replaces the destination.
 * Values taken from `src` are copied, so `dst` never shares structure with `src`.
 */
export function mergeInto(dst: JsonObject, src: JsonObject): JsonObject {
  for (const key in src) {
    const s = src[key] as JsonValue;
    const d = dst[key];
    if (isPlainObject(s) && isPlainObject(d)) mergeInto(d, s);
    else dst[key] = cloneJson(s);
  }
  return dst;
}

/** A new object: the deep merge of the given layers, later ones winning. */
export function mergeLayers(...layers: (JsonObject | undefined)[]): JsonObject {
  const out: JsonObject = {};
  for (const layer of layers) if (layer) mergeInto(out, layer);
  return out;
}
