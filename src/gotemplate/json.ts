/** Go's encoding/json Marshal (HTML-escaping, sorted map keys, Go float formatting). */
import { formatFloat } from './floatfmt.js';
import { GoInt, isMap, isNil, isNilSlice, sortedKeys } from './values.js';

/** How encoding/json writes a float64. */
export function jsonFloat(f: number): string {
  if (!Number.isFinite(f)) throw new Error(`json: unsupported value: ${formatFloat(f, 'g', -1)}`);
  const abs = Math.abs(f);
  let fmt = 'f';
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) fmt = 'e';
  let s = formatFloat(f, fmt, -1);
  if (fmt === 'e') {
    // clean up e-09 to e-9
    const n = s.length;
    if (n >= 4 && s[n - 4] === 'e' && s[n - 3] === '-' && s[n - 2] === '0') s = s.slice(0, n - 2) + s.slice(n - 1);
  }
  return s;
}

export function jsonString(s: string, escapeHTML: boolean): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | null = null;
    if (c < 0x20) {
      esc = c === 10 ? '\\n' : c === 13 ? '\\r' : c === 9 ? '\\t' : '\\u00' + c.toString(16).padStart(2, '0');
    } else if (c === 34) esc = '\\"';
    else if (c === 92) esc = '\\\\';
    else if (escapeHTML && (c === 60 || c === 62 || c === 38)) esc = '\\u00' + c.toString(16);
    else if (c === 0x2028 || c === 0x2029) esc = '\\u' + c.toString(16);
    else if (c >= 0xd800 && c <= 0xdfff) {
      // lone surrogate -> U+FFFD (Go replaces invalid UTF-8)
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      esc = '\\ufffd';
    }
    if (esc !== null) {
      out += s.slice(start, i) + esc;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}

export interface JsonOpts {
  escapeHTML: boolean;
  indent?: string;
}

/** Marshals a template value; throws Go-like errors for unsupported values. */
export function marshalJSON(v: unknown, opts: JsonOpts, depth = 0): string {
  if (depth > 1000) throw new Error('json: unsupported value: encountered a cycle');
  if (isNil(v)) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'string':
      return jsonString(v, opts.escapeHTML);
    case 'number':
      return jsonFloat(v);
    case 'bigint':
      return v.toString();
    case 'function':
      throw new Error('json: unsupported type: func()');
  }
  if (v instanceof GoInt) return v.v.toString();
  const ind = opts.indent;
  if (Array.isArray(v)) {
    if (v.length === 0) return isNilSlice(v) ? 'null' : '[]';
    if (ind !== undefined) {
      const pad = '\n' + ind.repeat(depth + 1);
      return '[' + v.map((x) => pad + marshalJSON(x, opts, depth + 1)).join(',') + '\n' + ind.repeat(depth) + ']';
    }
    return '[' + v.map((x) => marshalJSON(x, opts, depth + 1)).join(',') + ']';
  }
  if (v instanceof Uint8Array) return jsonString(Buffer.from(v).toString('base64'), false);
  const o = v as any;
  if (typeof o.MarshalJSON === 'function') return String(o.MarshalJSON());
  if (isMap(v) || typeof v === 'object') {
    const keys = isMap(v) ? sortedKeys(v) : Object.keys(v).filter((k) => typeof o[k] !== 'function');
    if (keys.length === 0) return '{}';
    const parts = keys.map((k) => {
      const val = marshalJSON(o[k], opts, depth + 1);
      return jsonString(k, opts.escapeHTML) + (ind !== undefined ? ': ' : ':') + val;
    });
    if (ind !== undefined) {
      const pad = '\n' + ind.repeat(depth + 1);
      return '{' + parts.map((p) => pad + p).join(',') + '\n' + ind.repeat(depth) + '}';
    }
    return '{' + parts.join(',') + '}';
  }
  return 'null';
}

/** A JSON value decoded like encoding/json into interface{}; `typeError` is a non-fatal Unmarshal error. */
export interface Decoded {
  value: unknown;
  typeError?: string;
}

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** encoding/json Unmarshal into interface{}: numbers become float64. Throws Go's syntax errors. */
export function decodeJSON(s: string): Decoded {
  const syntax = checkJSONSyntax(s);
  if (syntax) throw new Error(syntax);
  let typeError: string | undefined;
  const value = JSON.parse(s, function (this: any, _k: string, val: unknown) {
    if (typeof val === 'string') return val.replace(loneSurrogate, '\ufffd');
    if (typeof val === 'number' && !Number.isFinite(val)) {
      if (typeError === undefined) {
        const lit = (s.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []).find((x) => !Number.isFinite(Number(x))) ?? 'value';
        typeError = `json: cannot unmarshal number ${lit} into Go value of type float64`;
      }
      return null;
    }
    return val;
  } as any);
  return { value, typeError };
}

