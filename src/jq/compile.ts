/**
 * The AST compiled once into JavaScript closures. Every node gives:
 *  - `f(input, env, emit)`: calls `emit` for each output (backtracking is the callback returning);
 *  - `p(input, path, env, emit)`: the same in path mode (`path(f)`, assignments), emitting (value, path);
 *  - `s(input, env)` when the node always has exactly one output: no callback at all (the common case).
 * Variables, closure parameters and labels live in a linked environment whose shape is known at compile
 * time, so a lookup is a fixed number of hops.
 */
import type { FuncDef, Node, Pattern } from './parser.js';
import { JqSyntaxError } from './parser.js';
import * as V from './value.js';
import { JqError, type Json } from './value.js';

export type Env = { readonly v: unknown; readonly next: Env } | null;
export type Emit = (v: Json) => void;
export type Path = Json[] | null; // null: the value is not at a path of the input (jq's "invalid path expression")
export type PEmit = (v: Json, p: Path) => void;
export type Fn = (input: Json, env: Env, emit: Emit) => void;
export type PFn = (input: Json, path: Path, env: Env, emit: PEmit) => void;
export type SFn = (input: Json, env: Env) => Json;

export interface C {
  f: Fn;
  p: PFn;
  s?: SFn;
}

/** A closure parameter's value: its code and the environment of the call site. */
interface Closure {
  c: C;
  env: Env;
}

/** `break $label` in flight. */
export class BreakSignal {
  constructor(readonly label: object) {}
}

/** An error raised downstream of a `try` body, passed through it unchanged. */
class Downstream {
  constructor(
    readonly token: object,
    readonly err: unknown,
  ) {}
}

export interface FnDef {
  name: string;
  params: string[];
  depth: number; // runtime depth of the environment where it is defined
  c: C | null;
  build?: () => void;
}

export type Scope = {
  kind: 'var' | 'closure' | 'label' | 'fn';
  name: string;
  arity: number;
  def?: FnDef;
  depth: number;
  next: Scope;
  value?: Json; // a constant variable (a data import): no slot in the environment
} | null;

function depthOf(s: Scope): number {
  return s === null ? 0 : s.depth;
}

function push(scope: Scope, kind: 'var' | 'closure' | 'label', name: string): Scope {
  return { kind, name, arity: 0, depth: depthOf(scope) + 1, next: scope };
}

function walk(env: Env, n: number): Env {
  let e = env;
  for (let i = 0; i < n; i++) e = e!.next;
  return e;
}

export function single(s: SFn): C {
  return {
    s,
    f: (input, env, emit) => emit(s(input, env)),
    p: nonPath((input, env, emit) => emit(s(input, env))),
  };
}

export function gen(f: Fn): C {
  return { f, p: nonPath(f) };
}

/** Path mode of an expression that is not a path expression: its outputs carry no path. */
export function nonPath(f: Fn): PFn {
  return (input, path, env, emit) => f(input, env, (v) => emit(v, path !== null && v === input && typeof v === 'object' && v !== null ? path : null));
}

function invalidPathResult(v: Json): never {
  return V.fail(`Invalid path expression with result ${V.trunc(v)}`);
}

/** Runs `f` in path mode from `input` and emits each path (jq's `path(f)`). */
export function pathsOf(c: C, input: Json, env: Env, emit: (p: Json[]) => void): void {
  c.p(input, [], env, (v, p) => {
    if (p === null) invalidPathResult(v);
    emit(p);
  });
}

export type Native = (args: C[], ctx: CompileCtx) => C;

export interface CompileCtx {
  natives: Map<string, Native>;
  prelude: Map<string, FnDef> | null;
  line(offset: number): number;
  /** The program's modules (jq's library search path), when it has one. */
  modules?: { meta(name: Json): Json; readonly libraryPaths: readonly string[] };
}

/** Wrap `emit` so that an error thrown by the consumer passes through a try/alternative unchanged. */
function guard(emit: Emit, token: object): Emit {
  return (v) => {
    try {
      emit(v);
    } catch (e) {
      if (e instanceof JqError) throw new Downstream(token, e);
      throw e;
    }
  };
}

function guardP(emit: PEmit, token: object): PEmit {
  return (v, p) => {
    try {
      emit(v, p);
    } catch (e) {
      if (e instanceof JqError) throw new Downstream(token, e);
      throw e;
    }
  };
}

export class Compiler {
  constructor(private readonly ctx: CompileCtx) {}

