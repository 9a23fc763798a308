/**
 * Executor of parsed templates (the behaviour of Go's text/template/exec.go, written anew), with Go's
 * error wording: `template: NAME:LINE:COL: executing "TMPL" at <NODE>: MESSAGE`.
 *
 * "Boxed" values: Go distinguishes a value read out of a map[string]interface{} (static type
 * interface{}) from a concrete one; it shows in messages ("can't evaluate field x in type
 * interface {}", "nil pointer evaluating interface {}.x") and in whether a missing value is an error.
 * The executor tracks this with `lastBoxed`.
 */
import type {
  ArgNode,
  ChainNode,
  CommandNode,
  FieldNode,
  IdentifierNode,
  IfNode,
  ListNode,
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
}

export type FuncMap = Map<string, FuncDef>;

export interface ExecOptions {
  /** Go's missingkey option: 'zero' (Helm), 'default'/'invalid' (Go's default) or 'error'. */
  missingKey?: 'zero' | 'default' | 'invalid' | 'error';
  /** Fail when the output (of one execution) grows beyond this many characters. Default 100 MiB. */
  maxOutputLength?: number;
  /** Maximum nesting of {{template}}/include calls. Default 100000 (Go's); the JS stack ends deeper nesting first. */
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
  execute(name: string, data: unknown): string;
  rootName: string;
}

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