export function unmarshalJSON(s: string): unknown {
  const d = decodeJSON(s);
  if (d.typeError) throw new Error(d.typeError);
  return d.value;
}

function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const q = JSON.stringify(c);
  return `'${q.slice(1, -1)}'`;
}

/** Go's JSON scanner error for the first syntax error, or null. */
export function checkJSONSyntax(s: string): string | null {
  let i = 0;
  const n = s.length;
  const ws = (): void => {
    while (i < n && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++;
  };
  class E extends Error {}
  const fail = (msg: string): never => {
    throw new E(msg);
  };
  const eof = (): never => fail('unexpected end of JSON input');
  const value = (): void => {
    ws();
    if (i >= n) eof();
    const c = s[i];
    if (c === '{') {
      i++;
      ws();
      if (i >= n) eof();
      if (s[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (i >= n) eof();
        if (s[i] !== '"') fail(`invalid character ${quoteChar(s[i])} looking for beginning of object key string`);
        str();
        ws();
        if (i >= n) eof();
        if (s[i] !== ':') fail(`invalid character ${quoteChar(s[i])} after object key`);
        i++;
        value();
        ws();
        if (i >= n) eof();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === '}') {
          i++;
          return;
        }
        fail(`invalid character ${quoteChar(s[i])} after object key:value pair`);
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (i >= n) eof();
      if (s[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (i >= n) eof();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ']') {
          i++;
          return;
        }
        fail(`invalid character ${quoteChar(s[i])} after array element`);
      }
    }
    if (c === '"') return str();
    if (c === '-' || (c >= '0' && c <= '9')) return num();
    for (const w of ['true', 'false', 'null']) {
      if (c === w[0]) {
        for (let k = 1; k < w.length; k++) {
          // at the end Go's scanner steps a space: the literal is then invalid
          if (i + k >= n) fail(`invalid character ' ' in literal ${w} (expecting ${quoteChar(w[k])})`);
          if (s[i + k] !== w[k]) {
            i += k;
            fail(`invalid character ${quoteChar(s[i])} in literal ${w} (expecting ${quoteChar(w[k])})`);
          }
        }
        i += w.length;
        return;
      }
    }
    fail(`invalid character ${quoteChar(c)} looking for beginning of value`);
  };
  const str = (): void => {
    i++;
    for (;;) {
      if (i >= n) eof();
      const c = s[i];
      if (c === '"') {
        i++;
        return;
      }
      if (c < ' ') fail(`invalid character ${quoteChar(c)} in string literal`);
      if (c === '\\') {
        i++;
        if (i >= n) eof();
        const e = s[i];
        if ('"\\/bfnrt'.includes(e)) {
          i++;
          continue;
        }
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) {
            if (i + k >= n) eof();
            if (!/[0-9a-fA-F]/.test(s[i + k])) {
              i += k;
              fail(`invalid character ${quoteChar(s[i])} in \\u hexadecimal character escape`);
            }
          }
          i += 5;
          continue;
        }
        fail(`invalid character ${quoteChar(e)} in string escape code`);
      }
      i++;
    }
  };
  const digits = (): number => {
    const st = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    return i - st;
  };
  const num = (): void => {
    if (s[i] === '-') {
      i++;
      if (i >= n) fail(`invalid character ' ' in numeric literal`);
      if (!(s[i] >= '0' && s[i] <= '9')) fail(`invalid character ${quoteChar(s[i])} in numeric literal`);
    }
    if (s[i] === '0') i++;
    else digits();
    if (i < n && s[i] === '.') {
      i++;
      if (i >= n) fail(`invalid character ' ' after decimal point in numeric literal`);
      if (digits() === 0) fail(`invalid character ${quoteChar(s[i])} after decimal point in numeric literal`);
    }
    if (i < n && (s[i] === 'e' || s[i] === 'E')) {
      i++;
      if (i < n && (s[i] === '+' || s[i] === '-')) i++;
      if (i >= n) fail(`invalid character ' ' in exponent of numeric literal`);
      if (digits() === 0) fail(`invalid character ${quoteChar(s[i])} in exponent of numeric literal`);
    }
  };
  try {
    value();
    ws();
    if (i < n) fail(`invalid character ${quoteChar(s[i])} after top-level value`);
    return null;
  } catch (e) {
    if (e instanceof E) return e.message;
    throw e;
  }
}