  compile(n: Node, scope: Scope): C {
    switch (n.k) {
      case 'identity':
        return { s: (input) => input, f: (input, _env, emit) => emit(input), p: (input, path, _env, emit) => emit(input, path) };
      case 'recurse':
        return this.call({ name: 'recurse', args: [], pos: 0 }, scope);
      case 'literal': {
        const value = n.value;
        return single(() => value);
      }
      case 'loc': {
        const line = n.line;
        return single(() => ({ file: '<top-level>', line }));
      }
      case 'index':
        return this.index(n, scope);
      case 'slice':
        return this.slice(n, scope);
      case 'iterate':
        return this.iterate(this.compile(n.target, scope), n.opt);
      case 'string':
        return this.string(n, scope);
      case 'format':
        return this.call({ name: 'format', args: [{ k: 'literal', value: n.name }], pos: n.pos }, scope);
      case 'array': {
        if (n.body === null) return single(() => []);
        const body = this.compile(n.body, scope);
        if (body.s) {
          const s = body.s;
          return single((input, env) => [s(input, env)]);
        }
        const bf = body.f;
        return single((input, env) => {
          const out: Json[] = [];
          bf(input, env, (v) => {
            out.push(v);
          });
          return out;
        });
      }
      case 'object':
        return this.object(n, scope);
      case 'neg': {
        const b = this.compile(n.body, scope);
        return this.map1(b, V.negate);
      }
      case 'pipe':
        return this.pipe(this.compile(n.left, scope), n.right, scope);
      case 'comma': {
        const l = this.compile(n.left, scope);
        const r = this.compile(n.right, scope);
        return {
          f: (input, env, emit) => {
            l.f(input, env, emit);
            r.f(input, env, emit);
          },
          p: (input, path, env, emit) => {
            l.p(input, path, env, emit);
            r.p(input, path, env, emit);
          },
        };
      }
      case 'binop':
        return this.binop(n.op, this.compile(n.left, scope), this.compile(n.right, scope));
      case 'and':
      case 'or':
        return this.logic(n.k, this.compile(n.left, scope), this.compile(n.right, scope));
      case 'alt':
        return this.alt(this.compile(n.left, scope), this.compile(n.right, scope));
      case 'assign':
        return this.assign(n.op, this.compile(n.left, scope), this.compile(n.right, scope));
      case 'if':
        return this.cond(this.compile(n.cond, scope), this.compile(n.then, scope), n.else ? this.compile(n.else, scope) : null);
      case 'try':
        return this.try(this.compile(n.body, scope), n.catch ? this.compile(n.catch, scope) : null);
      case 'reduce':
        return this.reduce(n, scope);
      case 'foreach':
        return this.foreach(n, scope);
      case 'bind':
        return this.bind(n, scope);
      case 'label': {
        const inner = push(scope, 'label', n.name);
        const body = this.compile(n.body, inner);
        return {
          f: (input, env, emit) => {
            const tok = {};
            try {
              body.f(input, { v: tok, next: env }, emit);
            } catch (e) {
              if (e instanceof BreakSignal && e.label === tok) return;
              throw e;
            }
          },
          p: (input, path, env, emit) => {
            const tok = {};
            try {
              body.p(input, path, { v: tok, next: env }, emit);
            } catch (e) {
              if (e instanceof BreakSignal && e.label === tok) return;
              throw e;
            }
          },
        };
      }
      case 'break': {
        const k = this.lookup(scope, 'label', n.name, 0);
        if (k === null) throw new JqSyntaxError(`$*label-${n.name} is not defined`, n.pos);
        const hops = depthOf(scope) - k.depth;
        const f: Fn = (_input, env) => {
          throw new BreakSignal(walk(env, hops)!.v as object);
        };
        return { f, p: (_i, _p, env) => f(null, env, () => {}) };
      }
      case 'var':
        return this.variable(n, scope);
      case 'call':
        return this.call(n, scope);
      case 'defs': {
        let s = scope;
        for (const d of n.defs) s = this.define(d, s);
        return this.compile(n.body, s);
      }
    }
  }

  private lookup(scope: Scope, kind: string, name: string, arity: number): NonNullable<Scope> | null {
    for (let s = scope; s !== null; s = s.next) {
      if (s.name === name && s.arity === arity && (s.kind === kind || (kind === 'fn' && s.kind === 'closure'))) return s;
    }
    return null;
  }

