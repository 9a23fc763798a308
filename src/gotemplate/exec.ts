/**
 * Executor of parsed templates (the behaviour of Go's text/template/exec.go, written anew), with Go's
 * error wording: `template: NAME:LINE:COL: executing "TMPL" at <NODE>: MESSAGE`.
 *
 * "Boxed" values: Go distinguishes a value read out of a map[string]interface{} (static type
 * interface{}) from a concrete one; it shows in messages ("can't evaluate field x in type
 * interface {}", "nil pointer evaluating interface {}.x") and in whether a missing value is an error.
 * The executor tracks this with `lastBoxed`.
 *
 * Depth: a template that starts another template ({{template}}, include, tpl) does not do it by a
 * JS call. The nodes on the way to such a call (marked `yields` by markYields) run as generators that
 * yield an ExecCall; `drive` runs the called template on its own explicit stack and resumes the caller
 * with the output. So nesting is bounded by Go's and Helm's limits (maxDepth, 1000 includes of one
 * name), not by the JS stack. Everything else runs as plain recursive code: the generator path is taken
 * only where a template call can happen, and costs nothing elsewhere.
 */
import type {
  ArgNode,
  ChainNode,
  CommandNode,
  FieldNode,
  IdentifierNode,
  IfNode,
  Node,
  NumberNode,
  PipeNode,
  TemplateNode,
  VariableNode,
} from './nodes.js';
import { str } from './nodes.js';
import { formatValue } from './fmt.js';
import type { Tree } from './parser.js';
import type { KeyObject } from 'node:crypto';
import {
  GoComplex,
  GoInt,
  isMap,
  isNil,
  isStruct,
  sortedKeys,
  taggedType,
  truth,
  typeName,
  utf8,
} from './values.js';

/** A template function. `params` are Go parameter types; `variadic` the element type of `...`. */
export interface FuncDef {
  params: string[];
  variadic?: string;
  fn: (args: any[], ctx: ExecContext) => unknown;
  builtin?: boolean;
  /**
   * A function that runs templates (include, tpl): the same as `fn`, written as a generator that
   * yields `ctx.call(name, data)` and receives the template's output, so that the executor runs the
   * template without growing the JS stack. `fn` is then `(a, ctx) => drive(gen(a, ctx))`.
   */
  gen?: (args: any[], ctx: ExecContext) => ExecGen<unknown>;
}

export type FuncMap = Map<string, FuncDef>;

export interface ExecOptions {
  /** Go's missingkey option: 'zero' (Helm), 'default'/'invalid' (Go's default) or 'error'. */
  missingKey?: 'zero' | 'default' | 'invalid' | 'error';
  /** Fail when the output (of one execution) grows beyond this many characters. Default 100 MiB. */
  maxOutputLength?: number;
  /** Maximum nesting of {{template}}/include/tpl calls. Default 100000 (Go's). */
  maxDepth?: number;
  /** Helm's `lookup`; without it lookup returns an empty map (like `helm template`). */
  lookup?: (apiVersion: string, kind: string, namespace: string, name: string) => unknown;
  /**
   * Where genPrivateKey, genCA, genSelfSignedCert and genSignedCert get their private keys: `type` is
   * 'rsa' (`bits`: 4096 for genPrivateKey, 2048 for certificates, as Sprig), 'ecdsa' (P-256), 'ed25519'
   * or 'dsa' (2048). Default: a new key from node:crypto every time. A caller that does not need fresh
   * keys (tests) can hand out cached ones: an RSA-4096 key takes seconds to make.
   */
  generateKey?: (type: PrivateKeyType, bits: number) => KeyObject;
}

export type PrivateKeyType = 'rsa' | 'ecdsa' | 'ed25519' | 'dsa';

/** What functions such as include/tpl need to know about the running execution. */
export interface ExecContext {
  set: TemplateLookup;
  opts: ExecOptions;
  depth: number;
  /** include recursion counters, shared by one top-level execution */
  included: Map<string, number>;
  /** total output produced so far (shared), for the size limit */
  budget: { used: number };
  /** Runs template `name` of this context's set with `data` as dot and returns its output. */
  execute(name: string, data: unknown): string;
  /** A request to run template `name`, for a FuncDef `gen` to yield (checks that it exists and the depth). */
  call(name: string, data: unknown): ExecCall;
  rootName: string;
}

/** A running template's request to run another template; see `drive`. */
export class ExecCall {
  constructor(
    readonly ctx: ExecContext,
    readonly tree: Tree,
    readonly name: string,
    readonly data: unknown,
  ) {}
}

/** The generator form of execution code: yields template calls, receives their output. */
export type ExecGen<T> = Generator<ExecCall, T, unknown>;

export interface TemplateLookup {
  lookup(name: string): Tree | undefined;
  funcs: FuncMap;
  rootName: string;
}

/** An execution error; the message is Go's. */
export class TemplateExecError extends Error {
  override name = 'TemplateExecError';
}
/** Safety limits (output size, depth): never wrapped into "error calling". */
export class TemplateLimitError extends TemplateExecError {
  override name = 'TemplateLimitError';
}

const WRAPS = Symbol('wraps');

/**
 * Marks `err` as a wrapping error: its message is a text followed by its cause's message, as Go's
 * wrapped errors are. helmErrorMessage then reads the chain's levels as suffixes of the outermost
 * message (a chain thousands of levels deep is read in linear time).
 */
