/** toToml: BurntSushi/toml's encoder (v1.2) for template values. */
import { formatFloat } from './floatfmt.js';
import { GoInt, isMap, isNil, sortedKeys } from './values.js';

const isTable = (v: unknown): boolean => isMap(v) || isArrayOfTables(v);
const isArrayOfTables = (v: unknown): boolean => Array.isArray(v) && v.length > 0 && v.every((x) => isMap(x));

function quoteKey(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : quoteString(k);
}

function quoteString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\r':
        out += '\\r';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

function element(v: unknown): string {
  if (typeof v === 'string') return quoteString(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof GoInt) return v.v.toString();
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'nan';
    if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
    const s = formatFloat(v, 'f', -1);
    return s.includes('.') ? s : s + '.0';
  }
  if (Array.isArray(v)) {
    if (v.some((x) => isNil(x))) throw new Error('toml: cannot encode array with nil element');
    return '[' + v.map(element).join(', ') + ']';
  }
  if (v !== null && typeof v === 'object' && typeof (v as any).MarshalJSON === 'function' && (v as any).goTypeName === 'time.Time') {
    return (v as any).Format('2006-01-02T15:04:05.999999999Z07:00');
  }
  if (isMap(v)) {
    const keys = sortedKeys(v).filter((k) => !isNil(v[k]));
    return '{' + keys.map((k) => `${quoteKey(k)} = ${element(v[k])}`).join(', ') + '}';
  }
  throw new Error(`toml: cannot encode a value of type ${typeof v}`);
}

export function toToml(v: unknown): string {
  if (Array.isArray(v) && v.some((x) => isNil(x))) throw new Error('toml: cannot encode array with nil element');
  if (!isMap(v)) throw new Error('toml: top-level values must be Go maps or structs');
  let out = '';
  const newline = (): void => {
    if (out.length > 0) out += '\n';
  };
  const indentStr = (key: string[]): string => '  '.repeat(Math.max(key.length - 1, 0));
  const keyStr = (key: string[]): string => key.map(quoteKey).join('.');
  const encodeMap = (key: string[], m: Record<string, unknown>): void => {
    const direct: string[] = [];
    const sub: string[] = [];
    for (const k of Object.keys(m)) (isTable(m[k]) ? sub : direct).push(k);
    for (const group of [direct, sub]) {
      group.sort();
      for (const k of group) {
        const val = m[k];
        if (isNil(val)) continue;
        encode([...key, k], val);
      }
    }
  };
  const encode = (key: string[], val: unknown): void => {
    if (isMap(val)) {
      if (key.length === 1) newline();
      if (key.length > 0) {
        out += `${indentStr(key)}[${keyStr(key)}]`;
        newline();
      }
      encodeMap(key, val);
      return;
    }
    if (isArrayOfTables(val)) {
      for (const t of val as Record<string, unknown>[]) {
        newline();
        out += `${indentStr(key)}[[${keyStr(key)}]]`;
        newline();
        encodeMap(key, t);
      }
      return;
    }
    out += `${indentStr(key)}${quoteKey(key[key.length - 1])} = ${element(val)}`;
    newline();
  };
  encodeMap([], v);
  return out;
}
