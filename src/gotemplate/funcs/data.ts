/** Sprig math, lists, dicts, defaults, type conversion and reflection functions. */
import { randomInt, randomUUID } from 'node:crypto';
import type { FuncDef } from '../exec.js';
import { GoInt, int64, isMap, isNil, kindName, nilSlice, taggedType, typeName, withGoType } from '../values.js';
import { marshalJSON, unmarshalJSON } from '../json.js';
import { deepCopy, deepEqual, empty, kindOfForMsg, nilDeref, strval, toFloat64, toInt64 } from './conv.js';
import { formatFloat } from '../floatfmt.js';

const ANY = 'interface {}';
const MAP = 'map[string]interface {}';
const S = 'string';
const I = 'int';

const d = (params: string[], fn: FuncDef['fn'], variadic?: string): FuncDef => (variadic ? { params, variadic, fn } : { params, fn });
const n = (v: bigint): number => Number(v);

// ---------------------------------------------------------------------------------------------
// decimal arithmetic (shopspring/decimal as sprig's addf/subf/mulf/divf use it)

interface Dec {
  m: bigint; // value = m * 10^e
  e: number;
}
function decFromFloat(f: number): Dec {
  if (!Number.isFinite(f)) throw new Error(`Cannot create a Decimal from ${formatFloat(f, 'g', -1)}`);
  if (f === 0) return { m: 0n, e: 0 };
  const s = f.toExponential(); // shortest
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s)!;
  const digits = m[2] + (m[3] ?? '');
  const exp = Number(m[4]) - (digits.length - 1);
  return { m: BigInt(m[1] + digits), e: exp };
}
function align(a: Dec, b: Dec): [bigint, bigint, number] {
  const e = Math.min(a.e, b.e);
  return [a.m * 10n ** BigInt(a.e - e), b.m * 10n ** BigInt(b.e - e), e];
}
const decAdd = (a: Dec, b: Dec): Dec => {
  const [x, y, e] = align(a, b);
  return { m: x + y, e };
};
const decSub = (a: Dec, b: Dec): Dec => {
  const [x, y, e] = align(a, b);
  return { m: x - y, e };
};
const decMul = (a: Dec, b: Dec): Dec => ({ m: a.m * b.m, e: a.e + b.e });
function decDiv(a: Dec, b: Dec): Dec {
  if (b.m === 0n) throw new Error('decimal division by 0');
  // DivRound(b, 16): quotient rounded half away from zero to 16 fractional digits
  const prec = 16;
  // a/b = (a.m/b.m) * 10^(a.e-b.e); want q * 10^-prec
  const shift = a.e - b.e + prec;
  let num = a.m;
  let den = b.m;
  if (shift >= 0) num *= 10n ** BigInt(shift);
  else den *= 10n ** BigInt(-shift);
  const neg = num < 0n !== den < 0n;
  if (num < 0n) num = -num;
  if (den < 0n) den = -den;
  let q = num / den;
  const r = num % den;
  if (r * 2n >= den) q += 1n;
  return { m: neg ? -q : q, e: -prec };
}
const decToFloat = (a: Dec): number => Number(`${a.m}e${a.e}`);

function execDecimalOp(first: unknown, rest: unknown[], op: (a: Dec, b: Dec) => Dec): number {
  let acc = decFromFloat(toFloat64(first));
  for (const x of rest) acc = op(acc, decFromFloat(toFloat64(x)));
  return decToFloat(acc);
}

// ---------------------------------------------------------------------------------------------

function untilStep(start: bigint, stop: bigint, step: bigint): bigint[] {
  const v: bigint[] = [];
  if (stop < start) {
    if (step >= 0n) return v;
    for (let i = start; i > stop; i += step) {
      v.push(i);
      if (v.length > 10_000_000) throw new Error('untilStep: too many elements');
    }
    return v;
  }
  if (step <= 0n) return v;
  for (let i = start; i < stop; i += step) {
    v.push(i);
    if (v.length > 10_000_000) throw new Error('untilStep: too many elements');
  }
  return v;
}
const intList = (v: bigint[]): bigint[] => withGoType(v, '[]int');