  define(d: FuncDef, scope: Scope): Scope {
    const def: FnDef = { name: d.name, params: d.params, depth: depthOf(scope), c: null };
    const entry: Scope = { kind: 'fn', name: d.name, arity: d.params.length, def, depth: depthOf(scope), next: scope };
    let inner: Scope = entry;
    for (const p of d.params) inner = push(inner, 'closure', p.startsWith('$') ? p.slice(1) : p);
    let body: Node = d.body;
    for (let i = d.params.length - 1; i >= 0; i--) {
      const p = d.params[i]!;
      if (p.startsWith('$')) {
        body = { k: 'bind', source: { k: 'call', name: p.slice(1), args: [], pos: 0 }, patterns: [{ k: 'pvar', name: p.slice(1) }], body };
      }
    }
    const finalBody = body;
    const bodyScope = inner;
    def.build = () => {
      def.c = this.compile(finalBody, bodyScope);
    };
    def.build();
    return entry;
  }

  private variable(n: { name: string; pos: number }, scope: Scope): C {
    const k = this.lookup(scope, 'var', n.name, 0);
    if (k === null) {
      if (n.name === 'ENV') return single(() => ({}));
      if (n.name === '__prog_args') return single(() => []);
      throw new JqSyntaxError(`$${n.name} is not defined`, n.pos);
    }
    if (k.value !== undefined) {
      const value = k.value;
      return single(() => value);
    }
    const hops = depthOf(scope) - k.depth;
    let s: SFn;
    if (hops === 0) s = (_i, env) => env!.v as Json;
    else if (hops === 1) s = (_i, env) => env!.next!.v as Json;
    else s = (_i, env) => walk(env, hops)!.v as Json;
    return single(s);
  }

  call(n: { name: string; args: Node[]; pos: number }, scope: Scope): C {
    const arity = n.args.length;
    for (let s = scope; s !== null; s = s.next) {
      if (s.name !== n.name || s.arity !== arity) continue;
      if (s.kind === 'closure') return this.callClosure(depthOf(scope) - s.depth);
      if (s.kind === 'fn') return this.callDef(s.def!, depthOf(scope) - s.def!.depth, n.args.map((a) => this.compile(a, scope)));
    }
    const key = `${n.name}/${arity}`;
    const pre = this.ctx.prelude?.get(key);
    if (pre) {
      if (pre.c === null) pre.build!();
      return this.callDef(pre, -1, n.args.map((a) => this.compile(a, scope)));
    }
    const nat = this.ctx.natives.get(key);
    if (nat) return nat(n.args.map((a) => this.compile(a, scope)), this.ctx);
    throw new JqSyntaxError(`${n.name}/${arity} is not defined`, n.pos);
  }

  private callClosure(hops: number): C {
    return {
      f: (input, env, emit) => {
        const cl = walk(env, hops)!.v as Closure;
        cl.c.f(input, cl.env, emit);
      },
      p: (input, path, env, emit) => {
        const cl = walk(env, hops)!.v as Closure;
        cl.c.p(input, path, cl.env, emit);
      },
    };
  }

  /** A call of a jq-defined function; `hops` < 0 for the prelude (defined in the empty environment). */
  private callDef(def: FnDef, hops: number, args: C[]): C {
    const bind = (env: Env): Env => {
      let e = hops < 0 ? null : walk(env, hops);
      for (const a of args) e = { v: { c: a, env } satisfies Closure, next: e };
      return e;
    };
    if (args.length === 0 && hops < 0) {
      return {
        f: (input, _env, emit) => def.c!.f(input, null, emit),
        p: (input, path, _env, emit) => def.c!.p(input, path, null, emit),
      };
    }
    return {
      f: (input, env, emit) => def.c!.f(input, bind(env), emit),
      p: (input, path, env, emit) => def.c!.p(input, path, bind(env), emit),
    };
  }

  private map1(b: C, op: (v: Json) => Json): C {
    if (b.s) {
      const s = b.s;
      return single((input, env) => op(s(input, env)));
    }
    const bf = b.f;
    return gen((input, env, emit) => bf(input, env, (v) => emit(op(v))));
  }