export function wrapping<E extends Error>(err: E): E {
  (err as any)[WRAPS] = true;
  return err;
}

export function isWrapping(err: Error): boolean {
  return (err as any)[WRAPS] === true;
}

const MISSING = Symbol('missing');
const NO_ARGS: ArgNode[] = [];
type Final = unknown | typeof MISSING;

class BreakSignal {}
class ContinueSignal {}
const BREAK = new BreakSignal();
const CONTINUE = new ContinueSignal();

interface Var {
  name: string;
  value: unknown;
  boxed: boolean;
}

/** A function-valued field of a caller object (`.Files.Get`), called as a method. */
class Method implements FuncDef {
  readonly params: string[] = [];
  readonly variadic = 'interface {}';
  constructor(readonly fn: (args: any[]) => unknown) {}
}

/** What one `range` iterates over: `len` items, read lazily as Go does. */
interface RangePlan {
  len: number;
  boxed: boolean;
  index(i: number): unknown;
  elem(i: number): unknown;
}

/** Byte offsets where the lines of a template text start, computed once per parsed text. */
const lineStarts = new WeakMap<object, number[]>();

function linesOf(info: { text: string }): number[] {
  let starts = lineStarts.get(info);
  if (!starts) {
    starts = [0];
    const text = info.text;
    if (/[^\x00-\x7f]/.test(text)) {
      const b = utf8(text);
      for (let i = 0; i < b.length; i++) if (b[i] === 10) starts.push(i + 1);
    } else {
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    }
    lineStarts.set(info, starts);
  }
  return starts;
}

/** Byte-based line:col of a node, like Go's ErrorContext. */
export function errorLocation(n: Node): string {
  const starts = linesOf(n.tree);
  // the last line start at or before the node
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= n.pos) lo = mid;
    else hi = mid - 1;
  }
  return `${n.tree.parseName}:${lo + 1}:${n.pos - starts[lo]}`;
}

export class State {
  node: Node | null = null;
  vars: Var[];
  out = '';
  lastBoxed = false;

  constructor(
    readonly ctx: ExecContext,
    readonly tmplName: string,
    dot: unknown,
  ) {
    this.vars = [{ name: '$', value: dot, boxed: false }];
  }

