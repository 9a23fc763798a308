/**
 * A jq program: parsed once, compiled once to closures, then run on any number of inputs.
 */
import { Parser, JqSyntaxError, type Node } from './parser.js';
import { Compiler, HaltError, BreakSignal, type FnDef, type Scope, type Env, type C, type CompileCtx } from './compile.js';
import { natives, setBuiltinNames, withRuntime, noRuntime, type Runtime } from './builtins.js';
import { PRELUDE } from './prelude.js';
import { ModuleLoader, ModuleError } from './modules.js';
import { JqError, type Json } from './value.js';

let preludeDefs: Map<string, FnDef> | null = null;

function prelude(): Map<string, FnDef> {
  if (preludeDefs) return preludeDefs;
  const map = new Map<string, FnDef>();
  const ctx: CompileCtx = { natives, prelude: map, line: () => 1 };
  const compiler = new Compiler(ctx);
  const ast = Parser.parse(PRELUDE) as Extract<Node, { k: 'defs' }>;
  for (const d of ast.defs) {
    const def: FnDef = { name: d.name, params: d.params, depth: 0, c: null };
    let scope: Scope = null;
    for (const p of d.params) scope = { kind: 'closure', name: p.startsWith('$') ? p.slice(1) : p, arity: 0, depth: depthOfScope(scope) + 1, next: scope };
    let body: Node = d.body;
    for (let i = d.params.length - 1; i >= 0; i--) {
      const p = d.params[i]!;
      if (p.startsWith('$')) body = { k: 'bind', source: { k: 'call', name: p.slice(1), args: [], pos: 0 }, patterns: [{ k: 'pvar', name: p.slice(1) }], body };
    }
    const finalBody = body;
    const bodyScope = scope;
    let building = false;
    def.build = () => {
      if (building || def.c) return;
      building = true;
      def.c = compiler.compile(finalBody, bodyScope);
    };
    map.set(`${d.name}/${d.params.length}`, def);
  }
  preludeDefs = map;
  const names = new Set<string>();
  for (const k of map.keys()) if (!k.startsWith('_')) names.add(k);
  for (const k of natives.keys()) if (!k.startsWith('_')) names.add(k);
  setBuiltinNames([...names].sort());
  return map;
}

/** A compile error as jq reports it: message, then where (`<top-level>`, a module file, or nowhere). */
export class JqCompileFailure extends Error {
  constructor(
    readonly jqMessage: string,
    readonly line: number,
    readonly column: number,
    readonly where: string | null = '<top-level>',
  ) {
    super(where === null ? jqMessage : `${jqMessage} at ${where}, line ${line}, column ${column}`);
  }
}

/** A runtime error of a filter (the value raised, and its message as jq prints it). */
export class JqRunError extends Error {
  constructor(readonly value: Json) {
    super(typeof value === 'string' ? value : new JqError(value).message);
  }
}

/** `halt` / `halt_error` ended the program. */
export class JqHalt extends Error {
  constructor(
    readonly exitCode: number,
    readonly value: Json,
  ) {
    super(typeof value === 'string' ? value : new JqError(value).message);
  }
}

export interface ProgramOptions {
  /** Named arguments (`--arg`, `--argjson`): `$name` in the filter. */
  readonly vars?: Readonly<Record<string, Json>>;
  /**
   * jq's library search path (`-L`): where `import`/`include` find modules (and `.`, as jq). Without
   * it a program has no modules: an import is `module not found`, and no file is read.
   */
  readonly libraryPaths?: readonly string[];
}

export class Program {
  private readonly c: C;
  private readonly env: Env;

  constructor(readonly source: string, options: ProgramOptions = {}) {
    const pre = prelude();
    let ast: Node;
    const parser = new Parser(source);
    try {
      ast = parser.parseProgram();
    } catch (e) {
      throw toCompileFailure(e, source);
    }
    let scope: Scope = null;
    let env: Env = null;
    const vars = options.vars ?? {};
    for (const [name, value] of Object.entries(vars)) {
      scope = { kind: 'var', name, arity: 0, depth: depthOfScope(scope) + 1, next: scope };
      env = { v: value, next: env };
    }
    scope = { kind: 'var', name: 'ENV', arity: 0, depth: depthOfScope(scope) + 1, next: scope };
    env = { v: {}, next: env };
    scope = { kind: 'var', name: '__prog_args', arity: 0, depth: scope.depth + 1, next: scope };
    env = { v: { positional: [], named: { ...vars } }, next: env };
    const ctx: CompileCtx = { natives, prelude: pre, line: (o) => parser.lineOf(o) };
    const compiler = new Compiler(ctx);
    try {
      if (options.libraryPaths) {
        const loader = new ModuleLoader(options.libraryPaths, compiler);
        ctx.modules = loader;
        scope = loader.bind(parser.imports, scope, process.cwd());
      } else if (parser.imports.length > 0) throw new ModuleError(`module not found: ${parser.imports[0]!.relpath}`);
      this.c = compiler.compile(ast, scope);
    } catch (e) {
      throw toCompileFailure(e, source);
    }
    this.env = env;
  }

  /** Calls `emit` for each output on `input`. Throws JqRunError or JqHalt. */
  each(input: Json, emit: (v: Json) => void, rt: Runtime = noRuntime): void {
    const run = (): void => {
      try {
        if (this.c.s) emit(this.c.s(input, this.env));
        else this.c.f(input, this.env, emit);
      } catch (e) {
        if (e instanceof HaltError) throw new JqHalt(e.exitCode, e.value);
        if (e instanceof JqError) throw new JqRunError(e.value);
        if (e instanceof BreakSignal) throw new JqRunError('break');
        if (e instanceof RangeError && /call stack/.test(e.message)) throw new JqRunError('jq: stack overflow (recursion too deep)');
        throw e;
      }
    };
    if (rt === noRuntime) run();
    else withRuntime(rt, run);
  }

  /** Every output on `input`. */
  run(input: Json, rt?: Runtime): Json[] {
    const c = this.c;
    if (c.s && rt === undefined) {
      try {
        return [c.s(input, this.env)];
      } catch {
        // fall through to the full path for the error's translation
      }
    }
    const out: Json[] = [];
    this.each(
      input,
      (v) => {
        out.push(v);
      },
      rt,
    );
    return out;
  }
}

function toCompileFailure(e: unknown, source: string): unknown {
  if (e instanceof JqSyntaxError) {
    const before = source.slice(0, e.offset);
    const line = before.split('\n').length;
    const column = e.offset - (before.lastIndexOf('\n') + 1) + 1;
    return new JqCompileFailure(e.jqMessage, line, column);
  }
  if (e instanceof ModuleError) return new JqCompileFailure(e.jqMessage, e.line, e.column, e.file);
  if (e instanceof JqError) return new JqCompileFailure(e.message, 1, 1);
  return e;
}

export type { Runtime };

function depthOfScope(s: Scope): number {
  return s === null ? 0 : s.depth;
}
