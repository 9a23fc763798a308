/**
 * Parser for Go text/template: builds trees with Go's error wording ("template: NAME:LINE: ...").
 * One call parses one text; `define`/`block` produce extra named trees.
 */
import { lex, T, itemString, type Item } from './lexer.js';
import type {
  ArgNode,
  CommandNode,
  ListNode,
  Node,
  NumberNode,
  PipeNode,
  TreeInfo,
  VariableNode,
  IfNode,
} from './nodes.js';
import { str } from './nodes.js';
import { unquoteGo, unquoteChar } from './strconv.js';

export interface Tree {
  name: string;
  parseName: string;
  root: ListNode;
  text: string;
}

export class TemplateParseError extends Error {
  override name = 'TemplateParseError';
}

/** True when the tree holds nothing but whitespace text and comments (Go's IsEmptyTree). */
export function isEmptyTree(n: Node | null): boolean {
  if (!n) return true;
  switch (n.kind) {
    case 'comment':
      return true;
    case 'list':
      return n.nodes.every(isEmptyTree);
    case 'text':
      return n.text.trim() === '' || /^[ \t\r\n\v\f\u0085\u00a0]*$/.test(n.text);
    default:
      return false;
  }
}

export interface ParseOptions {
  /** does a function exist? (parse-time check, like Go) */
  hasFunction: (name: string) => boolean;
}

/**
 * Parses `text` as template `name`. Returns all trees (the main one first), keyed by name, following
 * Go's rule that a later non-empty definition in the same text is an error.
 */
export function parse(name: string, text: string, opts: ParseOptions): Map<string, Tree> {
  const p = new Parser(name, text, opts);
  return p.parseAll();
}

class Parser {
  private items: Item[];
  private i = 0;
  private maxRead = 0;
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  private readonly info: TreeInfo;
  private readonly treeSet = new Map<string, Tree>();
  private curName: string;

  constructor(
    private readonly name: string,
    private readonly text: string,
    private readonly opts: ParseOptions,
  ) {
    this.items = lex(text);
    this.info = { parseName: name, text };
    this.curName = name;
  }

  // ---- token helpers ----
  private next(): Item {
    const it = this.items[this.i] ?? this.items[this.items.length - 1];
    if (this.i < this.items.length - 1 || this.items[this.i]) this.i++;
    if (this.i - 1 > this.maxRead) this.maxRead = this.i - 1;
    return it;
  }
  private backup(n = 1): void {
    this.i -= n;
  }
  private peek(): Item {
    const it = this.items[this.i] ?? this.items[this.items.length - 1];
    if (this.i > this.maxRead) this.maxRead = Math.min(this.i, this.items.length - 1);
    return it;
  }
  private nextNonSpace(): Item {
    let t: Item;
    do t = this.next();
    while (t.typ === T.Space);
    return t;
  }
  private peekNonSpace(): Item {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }

  errorf(msg: string): never {
    const tok = this.items[Math.min(this.maxRead, this.items.length - 1)];
    throw new TemplateParseError(`template: ${this.name}:${tok ? tok.line : 1}: ${msg}`);
  }
  private unexpected(tok: Item, context: string): never {
    if (tok.typ === T.Error) {
      // the lexer's message, reported at the error item's line
      throw new TemplateParseError(`template: ${this.name}:${tok.line}: ${tok.val}`);
    }
    this.errorf(`unexpected ${itemString(tok)} in ${context}`);
  }
  private expect(typ: T, context: string): Item {
    const t = this.nextNonSpace();
    if (t.typ !== typ) this.unexpected(t, context);
    return t;
  }

  // ---- tree building ----
  parseAll(): Map<string, Tree> {
    const root = this.list(this.peek().pos);
    while (this.peek().typ !== T.EOF) {
      if (this.peek().typ === T.LeftDelim) {
        const delim = this.next();
        if (this.nextNonSpace().typ === T.Define) {
          this.parseDefinition();
          continue;
        }
        // back up to the delimiter
        while (this.items[this.i] !== delim) this.i--;
      }
      const n = this.textOrAction();
      if (n.kind === 'end' || n.kind === 'else') this.errorf(`unexpected ${str(n)}`);
      root.nodes.push(n);
    }
    if (this.peek().typ === T.Error) this.unexpected(this.peek(), 'input');
    const main: Tree = { name: this.name, parseName: this.name, root, text: this.text };
    const out = new Map<string, Tree>();
    out.set(this.name, main);
    for (const [k, v] of this.treeSet) {
      if (k === this.name) {
        // a define with the same name as the file (Go's add(), run for the top level last): the
        // top level replaces an empty define; a non-empty define stays against an empty top level.
        if (isEmptyTree(main.root)) {
          if (!isEmptyTree(v.root)) out.set(k, v);
        } else if (!isEmptyTree(v.root)) this.errorf(`template: multiple definition of template ${JSON.stringify(k)}`);
        continue;
      }
      out.set(k, v);
    }
    return out;
  }

