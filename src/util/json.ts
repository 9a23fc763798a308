/** Helpers for plain JSON data: the values, config and patches all are. */
import { createHash } from 'node:crypto';
import { UserError } from './errors.js';

export type JsonObject = { [key: string]: JsonValue };
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

export function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Turns what a YAML parser produced into plain JSON data (as Go's YAML→JSON conversion does): Maps
 * become objects with string keys, undefined is dropped; non-finite numbers and other objects are errors.
 */
export function toJsonData(v: unknown, source: string, path = ''): JsonValue {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) throw new UserError(`${source}: value at ${path || '/'} is ${v}, which JSON cannot hold`);
      return v;
    case 'bigint':
      return Number(v);
    case 'object':
      break;
    default:
      throw new UserError(`${source}: unsupported value of type ${typeof v} at ${path || '/'}`);
  }
  if (Array.isArray(v)) return v.map((item, i) => toJsonData(item, source, `${path}/${i}`));
  if (v instanceof Map) {
    const out: JsonObject = {};
    for (const [k, item] of v) out[String(k)] = toJsonData(item, source, `${path}/${String(k)}`);
    return out;
  }
  if (v instanceof Set) {
    const out: JsonObject = {};
    for (const k of v) out[String(k)] = null;
    return out;
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof Date) return v.toISOString();
  const out: JsonObject = {};
  for (const [k, item] of Object.entries(v)) {
    if (item === undefined) continue;
    out[k] = toJsonData(item, source, `${path}/${k}`);
  }
  return out;
}

/** A deep copy of JSON data. Faster than structuredClone for JSON-shaped values. */
export function cloneJson<T extends JsonValue>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => cloneJson(x)) as T;
  const out: JsonObject = {};
  for (const k in v) out[k] = cloneJson((v as JsonObject)[k] as JsonValue);
  return out as T;
}

export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !jsonEqual(a[k], b[k])) return false;
  }
  return true;
}

const GO_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

const ABOVE_SURROGATES = /[\uD800-\uFFFF]/;

/**
 * Go sorts map keys by their UTF-8 bytes. UTF-16 code-unit order (JS's default sort) is the same unless a key
 * has characters from U+D800 up, so the byte comparison is used only then.
 */
export function sortKeysGo(keys: string[]): string[] {
  if (!keys.some((k) => ABOVE_SURROGATES.test(k))) return keys.sort();
  return keys.sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
}

/** JSON as Go's encoding/json writes a map[string]interface{}: sorted keys, HTML characters escaped. */
export function goJsonStringify(value: unknown): string {
  // Integer-like keys ("1", "2") would be reordered by JS objects; build the string by hand for objects.
  return stringifySorted(value).replace(/[<>&\u2028\u2029]/g, (ch) => GO_ESCAPES[ch]!);
}

function stringifySorted(value: unknown): string {
  const out: string[] = [];
  writeSorted(value, out);
  return out.join('');
}

/** The mark of data that goJsonStringify writes in its own key order (inOwnOrder). */
const OWN_ORDER = Symbol('written in its own key order');

/**
 * Marks an object that goJsonStringify writes with its keys in their own order, all the way down: what
 * Go writes from a struct (its fields in declaration order) carrying runtime.RawExtension objects (the
 * JSON it was given, as it was given), such as an AdmissionReview in a binding context.
 */
export function inOwnOrder<T extends object>(value: T): T {
  Object.defineProperty(value, OWN_ORDER, { value: true });
  return value;
}

