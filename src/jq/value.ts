/**
 * jq values as plain JavaScript JSON values, and the operations on them that jq 1.8.2 defines in C:
 * type names, ordering, equality, printing (numbers as jq prints doubles), indexing, paths and the
 * arithmetic operators, each with jq's error messages.
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

/** A jq error carrying its value (a message string or any JSON value, as `error(v)` raises). */
export class JqError extends Error {
  constructor(readonly value: Json) {
    super(typeof value === 'string' ? value : `${dump(value)} (not a string)`);
  }
}

export function fail(message: string): never {
  throw new JqError(message);
}

export function typeOf(v: Json): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      return Array.isArray(v) ? 'array' : 'object';
  }
}

export function isObject(v: Json): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function truthy(v: Json): boolean {
  return v !== null && v !== false;
}

/** Set an own key (safe for `__proto__`). */
export function setKey(o: JsonObject, k: string, v: Json): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

export function hasOwn(o: JsonObject, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

// ---- printing ----

/**
 * A number as jq 1.8.2 prints a double (jvp_dtoa_fmt: the shortest round-trip digits; exponent form
 * when the decimal point is 4 or more places left of the digits or more than 15 places right of them).
 */
export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'null';
  if (!Number.isFinite(n)) return n > 0 ? '1.7976931348623157e+308' : '-1.7976931348623157e+308';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  if (Number.isInteger(n) && n < 1e16 && n > -1e16) return String(n);
  const exp = n.toExponential();
  const i = exp.indexOf('e');
  const e = Number(exp.slice(i + 1));
  const sign = n < 0 ? '-' : '';
  const digits = exp.slice(sign.length, i).replace('.', '');
  const decpt = e + 1;
  if (decpt <= -4 || decpt > digits.length + 15) {
    const ae = Math.abs(e);
    return `${exp.slice(0, i)}e${e < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return sign + digits + '0'.repeat(decpt - digits.length);
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

const ESC: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f' };

export function dumpString(s: string): string {
   
  if (!/["\\\u0000-\u001f\u007f\ud800-\udfff]/.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const code = s.charCodeAt(i);
    if (ESC[c] !== undefined) out += ESC[c];
    else if (code < 0x20 || code === 0x7f) out += '\\u' + code.toString(16).padStart(4, '0');
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      out += c + s[i + 1]!;
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd';
    else out += c;
  }
  return out + '"';
}

/**
 * jq's depth limits (MAX_PRINT_DEPTH, MAX_CMP_DEPTH, MAX_EQUAL_DEPTH, MAX_CONTAINS_DEPTH,
 * MAX_OBJECT_MERGE_DEPTH, MAX_PATH_DEPTH, MAX_PARSING_DEPTH of jq 1.8.2): a value nested deeper is
 * printed as `<skipped: too deep>` or gives jq's error. The functions below recurse for the first
 * RECURSE levels (fast, no allocation) and go on with an explicit stack below that, so that values as
 * deep as jq allows do not exhaust the JavaScript stack.
 */
export const MAX_DEPTH = 10000;
const RECURSE = 500;

/** jq's compact JSON text (`tojson`, `-c`). */
export function dump(v: Json): string {
  return dumpAt(v, 0);
}

function dumpAt(v: Json, depth: number): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return formatNumber(v);
    case 'string':
      return dumpString(v);
  }
  if (depth >= RECURSE) return dumpDeep(v, depth, 0);
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i ? ',' : '') + dumpAt(v[i]!, depth + 1);
    return s + ']';
  }
  let s = '{';
  let first = true;
  for (const k in v) {
    s += (first ? '' : ',') + dumpString(k) + ':' + dumpAt(v[k]!, depth + 1);
    first = false;
  }
  return s + '}';
}

/** dump/dumpPretty of a deep value with an explicit stack (`indent` 0: compact). */
function dumpDeep(v0: Json, depth0: number, indent: number): string {
  const nl = (d: number): string => (indent ? '\n' + ' '.repeat(indent * d) : '');
  const stack: (string | { v: Json; d: number })[] = [{ v: v0, d: depth0 }];
  let out = '';
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out += item;
      continue;
    }
    const { v, d } = item;
    if (d > MAX_DEPTH) out += '<skipped: too deep>';
    else if (v === null || typeof v !== 'object') out += dump(v);
    else if (Array.isArray(v)) {
      if (v.length === 0) {
        out += '[]';
        continue;
      }
      stack.push(nl(d) + ']');
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ v: v[i]!, d: d + 1 });
        stack.push((i ? ',' : '') + nl(d + 1));
      }
      out += '[';
    } else {
      const keys = Object.keys(v);
      if (keys.length === 0) {
        out += '{}';
        continue;
      }
      stack.push(nl(d) + '}');
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ v: v[keys[i]!]!, d: d + 1 });
        stack.push((i ? ',' : '') + nl(d + 1) + dumpString(keys[i]!) + (indent ? ': ' : ':'));
      }
      out += '{';
    }
  }
  return out;
}

/** jq's indented output (2 spaces, as `jq .` prints). */
export function dumpPretty(v: Json, indent = 2, level = 0): string {
  if (v === null || typeof v !== 'object') return dump(v);
  if (level >= RECURSE) return dumpDeep(v, level, indent);
  const pad = ' '.repeat(indent * (level + 1));
  const end = ' '.repeat(indent * level);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return '[\n' + v.map((x) => pad + dumpPretty(x, indent, level + 1)).join(',\n') + '\n' + end + ']';
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return '{}';
  return '{\n' + keys.map((k) => pad + dumpString(k) + ': ' + dumpPretty(v[k]!, indent, level + 1)).join(',\n') + '\n' + end + '}';
}

/** A value shortened as jq's error messages show it (at most 29 bytes). */
export function trunc(v: Json, size = 30): string {
  let x = v;
  if (typeof x === 'string' && x.length > size) x = [...x].slice(0, size).join('');
  const s = dump(x);
  const bytes = Buffer.byteLength(s);
  if (bytes <= size - 1) return s;
  const delim = s[0] === '"' ? '"' : s[0] === '[' ? ']' : s[0] === '{' ? '}' : '';
  const all = Buffer.from(s);
  let l = size - (delim ? 5 : 4);
  while (l > 0 && (all[l]! & 0xc0) === 0x80) l--;
  return all.subarray(0, l).toString() + '...' + delim;
}

export function describe(v: Json): string {
  return `${typeOf(v)} (${trunc(v)})`;
}

// ---- ordering ----

const ORDER: Record<string, number> = { null: 0, boolean: 1, number: 3, string: 4, array: 5, object: 6 };

function kindRank(v: Json): number {
  if (v === false) return 1;
  if (v === true) return 2;
  return ORDER[typeOf(v)]!;
}

/** Strings ordered by code point (jq compares UTF-8 bytes), not by UTF-16 unit. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const sx = x >= 0xd800 && x <= 0xdfff;
      const sy = y >= 0xd800 && y <= 0xdfff;
      if (sx !== sy) return sx ? (y >= 0xe000 ? -1 : 1) : x >= 0xe000 ? 1 : -1;
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

export function sortedKeys(o: JsonObject): string[] {
  return Object.keys(o).sort(compareStrings);
}

export function compare(a: Json, b: Json): number {
  return cmpAt(a, b, 0);
}

function cmpLeaf(a: Json, b: Json, ra: number): number {
  if (ra === 3) {
    const x = a as number;
    const y = b as number;
    return x < y ? -1 : x === y ? 0 : x > y ? 1 : Number.isNaN(x) ? -1 : 1;
  }
  if (ra === 4) return compareStrings(a as string, b as string);
  return 0;
}

function cmpAt(a: Json, b: Json, depth: number): number {
  if (depth >= RECURSE) return cmpDeep(a, b, depth);
  const ra = kindRank(a);
  const rb = kindRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (ra === 5) {
    const x = a as Json[];
    const y = b as Json[];
    const n = Math.min(x.length, y.length);
    for (let i = 0; i < n; i++) {
      const c = cmpAt(x[i]!, y[i]!, depth + 1);
      if (c !== 0) return c;
    }
    return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
  }
  if (ra === 6) {
    const x = a as JsonObject;
    const y = b as JsonObject;
    const kx = sortedKeys(x);
    const c = cmpAt(kx, sortedKeys(y), depth + 1);
    if (c !== 0) return c;
    for (const k of kx) {
      const d = cmpAt(x[k]!, y[k]!, depth + 1);
      if (d !== 0) return d;
    }
    return 0;
  }
  return cmpLeaf(a, b, ra);
}

/** compare with an explicit stack: pairs compared in order, the first difference decides. */
function cmpDeep(a0: Json, b0: Json, depth0: number): number {
  const stack: ({ a: Json; b: Json; d: number } | number)[] = [{ a: a0, b: b0, d: depth0 }];
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (typeof t === 'number') {
      if (t !== 0) return t;
      continue;
    }
    const { a, b, d } = t;
    if (d > MAX_DEPTH) fail('Comparison too deep');
    const ra = kindRank(a);
    const rb = kindRank(b);
    if (ra !== rb) return ra < rb ? -1 : 1;
    if (ra === 5) {
      const x = a as Json[];
      const y = b as Json[];
      stack.push(x.length < y.length ? -1 : x.length > y.length ? 1 : 0);
      for (let i = Math.min(x.length, y.length) - 1; i >= 0; i--) stack.push({ a: x[i]!, b: y[i]!, d: d + 1 });
    } else if (ra === 6) {
      const x = a as JsonObject;
      const y = b as JsonObject;
      const kx = sortedKeys(x);
      for (let i = kx.length - 1; i >= 0; i--) stack.push({ a: x[kx[i]!]!, b: y[kx[i]!] ?? null, d: d + 1 });
      stack.push({ a: kx, b: sortedKeys(y), d: d + 1 });
    } else {
      const c = cmpLeaf(a, b, ra);
      if (c !== 0) return c;
    }
  }
  return 0;
}

export function equals(a: Json, b: Json): boolean {
  return eqAt(a, b, 0);
}

function eqAt(a: Json, b: Json, depth: number): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (depth >= RECURSE) return eqDeep(a, b, depth);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!eqAt(a[i]!, b[i]!, depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const bo = b as JsonObject;
  let n = 0;
  for (const k in a) {
    if (!hasOwn(bo, k) || !eqAt(a[k]!, bo[k]!, depth + 1)) return false;
    n++;
  }
  return n === Object.keys(bo).length;
}

function eqDeep(a0: Json, b0: Json, depth0: number): boolean {
  const stack: { a: Json; b: Json; d: number }[] = [{ a: a0, b: b0, d: depth0 }];
  while (stack.length > 0) {
    const { a, b, d } = stack.pop()!;
    if (d > MAX_DEPTH) fail('Equality check too deep');
    if (a === b) continue;
    if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = a.length - 1; i >= 0; i--) stack.push({ a: a[i]!, b: b[i]!, d: d + 1 });
      continue;
    }
    if (Array.isArray(b)) return false;
    const bo = b as JsonObject;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(bo).length) return false;
    for (let i = ka.length - 1; i >= 0; i--) {
      if (!hasOwn(bo, ka[i]!)) return false;
      stack.push({ a: a[ka[i]!]!, b: bo[ka[i]!]!, d: d + 1 });
    }
  }
  return true;
}

// ---- indexing ----

function clampIndex(d: number): number {
  if (d < -2147483648) return -2147483648;
  if (d > 2147483647) return 2147483647;
  return Math.trunc(d);
}

export function sliceBounds(len: number, from: Json, to: Json): [number, number] {
  if (from === null) from = 0;
  if (to === null) to = len;
  if (typeof from !== 'number' || typeof to !== 'number') fail('Array/string slice indices must be integers');
  let ds = from;
  let de = to;
  if (Number.isNaN(ds)) ds = 0;
  if (ds < 0) ds += len;
  if (ds < 0) ds = 0;
  if (ds > len) ds = len;
  const start = Math.floor(ds);
  if (Number.isNaN(de)) de = len;
  if (de < 0) de += len;
  if (de < 0) de = start;
  let end = de > 2147483647 ? 2147483647 : Math.trunc(de);
  if (end > len) end = len;
  if (end < len && end < de) end += 1;
  if (end < start) end = start;
  return [start, end];
}

export function sliceString(s: string, from: Json, to: Json): string {
   
  if (!/[\ud800-\udfff]/.test(s)) {
    const [a, b] = sliceBounds(s.length, from, to);
    return s.slice(a, b);
  }
  const cps = Array.from(s);
  const [a, b] = sliceBounds(cps.length, from, to);
  return cps.slice(a, b).join('');
}

/** `t[k]` as jq's INDEX: null for a missing key, errors for a wrong kind. */
export function index(t: Json, k: Json): Json {
  if (typeof k === 'string') {
    if (isObject(t)) {
      const v = t[k];
      return v === undefined || !hasOwn(t, k) ? null : v;
    }
    if (t === null) return null;
  } else if (typeof k === 'number') {
    if (Array.isArray(t)) {
      if (Number.isNaN(k)) return null;
      let i = clampIndex(k);
      if (i < 0) i += t.length;
      const v = t[i];
      return v === undefined ? null : v;
    }
    if (t === null) return null;
  } else if (isObject(k)) {
    if (Array.isArray(t) || typeof t === 'string') {
      if (!hasOwn(k, 'start') && !hasOwn(k, 'end')) {
        // jq's parse_slice reads the two keys; an object without them is a slice from 0 to the end
      }
      const from = k.start ?? null;
      const to = k.end ?? null;
      if (typeof t === 'string') return sliceString(t, from, to);
      const [a, b] = sliceBounds(t.length, from, to);
      return t.slice(a, b);
    }
    if (t === null) return null;
  } else if (Array.isArray(k) && Array.isArray(t)) {
    return arrayIndexes(t, k);
  }
  return fail(`Cannot index ${typeOf(t)} with ${describe(k)}`);
}

function arrayIndexes(a: Json[], b: Json[]): Json {
  const out: number[] = [];
  if (b.length === 0) return null;
  for (let i = 0; i + b.length <= a.length || (i < a.length && false); i++) {
    let ok = true;
    for (let j = 0; j < b.length; j++) {
      if (!equals(a[i + j]!, b[j]!)) {
        ok = false;
        break;
      }
    }
    if (ok) out.push(i);
  }
  return out;
}

export function slice(t: Json, from: Json, to: Json): Json {
  if (t === null) return null;
  if (typeof t === 'string') return sliceString(t, from, to);
  if (Array.isArray(t)) {
    const [a, b] = sliceBounds(t.length, from, to);
    return t.slice(a, b);
  }
  return fail(`Cannot index ${typeOf(t)} with ${describe({ start: from, end: to })}`);
}

export function has(t: Json, k: Json): boolean {
  if (t === null) return false; // jq 1.8: null has no key, whatever its type
  if (isObject(t) && typeof k === 'string') return hasOwn(t, k);
  if (Array.isArray(t) && typeof k === 'number') {
    if (Number.isNaN(k)) return false;
    const i = Math.trunc(k);
    return i >= 0 && i < t.length;
  }
  return fail(`Cannot check whether ${typeOf(t)} has a ${typeOf(k)} key`);
}

/** `t` with `t[k] = v` (copy on write). */
export function setIndex(t: Json, k: Json, v: Json): Json {
  const isnull = t === null;
  if (typeof k === 'string' && (isnull || isObject(t))) {
    const o: JsonObject = isnull ? {} : { ...(t as JsonObject) };
    setKey(o, k, v);
    return o;
  }
  if (typeof k === 'number' && (isnull || Array.isArray(t))) {
    if (Number.isNaN(k)) fail('Cannot set array element at NaN index');
    const a = isnull ? [] : (t as Json[]).slice();
    let i = clampIndex(k);
    if (i < 0) {
      i += a.length;
      if (i < 0) fail('Out of bounds negative array index');
    }
    if (i > 536870911) fail('Array index too large');
    while (a.length < i) a.push(null);
    a[i] = v;
    return a;
  }
  if (isObject(k) && (isnull || Array.isArray(t))) {
    const a = isnull ? [] : (t as Json[]);
    const [s, e] = sliceBounds(a.length, k.start ?? null, k.end ?? null);
    if (!Array.isArray(v)) fail('A slice of an array can only be assigned another array');
    return [...a.slice(0, s), ...v, ...a.slice(e)];
  }
  if (isObject(k) && typeof t === 'string') fail('Cannot update string slices');
  return fail(`Cannot update field at ${typeOf(k)} index of ${typeOf(t)}`);
}

function checkPath(path: Json): Json[] {
  if (!Array.isArray(path)) fail('Path must be specified as an array');
  if (path.length > MAX_DEPTH) fail('Path too deep');
  return path;
}

export function getpath(t: Json, path: Json): Json {
  let v = t;
  for (const k of checkPath(path)) {
    if (v === null) return null;
    v = index(v, k);
  }
  return v;
}

export function setpath(t: Json, path: Json, v: Json): Json {
  return updatepath(t, checkPath(path), 0, () => v)!;
}

/** Apply `f` to the value at `path` (used by `|=` and the update-assignment operators); undefined: delete nothing, keep. */
export function updatepath(t: Json, path: Json[], i: number, f: (v: Json) => Json | undefined): Json | undefined {
  // walk down (no recursion: paths may be as long as jq allows), then rebuild the containers upwards
  const chain: Json[] = [];
  let cur = t;
  for (let j = i; j < path.length; j++) {
    chain.push(cur);
    cur = cur === null ? null : index(cur, path[j]!);
  }
  let nv = f(cur);
  if (nv === undefined) return undefined;
  for (let j = path.length - 1; j >= i; j--) nv = setIndex(chain[j - i]!, path[j]!, nv);
  return nv;
}

/** jq's jv_delpaths: sorted paths, and the keys of one container deleted at once (`del(.[1], .[-6])`). */
export function delpaths(t: Json, paths: Json): Json {
  if (!Array.isArray(paths)) fail('Paths must be specified as an array');
  const sorted = paths.slice().sort(compare);
  for (const p of sorted) {
    if (!Array.isArray(p)) fail(`Path must be specified as array, not ${typeOf(p)}`);
    if (p.length > MAX_DEPTH) fail('Path too deep');
  }
  if (sorted.length === 0) return t;
  if ((sorted[0] as Json[]).length === 0) return null;
  return delpathsSorted(t, sorted as Json[][], 0);
}

function delpathsSorted(t: Json, paths: Json[][], start: number): Json {
  if (paths.length === 1) return delpath(t, paths[0]!, start);
  const delkeys: Json[] = [];
  for (let i = 0; i < paths.length; ) {
    const key = paths[i]![start]!;
    const delkey = paths[i]!.length === start + 1;
    let j = i + 1;
    while (j < paths.length && equals(key, paths[j]![start]!)) j++;
    if (delkey) delkeys.push(key);
    else {
      const sub = t === null ? null : index(t, key);
      if (sub !== null) t = setIndex(t, key, delpathsSorted(sub, paths.slice(i, j), start + 1));
    }
    i = j;
  }
  return dels(t, delkeys);
}

/** One path (from `start`) deleted, without recursion: paths may be as long as jq allows. */
function delpath(t: Json, p: Json[], start: number): Json {
  if (p.length === start) return null;
  const chain: Json[] = [];
  let cur = t;
  for (let j = start; j < p.length - 1; j++) {
    if (cur === null) return t;
    chain.push(cur);
    cur = index(cur, p[j]!);
    if (cur === null) return t;
  }
  if (cur === null) return t;
  let nv = dels(cur, [p[p.length - 1]!]);
  for (let j = p.length - 2; j >= start; j--) nv = setIndex(chain[j - start]!, p[j]!, nv);
  return nv;
}

function dels(t: Json, keys: Json[]): Json {
  if (t === null || keys.length === 0) return t;
  if (Array.isArray(t)) {
    const del = new Set<number>();
    for (const key of keys) {
      if (typeof key === 'number') {
        if (Number.isNaN(key)) continue;
        const i = key < 0 ? t.length + Math.trunc(key) : Math.trunc(key);
        del.add(i);
      } else if (isObject(key)) {
        const [s, e] = sliceBounds(t.length, key.start ?? null, key.end ?? null);
        for (let i = s; i < e; i++) del.add(i);
      } else fail(`Cannot delete ${typeOf(key)} element of array`);
    }
    return t.filter((_x, i) => !del.has(i));
  }
  if (isObject(t)) {
    const o = { ...t };
    for (const k of keys) {
      if (typeof k !== 'string') fail(`Cannot delete ${typeOf(k)} field of object`);
      delete o[k];
    }
    return o;
  }
  return fail(`Cannot delete fields from ${typeOf(t)}`);
}

// ---- arithmetic ----

export function add(a: Json, b: Json): Json {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (a === null) return b;
  if (b === null) return a;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return a.concat(b);
  if (isObject(a) && isObject(b)) {
    const o = { ...a };
    for (const k in b) setKey(o, k, b[k]!);
    return o;
  }
  return fail(`${describe(a)} and ${describe(b)} cannot be added`);
}

export function subtract(a: Json, b: Json): Json {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (Array.isArray(a) && Array.isArray(b)) return a.filter((x) => !b.some((y) => equals(x, y)));
  return fail(`${describe(a)} and ${describe(b)} cannot be subtracted`);
}

function deepMerge(a: JsonObject, b: JsonObject): JsonObject {
  const root = { ...a };
  const stack: { o: JsonObject; b: JsonObject; d: number }[] = [{ o: root, b, d: 0 }];
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (t.d > MAX_DEPTH) fail('Object merge too deep');
    const o = t.o;
    for (const k in t.b) {
      const x = o[k];
      const y = t.b[k]!;
      if (x !== undefined && hasOwn(o, k) && isObject(x) && isObject(y)) {
        const copy = { ...x };
        setKey(o, k, copy);
        stack.push({ o: copy, b: y, d: t.d + 1 });
      } else setKey(o, k, y);
    }
  }
  return root;
}

export function multiply(a: Json, b: Json): Json {
  if (typeof a === 'number' && typeof b === 'number') return a * b;
  if (typeof a === 'string' && typeof b === 'number') return repeatStr(a, b);
  if (typeof a === 'number' && typeof b === 'string') return repeatStr(b, a);
  if (isObject(a) && isObject(b)) return deepMerge(a, b);
  return fail(`${describe(a)} and ${describe(b)} cannot be multiplied`);
}

function repeatStr(s: string, d: number): Json {
  if (d < 0 || Number.isNaN(d)) return null;
  const n = d > 2147483647 ? 2147483647 : Math.trunc(d);
  if (s.length * n > 536870912) fail('Repeat string result too long');
  return s.repeat(n);
}

export function divide(a: Json, b: Json): Json {
  if (typeof a === 'number' && typeof b === 'number') {
    if (b === 0) fail(`${describe(a)} and ${describe(b)} cannot be divided because the divisor is zero`);
    return a / b;
  }
  if (typeof a === 'string' && typeof b === 'string') return splitString(a, b);
  return fail(`${describe(a)} and ${describe(b)} cannot be divided`);
}

export function splitString(a: string, b: string): Json {
  if (a === '') return [];
  return a.split(b);
}

const INTMAX = 2n ** 63n - 1n;

/** C's conversion of a double to intmax_t as jq's dtoi does it (saturating, truncating). */
function dtoi(x: number): bigint {
  if (x < -(2 ** 63)) return -INTMAX - 1n;
  if (x >= 2 ** 63) return INTMAX;
  return BigInt(Math.trunc(x));
}

/** jq's `%`: both operands truncated to intmax_t, C's remainder (the sign of the dividend). */
export function modulo(a: Json, b: Json): Json {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
    if (a < 2 ** 53 && a > -(2 ** 53) && b < 2 ** 53 && b > -(2 ** 53)) {
      const bi = Math.trunc(b);
      if (bi === 0) fail(`${describe(a)} and ${describe(b)} cannot be divided (remainder) because the divisor is zero`);
      if (bi === -1) return 0;
      const r = Math.trunc(a) % bi;
      return r === 0 ? 0 : r;
    }
    const bi = dtoi(b);
    if (bi === 0n) fail(`${describe(a)} and ${describe(b)} cannot be divided (remainder) because the divisor is zero`);
    if (bi === -1n) return 0;
    const r = Number(dtoi(a) % bi);
    return r === 0 ? 0 : r;
  }
  return fail(`${describe(a)} and ${describe(b)} cannot be divided (remainder)`);
}

export function negate(v: Json): Json {
  // jq 1.8 negates number literals (inputs, constants) exactly: -0 is printed 0
  if (typeof v === 'number') return v === 0 ? 0 : -v;
  return fail(`${describe(v)} cannot be negated`);
}

export function length(v: Json): Json {
  if (v === null) return 0;
  switch (typeof v) {
    case 'boolean':
      return fail(`${describe(v)} has no length`);
    case 'number':
      return Math.abs(v);
    case 'string':
      return codepointLength(v);
  }
  if (Array.isArray(v)) return v.length;
  return Object.keys(v).length;
}

export function codepointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export function contains(a: Json, b: Json): boolean {
  if (typeOf(a) !== typeOf(b) && !(typeof a === 'boolean' && typeof b === 'boolean')) {
    return fail(`${describe(a)} and ${describe(b)} cannot have their containment checked`);
  }
  return containsInner(a, b);
}

function containsInner(a: Json, b: Json, depth = 0): boolean {
  if (depth >= RECURSE) return containsDeep(a, b, depth);
  if (isObject(a) && isObject(b)) {
    for (const k in b) {
      if (!hasOwn(a, k) || !containsInner(a[k]!, b[k]!, depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(a) && Array.isArray(b)) return b.every((y) => a.some((x) => containsInner(x, y, depth + 1)));
  if (typeof a === 'string' && typeof b === 'string') return a.includes(b);
  return equals(a, b);
}

/**
 * containsInner with an explicit stack: a frame is a list of subgoals, an "all" frame false at its first
 * false subgoal, an "any" frame true at its first true one.
 */
function containsDeep(a0: Json, b0: Json, depth0: number): boolean {
  type Frame = { all: boolean; n: number; i: number; sub: (i: number) => Frame | boolean };
  const expand = (a: Json, b: Json, d: number): Frame | boolean => {
    if (d > MAX_DEPTH) fail('Containment check too deep');
    if (isObject(a) && isObject(b)) {
      const ks = Object.keys(b);
      return { all: true, n: ks.length, i: 0, sub: (i) => (hasOwn(a, ks[i]!) ? expand(a[ks[i]!]!, b[ks[i]!]!, d + 1) : false) };
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      return { all: true, n: b.length, i: 0, sub: (j) => ({ all: false, n: a.length, i: 0, sub: (i) => expand(a[i]!, b[j]!, d + 1) }) };
    }
    if (typeof a === 'string' && typeof b === 'string') return a.includes(b);
    return equals(a, b);
  };
  const root = expand(a0, b0, depth0);
  if (typeof root === 'boolean') return root;
  const stack: Frame[] = [root];
  let res: boolean | null = null;
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (res !== null) {
      if (res !== f.all) {
        stack.pop();
        res = !f.all;
        continue;
      }
      res = null;
    }
    if (f.i >= f.n) {
      stack.pop();
      res = f.all;
      continue;
    }
    const s = f.sub(f.i++);
    if (typeof s === 'boolean') res = s;
    else stack.push(s);
  }
  return res!;
}

export function keys(v: Json, sorted: boolean): Json {
  if (isObject(v)) return sorted ? sortedKeys(v) : Object.keys(v);
  if (Array.isArray(v)) return v.map((_x, i) => i);
  return fail(`${describe(v)} has no keys`);
}

export function tostring(v: Json): string {
  return typeof v === 'string' ? v : dump(v);
}