  private addTree(t: Tree): void {
    const old = this.treeSet.get(t.name);
    if (!old || isEmptyTree(old.root)) {
      this.treeSet.set(t.name, t);
      return;
    }
    if (!isEmptyTree(t.root)) this.errorf(`template: multiple definition of template ${JSON.stringify(t.name)}`);
  }

  private parseDefinition(): void {
    const context = 'define clause';
    const tok = this.nextNonSpace();
    if (tok.typ !== T.String && tok.typ !== T.RawString) this.unexpected(tok, context);
    const name = this.unquote(tok.val);
    this.expect(T.RightDelim, context);
    const savedVars = this.vars;
    const savedName = this.curName;
    this.vars = ['$'];
    this.curName = name;
    const [root, end] = this.itemList();
    if (end.kind !== 'end') this.errorf(`unexpected ${str(end)} in ${context}`);
    this.vars = savedVars;
    this.curName = savedName;
    this.addTree({ name, parseName: this.name, root, text: this.text });
  }

  private list(pos: number): ListNode {
    return { kind: 'list', pos, tree: this.info, nodes: [] };
  }

  private itemList(): [ListNode, Node] {
    const list = this.list(this.peekNonSpace().pos);
    while (this.peekNonSpace().typ !== T.EOF) {
      const n = this.textOrAction();
      if (n.kind === 'end' || n.kind === 'else') return [list, n];
      list.nodes.push(n);
    }
    this.errorf('unexpected EOF');
  }

  private textOrAction(): Node {
    const tok = this.nextNonSpace();
    switch (tok.typ) {
      case T.Text:
        return { kind: 'text', pos: tok.pos, tree: this.info, text: tok.val };
      case T.LeftDelim:
        return this.action();
      case T.Comment:
        return { kind: 'comment', pos: tok.pos, tree: this.info, text: tok.val };
      default:
        this.unexpected(tok, 'input');
    }
  }

  private action(): Node {
    const tok = this.nextNonSpace();
    switch (tok.typ) {
      case T.Block:
        return this.blockControl();
      case T.Break:
        return this.breakControl(tok, 'break');
      case T.Continue:
        return this.breakControl(tok, 'continue');
      case T.Else:
        return this.elseControl();
      case T.End:
        return { kind: 'end', pos: this.expect(T.RightDelim, 'end').pos, tree: this.info };
      case T.If:
        return this.control('if');
      case T.Range:
        return this.control('range');
      case T.Template:
        return this.templateControl();
      case T.With:
        return this.control('with');
    }
    this.backup();
    const t = this.peek();
    return { kind: 'action', pos: t.pos, line: t.line, tree: this.info, pipe: this.pipeline('command', T.RightDelim) };
  }

  private breakControl(tok: Item, word: 'break' | 'continue'): Node {
    const t = this.nextNonSpace();
    if (t.typ !== T.RightDelim) this.unexpected(t, `{{${word}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${word}}} outside {{range}}`);
    return { kind: word, pos: tok.pos, line: tok.line, tree: this.info };
  }

  private elseControl(): Node {
    const p = this.peekNonSpace();
    if (p.typ === T.If || p.typ === T.With) {
      return { kind: 'else', pos: p.pos, line: p.line, tree: this.info };
    }
    const tok = this.expect(T.RightDelim, 'else');
    return { kind: 'else', pos: tok.pos, line: tok.line, tree: this.info };
  }