function writeSorted(value: unknown, out: string[]): void {
  if (value === null || typeof value !== 'object') {
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (OWN_ORDER in value) {
    out.push(JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      const v: unknown = value[i];
      if (v === undefined || typeof v === 'function') out.push('null');
      else writeSorted(v, out);
    }
    out.push(']');
    return;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    writeSorted((value as { toJSON(): unknown }).toJSON(), out);
    return;
  }
  const src = value as Record<string, unknown>;
  out.push('{');
  let first = true;
  for (const key of sortKeysGo(Object.keys(src))) {
    const v = src[key];
    if (v === undefined || typeof v === 'function') continue;
    out.push(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
    first = false;
    writeSorted(v, out);
  }
  out.push('}');
}


/** md5 hex of Go's JSON encoding: independent of key order, equal to the Go checksum of the same data. */
export function checksumJson(v: JsonValue): string {
  return createHash('md5').update(goJsonStringify(v)).digest('hex');
}

/**
 * Finds the first syntax error of a JSON text: its offset and what was expected. Used only to report
 * a failed JSON.parse, whose messages on Node 20 carry no position.
 */
export function jsonSyntaxError(text: string): { offset: number; message: string } | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw { offset: i, message };
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const found = () => (i >= text.length ? 'end of input' : JSON.stringify(text[i]));
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`unexpected ${found()}`);
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('bad \\u escape');
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? '')) fail('bad escape');
      } else if (text.charCodeAt(i) < 0x20) fail('control character in a string');
      i++;
    }
    if (i >= text.length) fail('unterminated string');
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`expected a string key, found ${found()}`);
        string();
        ws();
        if (text[i] !== ':') fail(`expected ":", found ${found()}`);
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail(`expected "," or "}", found ${found()}`);
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail(`expected "," or "]", found ${found()}`);
      }
    } else if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
      if (!m || m[0] === '' || m[0] === '-') fail(`unexpected ${found()}`);
      i += m![0].length;
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail(`unexpected ${found()} after the value`);
    return undefined;
  } catch (e) {
    if (typeof e === 'object' && e !== null && 'offset' in e) return e as { offset: number; message: string };
    throw e;
  }
}

export function positionOf(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const col = offset - before.lastIndexOf('\n');
  return `line ${line} column ${col}`;
}

/**
 * Splits a stream of concatenated JSON objects and arrays (the format of hook output files) and
 * parses each; errors name `source` and the line and column. `ErrorClass` lets callers keep their type.
 * With `scalars`, strings, numbers, booleans and null may stand in the stream too (jq's input).
 */
export function splitJsonStream(
  text: string,
  source: string,
  ErrorClass: new (message: string) => Error = UserError,
  opts: { scalars?: boolean } = {},
): { value: unknown; offset: number }[] {
  const out: { value: unknown; offset: number }[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && /\s/.test(text[i]!)) i++;
    if (i >= n) break;
    const start = i;
    const first = text[i]!;
    if (first === '{' || first === '[') {
      let depth = 0;
      let inString = false;
      for (; i < n; i++) {
        const c = text[i]!;
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '{' || c === '[') depth++;
        else if (c === '}' || c === ']') {
          depth--;
          if (depth === 0) {
            i++;
            break;
          }
        }
      }
      if (depth !== 0) {
        const err = jsonSyntaxError(text.slice(start));
        const at = start + (err?.offset ?? text.length - start);
        throw new ErrorClass(`${source}: invalid JSON at ${positionOf(text, at)}: ${err?.message ?? 'unexpected end of input'}`);
      }
    } else if (!opts.scalars) {
      throw new ErrorClass(`${source}: invalid JSON at ${positionOf(text, start)}: expected an array or an object, found ${JSON.stringify(text.slice(start, start + 12))}`);
    } else if (first === '"') {
      for (i++; i < n && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      i++;
    } else {
      while (i < n && !/[\s{["]/.test(text[i]!)) i++;
    }
    const chunk = text.slice(start, i);
    try {
      out.push({ value: JSON.parse(chunk), offset: start });
    } catch (e) {
      const err = jsonSyntaxError(chunk);
      const at = start + (err?.offset ?? 0);
      throw new ErrorClass(`${source}: invalid JSON at ${positionOf(text, at)}: ${err?.message ?? (e as Error).message}`);
    }
  }
  return out;
}

