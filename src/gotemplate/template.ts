/**
 * TemplateSet: parse named templates once, execute many times.
 *
 * A set is a map of trees plus a function map. Parsing mutates the set (later definitions replace
 * earlier ones, as Go's associate() does, except that an empty body never replaces a real one).
 * Execution never mutates it: every execution has its own state, so a parsed set can be shared and
 * executed concurrently from many places.
 */
import { TemplateLimitError, isStackOverflow, markYields, newExecContext, type ExecOptions, type FuncDef, type FuncMap } from './exec.js';
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
      markYields(t.root, this.funcs);
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

  /** Removes template `name` from the set (tpl's clone, whose root entry has no tree in Go). */
  forget(name: string): this {
    this.trees.delete(name);
    return this;
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
    const ctx = newExecContext(this, { ...this.execDefaults, ...opts });
    try {
      return ctx.execute(name, data);
    } catch (e) {
      // deep recursion inside a function (a value nested thousands deep, say): an error, not a crash
      if (isStackOverflow(e)) throw new TemplateLimitError(`template: ${name}: stack exhausted (${(e as Error).message})`, { cause: e });
      throw e;
    }
  }

  /** Executes like Helm's engine: output with every `<no value>` removed. */
  render(name: string, data: unknown, opts?: ExecOptions): string {
    const out = this.execute(name, data, opts);
    return out.includes('<no value>') ? out.replaceAll('<no value>', '') : out;
  }
}

/** Helm's parse order of chart files: deeper paths first, then reverse lexical order. */
export function helmParseOrder(names: Iterable<string>): string[] {
  return [...names].sort((a, b) => {
    const ca = a.split('/').length;
    const cb = b.split('/').length;
    if (ca !== cb) return cb - ca;
    return a > b ? -1 : a < b ? 1 : 0;
  });
}

/** Helm's .Template.BasePath of a file: the chart's templates directory. */
export function templateBasePath(name: string): string {
  const i = name.lastIndexOf('/templates/');
  if (i >= 0) return name.slice(0, i + '/templates'.length);
  const j = name.lastIndexOf('/');
  return j >= 0 ? name.slice(0, j) : '.';
}

/**
 * Parses chart files (name -> text) in Helm's order and renders every file whose base name does not
 * start with "_", with `.Template` set per file as Helm does. Returns file -> output.
 */
export function renderChartFiles(
  files: Record<string, string>,
  topLevel: Record<string, unknown>,
  opts?: ExecOptions & TemplateSetOptions,
): Record<string, string> {
  const set = new TemplateSet(opts);
  const names = helmParseOrder(Object.keys(files));
  for (const n of names) set.parse(n, files[n]);
  const out: Record<string, string> = {};
  for (const n of names) {
    if (n.slice(n.lastIndexOf('/') + 1).startsWith('_')) continue;
    out[n] = set.render(n, { ...topLevel, Template: { Name: n, BasePath: templateBasePath(n) } }, opts);
  }
  return out;
}