  private control(kind: 'if' | 'with' | 'range'): IfNode {
    const nvars = this.vars.length;
    const pipe = this.pipeline(kind, T.RightDelim);
    if (kind === 'range') this.rangeDepth++;
    const [list, first] = this.itemList();
    let next = first;
    if (kind === 'range') this.rangeDepth--;
    let elseList: ListNode | null = null;
    if (next.kind === 'else') {
      const chainKw = kind === 'if' ? T.If : kind === 'with' ? T.With : null;
      if (chainKw !== null && this.peek().typ === chainKw) {
        this.next();
        elseList = this.list(next.pos);
        elseList.nodes.push(this.control(kind));
      } else {
        [elseList, next] = this.itemList();
        if (next.kind !== 'end') this.errorf(`expected end; found ${str(next)}`);
      }
    }
    this.vars.length = nvars;
    return { kind, pos: pipe.pos, line: pipe.line, tree: this.info, pipe, list, elseList };
  }

  private templateControl(): Node {
    const context = 'template clause';
    const tok = this.nextNonSpace();
    const name = this.templateName(tok, context);
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().typ !== T.RightDelim) {
      this.backup();
      pipe = this.pipeline(context, T.RightDelim);
    }
    return { kind: 'template', pos: tok.pos, line: tok.line, tree: this.info, name, pipe };
  }

  private blockControl(): Node {
    const context = 'block clause';
    const tok = this.nextNonSpace();
    const name = this.templateName(tok, context);
    const pipe = this.pipeline(context, T.RightDelim);
    const savedVars = this.vars;
    this.vars = ['$'];
    const [root, end] = this.itemList();
    if (end.kind !== 'end') this.errorf(`unexpected ${str(end)} in ${context}`);
    this.vars = savedVars;
    this.addTree({ name, parseName: this.name, root, text: this.text });
    return { kind: 'template', pos: tok.pos, line: tok.line, tree: this.info, name, pipe };
  }

  private templateName(tok: Item, context: string): string {
    if (tok.typ === T.String || tok.typ === T.RawString) return this.unquote(tok.val);
    this.unexpected(tok, context);
  }

  private unquote(s: string): string {
    try {
      return unquoteGo(s);
    } catch (e) {
      this.errorf((e as Error).message);
    }
  }

  // ---- pipelines ----
  private pipeline(context: string, end: T): PipeNode {
    const tok = this.peekNonSpace();
    const pipe: PipeNode = { kind: 'pipe', pos: tok.pos, line: tok.line, tree: this.info, isAssign: false, decl: [], cmds: [] };
    decls: for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== T.Variable) break;
      this.nextNonSpace();
      const startIdx = this.i; // index right after the variable
      const tokenAfterVariable = this.peek();
      const nxt = this.peekNonSpace();
      if (nxt.typ === T.Assign || nxt.typ === T.Declare) {
        pipe.isAssign = nxt.typ === T.Assign;
        this.nextNonSpace();
        pipe.decl.push(this.variable(v.pos, v.val));
        this.vars.push(v.val);
      } else if (nxt.typ === T.Char && nxt.val === ',') {
        this.nextNonSpace();
        pipe.decl.push(this.variable(v.pos, v.val));
        this.vars.push(v.val);
        if (context === 'range' && pipe.decl.length < 2) {
          const pk = this.peekNonSpace().typ;
          if (pk === T.Variable || pk === T.RightDelim || pk === T.RightParen) continue decls;
          this.errorf('range can only initialize variables');
        }
        this.errorf(`too many declarations in ${context}`);
      } else if (tokenAfterVariable.typ === T.Space) {
        this.i = startIdx - 1;
      } else {
        this.i = startIdx - 1;
      }
      break;
    }
    for (;;) {
      const tok2 = this.nextNonSpace();
      switch (tok2.typ) {
        case end:
          this.checkPipeline(pipe, context);
          return pipe;
        case T.Bool:
        case T.CharConstant:
        case T.Complex:
        case T.Dot:
        case T.Field:
        case T.Identifier:
        case T.Number:
        case T.Nil:
        case T.RawString:
        case T.String:
        case T.Variable:
        case T.LeftParen:
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(tok2, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    for (let i = 1; i < pipe.cmds.length; i++) {
      const k = pipe.cmds[i].args[0].kind;
      if (k === 'bool' || k === 'dot' || k === 'nil' || k === 'number' || k === 'string') {
        this.errorf(`non executable command in pipeline stage ${i + 1}`);
      }
    }
  }

  private command(): CommandNode {
    const cmd: CommandNode = { kind: 'command', pos: this.peekNonSpace().pos, tree: this.info, args: [] };
    for (;;) {
      this.peekNonSpace();
      const op = this.operand();
      if (op) cmd.args.push(op);
      const tok = this.next();
      if (tok.typ === T.Space) continue;
      if (tok.typ === T.RightDelim || tok.typ === T.RightParen) this.backup();
      else if (tok.typ !== T.Pipe) this.unexpected(tok, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.errorf('empty command');
    return cmd;
  }

  private operand(): ArgNode | null {
    const node = this.term();
    if (!node) return null;
    if (this.peek().typ === T.Field) {
      const chainPos = this.peek().pos;
      const fields: string[] = [];
      while (this.peek().typ === T.Field) fields.push(this.next().val.slice(1));
      switch (node.kind) {
        case 'field':
          return { kind: 'field', pos: chainPos, tree: this.info, ident: [...node.ident, ...fields] };
        case 'variable':
          return { kind: 'variable', pos: chainPos, tree: this.info, ident: [...node.ident, ...fields] };
        case 'bool':
        case 'string':
        case 'number':
        case 'nil':
        case 'dot':
          this.errorf(`unexpected . after term ${JSON.stringify(str(node))}`);
      }
      return { kind: 'chain', pos: chainPos, tree: this.info, node, field: fields };
    }
    return node;
  }

  private simplifyComplex(n: NumberNode): void {
    const [re, im] = n.complex!;
    if (im === 0) {
      n.isFloat = true;
      n.float = re;
      if (Number.isInteger(re)) {
        n.isInt = true;
        n.int = BigInt(re);
      }
    }
  }

  private variable(pos: number, name: string): VariableNode {
    return { kind: 'variable', pos, tree: this.info, ident: name.split('.') };
  }

  private term(): ArgNode | null {
    const tok = this.nextNonSpace();
    switch (tok.typ) {
      case T.Identifier:
        if (!this.opts.hasFunction(tok.val)) this.errorf(`function ${JSON.stringify(tok.val)} not defined`);
        return { kind: 'identifier', pos: tok.pos, tree: this.info, ident: tok.val };
      case T.Dot:
        return { kind: 'dot', pos: tok.pos, tree: this.info };
      case T.Nil:
        return { kind: 'nil', pos: tok.pos, tree: this.info };
      case T.Variable: {
        const v = this.variable(tok.pos, tok.val);
        if (!this.vars.includes(v.ident[0])) this.errorf(`undefined variable ${JSON.stringify(v.ident[0])}`);
        return v;
      }
      case T.Field:
        return { kind: 'field', pos: tok.pos, tree: this.info, ident: [tok.val.slice(1)] };
      case T.Bool:
        return { kind: 'bool', pos: tok.pos, tree: this.info, value: tok.val === 'true' };
      case T.CharConstant:
      case T.Complex:
      case T.Number:
        return this.number(tok);
      case T.LeftParen:
        return this.pipeline('parenthesized pipeline', T.RightParen);
      case T.String:
      case T.RawString:
        return { kind: 'string', pos: tok.pos, tree: this.info, quoted: tok.val, text: this.unquote(tok.val) };
    }
    this.backup();
    return null;
  }

  private number(tok: Item): NumberNode {
    const n: NumberNode = {
      kind: 'number', pos: tok.pos, tree: this.info, text: tok.val,
      isInt: false, isUint: false, isFloat: false, isComplex: false, int: 0n, uint: 0n, float: 0,
    };
    const text = tok.val;
    if (tok.typ === T.CharConstant) {
      let r: number;
      try {
        const [cp, tail] = unquoteChar(text.slice(1), "'");
        if (tail !== "'") throw new Error(`malformed character constant: ${text}`);
        r = cp;
      } catch (e) {
        this.errorf((e as Error).message);
      }
      n.int = BigInt(r);
      n.uint = BigInt(r);
      n.float = r;
      n.isInt = n.isUint = n.isFloat = true;
      return n;
    }
    if (tok.typ === T.Complex) {
      // real+imagi
      const m = /^([+-]?[^+-]+(?:[eEpP][+-][^+-]+)?)([+-].+)i$/.exec(text);
      const re = m ? parseGoFloat(m[1]) : null;
      const im = m ? parseGoFloat(m[2]) : null;
      if (re === null || im === null) this.errorf(`illegal number syntax: ${JSON.stringify(text)}`);
      n.isComplex = true;
      n.complex = [re!, im!];
      this.simplifyComplex(n);
      return n;
    }
    if (text.endsWith('i')) {
      const f = parseGoFloat(text.slice(0, -1));
      if (f !== null) {
        n.isComplex = true;
        n.complex = [0, f];
        this.simplifyComplex(n);
        return n;
      }
    }
    const u = parseGoInt(text, false);
    if (u !== null) {
      n.isUint = true;
      n.uint = u;
    }
    const i = parseGoInt(text, true);
    if (i !== null) {
      n.isInt = true;
      n.int = i;
      if (i === 0n) {
        n.isUint = true;
        n.uint = 0n;
      }
    }
    if (n.isInt) {
      n.isFloat = true;
      n.float = Number(n.int);
    } else if (n.isUint) {
      n.isFloat = true;
      n.float = Number(n.uint);
    } else {
      const f = parseGoFloat(text);
      if (f !== null) {
        if (!/[.eEpP]/.test(text)) this.errorf(`integer overflow: ${JSON.stringify(text)}`);
        n.isFloat = true;
        n.float = f;
        if (Number.isFinite(f) && Number.isInteger(f)) {
          const bi = BigInt(f);
          if (bi >= -(2n ** 63n) && bi < 2n ** 63n) {
            n.isInt = true;
            n.int = bi;
          }
          if (bi >= 0n && bi < 2n ** 64n) {
            n.isUint = true;
            n.uint = bi;
          }
        }
      }
    }
    if (!n.isInt && !n.isUint && !n.isFloat) this.errorf(`illegal number syntax: ${JSON.stringify(text)}`);
    return n;
  }
}

/** strconv.ParseInt(s, 0, 64) / ParseUint(s, 0, 64); null on failure. */
export function parseGoInt(s0: string, signed: boolean): bigint | null {
  let s = s0;
  let neg = false;
  if (signed && (s[0] === '+' || s[0] === '-')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '') return null;
  let base = 10;
  let prefixed = false;
  if (s[0] === '0' && s.length > 1) {
    const c = s[1].toLowerCase();
    if (c === 'x') { base = 16; s = s.slice(2); prefixed = true; }
    else if (c === 'o') { base = 8; s = s.slice(2); prefixed = true; }
    else if (c === 'b') { base = 2; s = s.slice(2); prefixed = true; }
    else { base = 8; s = s.slice(1); prefixed = true; }
  }
  // underscores: only allowed with base prefix (base 0), between digits
  if (s.includes('_')) {
    if (!underscoreOK(s0.replace(/^[+-]/, ''))) return null;
    s = s.replace(/_/g, '');
  }
  if (s === '') return prefixed && base === 8 ? 0n : null;
  const digits = '0123456789abcdef'.slice(0, base);
  let v = 0n;
  const B = BigInt(base);
  for (const ch of s.toLowerCase()) {
    const d = digits.indexOf(ch);
    if (d < 0) return null;
    v = v * B + BigInt(d);
  }
  if (neg) v = -v;
  if (signed) {
    if (v < -(2n ** 63n) || v >= 2n ** 63n) return null;
  } else if (v >= 2n ** 64n) return null;
  return v;
}

function underscoreOK(s: string): boolean {
  // Go's rule: underscores must separate digits, and only with a base prefix (or plain decimal in
  // base-0 parsing, where "1_000" is fine).
  let saw = '^';
  let i = 0;
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && /[bBoOxX]/.test(s[1])) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** strconv.ParseFloat(s, 64) for Go number syntax (decimal, hex float, underscores). */
export function parseGoFloat(s0: string): number | null {
  let s = s0;
  if (s.includes('_')) {
    if (!underscoreOK(s.replace(/^[+-]/, ''))) return null;
    s = s.replace(/_/g, '');
  }
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) {
    const f = Number(s);
    return Number.isFinite(f) ? f : null; // out of range is an error in Go
  }
  const m = /^([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?\d+)$/.exec(s);
  if (m && (m[2] || m[3])) {
    const mant = parseInt((m[2] || '0') + (m[3] || ''), 16);
    const v = mant * Math.pow(2, Number(m[4]) - 4 * m[3].length);
    return m[1] === '-' ? -v : v;
  }
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(s)) return NaN;
  return null;
}