function seq(params: bigint[]): string {
  let inc = 1n;
  let r: bigint[];
  switch (params.length) {
    case 0:
      return '';
    case 1: {
      const start = 1n;
      const end = params[0];
      if (end < start) inc = -1n;
      r = untilStep(start, end + inc, inc);
      break;
    }
    case 2: {
      const [start, end] = params;
      let step = 1n;
      if (end < start) step = -1n;
      r = untilStep(start, end + step, step);
      break;
    }
    case 3: {
      const [start, step, end] = params;
      if (end < start) {
        inc = -1n;
        if (step > 0n) return '';
      }
      r = untilStep(start, end + inc, step);
      break;
    }
    default:
      return '';
  }
  return r.join(' ');
}

function goRound(a: unknown, p: bigint, rOpt: number[]): number {
  const roundOn = rOpt.length > 0 ? rOpt[0] : 0.5;
  const val = toFloat64(a);
  const pow = Math.pow(10, Number(p));
  const digit = pow * val;
  const frac = digit - Math.trunc(digit);
  const r = frac >= roundOn ? Math.ceil(digit) : Math.floor(digit);
  return r / pow;
}

// ---------------------------------------------------------------------------------------------
// lists

function listOrErr(v: unknown, what: string): unknown[] {
  if (isNil(v)) throw new Error(nilDeref);
  if (Array.isArray(v)) return v;
  throw new Error(`Cannot ${what} on type ${kindOfForMsg(v)}`);
}
/** A wrapper that panics (non-must) with the must-version's error: same message in templates. */
const both = (name: string, params: string[], fn: FuncDef['fn'], variadic?: string): Record<string, FuncDef> => ({
  [name]: d(params, fn, variadic),
  ['must' + name[0].toUpperCase() + name.slice(1)]: d(params, fn, variadic),
});

function inList(list: unknown[], v: unknown): boolean {
  return list.some((x) => deepEqual(x, v));
}

function sliceList(list: unknown, indices: unknown[]): unknown {
  if (isNil(list)) throw new Error(nilDeref);
  if (!Array.isArray(list)) throw new Error(`list should be type of slice or array but ${kindOfForMsg(list)}`);
  const l = list.length;
  if (l === 0) return null;
  const start = indices.length > 0 ? Number(toInt64(indices[0])) : 0;
  const end = indices.length < 2 ? l : Number(toInt64(indices[1]));
  if (start < 0 || end > l || start > end) throw new Error('reflect.Value.Slice: slice index out of bounds');
  const r = list.slice(start, end);
  const t = taggedType(list);
  return t ? withGoType(r, t) : r;
}

// ---------------------------------------------------------------------------------------------
// dicts

/**
 * mergo.Merge (overwrite=false) / WithOverride for map[string]interface{}, as mergo 1.0.1 (Sprig
 * 3.3.0, so Helm 3.17+) does it. For each key of src: nil overwrites only with overwrite; a map merges
 * into a map; a list replaces (overwrite or empty dst); a non-empty dst value is kept when src has a
 * list, or a map and dst is a map too; otherwise src's value goes in with overwrite or when dst's is
 * missing or empty. (mergo 0.3.12 also kept a non-empty dst value that is not a map against a map.)
 */
function mergeInto(dst: Record<string, unknown>, src: Record<string, unknown>, overwrite: boolean, depth = 0): void {
  if (depth > 100) return;
  const srcEmpty = empty(src);
  for (const key of Object.keys(src)) {
    const sv = src[key];
    const has = Object.prototype.hasOwnProperty.call(dst, key);
    const dv = has ? dst[key] : undefined;
    if (isNil(sv)) {
      if (overwrite) dst[key] = null;
      continue;
    }
    if (isMap(sv)) {
      if (has && isMap(dv)) mergeInto(dv, sv, overwrite, depth + 1);
    } else if (Array.isArray(sv)) {
      let dstSlice: unknown = has && !isNil(dv) ? dv : [];
      if (!srcEmpty && (overwrite || empty(dst))) dstSlice = sv;
      dst[key] = dstSlice;
    }
    if (has && !empty(dv) && (Array.isArray(sv) || (isMap(sv) && isMap(dv)))) continue;
    if (overwrite || !has || empty(dv)) dst[key] = sv;
  }
}

function merge(dst: Record<string, unknown> | null, srcs: unknown[], overwrite: boolean, must: boolean): unknown {
  const target = dst ?? {};
  for (const src of srcs) {
    if (isNil(src)) continue; // mergo leaves dst as it is
    if (!isMap(src)) {
      const msg = isNil(src) ? 'src and dst must not be nil' : 'src and dst must be of same type';
      if (must) throw new Error(msg);
      return '';
    }
    mergeInto(target, src, overwrite);
  }
  return target;
}