  private index(n: Extract<Node, { k: 'index' }>, scope: Scope): C {
    const target = this.compile(n.target, scope);
    const key = this.compile(n.key, scope);
    const opt = n.opt;
    const ts = target.s;
    if (n.key.k === 'literal' && !opt && ts) {
      const k = n.key.value;
      if (typeof k === 'string') {
        const p: PFn = (input, path, env, emit) =>
          target.p(input, path, env, (v, tp) => {
            if (tp === null) return V.fail(`Invalid path expression near attempt to access element ${V.trunc(k)} of ${V.trunc(v)}`);
            emit(V.index(v, k), [...tp, k]);
          });
        if (n.target.k === 'identity') {
          return {
            s: (input) => (V.isObject(input) && V.hasOwn(input, k) ? input[k]! : V.index(input, k)),
            f: (input, _env, emit) => emit(V.isObject(input) && V.hasOwn(input, k) ? input[k]! : V.index(input, k)),
            p,
          };
        }
        const s: SFn = (input, env) => {
          const t = ts(input, env);
          return V.isObject(t) && V.hasOwn(t, k) ? t[k]! : V.index(t, k);
        };
        return { s, f: (input, env, emit) => emit(s(input, env)), p };
      }
    }
    const f: Fn = (input, env, emit) =>
      target.f(input, env, (t) =>
        key.f(input, env, (k) => {
          let v: Json;
          try {
            v = V.index(t, k);
          } catch (e) {
            if (opt && e instanceof JqError) return;
            throw e;
          }
          emit(v);
        }),
      );
    const p: PFn = (input, path, env, emit) =>
      target.p(input, path, env, (t, tp) =>
        key.f(input, env, (k) => {
          if (tp === null) {
            if (opt) return;
            return V.fail(`Invalid path expression near attempt to access element ${V.trunc(k)} of ${V.trunc(t)}`);
          }
          let v: Json;
          try {
            v = t === null ? null : V.index(t, k);
          } catch (e) {
            if (opt && e instanceof JqError) return;
            throw e;
          }
          emit(v, [...tp, k]);
        }),
      );
    if (opt) {
      return this.try({ f, p }, null);
    }
    if (ts && key.s) {
      const ks = key.s;
      const s: SFn = (input, env) => V.index(ts(input, env), ks(input, env));
      return { s, f: (input, env, emit) => emit(s(input, env)), p };
    }
    return { f, p };
  }

  private slice(n: Extract<Node, { k: 'slice' }>, scope: Scope): C {
    const target = this.compile(n.target, scope);
    const from = n.from ? this.compile(n.from, scope) : single(() => null);
    const to = n.to ? this.compile(n.to, scope) : single(() => null);
    const f: Fn = (input, env, emit) =>
      target.f(input, env, (t) => to.f(input, env, (b) => from.f(input, env, (a) => emit(V.slice(t, a, b)))));
    const p: PFn = (input, path, env, emit) =>
      target.p(input, path, env, (t, tp) =>
        to.f(input, env, (b) =>
          from.f(input, env, (a) => {
            const k = { start: a, end: b };
            if (tp === null) return V.fail(`Invalid path expression near attempt to access element ${V.trunc(k)} of ${V.trunc(t)}`);
            emit(V.slice(t, a, b), [...tp, k]);
          }),
        ),
      );
    const c = { f, p };
    return n.opt ? this.try(c, null) : c;
  }

  private iterate(target: C, opt: boolean): C {
    const each = (t: Json, emit: Emit): void => {
      if (Array.isArray(t)) {
        for (let i = 0; i < t.length; i++) emit(t[i]!);
      } else if (V.isObject(t)) {
        for (const k in t) emit(t[k]!);
      } else if (!opt) V.fail(`Cannot iterate over ${V.describe(t)}`);
    };
    const f: Fn = target.s
      ? ((ts) => (input, env, emit) => each(ts(input, env), emit))(target.s)
      : (input, env, emit) => target.f(input, env, (t) => each(t, emit));
    const p: PFn = (input, path, env, emit) =>
      target.p(input, path, env, (t, tp) => {
        if (tp === null) {
          if (opt) return;
          return V.fail(`Invalid path expression near attempt to iterate through ${V.trunc(t)}`);
        }
        if (Array.isArray(t)) {
          for (let i = 0; i < t.length; i++) emit(t[i]!, [...tp, i]);
        } else if (V.isObject(t)) {
          for (const k in t) emit(t[k]!, [...tp, k]);
        } else if (t === null) {
          // iterating null in path mode yields nothing
        } else if (!opt) V.fail(`Cannot iterate over ${V.describe(t)}`);
      });
    if (opt) return this.try({ f, p }, null);
    return { f, p };
  }

  private string(n: Extract<Node, { k: 'string' }>, scope: Scope): C {
    const fmt = n.fmt ?? 'text';
    const parts = n.parts.map((p) =>
      typeof p === 'string' ? p : this.pipe(this.compile(p, scope), { k: 'call', name: 'format', args: [{ k: 'literal', value: fmt }], pos: 0 }, scope),
    );
    // jq builds the string right to left over the cartesian product of the interpolations
    const f: Fn = (input, env, emit) => {
      const go = (i: number, acc: string): void => {
        if (i < 0) {
          emit(acc);
          return;
        }
        const p = parts[i]!;
        if (typeof p === 'string') go(i - 1, p + acc);
        else p.f(input, env, (v) => go(i - 1, (v as string) + acc));
      };
      go(parts.length - 1, '');
    };
    if (parts.every((p) => typeof p === 'string' || p.s)) {
      const ss = parts.map((p) => (typeof p === 'string' ? p : p.s!));
      return single((input, env) => {
        let out = '';
        for (const p of ss) out += typeof p === 'string' ? p : (p(input, env) as string);
        return out;
      });
    }
    return gen(f);
  }

