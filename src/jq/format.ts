/** jq 1.8.2's `@format` string filters: @text @json @html @uri @urid @csv @tsv @sh @base64 @base64d (1.8.2 has no @base32). */
import * as V from './value.js';
import type { Json } from './value.js';

const HTML: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' };

function csvCell(v: Json, kind: 'csv' | 'tsv'): string {
  switch (typeof v) {
    case 'number':
      return V.formatNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'string':
      if (kind === 'csv') return '"' + v.replace(/"/g, '""') + '"';
      return v.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
  }
  if (v === null) return '';
  return V.fail(`${V.describe(v)} is not valid in a csv row`);
}

function shQuote(v: Json): string {
  if (typeof v === 'string') return "'" + v.replace(/'/g, "'\\''") + "'";
  if (v === null || typeof v !== 'object') return V.dump(v);
  return V.fail(`${V.describe(v)} can not be escaped for shell`);
}

function base64d(s: string): string {
  const clean = s.replace(/=+$/, '');
  if (/[^A-Za-z0-9+/]/.test(clean)) V.fail(`${V.describe(s)} is not valid base64 data`);
  if (clean.length % 4 === 1) V.fail(`${V.describe(s)} trailing base64 byte found`);
  return Buffer.from(clean, 'base64').toString();
}

export function format(name: Json, v: Json): Json {
  if (typeof name !== 'string') return V.fail(`${V.describe(name)} is not a valid format`);
  switch (name) {
    case 'text':
      return V.tostring(v);
    case 'json':
      return V.dump(v);
    case 'html':
      return V.tostring(v).replace(/[<>&'"]/g, (c) => HTML[c]!);
    case 'uri':
      return Array.from(Buffer.from(V.tostring(v)))
        .map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : '%' + b.toString(16).toUpperCase().padStart(2, '0')))
        .join('');
    case 'urid': {
      const s = V.tostring(v);
      const bytes: number[] = [];
      for (let i = 0; i < s.length; i++) {
        if (s[i] === '%' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
          bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
          i += 2;
        } else if (s[i] === '%') V.fail(`${V.describe(s)} is not a valid uri encoding`);
        else bytes.push(...Buffer.from(s[i]!));
      }
      const out = Buffer.from(bytes).toString();
      if (out.includes('\ufffd') && !s.includes('\ufffd')) V.fail(`${V.describe(s)} is not a valid uri encoding`);
      return out;
    }
    case 'csv':
    case 'tsv':
      if (!Array.isArray(v)) V.fail(`${V.describe(v)} cannot be ${name}-formatted, only array`);
      return v.map((c) => csvCell(c, name)).join(name === 'csv' ? ',' : '\t');
    case 'sh':
      if (Array.isArray(v)) return v.map(shQuote).join(' ');
      return shQuote(v);
    case 'base64':
      return Buffer.from(V.tostring(v)).toString('base64');
    case 'base64d':
      return base64d(V.tostring(v));
    default:
      return V.fail(`${name} is not a valid format`);
  }
}