function dig(ps: unknown[]): unknown {
  if (ps.length < 3) throw new Error('dig needs at least three arguments');
  const dict = ps[ps.length - 1];
  const def = ps[ps.length - 2];
  if (!isMap(dict)) throw new Error(`interface conversion: interface {} is ${typeName(dict)}, not map[string]interface {}`);
  const ks = ps.slice(0, -2).map((k) => {
    if (typeof k !== 'string') throw new Error(`interface conversion: interface {} is ${typeName(k)}, not string`);
    return k;
  });
  let cur: Record<string, unknown> = dict;
  for (let i = 0; i < ks.length; i++) {
    if (!Object.prototype.hasOwnProperty.call(cur, ks[i])) return def;
    const step = cur[ks[i]];
    if (i === ks.length - 1) return step;
    if (!isMap(step)) throw new Error(`interface conversion: interface {} is ${typeName(step)}, not map[string]interface {}`);
    cur = step;
  }
  return def;
}

// ---------------------------------------------------------------------------------------------

export const dataFuncs: Record<string, FuncDef> = {
  // conversions
  atoi: d([S], ([s]) => {
    if (!/^[+-]?\d+$/.test(s)) return 0n;
    const v = BigInt(s);
    return v >= -(2n ** 63n) && v < 2n ** 63n ? v : 0n;
  }),
  int64: d([ANY], ([v]) => int64(toInt64(v))),
  int: d([ANY], ([v]) => toInt64(v)),
  float64: d([ANY], ([v]) => toFloat64(v)),
  toDecimal: d([ANY], ([v]) => {
    const s = strval(v);
    const m = /^([+-]?)([0-7]+)$/.exec(s);
    if (!m) return int64(0n);
    const x = BigInt('0o' + m[2]);
    return int64(m[1] === '-' ? -x : x);
  }),
  seq: d([], (p) => seq(p as bigint[]), I),
  until: d([I], ([c]) => intList(untilStep(0n, c, c < 0n ? -1n : 1n))),
  untilStep: d([I, I, I], ([a, b, c]) => intList(untilStep(a, b, c))),

  // integer math
  add1: d([ANY], ([v]) => int64(toInt64(v) + 1n)),
  add: d([], (a) => int64(a.reduce((s: bigint, x) => BigInt.asIntN(64, s + toInt64(x)), 0n)), ANY),
  sub: d([ANY, ANY], ([a, b]) => int64(toInt64(a) - toInt64(b))),
  div: d([ANY, ANY], ([a, b]) => {
    const y = toInt64(b);
    if (y === 0n) throw new Error('runtime error: integer divide by zero');
    return int64(toInt64(a) / y);
  }),
  mod: d([ANY, ANY], ([a, b]) => {
    const y = toInt64(b);
    if (y === 0n) throw new Error('runtime error: integer divide by zero');
    return int64(toInt64(a) % y);
  }),
  mul: d([ANY], ([a, ...r]) => int64(r.reduce((s: bigint, x) => BigInt.asIntN(64, s * toInt64(x)), toInt64(a))), ANY),
  randInt: d([I, I], ([a, b]) => {
    if (b - a <= 0n) throw new Error('invalid argument to Intn');
    return (a as bigint) + BigInt(randomInt(Number(b - a)));
  }),
  add1f: d([ANY], ([v]) => execDecimalOp(v, [1], decAdd)),
  addf: d([], (a) => execDecimalOp(0, a, decAdd), ANY),
  subf: d([ANY], ([a, ...r]) => execDecimalOp(a, r, decSub), ANY),
  divf: d([ANY], ([a, ...r]) => execDecimalOp(a, r, decDiv), ANY),
  mulf: d([ANY], ([a, ...r]) => execDecimalOp(a, r, decMul), ANY),
  biggest: d([ANY], ([a, ...r]) => int64(r.reduce((m: bigint, x) => (toInt64(x) > m ? toInt64(x) : m), toInt64(a))), ANY),
  max: d([ANY], ([a, ...r]) => int64(r.reduce((m: bigint, x) => (toInt64(x) > m ? toInt64(x) : m), toInt64(a))), ANY),
  min: d([ANY], ([a, ...r]) => int64(r.reduce((m: bigint, x) => (toInt64(x) < m ? toInt64(x) : m), toInt64(a))), ANY),
  maxf: d([ANY], ([a, ...r]) => r.reduce((m: number, x) => Math.max(m, toFloat64(x)), toFloat64(a)), ANY),
  minf: d([ANY], ([a, ...r]) => r.reduce((m: number, x) => Math.min(m, toFloat64(x)), toFloat64(a)), ANY),
  ceil: d([ANY], ([a]) => Math.ceil(toFloat64(a))),
  floor: d([ANY], ([a]) => Math.floor(toFloat64(a))),
  round: d([ANY, I], ([a, p, ...r]) => goRound(a, p, r as number[]), 'float64'),

  // defaults
  default: d([ANY], ([dflt, ...given]) => (given.length === 0 || empty(given[0]) ? dflt : given[0]), ANY),
  empty: d([ANY], ([v]) => empty(v)),
  coalesce: d([], (a) => a.find((x) => !empty(x)) ?? null, ANY),
  all: d([], (a) => a.every((x) => !empty(x)), ANY),
  any: d([], (a) => a.some((x) => !empty(x)), ANY),
  compact: d([ANY], ([l]) => listOrErr(l, 'compact').filter((x) => !empty(x))),
  mustCompact: d([ANY], ([l]) => listOrErr(l, 'compact').filter((x) => !empty(x))),
  ternary: d([ANY, ANY, 'bool'], ([t, f, c]) => (c ? t : f)),
  deepCopy: d([ANY], ([v]) => {
    if (isNil(v)) throw new Error('reflect: call of reflect.Value.Type on zero Value');
    return deepCopy(v);
  }),
  mustDeepCopy: d([ANY], ([v]) => {
    if (isNil(v)) throw new Error('reflect: call of reflect.Value.Type on zero Value');
    return deepCopy(v);
  }),
  toPrettyJson: d([ANY], ([v]) => {
    try {
      return marshalJSON(v, { escapeHTML: true, indent: '  ' });
    } catch {
      return '';
    }
  }),
  toRawJson: d([ANY], ([v]) => marshalJSON(v, { escapeHTML: false })),
  mustToPrettyJson: d([ANY], ([v]) => marshalJSON(v, { escapeHTML: true, indent: '  ' })),
  mustToRawJson: d([ANY], ([v]) => marshalJSON(v, { escapeHTML: false })),
  mustFromJson: d([S], ([s]) => unmarshalJSON(s)),

  // reflection
  typeOf: d([ANY], ([v]) => typeName(v)),
  typeIs: d([S, ANY], ([t, v]) => t === typeName(v)),
  typeIsLike: d([S, ANY], ([t, v]) => {
    const tn = typeName(v);
    return t === tn || '*' + t === tn;
  }),
  kindOf: d([ANY], ([v]) => kindName(v)),
  kindIs: d([S, ANY], ([t, v]) => t === kindName(v)),
  deepEqual: d([ANY, ANY], ([a, b]) => deepEqual(a, b)),

  // lists
  list: d([], (a) => a, ANY),
  tuple: d([], (a) => a, ANY),
  ...both('push', [ANY, ANY], ([l, v]) => [...listOrErr(l, 'push'), v]),
  ...both('append', [ANY, ANY], ([l, v]) => [...listOrErr(l, 'push'), v]),
  ...both('prepend', [ANY, ANY], ([l, v]) => [v, ...listOrErr(l, 'prepend')]),
  ...both('first', [ANY], ([l]) => {
    const a = listOrErr(l, 'find first');
    return a.length === 0 ? null : a[0];
  }),
  ...both('last', [ANY], ([l]) => {
    const a = listOrErr(l, 'find last');
    return a.length === 0 ? null : a[a.length - 1];
  }),
  ...both('rest', [ANY], ([l]) => {
    const a = listOrErr(l, 'find rest');
    return a.length === 0 ? nilSlice() : a.slice(1);
  }),
  ...both('initial', [ANY], ([l]) => {
    const a = listOrErr(l, 'find initial');
    return a.length === 0 ? nilSlice() : a.slice(0, -1);
  }),
  ...both('reverse', [ANY], ([l]) => [...listOrErr(l, 'find reverse')].reverse()),
  ...both('uniq', [ANY], ([l]) => {
    const out: unknown[] = [];
    for (const x of listOrErr(l, 'find uniq')) if (!inList(out, x)) out.push(x);
    return out;
  }),
  ...both('without', [ANY], ([l, ...omit]) => listOrErr(l, 'find without').filter((x) => !inList(omit, x)), ANY),
  ...both('has', [ANY, ANY], ([needle, hay]) => {
    if (isNil(hay)) return false;
    return inList(listOrErr(hay, 'find has'), needle);
  }),
  ...both('slice', [ANY], ([l, ...ix]) => sliceList(l, ix), ANY),
  ...both('chunk', [I, ANY], ([size, l]) => {
    if (isNil(l)) throw new Error(nilDeref);
    if (!Array.isArray(l)) throw new Error(`Cannot chunk type ${kindOfForMsg(l)}`);
    const sz = n(size);
    // sprig: cs := floor((len-1)/size) + 1 chunks, the last one len mod size long
    const cs = sz === 0 ? -1 : Math.floor((l.length - 1) / sz) + 1;
    if (cs < 0) throw new Error('runtime error: makeslice: len out of range');
    const out: unknown[][] = [];
    for (let i = 0; i < cs; i++) {
      let clen = sz;
      if (i === cs - 1) {
        clen = Math.floor(l.length % sz);
        if (clen === 0) clen = sz;
      }
      if (clen < 0) throw new Error('runtime error: makeslice: len out of range');
      out.push(l.slice(i * sz, i * sz + clen));
    }
    return withGoType(out, '[][]interface {}');
  }),
  concat: d([], (lists) => {
    const out: unknown[] = [];
    for (const l of lists) {
      if (isNil(l)) throw new Error(nilDeref);
      if (!Array.isArray(l)) throw new Error(`Cannot concat type ${kindOfForMsg(l)} as list`);
      out.push(...l);
    }
    return out;
  }, ANY),

  // dicts
  dict: d([], (a) => {
    const m: Record<string, unknown> = {};
    for (let i = 0; i < a.length; i += 2) m[strval(a[i])] = i + 1 < a.length ? a[i + 1] : '';
    return m;
  }, ANY),
  get: d([MAP, S], ([m, k]) => (m && Object.prototype.hasOwnProperty.call(m, k) ? m[k] : '')),
  set: d([MAP, S, ANY], ([m, k, v]) => {
    if (!m) throw new Error('assignment to entry in nil map');
    m[k] = v;
    return m;
  }),
  unset: d([MAP, S], ([m, k]) => {
    if (m) delete m[k];
    return m ?? {};
  }),
  hasKey: d([MAP, S], ([m, k]) => !!m && Object.prototype.hasOwnProperty.call(m, k)),
  pluck: d([S], ([k, ...ms]) => ms.filter((m: any) => m && Object.prototype.hasOwnProperty.call(m, k)).map((m: any) => m[k]), MAP),
  keys: d([], (ms) => withGoType(ms.flatMap((m: any) => (m ? Object.keys(m) : [])), '[]string'), MAP),
  values: d([MAP], ([m]) => (m ? Object.keys(m).map((k) => m[k]) : [])),
  pick: d([MAP], ([m, ...ks]) => {
    const out: Record<string, unknown> = {};
    for (const k of ks) if (m && Object.prototype.hasOwnProperty.call(m, k)) out[k] = m[k];
    return out;
  }, S),
  omit: d([MAP], ([m, ...ks]) => {
    const out: Record<string, unknown> = {};
    const drop = new Set(ks);
    for (const k of Object.keys(m ?? {})) if (!drop.has(k)) out[k] = m[k];
    return out;
  }, S),
  merge: d([MAP], ([dst, ...srcs]) => merge(dst, srcs, false, false), MAP),
  mergeOverwrite: d([MAP], ([dst, ...srcs]) => merge(dst, srcs, true, false), MAP),
  mustMerge: d([MAP], ([dst, ...srcs]) => merge(dst, srcs, false, true), MAP),
  mustMergeOverwrite: d([MAP], ([dst, ...srcs]) => merge(dst, srcs, true, true), MAP),
  dig: d([], (ps) => dig(ps), ANY),

  // uuid
  uuidv4: d([], () => randomUUID()),
};

export { GoInt };
