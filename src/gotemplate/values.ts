/**
 * The Go value model of the engine.
 *
 * Templates see Go values; we represent them with JS values as follows:
 *
 *   Go                          JS
 *   --------------------------  ------------------------------------------------------------
 *   nil (untyped / nil iface)   null or undefined
 *   bool                        boolean
 *   string                      string
 *   float64                     number   (every number read from YAML/JSON values, as in Helm)
 *   int                         bigint   (template integer literals, len, atoi, int, until ...)
 *   int64, int32, uint8, ...    GoInt    (sprig math returns int64; `index "abc" 1` is a uint8)
 *   []interface{}               Array    (tag with goType(arr, '[]string') for typed slices)
 *   map[string]interface{}      plain object (prototype Object.prototype or null)
 *   struct / pointer            any other object (class instance); its own enumerable
 *                               properties are fields and its functions are methods
 *   func (a method)             function property of an object: `.Files.Get "x"` calls
 *                               obj.Get("x") with `this` = obj
 *   time.Time                   GoTime;  *semver.Version: SemverVersion (in funcs/)
 *
 * Objects may define `goTypeName` (a string property or getter, e.g. "*chartutil.Capabilities")
 * used by %T/typeOf and error messages, and `String()` (Go's fmt.Stringer) used when printing.
 */

export type IntType = 'int8' | 'int16' | 'int32' | 'int64' | 'uint' | 'uint8' | 'uint16' | 'uint32' | 'uint64';

/** A Go integer of a type other than `int` (which is a bare bigint). */
/** A value's Go syntax for %#v (fmt's GoStringer, or how fmt prints a struct pointer), by depth. */
export const goSyntaxOf = Symbol('go syntax');

export class GoInt {
  constructor(
    readonly type: IntType,
    readonly v: bigint,
  ) {}
}

/** A Go complex128 (only from template literals such as 2i or 1+2i). */
export class GoComplex {
  constructor(
    readonly re: number,
    readonly im: number,
  ) {}
  get goTypeName(): string {
    return 'complex128';
  }
  get goKind(): string {
    return 'complex128';
  }
  equals(o: unknown): boolean {
    return o instanceof GoComplex && o.re === this.re && o.im === this.im;
  }
}

const TYPE_TAG = Symbol.for('gotemplate.goType');

/** Tags an array or a plain object with its Go type ("[]string", "map[string]string"...). */
export function withGoType<T extends object>(v: T, type: string): T {
  Object.defineProperty(v, TYPE_TAG, { value: type, enumerable: false, configurable: true, writable: true });
  return v;
}
const NIL_TAG = Symbol.for('gotemplate.nilSlice');
/** A nil slice of a Go slice type: prints [] but marshals to JSON/YAML null. */
export function nilSlice<T>(type = '[]interface {}'): T[] {
  const a = withGoType([] as T[], type);
  Object.defineProperty(a, NIL_TAG, { value: true, enumerable: false });
  return a;
}
export const isNilSlice = (v: unknown): boolean => Array.isArray(v) && v.length === 0 && (v as any)[NIL_TAG] === true;

export function taggedType(v: object): string | undefined {
  return (v as any)[TYPE_TAG];
}

export const isNil = (v: unknown): v is null | undefined => v === null || v === undefined;
export const isInt = (v: unknown): v is bigint | GoInt => typeof v === 'bigint' || v instanceof GoInt;
export const intOf = (v: bigint | GoInt): bigint => (typeof v === 'bigint' ? v : v.v);

export function isMap(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

/** A struct-like object: a class instance that is not one of our scalar wrappers. */
export function isStruct(v: unknown): v is object {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !isMap(v) && !(v instanceof GoInt);
}

/** Go's %T / reflect.Type.String(). */
export function typeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'bigint':
      return 'int';
    case 'function':
      return 'func(...interface {}) (interface {}, error)';
  }
  if (v instanceof GoInt) return v.type;
  if (Array.isArray(v)) return taggedType(v) ?? '[]interface {}';
  if (isMap(v)) return taggedType(v) ?? 'map[string]interface {}';
  const o = v as any;
  if (typeof o.goTypeName === 'string') return o.goTypeName;
  if (v instanceof Uint8Array) return '[]uint8';
  return o.constructor?.name ? `*${o.constructor.name}` : 'struct {}';
}

