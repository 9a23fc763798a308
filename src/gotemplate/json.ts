/** Go's encoding/json Marshal (HTML-escaping, sorted map keys, Go float formatting). */
import { formatFloat } from './floatfmt.js';
import { GoInt, isMap, isNil, sortedKeys } from './values.js';

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
    if (v.length === 0) return '[]';
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

/** encoding/json Unmarshal into interface{}: numbers become float64. Throws Go-like messages. */
export function unmarshalJSON(s: string): unknown {
  try {
    return JSON.parse(s, (_k, val) => val);
  } catch (e) {
    throw new Error(goJsonSyntaxError(s, e as Error));
  }
}

function goJsonSyntaxError(s: string, _e: Error): string {
  // Reproduce the common encoding/json messages by scanning like Go's scanner (approximation).
  const t = s.trim();
  if (t === '') return 'unexpected end of JSON input';
  let i = 0;
  while (i < s.length && /\s/.test(s[i])) i++;
  const c = s[i];
  const lit = (word: string): string | null => {
    for (let k = 0; k < word.length; k++) {
      const ch = s[i + k];
      if (ch === undefined) return 'unexpected end of JSON input';
      if (ch !== word[k]) return `invalid character '${ch}' in literal ${word} (expecting '${word[k]}')`;
    }
    return null;
  };
  if (c === 'n') return lit('null') ?? `invalid character after top-level value`;
  if (c === 't') return lit('true') ?? `invalid character after top-level value`;
  if (c === 'f') return lit('false') ?? `invalid character after top-level value`;
  if (c !== '{' && c !== '[' && c !== '"' && c !== '-' && !(c >= '0' && c <= '9')) {
    return `invalid character '${c}' looking for beginning of value`;
  }
  return 'unexpected end of JSON input';
}
