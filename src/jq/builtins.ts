/**
 * jq's builtins: the C-coded ones (and a few jq-coded ones made native for speed, with the same
 * results and errors), plus the jq-coded rest in `prelude.ts`.
 */
import { gen, single, nonPath, pathsOf, first, HaltError, type C, type Native, type Env, type Emit, type Fn } from './compile.js';
import * as V from './value.js';
import { JqError, type Json } from './value.js';
import { matchImpl } from './regex.js';
import { format } from './format.js';
import { gmtime, mktime, strftime, strptime } from './time.js';
import { parseJsonValue } from './json.js';

/** What a running filter may reach outside its input: further inputs, the log, the clock. */
export interface Runtime {
  nextInput(): Json | undefined;
  debug(message: Json): void;
  stderr(text: string): void;
}

export const noRuntime: Runtime = {
  nextInput: () => undefined,
  debug: () => {},
  stderr: () => {},
};

let runtime: Runtime = noRuntime;

/** Run `body` with `rt` as the current runtime (restored afterwards). */
export function withRuntime<T>(rt: Runtime, body: () => T): T {
  const prev = runtime;
  runtime = rt;
  try {
    return body();
  } finally {
    runtime = prev;
  }
}

/** Calls `k` with each combination of the arguments' outputs; the first argument varies fastest (as jq's C calls). */
function cartesian(args: C[], input: Json, env: Env, k: (vals: Json[]) => void): void {
  const vals: Json[] = new Array<Json>(args.length);
  const go = (i: number): void => {
    if (i < 0) {
      k(vals.slice());
      return;
    }
    args[i]!.f(input, env, (v) => {
      vals[i] = v;
      go(i - 1);
    });
  };
  go(args.length - 1);
}

type Impl = (input: Json, ...args: Json[]) => Json;

/** A C-coded builtin: each combination of argument values gives one output. */
function cfn(impl: Impl): Native {
  return (args) => {
    if (args.length === 0) return single((input) => impl(input));
    if (args.every((a) => a.s)) {
      const ss = args.map((a) => a.s!);
      if (ss.length === 1) {
        const s0 = ss[0]!;
        return single((input, env) => impl(input, s0(input, env)));
      }
      return single((input, env) => impl(input, ...ss.map((s) => s(input, env))));
    }
    return gen((input, env, emit) => cartesian(args, input, env, (vals) => emit(impl(input, ...vals))));
  };
}

const natives = new Map<string, Native>();

function def(name: string, arity: number, n: Native): void {
  natives.set(`${name}/${arity}`, n);
}

function defc(name: string, arity: number, impl: Impl): void {
  def(name, arity, cfn(impl));
}

// ---- core ----