/** reflect.Kind names (what sprig's kindOf prints). */
export function kindName(v: unknown): string {
  if (v === null || v === undefined) return 'invalid';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'bigint':
      return 'int';
    case 'function':
      return 'func';
  }
  if (v instanceof GoInt) return v.type;
  if (Array.isArray(v) || v instanceof Uint8Array) return 'slice';
  if (isMap(v)) return 'map';
  const o = v as any;
  if (typeof o.goKind === 'string') return o.goKind;
  const t = typeName(v);
  return t.startsWith('*') ? 'ptr' : 'struct';
}

/** Wraps an integer result of a Go function typed `int64`. */
export const int64 = (v: bigint): GoInt => new GoInt('int64', BigInt.asIntN(64, v));

/** Go's truth (text/template isTrue). */
export function truth(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'string':
      return v.length > 0;
    case 'number':
      return v !== 0;
    case 'bigint':
      return v !== 0n;
    case 'function':
      return true;
  }
  if (v instanceof GoInt) return v.v !== 0n;
  if (v instanceof GoComplex) return v.re !== 0 || v.im !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) {
    for (const _ in v) return true;
    return false;
  }
  return true; // structs and pointers
}

/** Byte-order string comparison (Go compares strings by bytes; JS by UTF-16 units). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      // surrogates (>= 0xD800 && < 0xE000) sort after 0xE000-0xFFFF in UTF-8
      const sx = x >= 0xd800 && x < 0xe000;
      const sy = y >= 0xd800 && y < 0xe000;
      if (sx !== sy && x >= 0xd800 && y >= 0xd800) return sx ? 1 : -1;
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Sorted keys of a map (Go sorts map keys when ranging or printing). */
export function sortedKeys(m: Record<string, unknown>): string[] {
  const keys = Object.keys(m);
  if (keys.length > 1) keys.sort(compareStrings);
  return keys;
}

/** Number of UTF-8 bytes of a string (Go's len). */
export function byteLength(s: string): number {
  if (ESCAPED.test(s)) return utf8(s).length;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      if (c < 0x800) n += 1;
      else if (c >= 0xd800 && c <= 0xdbff) {
        n += 2;
        i++;
      } else n += 2;
    }
  }
  return n;
}

/*
 * Go strings are bytes; JS strings are UTF-16. Bytes that are not valid UTF-8 (from b64dec,
 * randBytes, decryptAES ...) are kept as lone surrogates U+DC80..U+DCFF ("surrogate escape"), so
 * that len, substr, b64enc and hashes see Go's bytes.
 */
const enc = new TextEncoder();
const decFatal = new TextDecoder('utf-8', { fatal: true });
const ESCAPED = /[\udc80-\udcff]/;

export function utf8(s: string): Uint8Array {
  if (!ESCAPED.test(s)) return enc.encode(s);
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc80 && c <= 0xdcff && !(i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff)) {
      out.push(c - 0xdc00);
      continue;
    }
    const cp = s.codePointAt(i)!;
    if (cp > 0xffff) i++;
    out.push(...enc.encode(String.fromCodePoint(cp)));
  }
  return Uint8Array.from(out);
}

export function fromUtf8(b: Uint8Array): string {
  try {
    return decFatal.decode(b);
  } catch {
    // decode valid sequences, escape invalid bytes
    let out = '';
    let i = 0;
    while (i < b.length) {
      const x = b[i];
      const len = x < 0x80 ? 1 : x >= 0xc2 && x < 0xe0 ? 2 : x >= 0xe0 && x < 0xf0 ? 3 : x >= 0xf0 && x < 0xf5 ? 4 : 0;
      if (len > 0 && i + len <= b.length) {
        try {
          out += decFatal.decode(b.subarray(i, i + len));
          i += len;
          continue;
        } catch {
          /* invalid sequence */
        }
      }
      out += String.fromCharCode(0xdc00 + x);
      i++;
    }
    return out;
  }
}
export const isAscii = (s: string): boolean => !/[^\x00-\x7f]/.test(s);

/** Go's s[a:b] on bytes, decoded back (invalid UTF-8 becomes U+FFFD, as Go would print it). */
export function byteSlice(s: string, a: number, b?: number): string {
  if (isAscii(s)) return s.slice(a, b);
  return fromUtf8(utf8(s).subarray(a, b));
}
