/** Go text/template's built-in functions (and, or, not, len, index, slice, print*, html, js, urlquery, call, comparisons). */
import type { FuncDef } from './exec.js';
import { formatValue, sprint, sprintf, sprintln } from './fmt.js';
import { GoInt, byteLength, isMap, isNil, typeName, truth, utf8, compareStrings, taggedType } from './values.js';

type Kind = 'bool' | 'int' | 'uint' | 'float' | 'string' | 'invalid';

function basicKind(v: unknown): Kind {
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'float';
    case 'string':
      return 'string';
  }
  if (v instanceof GoInt) return v.type.startsWith('u') ? 'uint' : 'int';
  return 'invalid';
}

const intv = (v: unknown): bigint => (typeof v === 'bigint' ? v : (v as GoInt).v);

const errBadComparisonType = 'invalid type for comparison';
const errBadComparison = 'incompatible types for comparison';
const errNoComparison = 'missing argument for comparison';

const kindOfValue = (v: unknown): string => (Array.isArray(v) ? 'slice' : isMap(v) ? 'map' : typeof v);

function nonComparable(v: unknown): boolean {
  return Array.isArray(v) || isMap(v) || typeof v === 'function';
}

export function goEq(a: unknown, rest: unknown[]): boolean {
  if (rest.length === 0) throw new Error(errNoComparison);
  const k1 = basicKind(a);
  for (const b of rest) {
    const k2 = basicKind(b);
    let t = false;
    if (k1 !== k2) {
      if (k1 === 'int' && k2 === 'uint') t = intv(a) >= 0n && intv(a) === intv(b);
      else if (k1 === 'uint' && k2 === 'int') t = intv(b) >= 0n && intv(a) === intv(b);
      else if (!isNil(a) && !isNil(b)) throw new Error(errBadComparison);
    } else {
      switch (k1) {
        case 'bool':
        case 'float':
        case 'string':
          t = a === b;
          break;
        case 'int':
        case 'uint':
          t = intv(a) === intv(b);
          break;
        default:
          if (isNil(a) || isNil(b)) t = isNil(a) === isNil(b);
          else if (kindOfValue(a) !== kindOfValue(b)) {
            throw new Error(`non-comparable types ${formatValue(a, 's')}: ${typeName(a)}, ${typeName(b)}: ${formatValue(b, 'v')}`);
          } else {
            if (nonComparable(b)) throw new Error(`non-comparable type ${formatValue(b, 's')}: ${typeName(b)}`);
            if (nonComparable(a)) throw new Error(`non-comparable type ${formatValue(a, 's')}: ${typeName(a)}`);
            if (typeName(a) !== typeName(b)) t = false;
            else if (a === b) t = true;
            else if (typeName(a).startsWith('*')) t = false; // pointers compare by identity
            else if (typeof (a as any).equals === 'function') t = (a as any).equals(b);
            else t = formatValue(a, 'v') === formatValue(b, 'v');
          }
      }
    }
    if (t) return true;
  }
  return false;
}

export function goLt(a: unknown, b: unknown): boolean {
  const k1 = basicKind(a);
  if (k1 === 'invalid') throw new Error(errBadComparisonType);
  const k2 = basicKind(b);
  if (k2 === 'invalid') throw new Error(errBadComparisonType);
  if (k1 !== k2) {
    if (k1 === 'int' && k2 === 'uint') return intv(a) < 0n || intv(a) < intv(b);
    if (k1 === 'uint' && k2 === 'int') return intv(b) >= 0n && intv(a) < intv(b);
    throw new Error(errBadComparison);
  }
  switch (k1) {
    case 'bool':
      throw new Error(errBadComparisonType);
    case 'float':
      return (a as number) < (b as number);
    case 'int':
    case 'uint':
      return intv(a) < intv(b);
    case 'string':
      return compareStrings(a as string, b as string) < 0;
  }
  return false;
}

function indexArg(index: unknown, cap: number): number {
  let x: bigint;
  if (typeof index === 'bigint' || index instanceof GoInt) x = intv(index);
  else if (isNil(index)) throw new Error('cannot index slice/array with nil');
  else throw new Error(`cannot index slice/array with type ${typeName(index)}`);
  if (x < 0n || x > BigInt(cap)) throw new Error(`index out of range: ${x}`);
  return Number(x);
}