  private object(n: Extract<Node, { k: 'object' }>, scope: Scope): C {
    const entries = n.entries.map((e) => ({ key: this.compile(e.key, scope), value: this.compile(e.value, scope), lit: e.key.k === 'literal' ? e.key.value : undefined }));
    const checkKey = (k: Json): string => {
      if (typeof k !== 'string') return V.fail(`Cannot use ${V.describe(k)} as object key`);
      return k;
    };
    if (entries.every((e) => (typeof e.lit === 'string' || e.key.s) && e.value.s)) {
      const es = entries.map((e) => ({ lit: typeof e.lit === 'string' ? e.lit : undefined, key: e.key.s!, value: e.value.s! }));
      return single((input, env) => {
        const o: V.JsonObject = {};
        for (const e of es) {
          const k = e.lit ?? checkKey(e.key(input, env));
          V.setKey(o, k, e.value(input, env));
        }
        return o;
      });
    }
    const f: Fn = (input, env, emit) => {
      const go = (i: number, o: V.JsonObject): void => {
        if (i === entries.length) {
          emit(o);
          return;
        }
        const e = entries[i]!;
        e.key.f(input, env, (k) => {
          const key = checkKey(k);
          e.value.f(input, env, (v) => {
            const o2 = { ...o };
            V.setKey(o2, key, v);
            go(i + 1, o2);
          });
        });
      };
      go(0, {});
    };
    return gen(f);
  }

  private pipe(left: C, rightNode: Node, scope: Scope): C {
    const right = this.compile(rightNode, scope);
    const ls = left.s;
    const rs = right.s;
    if (ls && rs) {
      return {
        s: (input, env) => rs(ls(input, env), env),
        f: (input, env, emit) => emit(rs(ls(input, env), env)),
        p: (input, path, env, emit) => left.p(input, path, env, (v, p) => right.p(v, p, env, emit)),
      };
    }
    const rf = right.f;
    const lf = left.f;
    return {
      f: ls ? (input, env, emit) => rf(ls(input, env), env, emit) : (input, env, emit) => lf(input, env, (v) => rf(v, env, emit)),
      p: (input, path, env, emit) => left.p(input, path, env, (v, p) => right.p(v, p, env, emit)),
    };
  }

  private binop(op: string, l: C, r: C): C {
    const fn = BINOPS[op]!;
    if (l.s && r.s) {
      const ls = l.s;
      const rs = r.s;
      return single((input, env) => {
        const b = rs(input, env);
        return fn(ls(input, env), b);
      });
    }
    // jq evaluates the right operand in the outer loop
    return gen((input, env, emit) => r.f(input, env, (b) => l.f(input, env, (a) => emit(fn(a, b)))));
  }

  private logic(kind: 'and' | 'or', l: C, r: C): C {
    const isAnd = kind === 'and';
    if (l.s && r.s) {
      const ls = l.s;
      const rs = r.s;
      return single((input, env) => {
        const a = V.truthy(ls(input, env));
        if (isAnd ? !a : a) return a;
        return V.truthy(rs(input, env));
      });
    }
    return gen((input, env, emit) =>
      l.f(input, env, (a) => {
        const t = V.truthy(a);
        if (isAnd ? !t : t) emit(t);
        else r.f(input, env, (b) => emit(V.truthy(b)));
      }),
    );
  }

  /** \`a // b\`: a's truthy outputs, else b's outputs (errors in a propagate, as in jq 1.8). */
  private alt(l: C, r: C): C {
    const f: Fn = (input, env, emit) => {
      let any = false;
      l.f(input, env, (v) => {
        if (V.truthy(v)) {
          any = true;
          emit(v);
        }
      });
      if (!any) r.f(input, env, emit);
    };
    const p: PFn = (input, path, env, emit) => {
      let any = false;
      l.p(input, path, env, (v, pp) => {
        if (V.truthy(v)) {
          any = true;
          emit(v, pp);
        }
      });
      if (!any) r.p(input, path, env, emit);
    };
    if (l.s && r.s) {
      const ls = l.s;
      const rs = r.s;
      return {
        s: (input, env) => {
          const v = ls(input, env);
          return V.truthy(v) ? v : rs(input, env);
        },
        f,
        p,
      };
    }
    return { f, p };
  }