def('empty', 0, () => ({ f: () => {}, p: () => {} }));
defc('not', 0, (x) => !V.truthy(x));
def('path', 1, ([f]) => gen((input, env, emit) => pathsOf(f!, input, env, emit)));
def('getpath', 1, ([p]) => ({
  f: (input, env, emit) => p!.f(input, env, (path) => emit(V.getpath(input, path))),
  p: (input, path, env, emit) =>
    p!.f(input, env, (pv) => {
      if (!Array.isArray(pv)) V.fail('Path must be specified as an array');
      let v: Json;
      try {
        v = V.getpath(input, pv);
      } catch {
        v = null;
      }
      emit(v, path === null ? null : [...path, ...pv]);
    }),
}));
defc('setpath', 2, (x, p, v) => V.setpath(x, p!, v!));
defc('delpaths', 1, (x, ps) => V.delpaths(x, ps!));
defc('error', 0, (x) => {
  throw new JqError(x);
});
def('last', 1, ([f]) => ({
  f: (input, env, emit) => {
    let last: Json | undefined;
    f!.f(input, env, (v) => {
      last = v;
    });
    if (last !== undefined) emit(last);
  },
  p: (input, path, env, emit) => {
    let last: Json | undefined;
    let lp: V.Json[] | null = null;
    f!.p(input, path, env, (v, p) => {
      last = v;
      lp = p;
    });
    if (last !== undefined) emit(last, lp);
  },
}));
def('first', 1, ([f]) => ({
  f: (input, env, emit) => {
    const v = first(f!, input, env);
    if (v !== undefined) emit(v);
  },
  p: (input, path, env, emit) => {
    const stop = {};
    let out: [Json, V.Json[] | null] | undefined;
    try {
      f!.p(input, path, env, (v, p) => {
        out = [v, p];
        throw stop;
      });
    } catch (e) {
      if (e !== stop) throw e;
    }
    if (out) emit(out[0], out[1]);
  },
}));
def('select', 1, ([c]) => ({
  f: c!.s
    ? ((cs) => (input, env, emit) => {
        if (V.truthy(cs(input, env))) emit(input);
      })(c!.s)
    : (input, env, emit) => c!.f(input, env, (v) => (V.truthy(v) ? emit(input) : undefined)),
  p: (input, path, env, emit) => c!.f(input, env, (v) => (V.truthy(v) ? emit(input, path) : undefined)),
}));
function eachOf(t: Json, fn: (v: Json) => void): void {
  if (Array.isArray(t)) for (let i = 0; i < t.length; i++) fn(t[i]!);
  else if (V.isObject(t)) for (const k in t) fn(t[k]!);
  else V.fail(`Cannot iterate over ${V.describe(t)}`);
}
def('map', 1, ([f]) => {
  const c = f!;
  if (c.s) {
    const cs = c.s;
    return single((input, env) => {
      const out: Json[] = [];
      eachOf(input, (x) => out.push(cs(x, env)));
      return out;
    });
  }
  return single((input, env) => {
    const out: Json[] = [];
    const push = (v: Json): void => {
      out.push(v);
    };
    eachOf(input, (x) => c.f(x, env, push));
    return out;
  });
});
def('range', 2, ([from, upto]) =>
  gen((input, env, emit) =>
    from!.f(input, env, (a) =>
      upto!.f(input, env, (b) => {
        if (typeof a !== 'number' || typeof b !== 'number') V.fail('Range bounds must be numeric');
        for (let i = a; i < b; i++) emit(i);
      }),
    ),
  ),
);
def('limit', 2, ([n, f]) =>
  gen((input, env, emit) =>
    n!.f(input, env, (nv) => {
      if (typeof nv !== 'number') V.fail(`Invalid limit: ${V.describe(nv)}`);
      if (nv <= 0) {
        if (nv < 0) V.fail("limit doesn't support negative count");
        return;
      }
      let left = nv;
      const stop = {};
      try {
        f!.f(input, env, (v) => {
          left--;
          emit(v);
          if (left <= 0) throw stop;
        });
      } catch (e) {
        if (e !== stop) throw e;
      }
    }),
  ),
);
defc('tojson', 0, (x) => V.dump(x));
// jq's `def _flatten($x): reduce .[] as $i ([]; if $i | type == "array" and $x != 0 then . + ($i | _flatten($x - 1)) else . + [$i] end)`,
// without recursion (arrays may be nested as deep as jq allows)
defc('_flatten', 1, (x, depth) => {
  const out: Json[] = [];
  const stack: { items: Json[]; i: number; d: Json }[] = [];
  const top: Json[] = [];
  eachOf(x, (v) => top.push(v));
  stack.push({ items: top, i: 0, d: depth! });
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.i >= f.items.length) {
      stack.pop();
      continue;
    }
    const v = f.items[f.i++]!;
    if (Array.isArray(v) && !V.equals(f.d, 0)) stack.push({ items: v, i: 0, d: V.subtract(f.d, 1) });
    else out.push(v);
  }
  return out;
});
defc('fromjson', 0, (x) => {
  if (typeof x !== 'string') V.fail(`${V.describe(x)} only strings can be parsed`);
  if (x.length > 2 * V.MAX_DEPTH) checkParseDepth(x);
  return parseJson(x);
});
/** jq's parser refuses more than MAX_PARSING_DEPTH (10000) open arrays/objects. */
function checkParseDepth(text: string): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > V.MAX_DEPTH) V.fail(`Exceeds depth limit for parsing (while parsing '${text}')`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}
defc('tonumber', 0, (x) => {
  if (typeof x === 'number') return x;
  if (typeof x === 'string') {
    const t = x;
    if (/^\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*$/.test(t) && !/^\s|\s$/.test(t)) return Number(t);
    if (/^-?nan$/i.test(t)) return NaN;
    V.fail(`${V.describe(x)} cannot be parsed as a number`);
  }
  return V.fail(`${V.describe(x)} cannot be parsed as a number`);
});
defc('toboolean', 0, (x) => {
  if (typeof x === 'boolean') return x;
  if (x === 'true') return true;
  if (x === 'false') return false;
  return V.fail(`${V.describe(x)} cannot be parsed as a boolean`);
});
defc('tostring', 0, (x) => V.tostring(x));
defc('keys', 0, (x) => V.keys(x, true));
defc('keys_unsorted', 0, (x) => V.keys(x, false));
defc('startswith', 1, (x, s) => {
  if (typeof x !== 'string' || typeof s !== 'string') V.fail('startswith() requires string inputs');
  return x.startsWith(s);
});
defc('endswith', 1, (x, s) => {
  if (typeof x !== 'string' || typeof s !== 'string') V.fail('endswith() requires string inputs');
  return x.endsWith(s);
});
defc('split', 1, (x, s) => {
  if (typeof x !== 'string' || typeof s !== 'string') V.fail('split input and separator must be strings');
  return V.splitString(x, s);
});
defc('explode', 0, (x) => {
  if (typeof x !== 'string') V.fail('explode input must be a string');
  const out: number[] = [];
  for (const ch of x) out.push(ch.codePointAt(0)!);
  return out;
});
defc('implode', 0, (x) => {
  if (!Array.isArray(x)) V.fail('implode input must be an array');
  let s = '';
  for (const c of x) {
    if (typeof c !== 'number' || Number.isNaN(c)) V.fail(`${V.describe(c)} can't be imploded, unicode codepoint needs to be numeric`);
    let cp = Math.trunc(c);
    if (cp > 0x10ffff || cp < 0 || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
    s += String.fromCodePoint(cp);
  }
  return s;
});
defc('_strindices', 1, (x, s) => {
  if (typeof x !== 'string') V.fail(`${V.describe(x)} cannot be searched, as it is not a string`);
  if (typeof s !== 'string') V.fail(`${V.describe(s)} is not a string`);
  const out: number[] = [];
  if (s === '') return out;
  const bx = Buffer.from(x);
  const bs = Buffer.from(s);
  // jq reports byte offsets converted to code points
  let i = bx.indexOf(bs, 0);
  while (i >= 0) {
    out.push(V.codepointLength(bx.subarray(0, i).toString()));
    i = bx.indexOf(bs, i + 1);
  }
  return out;
});
const SP = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const WS = new RegExp(`^${SP}+|${SP}+$`, 'g');
const LWS = new RegExp(`^${SP}+`);
const RWS = new RegExp(`${SP}+$`);
defc('trim', 0, (x) => (typeof x === 'string' ? x.replace(WS, '') : V.fail('trim input must be a string')));
defc('ltrim', 0, (x) => (typeof x === 'string' ? x.replace(LWS, '') : V.fail('trim input must be a string')));
defc('rtrim', 0, (x) => (typeof x === 'string' ? x.replace(RWS, '') : V.fail('trim input must be a string')));
defc('has', 1, (x, k) => V.has(x, k!));
defc('contains', 1, (x, y) => V.contains(x, y!));
defc('length', 0, (x) => V.length(x));
defc('utf8bytelength', 0, (x) => (typeof x === 'string' ? Buffer.byteLength(x) : V.fail(`${V.describe(x)} only strings have UTF-8 byte length`)));
defc('type', 0, (x) => V.typeOf(x));
defc('isinfinite', 0, (x) => (typeof x === 'number' ? x === Infinity || x === -Infinity : V.fail(`${V.describe(x)} number required`)));
defc('isnan', 0, (x) => (typeof x === 'number' ? Number.isNaN(x) : V.fail(`${V.describe(x)} number required`)));
defc('isnormal', 0, (x) => (typeof x === 'number' ? Number.isFinite(x) && x !== 0 && Math.abs(x) >= 2.2250738585072014e-308 : V.fail(`${V.describe(x)} number required`)));
defc('infinite', 0, () => Infinity);
defc('nan', 0, () => NaN);
function sortArray(x: Json, what = 'sorted, as it is not an array'): Json[] {
  if (!Array.isArray(x)) V.fail(`${V.describe(x)} cannot be ${what}`);
  return x;
}
defc('sort', 0, (x) => sortArray(x).slice().sort(V.compare));
function byImpl(x: Json, keys: Json): { v: Json; k: Json }[] {
  if (!Array.isArray(x) || !Array.isArray(keys) || keys.length !== x.length) V.fail(`${V.describe(x)} and ${V.describe(keys)} cannot be sorted, as they are not both arrays`);
  const pairs = x.map((v, i) => ({ v, k: keys[i]!, i }));
  pairs.sort((a, b) => V.compare(a.k, b.k) || a.i - b.i);
  return pairs;
}
defc('_sort_by_impl', 1, (x, keys) => byImpl(x, keys!).map((p) => p.v));
defc('_group_by_impl', 1, (x, keys) => {
  const out: Json[][] = [];
  let prev: Json | undefined;
  for (const p of byImpl(x, keys!)) {
    if (prev !== undefined && V.equals(prev, p.k)) out[out.length - 1]!.push(p.v);
    else out.push([p.v]);
    prev = p.k;
  }
  return out;
});
defc('_unique_by_impl', 1, (x, keys) => {
  const out: Json[] = [];
  let prev: Json | undefined;
  for (const p of byImpl(x, keys!)) {
    if (prev === undefined || !V.equals(prev, p.k)) out.push(p.v);
    prev = p.k;
  }
  return out;
});
defc('unique', 0, (x) => {
  const s = sortArray(x).slice().sort(V.compare);
  return s.filter((v, i) => i === 0 || !V.equals(v, s[i - 1]!));
});
defc('bsearch', 1, (x, t) => {
  if (!Array.isArray(x)) V.fail(`${V.describe(x)} cannot be searched from`);
  let lo = 0;
  let hi = x.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = V.compare(x[mid]!, t!);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1 - lo;
});
function minmax(x: Json, keys: Json, wantMax: boolean): Json {
  if (!Array.isArray(x) || !Array.isArray(keys)) V.fail(`${V.describe(x)} and ${V.describe(keys)} cannot be iterated over`);
  if (keys.length !== x.length) V.fail(`${V.describe(x)} and ${V.describe(keys)} have wrong length`);
  if (x.length === 0) return null;
  let best = 0;
  for (let i = 1; i < x.length; i++) {
    const c = V.compare(keys[i]!, keys[best]!);
    if (wantMax ? c >= 0 : c < 0) best = i;
  }
  return x[best]!;
}
defc('min', 0, (x) => minmax(x, x, false));
defc('max', 0, (x) => minmax(x, x, true));
defc('_min_by_impl', 1, (x, k) => minmax(x, k!, false));
defc('_max_by_impl', 1, (x, k) => minmax(x, k!, true));
defc('format', 1, (x, f) => format(f!, x));
defc('env', 0, () => ({}));
defc('builtins', 0, () => builtinList());
defc('input_filename', 0, () => null);
defc('input_line_number', 0, () => 0);
defc('$__loc__', 0, () => null);
defc('have_decnum', 0, () => false);
defc('have_literal_numbers', 0, () => true);
def('get_search_list', 0, (_args, ctx) => {
  const list = ctx.modules?.libraryPaths ?? [];
  return single(() => [...list]);
});
def('modulemeta', 0, (_args, ctx) =>
  single((input) => {
    if (!ctx.modules) return V.fail(typeof input === 'string' ? `module not found: ${input}` : 'modulemeta input module name must be a string');
    return ctx.modules.meta(input);
  }),
);
defc('halt', 0, () => {
  throw new HaltError(0, null);
});
defc('halt_error', 1, (x, code) => {
  if (typeof code !== 'number') V.fail(`${V.describe(x)} halt_error/1: number required`);
  throw new HaltError(code, x);
});
defc('input', 0, () => {
  const v = runtime.nextInput();
  if (v === undefined) V.fail('break');
  return v;
});
defc('debug', 0, (x) => {
  runtime.debug(x);
  return x;
});
defc('stderr', 0, (x) => {
  runtime.stderr(V.dump(x));
  return x;
});
defc('ascii_downcase', 0, (x) => (typeof x === 'string' ? x.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : V.fail('explode input must be a string')));
defc('ascii_upcase', 0, (x) => (typeof x === 'string' ? x.replace(/[a-z]+/g, (m) => m.toUpperCase()) : V.fail('explode input must be a string')));
defc('abs', 0, (x) => (V.compare(x, 0) < 0 ? V.negate(x) : x));
defc('add', 0, (x) => {
  let acc: Json = null;
  let owned = false;
  eachOf(x, (v) => {
    if (Array.isArray(acc) && Array.isArray(v)) {
      if (!owned) {
        acc = acc.slice();
        owned = true;
      }
      for (const e of v) (acc as Json[]).push(e);
    } else {
      acc = V.add(acc, v);
      owned = false;
    }
  });
  return acc;
});
defc('to_entries', 0, (x) => {
  const ks = V.keys(x, false) as Json[];
  return ks.map((k) => ({ key: k, value: V.index(x, k) }));
});
function fromEntries(x: Json): Json {
  let acc: V.JsonObject | null = null;
  eachOf(x, (e) => {
    const k = entryKey(e);
    if (typeof k !== 'string') V.fail(`Cannot use ${V.describe(k)} as object key`);
    const value = V.has(e, 'value') ? V.index(e, 'value') : V.index(e, 'Value');
    acc ??= {};
    V.setKey(acc, k as string, value);
  });
  return acc ?? {};
}
function entryKey(e: Json): Json {
  for (const name of ['key', 'Key', 'name']) {
    const v = V.index(e, name);
    if (V.truthy(v)) return v;
  }
  return V.index(e, 'Name');
}
defc('from_entries', 0, fromEntries);
def('with_entries', 1, ([f]) =>
  single((input, env) => {
    const ks = V.keys(input, false) as Json[];
    const out: Json[] = [];
    for (const k of ks) f!.f({ key: k, value: V.index(input, k) }, env, (v) => out.push(v));
    return fromEntries(out);
  }),
);
defc('_match_impl', 3, (x, re, flags, test) => matchImpl(x, re!, flags!, test!));
defc('now', 0, () => Date.now() / 1000);
defc('mktime', 0, (x) => mktime(x));
defc('gmtime', 0, (x) => gmtime(x));
defc('localtime', 0, (x) => gmtime(x));
defc('strftime', 1, (x, f) => strftime(x, f!, 'strftime'));
defc('strflocaltime', 1, (x, f) => strftime(x, f!, 'strflocaltime'));
defc('strptime', 1, (x, f) => strptime(x, f!));
defc('ltrimstr', 1, (x, s) => {
  if (typeof x !== 'string' || typeof s !== 'string') V.fail('startswith() requires string inputs');
  return x.startsWith(s) ? x.slice(s.length) : x;
});
defc('rtrimstr', 1, (x, s) => {
  if (typeof x !== 'string' || typeof s !== 'string') V.fail('endswith() requires string inputs');
  return x.endsWith(s) ? x.slice(0, x.length - s.length) : x;
});
defc('tostream', 0, (x) => x);
natives.delete('tostream/0');

// ---- math (libm) ----
function num(name: string, f: (x: number) => number): void {
  defc(name, 0, (x) => (typeof x === 'number' ? f(x) : V.fail(`${V.describe(x)} number required`)));
}
function num2(name: string, f: (a: number, b: number) => number): void {
  def(name, 2, ([a, b]) =>
    gen((input, env, emit) =>
      b!.f(input, env, (bv) =>
        a!.f(input, env, (av) => {
          if (typeof av !== 'number') V.fail(`${V.describe(av)} number required`);
          if (typeof bv !== 'number') V.fail(`${V.describe(bv)} number required`);
          emit(f(av, bv));
        }),
      ),
    ),
  );
}
const round = (x: number): number => (x < 0 ? -Math.round(-x) : Math.round(x));
const frexp = (x: number): [number, number] => {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  let e = Math.max(-1073, Math.floor(Math.log2(Math.abs(x))) + 1);
  let m = x * Math.pow(2, -e);
  while (Math.abs(m) < 0.5) {
    m *= 2;
    e--;
  }
  while (Math.abs(m) >= 1) {
    m /= 2;
    e++;
  }
  return [m, e];
};
const gammaLn = (x: number): number => {
  const g = 7;
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - gammaLn(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + g + 0.5;
  for (let i = 1; i < g + 2; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
};
const tgamma = (x: number): number => {
  if (Number.isInteger(x) && x <= 0) return NaN;
  if (Number.isInteger(x) && x > 0 && x < 171) {
    let r = 1;
    for (let i = 2; i < x; i++) r *= i;
    return r;
  }
  const s = x < 0.5 ? Math.sign(Math.sin(Math.PI * x)) * (Math.floor(-x) % 2 === 0 ? 1 : 1) : 1;
  return s * Math.exp(gammaLn(x)) * (x < 0 && Math.floor(-x) % 2 === 0 ? -1 : 1) * (x < 0 ? 1 : 1);
};
const M: Record<string, (x: number) => number> = {
  acos: Math.acos, acosh: Math.acosh, asin: Math.asin, asinh: Math.asinh, atan: Math.atan, atanh: Math.atanh, cbrt: Math.cbrt, cos: Math.cos, cosh: Math.cosh,
  exp: Math.exp, exp2: (x) => Math.pow(2, x), floor: Math.floor, log: Math.log, log10: Math.log10, log2: Math.log2, sin: Math.sin, sinh: Math.sinh, sqrt: Math.sqrt,
  tan: Math.tan, tanh: Math.tanh, tgamma, gamma: gammaLn, lgamma: gammaLn, ceil: Math.ceil, exp10: (x) => Math.pow(10, x), expm1: Math.expm1, fabs: Math.abs,
  log1p: Math.log1p, logb: (x) => (x === 0 ? -Infinity : Number.isFinite(x) ? frexp(x)[1] - 1 : Math.abs(x)), nearbyint: (x) => roundEven(x), rint: (x) => roundEven(x), round,
  significand: (x) => (x === 0 || !Number.isFinite(x) ? x : frexp(x)[0] * 2), trunc: Math.trunc,
};
function roundEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
for (const [name, f] of Object.entries(M)) num(name, f);
const M2: Record<string, (a: number, b: number) => number> = {
  atan2: Math.atan2, hypot: Math.hypot, pow: Math.pow, remainder: (a, b) => a - b * roundEven(a / b), copysign: (a, b) => (Math.sign(b) === -1 || Object.is(b, -0) ? -Math.abs(a) : Math.abs(a)),
  drem: (a, b) => a - b * roundEven(a / b), fdim: (a, b) => (a > b ? a - b : 0), fmax: (a, b) => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b)),
  fmin: (a, b) => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.min(a, b)), fmod: (a, b) => a % b, ldexp: (a, b) => a * Math.pow(2, Math.trunc(b)),
  scalb: (a, b) => a * Math.pow(2, b), scalbln: (a, b) => a * Math.pow(2, Math.trunc(b)), nextafter: nextafter, nexttoward: nextafter,
};
function nextafter(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  if (a === b) return b;
  if (a === 0) return b > 0 ? 5e-324 : -5e-324;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, a);
  let bits = buf.getBigInt64(0);
  bits += (b > a) === (a > 0) ? 1n : -1n;
  buf.setBigInt64(0, bits);
  return buf.getFloat64(0);
}
for (const [name, f] of Object.entries(M2)) num2(name, f);
def('fma', 3, ([a, b, c]) =>
  gen((input, env, emit) =>
    c!.f(input, env, (cv) =>
      b!.f(input, env, (bv) =>
        a!.f(input, env, (av) => {
          for (const v of [av, bv, cv]) if (typeof v !== 'number') V.fail(`${V.describe(v)} number required`);
          emit((av as number) * (bv as number) + (cv as number));
        }),
      ),
    ),
  ),
);
num('__dummy', (x) => x);
natives.delete('__dummy/0');
defc('frexp', 0, (x) => (typeof x === 'number' ? frexp(x) : V.fail(`${V.describe(x)} number required`)));
defc('modf', 0, (x) => {
  if (typeof x !== 'number') V.fail(`${V.describe(x)} number required`);
  if (!Number.isFinite(x)) return Number.isNaN(x) ? [NaN, NaN] : [0 * Math.sign(x), x];
  const i = Math.trunc(x);
  return [x - i, i];
});
defc('lgamma_r', 0, (x) => (typeof x === 'number' ? [gammaLn(x), tgamma(x) < 0 ? -1 : 1] : V.fail(`${V.describe(x)} number required`)));
defc('significand', 0, (x) => (typeof x === 'number' ? M.significand!(x) : V.fail(`${V.describe(x)} number required`)));
defc('getpath_safe', 0, (x) => x);
natives.delete('getpath_safe/0');

export { natives };

let builtinNames: string[] | null = null;
export function setBuiltinNames(names: string[]): void {
  builtinNames = names;
}
function builtinList(): Json {
  return builtinNames ?? [];
}

/** JSON text as jq's `fromjson` reads it: JSON.parse, else jq's own parser (nan, jq's error messages). */
export function parseJson(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return parseJsonValue(text);
  }
}

export type { Emit, Fn, Env };
export { nonPath };