export function goIndex(item: unknown, indexes: unknown[]): unknown {
  if (isNil(item)) throw new Error('index of untyped nil');
  let cur: unknown = item;
  for (const index of indexes) {
    if (isNil(cur)) throw new Error('index of nil pointer');
    if (Array.isArray(cur)) {
      const x = indexArg(index, cur.length);
      if (x === cur.length) throw new Error('reflect: slice index out of range');
      cur = cur[x];
    } else if (typeof cur === 'string') {
      const b = utf8(cur);
      const x = indexArg(index, b.length);
      if (x === b.length) throw new Error('reflect: string index out of range');
      cur = new GoInt('uint8', BigInt(b[x]));
    } else if (isMap(cur)) {
      if (isNil(index)) throw new Error('value is nil; should be of type string');
      if (typeof index !== 'string') throw new Error(`value has type ${typeName(index)}; should be string`);
      if (Object.prototype.hasOwnProperty.call(cur, index)) cur = (cur as any)[index];
      else cur = taggedType(cur) === 'map[string]string' ? '' : null;
    } else {
      throw new Error(`can't index item of type ${typeName(cur)}`);
    }
  }
  return cur;
}

function goLen(item: unknown): bigint {
  if (isNil(item)) throw new Error('len of nil pointer');
  if (typeof item === 'string') return BigInt(byteLength(item));
  if (Array.isArray(item)) return BigInt(item.length);
  if (isMap(item)) return BigInt(Object.keys(item).length);
  if (item instanceof Uint8Array) return BigInt(item.length);
  throw new Error(`len of type ${typeName(item).replace(/^\*/, '')}`);
}

/** Go's fmt-based escapers take ...any and print them like Sprint (one string is used as is). */
function evalArgs(args: unknown[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args.map((a) => (isNil(a) ? '<no value>' : a)));
}

export function htmlEscape(s: string): string {
  return s.replace(/[<>&'"\0]/g, (c) =>
    c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : c === "'" ? '&#39;' : c === '"' ? '&#34;' : '\uFFFD',
  );
}

export function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '\\':
        out += '\\\\';
        continue;
      case "'":
        out += "\\'";
        continue;
      case '"':
        out += '\\"';
        continue;
      case '<':
        out += '\\u003C';
        continue;
      case '>':
        out += '\\u003E';
        continue;
      case '&':
        out += '\\u0026';
        continue;
      case '=':
        out += '\\u003D';
        continue;
    }
    if (c < 0x20) {
      out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
      continue;
    }
    if (c < 0x80 || /[\p{L}\p{M}\p{N}\p{P}\p{S}\u0020]/u.test(ch)) {
      out += ch;
      continue;
    }
    out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

export function queryEscape(s: string): string {
  let out = '';
  for (const b of utf8(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

const V = 'reflect.Value';
const ANY = 'interface {}';

export const builtins: Record<string, FuncDef> = {
  and: { params: [V], variadic: V, builtin: true, fn: () => null },
  or: { params: [V], variadic: V, builtin: true, fn: () => null },
  not: { params: [V], builtin: true, fn: ([a]) => !truth(a) },
  len: { params: [V], builtin: true, fn: ([a]) => goLen(a) },
  index: { params: [V], variadic: V, builtin: true, fn: ([a, ...ix]) => goIndex(a, ix) },
  print: { params: [], variadic: ANY, builtin: true, fn: (a) => sprint(a) },
  println: { params: [], variadic: ANY, builtin: true, fn: (a) => sprintln(a) },
  printf: { params: ['string'], variadic: ANY, builtin: true, fn: ([f, ...a]) => sprintf(f, a) },
  html: { params: [], variadic: ANY, builtin: true, fn: (a) => htmlEscape(evalArgs(a)) },
  js: { params: [], variadic: ANY, builtin: true, fn: (a) => jsEscape(evalArgs(a)) },
  urlquery: { params: [], variadic: ANY, builtin: true, fn: (a) => queryEscape(evalArgs(a)) },
  call: {
    params: [V],
    variadic: V,
    builtin: true,
    fn: ([f, ...a]) => {
      const [name, ...rest] = a as [string, ...unknown[]];
      if (isNil(f)) throw new Error(`call of nil`);
      if (typeof f !== 'function') throw new Error(`non-function ${name} of type ${typeName(f)}`);
      return f(...rest);
    },
  },
  eq: { params: [V], variadic: V, builtin: true, fn: ([a, ...b]) => goEq(a, b) },
  ne: { params: [V, V], builtin: true, fn: ([a, b]) => !goEq(a, [b]) },
  lt: { params: [V, V], builtin: true, fn: ([a, b]) => goLt(a, b) },
  le: { params: [V, V], builtin: true, fn: ([a, b]) => goLt(a, b) || goEq(a, [b]) },
  gt: { params: [V, V], builtin: true, fn: ([a, b]) => !(goLt(a, b) || goEq(a, [b])) },
  ge: { params: [V, V], builtin: true, fn: ([a, b]) => !goLt(a, b) },
};
