/**
 * TemplateSet: parse named templates once, execute many times.
 *
 * A set is a map of trees plus a function map. Parsing mutates the set (later definitions replace
 * earlier ones, as Go's associate() does, except that an empty body never replaces a real one).
 * Execution never mutates it: every execution has its own state, so a parsed set can be shared and
 * executed concurrently from many places.
 */
import { executeTree, TemplateExecError, type ExecContext, type ExecOptions, type FuncDef, type FuncMap } from './exec.js';
import { isEmptyTree, parse, type Tree } from './parser.js';
import { defaultFuncs } from './funcs/index.js';

export interface TemplateSetOptions {
  /** Name of the root template (Helm's engine uses "gotpl"); appears in include errors. */
  rootName?: string;
  /** Extra or replacement functions. */
  funcs?: Record<string, FuncDef>;
  /** Default execution options. */
  exec?: ExecOptions;
}

export class TemplateSet {
  readonly rootName: string;
  readonly funcs: FuncMap;
  private trees = new Map<string, Tree>();
  readonly execDefaults: ExecOptions;

  constructor(opts: TemplateSetOptions = {}) {
    this.rootName = opts.rootName ?? 'gotpl';
    this.funcs = opts.funcs ? new Map([...defaultFuncs(), ...Object.entries(opts.funcs)]) : defaultFuncs();
    this.execDefaults = { missingKey: 'zero', ...opts.exec };
  }

  /** Parses `text` as template `name` (and its define/block templates) into the set. */
  parse(name: string, text: string): this {
    const trees = parse(name, text, { hasFunction: (f) => this.funcs.has(f) });
    for (const [n, t] of trees) {
      const old = this.trees.get(n);
      if (old && isEmptyTree(t.root) && !isEmptyTree(old.root)) continue;
      this.trees.set(n, t);
    }
    return this;
  }

  has(name: string): boolean {
    return this.trees.has(name);
  }

  names(): string[] {
    return [...this.trees.keys()];
  }

  lookup(name: string): Tree | undefined {
    return this.trees.get(name);
  }

  /** A copy sharing the parsed trees (cheap); used by `tpl` so its defines do not leak. */
  clone(): TemplateSet {
    const c = Object.create(TemplateSet.prototype) as TemplateSet;
    Object.assign(c, this);
    (c as any).trees = new Map(this.trees);
    return c;
  }

  /**
   * Executes template `name` with `data` as dot. Returns the raw output (with `<no value>` kept, as
   * Go prints it); see `render` for Helm's behaviour.
   */
  execute(name: string, data: unknown, opts?: ExecOptions): string {
    const ctx = newContext(this, { ...this.execDefaults, ...opts });
    return ctx.execute(name, data);
  }

  /** Executes like Helm's engine: output with every `<no value>` removed. */
  render(name: string, data: unknown, opts?: ExecOptions): string {
    const out = this.execute(name, data, opts);
    return out.includes('<no value>') ? out.replaceAll('<no value>', '') : out;
  }
}

export function newContext(set: TemplateSet, opts: ExecOptions, parent?: ExecContext): ExecContext {
  const ctx: ExecContext = {
    set,
    opts,
    depth: parent ? parent.depth : 0,
    included: parent ? parent.included : new Map(),
    budget: parent ? parent.budget : { used: 0 },
    rootName: set.rootName,
    execute(name: string, data: unknown): string {
      const tree = set.lookup(name);
      if (!tree) throw new TemplateExecError(`template: no template ${JSON.stringify(name)} associated with template ${JSON.stringify(set.rootName)}`);
      const max = opts.maxDepth ?? 100000;
      if (ctx.depth >= max) throw new TemplateExecError(`template: ${name}: exceeded maximum template depth (${max})`);
      ctx.depth++;
      try {
        return executeTree(ctx, tree, name, data);
      } finally {
        ctx.depth--;
      }
    },
  };
  return ctx;
}