  private cond(c: C, t: C, e: C | null): C {
    const els: C = e ?? { s: (i) => i, f: (i, _e, emit) => emit(i), p: (i, p, _e, emit) => emit(i, p) };
    const p: PFn = (input, path, env, emit) =>
      c.f(input, env, (v) => (V.truthy(v) ? t.p(input, path, env, emit) : els.p(input, path, env, emit)));
    if (c.s && t.s && els.s) {
      const cs = c.s;
      const ts = t.s;
      const es = els.s;
      const s: SFn = (input, env) => (V.truthy(cs(input, env)) ? ts(input, env) : es(input, env));
      return { s, f: (input, env, emit) => emit(s(input, env)), p };
    }
    if (c.s) {
      const cs = c.s;
      return { f: (input, env, emit) => (V.truthy(cs(input, env)) ? t.f(input, env, emit) : els.f(input, env, emit)), p };
    }
    return { f: (input, env, emit) => c.f(input, env, (v) => (V.truthy(v) ? t.f(input, env, emit) : els.f(input, env, emit))), p };
  }

  try(body: C, handler: C | null): C {
    const onError = (e: unknown, tok: object): JqError | null => {
      if (e instanceof Downstream && e.token === tok) throw e.err;
      // halt and halt_error end the program: neither `try` nor `?` catches them (jq 1.8.2, gojq)
      if (!(e instanceof JqError) || e instanceof HaltError) throw e;
      return e;
    };
    const f: Fn = (input, env, emit) => {
      const tok = {};
      let err: JqError | null = null;
      try {
        body.f(input, env, guard(emit, tok));
      } catch (e) {
        err = onError(e, tok);
      }
      if (err !== null && handler !== null) handler.f(errorValue(err), env, emit);
    };
    const p: PFn = (input, path, env, emit) => {
      const tok = {};
      let err: JqError | null = null;
      try {
        body.p(input, path, env, guardP(emit, tok));
      } catch (e) {
        err = onError(e, tok);
      }
      if (err !== null && handler !== null) handler.p(errorValue(err), null, env, emit);
    };
    if (body.s && handler === null) {
      // `.a?` and the like: one output or none; no wrapper needed on the consumer side
      const bs = body.s;
      return {
        f: (input, env, emit) => {
          let v: Json;
          try {
            v = bs(input, env);
          } catch (e) {
            if (e instanceof JqError && !(e instanceof HaltError)) return;
            throw e;
          }
          emit(v);
        },
        p,
      };
    }
    return { f, p };
  }

  private reduce(n: Extract<Node, { k: 'reduce' }>, scope: Scope): C {
    const source = this.compile(n.source, scope);
    const init = this.compile(n.init, scope);
    const { names, bind } = this.pattern([n.pattern], scope);
    let inner = scope;
    for (const nm of names) inner = push(inner, 'var', nm);
    const update = this.compile(n.update, inner);
    const us = update.s;
    const f: Fn = (input, env, emit) =>
      init.f(input, env, (start) => {
        let acc: Json = start;
        source.f(input, env, (x) =>
          bind(0, x, env, (e2) => {
            if (us) {
              acc = us(acc, e2);
              return;
            }
            let last: Json | undefined;
            update.f(acc, e2, (v) => {
              last = v;
            });
            acc = last === undefined ? null : last;
          }),
        );
        emit(acc);
      });
    const p: PFn = (input, path, env, emit) =>
      init.p(input, path, env, (start, sp) => {
        let acc: Json = start;
        let accp: Path = sp;
        source.f(input, env, (x) =>
          bind(0, x, env, (e2) => {
            let last: Json | undefined;
            let lastp: Path = null;
            update.p(acc, accp, e2, (v, vp) => {
              last = v;
              lastp = vp;
            });
            acc = last === undefined ? null : last;
            accp = last === undefined ? null : lastp;
          }),
        );
        emit(acc, accp);
      });
    return { f, p };
  }

  private foreach(n: Extract<Node, { k: 'foreach' }>, scope: Scope): C {
    const source = this.compile(n.source, scope);
    const init = this.compile(n.init, scope);
    const { names, bind } = this.pattern([n.pattern], scope);
    let inner = scope;
    for (const nm of names) inner = push(inner, 'var', nm);
    const update = this.compile(n.update, inner);
    const extract = n.extract ? this.compile(n.extract, inner) : null;
    const f: Fn = (input, env, emit) =>
      init.f(input, env, (start) => {
        let acc: Json = start;
        source.f(input, env, (x) =>
          bind(0, x, env, (e2) =>
            update.f(acc, e2, (v) => {
              acc = v;
              if (extract) extract.f(v, e2, emit);
              else emit(v);
            }),
          ),
        );
      });
    const p: PFn = (input, path, env, emit) =>
      init.p(input, path, env, (start, sp) => {
        let acc: Json = start;
        let accp: Path = sp;
        source.f(input, env, (x) =>
          bind(0, x, env, (e2) =>
            update.p(acc, accp, e2, (v, vp) => {
              acc = v;
              accp = vp;
              if (extract) extract.p(v, vp, e2, emit);
              else emit(v, vp);
            }),
          ),
        );
      });
    return { f, p };
  }