  // ---- errors ----
  errorf(msg: string, cause?: unknown): never {
    const name = this.tmplName;
    const opts = cause === undefined ? undefined : { cause };
    const text = this.node
      ? `template: ${errorLocation(this.node)}: executing ${JSON.stringify(name)} at <${str(this.node)}>: ${msg}`
      : `template: ${name}: ${msg}`;
    if (!(cause instanceof Error)) throw new TemplateExecError(text, opts);
    // with a cause, msg is "error calling F: " + the cause's message. Deep in a runaway recursion
    // every level wraps the error once more: those wrappers skip the JS stack trace (the innermost
    // error has it), which would cost more than all the rest of the unwinding.
    if (this.ctx.depth < 64) throw wrapping(new TemplateExecError(text, opts));
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      throw wrapping(new TemplateExecError(text, opts));
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
  at(n: Node): void {
    this.node = n;
  }

  // ---- output ----
  write(s: string): void {
    this.out += s;
    const b = this.ctx.budget;
    b.used += s.length;
    const max = this.ctx.opts.maxOutputLength ?? 100 * 1024 * 1024;
    if (b.used > max) throw new TemplateLimitError(`template: ${this.tmplName}: output exceeds the limit of ${max} characters`);
  }

  // ---- variables ----
  varValue(name: string): Var {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) return this.vars[i];
    this.errorf(`undefined variable: ${name}`);
  }
  setVar(name: string, value: unknown): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i].name === name) {
        this.vars[i] = { name, value, boxed: false };
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  // ---- walking ----
  walk(dot: unknown, dotBoxed: boolean, node: Node): void {
    this.at(node);
    switch (node.kind) {
      case 'action': {
        const val = this.evalPipeline(dot, dotBoxed, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return;
      }
      case 'text':
        this.write(node.text);
        return;
      case 'list':
        for (const n of node.nodes) this.walk(dot, dotBoxed, n);
        return;
      case 'if':
      case 'with':
        return this.walkIfOrWith(dot, dotBoxed, node);
      case 'range':
        return this.walkRange(dot, dotBoxed, node);
      case 'template':
        // only reached for trees that markYields did not see: run the call on a nested driver
        return drive(this.walkTemplateG(dot, dotBoxed, node));
      case 'break':
        throw BREAK;
      case 'continue':
        throw CONTINUE;
      case 'comment':
        return;
      default:
        this.errorf(`unknown node: ${str(node)}`);
    }
  }

  /** `walk` for nodes that may call a template. */
  *walkG(dot: unknown, dotBoxed: boolean, node: Node): ExecGen<void> {
    if (!node.yields) return this.walk(dot, dotBoxed, node);
    this.at(node);
    switch (node.kind) {
      case 'action': {
        const val = yield* this.evalPipelineG(dot, dotBoxed, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return;
      }
      case 'list':
        for (const n of node.nodes) {
          if (n.yields) yield* this.walkG(dot, dotBoxed, n);
          else this.walk(dot, dotBoxed, n);
        }
        return;
      case 'if':
      case 'with':
        return yield* this.walkIfOrWithG(dot, dotBoxed, node);
      case 'range':
        return yield* this.walkRangeG(dot, dotBoxed, node);
      case 'template':
        return yield* this.walkTemplateG(dot, dotBoxed, node);
    }
    return this.walk(dot, dotBoxed, node);
  }

  private walkIfOrWith(dot: unknown, dotBoxed: boolean, node: IfNode): void {
    const mark = this.vars.length;
    try {
      const val = this.evalPipeline(dot, dotBoxed, node.pipe);
      if (truth(val)) {
        if (node.kind === 'with') this.walk(val, false, node.list);
        else this.walk(dot, dotBoxed, node.list);
      } else if (node.elseList) this.walk(dot, dotBoxed, node.elseList);
    } finally {
      this.vars.length = mark;
    }
  }

  private *walkIfOrWithG(dot: unknown, dotBoxed: boolean, node: IfNode): ExecGen<void> {
    const mark = this.vars.length;
    try {
      const val = node.pipe.yields ? yield* this.evalPipelineG(dot, dotBoxed, node.pipe) : this.evalPipeline(dot, dotBoxed, node.pipe);
      if (truth(val)) {
        if (node.kind === 'with') yield* this.walkG(val, false, node.list);
        else yield* this.walkG(dot, dotBoxed, node.list);
      } else if (node.elseList) yield* this.walkG(dot, dotBoxed, node.elseList);
    } finally {
      this.vars.length = mark;
    }
  }

  /** What `range` iterates over (null: nothing, then the else branch runs). */
  private rangePlan(val: unknown, r: IfNode): RangePlan | null {
    if (Array.isArray(val)) {
      if (val.length === 0) return null;
      return { len: val.length, boxed: !taggedType(val), index: (i) => BigInt(i), elem: (i) => val[i] };
    }
    if (isMap(val)) {
      const keys = sortedKeys(val);
      if (keys.length === 0) return null;
      return { len: keys.length, boxed: !taggedType(val), index: (i) => keys[i], elem: (i) => val[keys[i]] };
    }
    if (typeof val === 'bigint' || val instanceof GoInt) {
      // Go 1.24: an integer n ranges over 0..n-1, with one variable at most
      if (r.pipe.decl.length > 1) this.errorf(`can't use ${formatValue(val, 'v')} to iterate over more than one variable`);
      const n = typeof val === 'bigint' ? val : val.v;
      if (n <= 0n) return null;
      const elem = typeof val === 'bigint' ? (i: number) => BigInt(i) : (i: number) => new GoInt(val.type, BigInt(i));
      return { len: Number(n), boxed: false, index: (i) => BigInt(i), elem };
    }
    if (isNil(val)) return null; // nothing to range over; not an error
    this.errorf(`range can't iterate over ${formatValue(val, 'v')}`);
  }

  /** Sets the range variables for one iteration. */
  private bindRange(r: IfNode, index: unknown, elem: unknown, elemBoxed: boolean): void {
    const decl = r.pipe.decl;
    if (decl.length === 0) return;
    const vars = this.vars;
    if (r.pipe.isAssign) {
      if (decl.length > 1) {
        this.setVar(decl[0].ident[0], index);
        this.setVar(decl[1].ident[0], elem);
      } else this.setVar(decl[0].ident[0], elem);
      return;
    }
    vars[vars.length - 1] = { name: vars[vars.length - 1].name, value: elem, boxed: elemBoxed };
    if (decl.length > 1) vars[vars.length - 2] = { name: vars[vars.length - 2].name, value: index, boxed: false };
  }

  private walkRange(dot: unknown, dotBoxed: boolean, r: IfNode): void {
    this.at(r);
    const mark0 = this.vars.length;
    try {
      const val = this.evalPipeline(dot, dotBoxed, r.pipe);
      const plan = this.rangePlan(val, r);
      if (plan) {
        const mark = this.vars.length;
        for (let i = 0; i < plan.len; i++) {
          const elem = plan.elem(i);
          this.bindRange(r, plan.index(i), elem, plan.boxed);
          try {
            this.walk(elem, plan.boxed, r.list);
          } catch (e) {
            if (e === CONTINUE) continue;
            if (e === BREAK) break;
            throw e;
          } finally {
            this.vars.length = mark;
          }
        }
        return;
      }
      if (r.elseList) this.walk(dot, dotBoxed, r.elseList);
    } finally {
      this.vars.length = mark0;
    }
  }

  private *walkRangeG(dot: unknown, dotBoxed: boolean, r: IfNode): ExecGen<void> {
    this.at(r);
    const mark0 = this.vars.length;
    try {
      const val = r.pipe.yields ? yield* this.evalPipelineG(dot, dotBoxed, r.pipe) : this.evalPipeline(dot, dotBoxed, r.pipe);
      const plan = this.rangePlan(val, r);
      if (plan) {
        const mark = this.vars.length;
        const body = r.list;
        for (let i = 0; i < plan.len; i++) {
          const elem = plan.elem(i);
          this.bindRange(r, plan.index(i), elem, plan.boxed);
          try {
            if (body.yields) yield* this.walkG(elem, plan.boxed, body);
            else this.walk(elem, plan.boxed, body);
          } catch (e) {
            if (e === CONTINUE) continue;
            if (e === BREAK) break;
            throw e;
          } finally {
            this.vars.length = mark;
          }
        }
        return;
      }
      if (r.elseList) yield* this.walkG(dot, dotBoxed, r.elseList);
    } finally {
      this.vars.length = mark0;
    }
  }

  private *walkTemplateG(dot: unknown, dotBoxed: boolean, t: TemplateNode): ExecGen<void> {
    this.at(t);
    const tree = this.ctx.set.lookup(t.name);
    if (!tree) this.errorf(`template ${JSON.stringify(t.name)} not defined`);
    const max = this.ctx.opts.maxDepth ?? 100000;
    if (this.ctx.depth >= max) this.errorf(`exceeded maximum template depth (${max})`);
    let newDot: unknown = null;
    if (t.pipe) newDot = t.pipe.yields ? yield* this.evalPipelineG(dot, dotBoxed, t.pipe) : this.evalPipeline(dot, dotBoxed, t.pipe);
    const out = (yield new ExecCall(this.ctx, tree, t.name, newDot)) as string;
    this.write(out);
    this.ctx.budget.used -= out.length; // counted twice otherwise
  }

  private printValue(n: Node, v: unknown): void {
    this.at(n);
    if (isNil(v)) {
      this.write('<no value>');
      return;
    }
    if (typeof v === 'function') this.errorf(`can't print ${str(n)} of type ${typeName(v)}`);
    this.write(typeof v === 'string' ? v : formatValue(v, 'v'));
  }

  // ---- evaluation ----
  evalPipeline(dot: unknown, dotBoxed: boolean, pipe: PipeNode): unknown {
    this.at(pipe);
    let value: unknown = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, dotBoxed, cmd, value);
    }
    this.declare(pipe, value);
    return value;
  }

  *evalPipelineG(dot: unknown, dotBoxed: boolean, pipe: PipeNode): ExecGen<unknown> {
    this.at(pipe);
    let value: unknown = MISSING;
    for (const cmd of pipe.cmds) {
      value = cmd.yields ? yield* this.evalCommandG(dot, dotBoxed, cmd, value) : this.evalCommand(dot, dotBoxed, cmd, value);
    }
    this.declare(pipe, value);
    return value;
  }

  /** The pipeline's `$x :=` / `$x =`. */
  private declare(pipe: PipeNode, value: unknown): void {
    for (const v of pipe.decl) {
      if (pipe.isAssign) this.setVar(v.ident[0], value);
      else this.vars.push({ name: v.ident[0], value, boxed: false });
    }
  }

  private notAFunction(args: ArgNode[], final: Final): void {
    if (args.length > 1 || final !== MISSING) this.errorf(`can't give argument to non-function ${str(args[0])}`);
  }

  private evalCommand(dot: unknown, dotBoxed: boolean, cmd: CommandNode, final: Final): unknown {
    const first = cmd.args[0];
    switch (first.kind) {
      case 'field':
        return this.evalFieldNode(dot, dotBoxed, first, cmd.args, final);
      case 'chain':
        return this.evalChainNode(dot, dotBoxed, first, cmd.args, final);
      case 'identifier':
        return this.evalFunction(dot, dotBoxed, first, cmd, cmd.args, final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, dotBoxed, first);
      case 'variable':
        return this.evalVariableNode(dot, dotBoxed, first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.kind) {
      case 'bool':
        return first.value;
      case 'dot':
        return dot;
      case 'nil':
        this.errorf('nil is not a command');
      // eslint-disable-next-line no-fallthrough
      case 'number':
        return this.idealConstant(first);
      case 'string':
        return first.text;
    }
  }

  private *evalCommandG(dot: unknown, dotBoxed: boolean, cmd: CommandNode, final: Final): ExecGen<unknown> {
    const first = cmd.args[0];
    switch (first.kind) {
      case 'field':
        this.at(first);
        return yield* this.evalFieldChainG(dot, dotBoxed, dot, dotBoxed, first, first.ident, cmd.args, final);
      case 'chain':
        return yield* this.evalChainNodeG(dot, dotBoxed, first, cmd.args, final);
      case 'identifier':
        return yield* this.evalFunctionG(dot, dotBoxed, first, cmd, cmd.args, final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return yield* this.evalPipelineG(dot, dotBoxed, first);
      case 'variable':
        return yield* this.evalVariableNodeG(dot, dotBoxed, first, cmd.args, final);
    }
    return this.evalCommand(dot, dotBoxed, cmd, final);
  }

  idealConstant(c: NumberNode): unknown {
    this.at(c);
    if (c.isComplex) return new GoComplex(c.complex![0], c.complex![1]);
    if (c.isFloat && !/^[+-]?0[xX][0-9a-fA-F_]*$/.test(c.text) && c.text[0] !== "'" && /[.eEpP]/.test(c.text)) {
      return c.float;
    }
    if (c.isInt) return c.int;
    if (c.isUint) this.errorf(`${c.text} overflows int`);
    return null;
  }

  private evalFieldNode(dot: unknown, dotBoxed: boolean, field: FieldNode, args: ArgNode[] | null, final: Final): unknown {
    this.at(field);
    return this.evalFieldChain(dot, dotBoxed, dot, dotBoxed, field, field.ident, args, final);
  }

  private evalChainNode(dot: unknown, dotBoxed: boolean, chain: ChainNode, args: ArgNode[] | null, final: Final): unknown {
    this.at(chain);
    if (chain.node.kind === 'nil') this.errorf(`indirection through explicit nil in ${str(chain)}`);
    const pipe = this.evalArg(dot, dotBoxed, 'interface {}', chain.node);
    return this.evalFieldChain(dot, dotBoxed, pipe, this.lastBoxed, chain, chain.field, args, final);
  }

  private *evalChainNodeG(dot: unknown, dotBoxed: boolean, chain: ChainNode, args: ArgNode[] | null, final: Final): ExecGen<unknown> {
    this.at(chain);
    if (chain.node.kind === 'nil') this.errorf(`indirection through explicit nil in ${str(chain)}`);
    const pipe = chain.node.yields ? yield* this.evalArgG(dot, dotBoxed, 'interface {}', chain.node) : this.evalArg(dot, dotBoxed, 'interface {}', chain.node);
    return yield* this.evalFieldChainG(dot, dotBoxed, pipe, this.lastBoxed, chain, chain.field, args, final);
  }

  private evalVariableNode(dot: unknown, dotBoxed: boolean, variable: VariableNode, args: ArgNode[] | null, final: Final): unknown {
    this.at(variable);
    const v = this.varValue(variable.ident[0]);
    if (variable.ident.length === 1) {
      if (args) this.notAFunction(args, final);
      this.lastBoxed = v.boxed;
      return v.value;
    }
    return this.evalFieldChain(dot, dotBoxed, v.value, v.boxed, variable, variable.ident.slice(1), args, final);
  }

  private *evalVariableNodeG(dot: unknown, dotBoxed: boolean, variable: VariableNode, args: ArgNode[] | null, final: Final): ExecGen<unknown> {
    if (variable.ident.length === 1) return this.evalVariableNode(dot, dotBoxed, variable, args, final);
    this.at(variable);
    const v = this.varValue(variable.ident[0]);
    return yield* this.evalFieldChainG(dot, dotBoxed, v.value, v.boxed, variable, variable.ident.slice(1), args, final);
  }

  private evalFieldChain(
    dot: unknown,
    dotBoxed: boolean,
    receiver: unknown,
    recvBoxed: boolean,
    node: Node,
    ident: string[],
    args: ArgNode[] | null,
    final: Final,
  ): unknown {
    const n = ident.length;
    let r = receiver;
    let b = recvBoxed;
    for (let i = 0; i < n - 1; i++) {
      r = this.evalField(dot, dotBoxed, ident[i], node, null, MISSING, r, b);
      b = this.lastBoxed;
    }
    return this.evalField(dot, dotBoxed, ident[n - 1], node, args, final, r, b);
  }

  private *evalFieldChainG(
    dot: unknown,
    dotBoxed: boolean,
    receiver: unknown,
    recvBoxed: boolean,
    node: Node,
    ident: string[],
    args: ArgNode[] | null,
    final: Final,
  ): ExecGen<unknown> {
    const n = ident.length;
    let r = receiver;
    let b = recvBoxed;
    for (let i = 0; i < n - 1; i++) {
      r = this.evalField(dot, dotBoxed, ident[i], node, null, MISSING, r, b);
      b = this.lastBoxed;
    }
    const v = this.fieldValue(ident[n - 1], args, final, r, b);
    return v instanceof Method ? yield* this.evalCallG(dot, dotBoxed, v, false, node, ident[n - 1], args, final) : v;
  }

  private evalField(
    dot: unknown,
    dotBoxed: boolean,
    fieldName: string,
    node: Node,
    args: ArgNode[] | null,
    final: Final,
    receiver: unknown,
    boxed: boolean,
  ): unknown {
    const v = this.fieldValue(fieldName, args, final, receiver, boxed);
    return v instanceof Method ? this.evalCall(dot, dotBoxed, v, false, node, fieldName, args, final) : v;
  }

  /** The value of field `fieldName` of `receiver`, or the Method to call when it is a function. */
  private fieldValue(fieldName: string, args: ArgNode[] | null, final: Final, receiver: unknown, boxed: boolean): unknown {
    if (isNil(receiver)) {
      if (!boxed) {
        if (this.ctx.opts.missingKey === 'error') this.errorf(`nil data; no entry for key ${JSON.stringify(fieldName)}`);
        this.lastBoxed = false;
        return null;
      }
      this.errorf(`nil pointer evaluating interface {}.${fieldName}`);
    }
    const typ = boxed ? 'interface {}' : typeName(receiver);
    const hasArgs = (args !== null && args.length > 1) || final !== MISSING;
    if (typeof receiver === 'object' && !Array.isArray(receiver)) {
      const m = isMap(receiver);
      const prop = m ? (Object.prototype.hasOwnProperty.call(receiver, fieldName) ? (receiver as any)[fieldName] : undefined) : structMember(receiver as object, fieldName);
      if (typeof prop === 'function') return new Method((a) => prop.apply(receiver, a));
      if (m) {
        if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
        const tt = taggedType(receiver);
        this.lastBoxed = !tt;
        if (prop === undefined && !Object.prototype.hasOwnProperty.call(receiver, fieldName)) {
          const mk = this.ctx.opts.missingKey;
          if (mk === 'error') this.errorf(`map has no entry for key ${JSON.stringify(fieldName)}`);
          if (tt === 'map[string]string') {
            this.lastBoxed = false;
            return mk === 'zero' ? '' : null;
          }
          return null;
        }
        return prop;
      }
      if (isStruct(receiver) && prop !== undefined) {
        if (hasArgs) this.errorf(`${fieldName} has arguments but cannot be invoked as function`);
        this.lastBoxed = false;
        return prop;
      }
    }
    this.errorf(`can't evaluate field ${fieldName} in type ${typ}`);
  }

  private evalFunction(dot: unknown, dotBoxed: boolean, node: IdentifierNode, cmd: Node, args: ArgNode[] | null, final: Final): unknown {
    this.at(node);
    const name = node.ident;
    const def = this.ctx.set.funcs.get(name);
    if (!def) this.errorf(`${JSON.stringify(name)} is not a defined function`);
    return this.evalCall(dot, dotBoxed, def, !!def.builtin, cmd, name, args, final);
  }

  private *evalFunctionG(dot: unknown, dotBoxed: boolean, node: IdentifierNode, cmd: Node, args: ArgNode[] | null, final: Final): ExecGen<unknown> {
    this.at(node);
    const name = node.ident;
    const def = this.ctx.set.funcs.get(name);
    if (!def) this.errorf(`${JSON.stringify(name)} is not a defined function`);
    return yield* this.evalCallG(dot, dotBoxed, def, !!def.builtin, cmd, name, args, final);
  }

  /** Checks the number of arguments; returns the number of fixed (non-variadic) parameters. */
  private arity(def: FuncDef, name: string, args: ArgNode[], final: Final): number {
    const params = def.params;
    const numIn = final !== MISSING ? args.length + 1 : args.length;
    if (def.variadic !== undefined) {
      if (numIn < params.length) this.errorf(`wrong number of args for ${name}: want at least ${params.length} got ${args.length}`);
      return params.length;
    }
    if (numIn !== params.length) this.errorf(`wrong number of args for ${name}: want ${params.length} got ${numIn}`);
    return args.length;
  }

  /** `len` of a missing value is reflect's panic, as in Go. */
  private lenOfNothing(node: Node): never {
    this.at(node);
    const e = new Error('reflect: call of reflect.Value.Type on zero Value');
    this.errorf(`error calling len: ${e.message}`, e);
  }

  /** Adds the piped-in value (converted to its parameter's type) and `call`'s function name. */
  private finishArgs(def: FuncDef, isBuiltin: boolean, name: string, args: ArgNode[], argv: unknown[], final: Final, numFixed: number): void {
    if (final !== MISSING) {
      const params = def.params;
      let t = params[params.length - 1];
      if (def.variadic !== undefined) t = argv.length - 1 < numFixed ? params[argv.length - 1] : def.variadic;
      argv[argv.length - 1] = this.validateType(final, false, t);
    }
    if (isBuiltin && name === 'call' && args.length > 0) argv.splice(1, 0, str(args[0]));
  }

  private evalCall(
    dot: unknown,
    dotBoxed: boolean,
    def: FuncDef,
    isBuiltin: boolean,
    node: Node,
    name: string,
    argNodes: ArgNode[] | null,
    final: Final,
  ): unknown {
    const args = argNodes && argNodes.length > 1 ? argNodes.slice(1) : NO_ARGS;
    const numFixed = this.arity(def, name, args, final);
    if (isBuiltin && (name === 'and' || name === 'or')) {
      let v: unknown = null;
      for (const a of args) {
        v = this.evalArg(dot, dotBoxed, 'reflect.Value', a);
        if (truth(v) === (name === 'or')) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }
    if (isBuiltin && name === 'len' && args.length === 1) {
      const v = this.evalArg(dot, dotBoxed, 'reflect.Value', args[0]);
      if (isNil(v) && !this.lastBoxed) this.lenOfNothing(node);
      return this.callFn(def, [v], node, name);
    }
    if (isBuiltin && name === 'len' && final !== MISSING && isNil(final)) this.lenOfNothing(node);
    const argv: unknown[] = new Array(final !== MISSING ? args.length + 1 : args.length);
    let i = 0;
    for (; i < numFixed && i < args.length; i++) argv[i] = this.evalArg(dot, dotBoxed, def.params[i], args[i]);
    if (def.variadic !== undefined) {
      const t = def.variadic;
      for (; i < args.length; i++) argv[i] = this.evalArg(dot, dotBoxed, t, args[i]);
    }
    this.finishArgs(def, isBuiltin, name, args, argv, final, numFixed);
    return this.callFn(def, argv, node, name);
  }

  private *evalCallG(
    dot: unknown,
    dotBoxed: boolean,
    def: FuncDef,
    isBuiltin: boolean,
    node: Node,
    name: string,
    argNodes: ArgNode[] | null,
    final: Final,
  ): ExecGen<unknown> {
    const args = argNodes && argNodes.length > 1 ? argNodes.slice(1) : NO_ARGS;
    const numFixed = this.arity(def, name, args, final);
    if (isBuiltin && (name === 'and' || name === 'or')) {
      let v: unknown = null;
      for (const a of args) {
        v = a.yields ? yield* this.evalArgG(dot, dotBoxed, 'reflect.Value', a) : this.evalArg(dot, dotBoxed, 'reflect.Value', a);
        if (truth(v) === (name === 'or')) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }
    if (isBuiltin && name === 'len' && args.length === 1) {
      const a = args[0];
      const v = a.yields ? yield* this.evalArgG(dot, dotBoxed, 'reflect.Value', a) : this.evalArg(dot, dotBoxed, 'reflect.Value', a);
      if (isNil(v) && !this.lastBoxed) this.lenOfNothing(node);
      return this.callFn(def, [v], node, name);
    }
    if (isBuiltin && name === 'len' && final !== MISSING && isNil(final)) this.lenOfNothing(node);
    const argv: unknown[] = new Array(final !== MISSING ? args.length + 1 : args.length);
    let i = 0;
    for (; i < args.length; i++) {
      const t = i < numFixed ? def.params[i] : def.variadic!;
      const a = args[i];
      argv[i] = a.yields ? yield* this.evalArgG(dot, dotBoxed, t, a) : this.evalArg(dot, dotBoxed, t, a);
    }
    this.finishArgs(def, isBuiltin, name, args, argv, final, numFixed);
    if (!def.gen) return this.callFn(def, argv, node, name);
    let result: unknown;
    try {
      result = yield* def.gen(argv, this.ctx);
    } catch (e) {
      this.callFailed(e, node, name);
    }
    this.lastBoxed = false;
    return result;
  }

  private callFn(def: FuncDef, argv: unknown[], node: Node, name: string): unknown {
    let result: unknown;
    try {
      result = def.fn(argv, this.ctx);
    } catch (e) {
      this.callFailed(e, node, name);
    }
    this.lastBoxed = false;
    return result;
  }

  /** A function's error, as Go reports it: "error calling NAME: ...". */
  private callFailed(e: unknown, node: Node, name: string): never {
    if (e instanceof TemplateLimitError || isStackOverflow(e)) throw e;
    this.at(node);
    this.errorf(`error calling ${name}: ${e instanceof Error ? e.message : String(e)}`, e);
  }

  /** `evalArg` for arguments that may call a template (pipelines, functions, chains). */
  private *evalArgG(dot: unknown, dotBoxed: boolean, typ: string, n: ArgNode): ExecGen<unknown> {
    this.at(n);
    let v: unknown;
    switch (n.kind) {
      case 'pipe':
        v = yield* this.evalPipelineG(dot, dotBoxed, n);
        this.lastBoxed = false;
        return this.validateType(v, false, typ);
      case 'identifier':
        v = yield* this.evalFunctionG(dot, dotBoxed, n, n, null, MISSING);
        return this.validateType(v, false, typ);
      case 'chain':
        v = yield* this.evalChainNodeG(dot, dotBoxed, n, null, MISSING);
        return this.validateType(v, this.lastBoxed, typ);
    }
    return this.evalArg(dot, dotBoxed, typ, n);
  }

  evalArg(dot: unknown, dotBoxed: boolean, typ: string, n: ArgNode): unknown {
    this.at(n);
    let v: unknown;
    switch (n.kind) {
      case 'dot':
        return this.validateType(dot, dotBoxed, typ);
      case 'nil':
        if (canBeNil(typ)) return null;
        this.errorf(`cannot assign nil to ${typ}`);
      // eslint-disable-next-line no-fallthrough
      case 'field':
        v = this.evalFieldNode(dot, dotBoxed, n, [n], MISSING);
        return this.validateType(v, this.lastBoxed, typ);
      case 'variable':
        v = this.evalVariableNode(dot, dotBoxed, n, null, MISSING);
        return this.validateType(v, this.lastBoxed, typ);
      case 'pipe':
        v = this.evalPipeline(dot, dotBoxed, n);
        this.lastBoxed = false;
        return this.validateType(v, false, typ);
      case 'identifier':
        v = this.evalFunction(dot, dotBoxed, n, n, null, MISSING);
        return this.validateType(v, false, typ);
      case 'chain':
        v = this.evalChainNode(dot, dotBoxed, n, null, MISSING);
        return this.validateType(v, this.lastBoxed, typ);
    }
    this.lastBoxed = false;
    switch (typ) {
      case 'bool':
        if (n.kind === 'bool') return n.value;
        this.errorf(`expected bool; found ${str(n)}`);
      // eslint-disable-next-line no-fallthrough
      case 'float64':
      case 'float32':
        if (n.kind === 'number' && n.isFloat) return n.float;
        this.errorf(`expected float; found ${str(n)}`);
      // eslint-disable-next-line no-fallthrough
      case 'int':
      case 'int8':
      case 'int16':
      case 'int32':
      case 'int64':
        if (n.kind === 'number' && n.isInt) return typ === 'int' ? n.int : new GoInt(typ, n.int);
        this.errorf(`expected integer; found ${str(n)}`);
      // eslint-disable-next-line no-fallthrough
      case 'uint':
      case 'uint8':
      case 'uint16':
      case 'uint32':
      case 'uint64':
        if (n.kind === 'number' && n.isUint) return new GoInt(typ, n.uint);
        this.errorf(`expected unsigned integer; found ${str(n)}`);
      // eslint-disable-next-line no-fallthrough
      case 'string':
        if (n.kind === 'string') return n.text;
        this.errorf(`expected string; found ${str(n)}`);
      // eslint-disable-next-line no-fallthrough
      case 'interface {}':
      case 'reflect.Value':
        switch (n.kind) {
          case 'bool':
            return n.value;
          case 'number':
            return this.idealConstant(n);
          case 'string':
            return n.text;
        }
    }
    this.errorf(`can't handle ${str(n)} for arg of type ${typ}`);
  }

  validateType(value: unknown, boxed: boolean, typ: string): unknown {
    if (typ === 'interface {}' || typ === 'reflect.Value') return isNil(value) ? null : value;
    if (isNil(value)) {
      if (boxed) this.errorf(`wrong type for value; expected ${typ}; got interface {}`);
      if (canBeNil(typ)) return null;
      this.errorf(`invalid value; expected ${typ}`);
    }
    const actual = typeName(value);
    if (actual === typ) return value;
    if (typ === 'time.Time' && actual === 'time.Time') return value;
    this.errorf(`wrong type for value; expected ${typ}; got ${actual}`);
  }
}

const BUILTIN_PROTOS = new Set<object>([Object.prototype, Function.prototype, Array.prototype]);

/**
 * A field or method of a struct-like object: own properties and members of the object's own
 * classes; never JS built-ins (constructor, __proto__, toString ...), so templates cannot reach them.
 */
function structMember(obj: object, name: string): unknown {
  if (name === 'constructor' || name === '__proto__' || name === 'prototype') return undefined;
  let o: object | null = obj;
  while (o !== null && !BUILTIN_PROTOS.has(o)) {
    if (Object.prototype.hasOwnProperty.call(o, name)) return (obj as any)[name];
    o = Object.getPrototypeOf(o);
  }
  return undefined;
}

/** A JS stack overflow (V8 reports it as a RangeError, or as a SyntaxError from a regexp compile). */
export function isStackOverflow(e: unknown): boolean {
  // (only these two classes: reading the message of a long wrapped error would flatten it)
  return (e instanceof RangeError || e instanceof SyntaxError) && typeof e.message === 'string' && e.message.includes('call stack size');
}

function canBeNil(typ: string): boolean {
  return typ.startsWith('map[') || typ.startsWith('[]') || typ.startsWith('*') || typ === 'interface {}' || typ === 'reflect.Value' || typ.startsWith('func');
}

/**
 * The context of one execution: `parent` (a running execution, for `tpl`) shares its depth, include
 * counters and output budget.
 */
export function newExecContext(set: TemplateLookup, opts: ExecOptions, parent?: ExecContext): ExecContext {
  const ctx: ExecContext = {
    set,
    opts,
    depth: parent ? parent.depth : 0,
    included: parent ? parent.included : new Map(),
    budget: parent ? parent.budget : { used: 0 },
    rootName: set.rootName,
    call(name: string, data: unknown): ExecCall {
      const tree = set.lookup(name);
      if (!tree) throw new TemplateExecError(`template: no template ${JSON.stringify(name)} associated with template ${JSON.stringify(set.rootName)}`);
      const max = opts.maxDepth ?? 100000;
      if (ctx.depth >= max) throw new TemplateExecError(`template: ${name}: exceeded maximum template depth (${max})`);
      return new ExecCall(ctx, tree, name, data);
    },
    execute(name: string, data: unknown): string {
      return drive(callOnce(ctx.call(name, data)));
    },
  };
  return ctx;
}

function* callOnce(call: ExecCall): ExecGen<string> {
  return (yield call) as string;
}

/** Runs a tree to a string with a fresh state; template calls are yielded to the driver. */
function* executeTree(ctx: ExecContext, tree: Tree, name: string, data: unknown): ExecGen<string> {
  const st = new State(ctx, name, data);
  try {
    if (tree.root.yields) yield* st.walkG(data, false, tree.root);
    else st.walk(data, false, tree.root);
  } catch (e) {
    if (e === BREAK || e === CONTINUE) return st.out;
    throw e;
  }
  return st.out;
}

/**
 * Runs `root` to its result. Every ExecCall it (or a template it runs) yields is run here as a new
 * entry of an explicit stack, and its output (or error) is sent back to the caller; the JS stack
 * holds only the innermost template's frames. Each running call counts in its context's `depth`.
 */
export function drive<T>(root: ExecGen<T>): T {
  const gens: ExecGen<unknown>[] = [root];
  const ctxs: (ExecContext | null)[] = [null];
  let value: unknown;
  let error: unknown;
  let failing = false;
  for (;;) {
    const g = gens[gens.length - 1];
    let r: IteratorResult<ExecCall, unknown>;
    try {
      r = failing ? g.throw(error) : g.next(value);
    } catch (e) {
      gens.pop();
      const c = ctxs.pop();
      if (c) c.depth--;
      if (gens.length === 0) throw e;
      failing = true;
      error = e;
      value = undefined;
      continue;
    }
    failing = false;
    error = undefined;
    if (r.done) {
      gens.pop();
      const c = ctxs.pop();
      if (c) c.depth--;
      if (gens.length === 0) return r.value as T;
      value = r.value;
      continue;
    }
    const call = r.value;
    call.ctx.depth++;
    gens.push(executeTree(call.ctx, call.tree, call.name, call.data));
    ctxs.push(call.ctx);
    value = undefined;
  }
}

/**
 * Marks every node of a parsed tree with `yields`: whether running it can start a template
 * ({{template}}, or a function with a `gen`, such as include and tpl). Returns the root's mark.
 */
export function markYields(n: Node, funcs: FuncMap): boolean {
  let y = false;
  switch (n.kind) {
    case 'template':
      if (n.pipe) markYields(n.pipe, funcs);
      y = true;
      break;
    case 'identifier':
      y = funcs.get(n.ident)?.gen !== undefined;
      break;
    case 'chain':
      y = markYields(n.node, funcs);
      break;
    case 'command':
      for (const a of n.args) if (markYields(a, funcs)) y = true;
      break;
    case 'pipe':
      for (const c of n.cmds) if (markYields(c, funcs)) y = true;
      break;
    case 'action':
      y = markYields(n.pipe, funcs);
      break;
    case 'list':
      for (const c of n.nodes) if (markYields(c, funcs)) y = true;
      break;
    case 'if':
    case 'with':
    case 'range':
      if (markYields(n.pipe, funcs)) y = true;
      if (markYields(n.list, funcs)) y = true;
      if (n.elseList && markYields(n.elseList, funcs)) y = true;
      break;
  }
  n.yields = y;
  return y;
}
