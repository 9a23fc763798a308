/** Conversions shared by the Sprig functions (spf13/cast semantics, strval, empty, DeepEqual). */
import { formatValue } from '../fmt.js';
import { parseGoInt, parseGoFloat } from '../parser.js';
import { GoInt, isMap, isNil, taggedType, typeName, withGoType } from '../values.js';

/** sprig's strval. */
export function strval(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (v instanceof Error) return v.message;
  return formatValue(v, 'v');
}

function trimZeroDecimal(s: string): string {
  let foundZero = false;
  for (let i = s.length; i > 0; i--) {
    const c = s[i - 1];
    if (c === '.') {
      if (foundZero) return s.slice(0, i - 1);
    } else if (c === '0') foundZero = true;
    else return s;
  }
  return s;
}

/** cast.ToInt64 (errors give 0). */
export function toInt64(v: unknown): bigint {
  if (isNil(v)) return 0n;
  switch (typeof v) {
    case 'bigint':
      return v;
    case 'number':
      // Go's float->int64 conversion on amd64 gives the minimum int64 when out of range
      if (!Number.isFinite(v) || v >= 9223372036854775808 || v < -9223372036854775808) return -(2n ** 63n);
      return BigInt(Math.trunc(v));
    case 'boolean':
      return v ? 1n : 0n;
    case 'string': {
      const r = parseGoInt(trimZeroDecimal(v), true);
      return r ?? 0n;
    }
  }
  if (v instanceof GoInt) return BigInt.asIntN(64, v.v);
  return 0n;
}

/** cast.ToFloat64 (errors give 0). */
export function toFloat64(v: unknown): number {
  if (isNil(v)) return 0;
  switch (typeof v) {
    case 'number':
      return v;
    case 'bigint':
      return Number(v);
    case 'boolean':
      return v ? 1 : 0;
    case 'string': {
      const f = parseGoFloat(v);
      return f === null ? 0 : f;
    }
  }
  if (v instanceof GoInt) return Number(v.v);
  return 0;
}

/** sprig's empty(). */
export function empty(v: unknown): boolean {
  if (isNil(v)) return true;
  switch (typeof v) {
    case 'string':
      return v.length === 0;
    case 'boolean':
      return !v;
    case 'number':
      return v === 0;
    case 'bigint':
      return v === 0n;
    case 'function':
      return false;
  }
  if (v instanceof GoInt) return v.v === 0n;
  if (Array.isArray(v)) return v.length === 0;
  if (v instanceof Uint8Array) return v.length === 0;
  if (isMap(v)) {
    for (const _ in v) return false;
    return true;
  }
  return false;
}

/** reflect.DeepEqual on template values (type-sensitive: 1 != 1.0). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (isNil(a) || isNil(b)) return isNil(a) && isNil(b);
  if (typeof a !== typeof b) return false;
  if (typeof a !== 'object') return a === b;
  if (a instanceof GoInt) return b instanceof GoInt && a.type === b.type && a.v === b.v;
  if (typeName(a) !== typeName(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], bb[i])) return false;
    return true;
  }
  if (isMap(a)) {
    const bb = b as Record<string, unknown>;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(bb).length) return false;
    for (const k of ka) {
      if (!Object.prototype.hasOwnProperty.call(bb, k)) return false;
      if (!deepEqual(a[k], bb[k])) return false;
    }
    return true;
  }
  if (typeof (a as any).equals === 'function') return (a as any).equals(b);
  return a === b;
}

/** copystructure.Copy for template values. */
export function deepCopy(v: unknown): unknown {
  if (Array.isArray(v)) {
    const c = v.map(deepCopy);
    const t = taggedType(v);
    return t ? withGoType(c, t) : c;
  }
  if (isMap(v)) {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v)) o[k] = deepCopy(v[k]);
    const t = taggedType(v);
    return t ? withGoType(o, t) : o;
  }
  return v;
}

/** Go-kind name of a value's reflect.Kind (for sprig messages like "Cannot push on type map"). */
export function kindOfForMsg(v: unknown): string {
  if (Array.isArray(v)) return 'slice';
  if (isMap(v)) return 'map';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof GoInt) return v.type;
  return 'struct';
}

export const nilDeref = 'runtime error: invalid memory address or nil pointer dereference';

/** A list-like value as an array, or null. */
export function asList(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (v instanceof Uint8Array) return [...v].map((b) => new GoInt('uint8', BigInt(b)));
  return null;
}