  private bind(n: Extract<Node, { k: 'bind' }>, scope: Scope): C {
    const source = this.compile(n.source, scope);
    const { names, bind } = this.pattern(n.patterns, scope);
    let inner = scope;
    for (const nm of names) inner = push(inner, 'var', nm);
    const body = this.compile(n.body, inner);
    const alts = n.patterns.length;
    if (alts === 1 && n.patterns[0]!.k === 'pvar') {
      const ss = source.s;
      const bs = body.s;
      if (ss && bs) {
        const s: SFn = (input, env) => bs(input, { v: ss(input, env), next: env });
        return {
          s,
          f: (input, env, emit) => emit(s(input, env)),
          p: (input, path, env, emit) => body.p(input, path, { v: ss(input, env), next: env }, emit),
        };
      }
      return {
        f: ss ? (input, env, emit) => body.f(input, { v: ss(input, env), next: env }, emit) : (input, env, emit) => source.f(input, env, (x) => body.f(input, { v: x, next: env }, emit)),
        p: (input, path, env, emit) => source.f(input, env, (x) => body.p(input, path, { v: x, next: env }, emit)),
      };
    }
    if (alts === 1) {
      return {
        f: (input, env, emit) => source.f(input, env, (x) => bind(0, x, env, (e2) => body.f(input, e2, emit))),
        p: (input, path, env, emit) => source.f(input, env, (x) => bind(0, x, env, (e2) => body.p(input, path, e2, emit))),
      };
    }
    const run = (x: Json, env: Env, k: (e2: Env) => void): void => {
      for (let i = 0; i < alts; i++) {
        if (i === alts - 1) {
          bind(i, x, env, k);
          return;
        }
        try {
          bind(i, x, env, k);
          return;
        } catch (e) {
          if (!(e instanceof JqError) || e instanceof HaltError) throw e;
          // try the next alternative; jq binds the error to the next pattern's variables as null
        }
      }
    };
    return {
      f: (input, env, emit) => {
        const tok = {};
        const g = guard(emit, tok);
        source.f(input, env, (x) => {
          try {
            run(x, env, (e2) => body.f(input, e2, g));
          } catch (e) {
            if (e instanceof Downstream && e.token === tok) throw e.err;
            throw e;
          }
        });
      },
      p: (input, path, env, emit) => source.f(input, env, (x) => run(x, env, (e2) => body.p(input, path, e2, emit))),
    };
  }

  /**
   * Destructuring. All variables of all alternatives get one slot each, in order of first appearance;
   * `bind(alt, value, env, k)` destructures with alternative `alt` and calls `k` with the extended env
   * (once per combination when a key expression has several outputs).
   */
  private pattern(patterns: Pattern[], scope: Scope): { names: string[]; bind: (alt: number, x: Json, env: Env, k: (e: Env) => void) => void } {
    const names: string[] = [];
    const collect = (p: Pattern): void => {
      if (p.k === 'pvar') {
        if (!names.includes(p.name)) names.push(p.name);
      } else if (p.k === 'parray') p.items.forEach(collect);
      else
        for (const e of p.entries) {
          if (e.bind !== undefined && !names.includes(e.bind)) names.push(e.bind);
          if (e.pat) collect(e.pat);
        }
    };
    patterns.forEach(collect);
    type M = (x: Json, env: Env, slots: Json[], k: () => void) => void;
    const compilePat = (p: Pattern, patScope: Scope): M => {
      if (p.k === 'pvar') {
        const i = names.indexOf(p.name);
        return (x, _env, slots, k) => {
          slots[i] = x;
          k();
        };
      }
      if (p.k === 'parray') {
        const items = p.items.map((it) => compilePat(it, patScope));
        return (x, env, slots, k) => {
          const go = (i: number): void => {
            if (i === items.length) return k();
            items[i]!(x === null ? null : V.index(x, i), env, slots, () => go(i + 1));
          };
          go(0);
        };
      }
      const entries = p.entries.map((e) => ({
        key: this.compile(e.key, patScope),
        bind: e.bind === undefined ? -1 : names.indexOf(e.bind),
        pat: e.pat ? compilePat(e.pat, patScope) : null,
      }));
      return (x, env, slots, k) => {
        const go = (i: number): void => {
          if (i === entries.length) return k();
          const e = entries[i]!;
          e.key.f(x, env, (key) => {
            const v = V.index(x, key);
            if (e.bind >= 0) slots[e.bind] = v;
            if (e.pat) e.pat(v, env, slots, () => go(i + 1));
            else go(i + 1);
          });
        };
        go(0);
      };
    };
    const matchers = patterns.map((p) => compilePat(p, scope));
    const n = names.length;
    return {
      names,
      bind: (alt, x, env, k) => {
        const slots: Json[] = new Array<Json>(n).fill(null);
        matchers[alt]!(x, env, slots, () => {
          let e = env;
          for (let i = 0; i < n; i++) e = { v: slots[i], next: e };
          k(e);
        });
      },
    };
  }