/** Byte-based line:col of a node, like Go's ErrorContext. */
export function errorLocation(n: Node): string {
  const text = n.tree.text;
  let prefix: string;
  if (/[^\x00-\x7f]/.test(text)) {
    prefix = Buffer.from(utf8(text).subarray(0, n.pos)).toString('utf8');
  } else prefix = text.slice(0, n.pos);
  const nl = prefix.lastIndexOf('\n');
  const col = nl < 0 ? n.pos : n.pos - Buffer.byteLength(prefix.slice(0, nl + 1));
  let line = 1;
  for (let i = 0; i < prefix.length; i++) if (prefix.charCodeAt(i) === 10) line++;
  return `${n.tree.parseName}:${line}:${col}`;
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
    if (!this.node) throw new TemplateExecError(`template: ${name}: ${msg}`, opts);
    throw new TemplateExecError(`template: ${errorLocation(this.node)}: executing ${JSON.stringify(name)} at <${str(this.node)}>: ${msg}`, opts);
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
        return this.walkTemplate(dot, dotBoxed, node);
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

  private walkRange(dot: unknown, dotBoxed: boolean, r: IfNode): void {
    this.at(r);
    const mark0 = this.vars.length;
    try {
      const val = this.evalPipeline(dot, dotBoxed, r.pipe);
      const mark = this.vars.length;
      const decl = r.pipe.decl;
      const one = (index: unknown, elem: unknown, elemBoxed: boolean): boolean => {
        if (decl.length > 0) {
          if (r.pipe.isAssign) {
            if (decl.length > 1) this.setVar(decl[0].ident[0], index);
            else this.setVar(decl[0].ident[0], elem);
          } else {
            this.vars[this.vars.length - 1] = { name: this.vars[this.vars.length - 1].name, value: elem, boxed: elemBoxed };
          }
        }
        if (decl.length > 1) {
          if (r.pipe.isAssign) this.setVar(decl[1].ident[0], elem);
          else this.vars[this.vars.length - 2] = { name: this.vars[this.vars.length - 2].name, value: index, boxed: false };
        }
        try {
          this.walk(elem, elemBoxed, r.list);
        } catch (e) {
          if (e === CONTINUE) return true;
          if (e === BREAK) return false;
          throw e;
        } finally {
          this.vars.length = mark;
        }
        return true;
      };
      if (Array.isArray(val)) {
        if (val.length > 0) {
          const boxed = !taggedType(val);
          for (let i = 0; i < val.length; i++) if (!one(BigInt(i), val[i], boxed)) break;
          return;
        }
      } else if (isMap(val)) {
        const keys = sortedKeys(val);
        if (keys.length > 0) {
          const boxed = !taggedType(val);
          for (const k of keys) if (!one(k, val[k], boxed)) break;
          return;
        }
      } else if (typeof val === 'bigint' || val instanceof GoInt) {
        // Go 1.24: an integer n ranges over 0..n-1, with one variable at most
        if (decl.length > 1) this.errorf(`can't use ${formatValue(val, 'v')} to iterate over more than one variable`);
        const n = typeof val === 'bigint' ? val : val.v;
        if (n > 0n) {
          for (let i = 0n; i < n; i++) if (!one(i, typeof val === 'bigint' ? i : new GoInt(val.type, i), false)) break;
          return;
        }
      } else if (isNil(val)) {
        // nothing to range over; not an error
      } else {
        this.errorf(`range can't iterate over ${formatValue(val, 'v')}`);
      }
      if (r.elseList) this.walk(dot, dotBoxed, r.elseList);
    } finally {
      this.vars.length = mark0;
    }
  }

  private walkTemplate(dot: unknown, dotBoxed: boolean, t: TemplateNode): void {
    this.at(t);
    const tree = this.ctx.set.lookup(t.name);
    if (!tree) this.errorf(`template ${JSON.stringify(t.name)} not defined`);
    const max = this.ctx.opts.maxDepth ?? 100000;
    const depthError = (): never => {
      throw new TemplateExecError(
        `template: ${errorLocation(t)}: executing ${JSON.stringify(this.tmplName)} at <${str(t)}>: exceeded maximum template depth (${max})`,
      );
    };
    if (this.ctx.depth >= max) depthError();
    const newDot = t.pipe ? this.evalPipeline(dot, dotBoxed, t.pipe) : null;
    const sub = new State(this.ctx, t.name, newDot);
    this.ctx.depth++;
    try {
      sub.walk(newDot, false, tree.root);
    } catch (e) {
      // JS stack exhausted before Go's depth limit: report it as Go reports runaway recursion
      if (isStackOverflow(e)) depthError();
      throw e;
    } finally {
      this.ctx.depth--;
    }
    this.write(sub.out);
    this.ctx.budget.used -= sub.out.length; // counted twice otherwise
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
    for (const v of pipe.decl) {
      if (pipe.isAssign) this.setVar(v.ident[0], value);
      else this.vars.push({ name: v.ident[0], value, boxed: false });
    }
    return value;
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
      if (typeof prop === 'function') {
        const def: FuncDef = { params: [], variadic: 'interface {}', fn: (a) => prop.apply(receiver, a) };
        return this.evalCall(dot, dotBoxed, def, false, node, fieldName, args, final);
      }
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
    const params = def.params;
    let numIn = args.length;
    if (final !== MISSING) numIn++;
    let numFixed = args.length;
    if (def.variadic !== undefined) {
      numFixed = params.length;
      if (numIn < numFixed) this.errorf(`wrong number of args for ${name}: want at least ${params.length} got ${args.length}`);
    } else if (numIn !== params.length) {
      this.errorf(`wrong number of args for ${name}: want ${params.length} got ${numIn}`);
    }
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
      if (isNil(v) && !this.lastBoxed) {
        this.at(node);
        const e = new Error('reflect: call of reflect.Value.Type on zero Value');
        this.errorf(`error calling len: ${e.message}`, e);
      }
      return this.callFn(def, [v], node, name);
    }
    if (isBuiltin && name === 'len' && final !== MISSING && isNil(final)) {
      this.at(node);
      const e = new Error('reflect: call of reflect.Value.Type on zero Value');
      this.errorf(`error calling len: ${e.message}`, e);
    }
    const argv: unknown[] = new Array(numIn);
    let i = 0;
    for (; i < numFixed && i < args.length; i++) argv[i] = this.evalArg(dot, dotBoxed, params[i], args[i]);
    if (def.variadic !== undefined) {
      const t = def.variadic;
      for (; i < args.length; i++) argv[i] = this.evalArg(dot, dotBoxed, t, args[i]);
    }
    if (final !== MISSING) {
      let t = params[params.length - 1];
      if (def.variadic !== undefined) t = numIn - 1 < numFixed ? params[numIn - 1] : def.variadic;
      argv[i] = this.validateType(final, false, t);
    }
    if (isBuiltin && name === 'call' && args.length > 0) argv.splice(1, 0, str(args[0]));
    return this.callFn(def, argv, node, name);
  }

  private callFn(def: FuncDef, argv: unknown[], node: Node, name: string): unknown {
    let result: unknown;
    try {
      result = def.fn(argv, this.ctx);
    } catch (e) {
      if (e instanceof TemplateLimitError || isStackOverflow(e)) throw e;
      this.at(node);
      this.errorf(`error calling ${name}: ${e instanceof Error ? e.message : String(e)}`, e);
    }
    this.lastBoxed = false;
    return result;
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
  return e instanceof Error && typeof e.message === 'string' && e.message.includes('call stack size');
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

/** Runs a tree to a string with a fresh state. */
export function executeTree(ctx: ExecContext, tree: Tree, name: string, data: unknown): string {
  const st = new State(ctx, name, data);
  try {
    st.walk(data, false, tree.root);
  } catch (e) {
    if (e === BREAK || e === CONTINUE) return st.out;
    throw e;
  }
  return st.out;
}

export function isListNode(n: Node): n is ListNode {
  return n.kind === 'list';
}