  private assign(op: string, lhs: C, rhs: C): C {
    if (op === '=') {
      return gen((input, env, emit) =>
        rhs.f(input, env, (v) => {
          const owned = new Set<object>();
          let acc = input;
          pathsOf(lhs, input, env, (p) => {
            acc = setpathOwned(acc, p, 0, v, owned);
          });
          emit(acc);
        }),
      );
    }
    if (op === '|=') return gen((input, env, emit) => emit(modify(lhs, input, env, (x) => first(rhs, x, env))));
    const fn = op === '//=' ? (a: Json, b: Json) => (V.truthy(a) ? a : b) : BINOPS[op.slice(0, -1)]!;
    return gen((input, env, emit) => rhs.f(input, env, (b) => emit(modify(lhs, input, env, (x) => fn(x, b)))));
  }
}

export class HaltError extends JqError {
  constructor(
    readonly exitCode: number,
    value: Json,
  ) {
    super(value);
  }
}

function errorValue(e: JqError): Json {
  return e.value;
}

/** The first output of `c` on `x`, or undefined when it has none. */
export function first(c: C, x: Json, env: Env): Json | undefined {
  if (c.s) return c.s(x, env);
  const stop = {};
  let out: Json | undefined;
  try {
    c.f(x, env, (v) => {
      out = v;
      throw stop;
    });
  } catch (e) {
    if (e !== stop) throw e;
  }
  return out;
}

/** `lhs |= f`: each path's value replaced by f's first output; paths where f is empty are deleted. */
export function modify(lhs: C, input: Json, env: Env, f: (v: Json) => Json | undefined): Json {
  const owned = new Set<object>();
  let acc = input;
  const dels: Json[] = [];
  pathsOf(lhs, input, env, (p) => {
    const cur = V.getpath(acc, p);
    const nv = f(cur);
    if (nv === undefined) dels.push(p);
    else acc = setpathOwned(acc, p, 0, nv, owned);
  });
  return dels.length ? V.delpaths(acc, dels) : acc;
}

/** setpath that mutates containers it has already copied during this operation (no quadratic copying). */
export function setpathOwned(t: Json, path: Json[], i: number, v: Json, owned: Set<object>): Json {
  if (i === path.length) return v;
  const k = path[i]!;
  if (t !== null && typeof t === 'object' && owned.has(t)) {
    if (typeof k === 'string' && V.isObject(t)) {
      const cur = V.hasOwn(t, k) ? t[k]! : null;
      V.setKey(t, k, setpathOwned(cur, path, i + 1, v, owned));
      return t;
    }
    if (typeof k === 'number' && Array.isArray(t) && !Number.isNaN(k)) {
      let idx = Math.trunc(k);
      if (idx < 0) idx += t.length;
      if (idx >= 0) {
        const cur = idx < t.length ? t[idx]! : null;
        const nv = setpathOwned(cur, path, i + 1, v, owned);
        while (t.length < idx) t.push(null);
        t[idx] = nv;
        return t;
      }
    }
  }
  const cur = t === null ? null : V.index(t, k);
  const out = V.setIndex(t, k, setpathOwned(cur, path, i + 1, v, owned));
  if (out !== null && typeof out === 'object') owned.add(out);
  return out;
}

const cmp = (f: (c: number) => boolean) => (a: Json, b: Json) => f(V.compare(a, b));

export const BINOPS: Record<string, (a: Json, b: Json) => Json> = {
  '+': V.add,
  '-': V.subtract,
  '*': V.multiply,
  '/': V.divide,
  '%': V.modulo,
  '==': (a, b) => V.equals(a, b),
  '!=': (a, b) => !V.equals(a, b),
  '<': cmp((c) => c < 0),
  '<=': cmp((c) => c <= 0),
  '>': cmp((c) => c > 0),
  '>=': cmp((c) => c >= 0),
};
