/**
 * jq 1.8.2's grammar (src/parser.y) parsed by recursive descent into an AST. The lexer is driven by the
 * parser one token at a time, so that string interpolation can re-enter the parser.
 */
import { JqError, dump, type Json, type JsonObject } from './value.js';

export type Pattern =
  | { k: 'pvar'; name: string }
  | { k: 'parray'; items: Pattern[] }
  | { k: 'pobject'; entries: { key: Node; bind?: string; pat?: Pattern }[] };

export interface FuncDef {
  name: string;
  params: string[]; // "$x" for value parameters, "f" for filter parameters
  body: Node;
}

export type Node =
  | { k: 'identity' }
  | { k: 'recurse' }
  | { k: 'index'; target: Node; key: Node; opt: boolean; pos: number }
  | { k: 'slice'; target: Node; from: Node | null; to: Node | null; opt: boolean }
  | { k: 'iterate'; target: Node; opt: boolean }
  | { k: 'literal'; value: Json }
  | { k: 'string'; fmt: string | null; parts: (string | Node)[] }
  | { k: 'format'; name: string; pos: number }
  | { k: 'array'; body: Node | null }
  | { k: 'object'; entries: { key: Node; value: Node }[] }
  | { k: 'neg'; body: Node }
  | { k: 'pipe'; left: Node; right: Node }
  | { k: 'comma'; left: Node; right: Node }
  | { k: 'binop'; op: string; left: Node; right: Node }
  | { k: 'and'; left: Node; right: Node }
  | { k: 'or'; left: Node; right: Node }
  | { k: 'alt'; left: Node; right: Node }
  | { k: 'assign'; op: string; left: Node; right: Node }
  | { k: 'if'; cond: Node; then: Node; else: Node | null }
  | { k: 'try'; body: Node; catch: Node | null }
  | { k: 'reduce'; source: Node; pattern: Pattern; init: Node; update: Node }
  | { k: 'foreach'; source: Node; pattern: Pattern; init: Node; update: Node; extract: Node | null }
  | { k: 'bind'; source: Node; patterns: Pattern[]; body: Node }
  | { k: 'label'; name: string; body: Node }
  | { k: 'break'; name: string; pos: number }
  | { k: 'var'; name: string; pos: number }
  | { k: 'loc'; line: number }
  | { k: 'call'; name: string; args: Node[]; pos: number }
  | { k: 'defs'; defs: FuncDef[]; body: Node };

/** A compile error with jq's message and the position (offset into the program) it refers to. */
/** `import "path" as name;`, `import "path" as $name;` or `include "path";`, with its metadata. */
export interface ImportDecl {
  readonly relpath: string;
  readonly as: string | null; // null for include
  readonly isData: boolean;
  readonly meta: JsonObject | null;
}

/** A library (module) file: its metadata, imports and definitions (jq accepts nothing else in one). */
export interface Library {
  readonly meta: JsonObject | null;
  readonly imports: ImportDecl[];
  readonly defs: FuncDef[];
}

export class JqSyntaxError extends Error {
  constructor(
    readonly jqMessage: string,
    readonly offset: number,
  ) {
    super(jqMessage);
  }
}

type Tok = { t: string; v?: string | number | Json; start: number; end: number };

const KEYWORDS = new Set([
  'as', 'def', 'module', 'import', 'include', 'if', 'then', 'else', 'elif', 'reduce', 'foreach', 'end', 'and', 'or', 'try', 'catch', 'label', 'break',
]);

const TOKEN_NAMES: Record<string, string> = {
  IDENT: 'IDENT', FIELD: 'FIELD', BINDING: 'BINDING', LITERAL: 'LITERAL', FORMAT: 'FORMAT', QQSTRING_START: 'QQSTRING_START', EOF: 'end of file',
  INVALID: 'INVALID_CHARACTER', '!=': '"!="', '==': '"=="', '//': '"//"', '|=': '"|="', '+=': '"+="', '-=': '"-="', '*=': '"*="', '/=': '"/="', '%=': '"%="',
  '//=': '"//="', '<=': '"<="', '>=': '">="', '..': '".."', '?//': '"?//"', $__loc__: '"$__loc__"',
};

function tokName(t: Tok): string {
  if (KEYWORDS.has(t.t)) return t.t;
  if (TOKEN_NAMES[t.t]) return TOKEN_NAMES[t.t]!;
  return `'${t.t}'`;
}

const IDENT_RE = /(?:[a-zA-Z_][a-zA-Z_0-9]*::)*[a-zA-Z_][a-zA-Z_0-9]*/y;
const NUM_RE = /(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/y;
const OPS = ['?//', '//=', '!=', '==', '//', '|=', '+=', '-=', '*=', '/=', '%=', '<=', '>=', '..'];

export class Parser {
  private pos = 0;
  private tok: Tok | null = null;
  private lastStart = 0; // start of the last token lexed: where jq (bison) places an unexpected end of file
  private readonly open: string[] = []; // brackets entered, as jq's lexer tracks them: a closer that does not match is INVALID_CHARACTER
  /** The program's `module` metadata and imports, after parseProgram. */
  meta: JsonObject | null = null;
  readonly imports: ImportDecl[] = [];

  constructor(private readonly src: string) {}

  static parse(src: string): Node {
    const p = new Parser(src);
    const n = p.parseProgram();
    return n;
  }

  // ---- lexer ----

  private skipSpace(): void {
    const s = this.src;
    for (;;) {
      const c = s[this.pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.pos++;
      else if (c === '#') {
        while (this.pos < s.length && s[this.pos] !== '\n') {
          if (s[this.pos] === '\\' && this.pos + 1 < s.length) this.pos++;
          this.pos++;
        }
      } else return;
    }
  }

  private lex(): Tok {
    this.skipSpace();
    const s = this.src;
    const start = this.pos;
    if (start >= s.length) return { t: 'EOF', start: this.lastStart, end: start };
    this.lastStart = start;
    const c = s[start]!;
    if (c === '"') {
      this.pos++;
      return { t: 'QQSTRING_START', start, end: this.pos };
    }
    if (c === '.' && /[a-zA-Z_]/.test(s[start + 1] ?? '')) {
      IDENT_RE.lastIndex = start + 1;
      const m = IDENT_RE.exec(s)!;
      // a field name has no `::`
      const name = m[0].split('::')[0]!;
      this.pos = start + 1 + name.length;
      return { t: 'FIELD', v: name, start, end: this.pos };
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(s[start + 1] ?? ''))) {
      NUM_RE.lastIndex = start;
      const m = NUM_RE.exec(s)!;
      this.pos = start + m[0].length;
      return { t: 'LITERAL', v: Number(m[0]), start, end: this.pos };
    }
    if (c === '$') {
      if (s.startsWith('$__loc__', start) && !/[a-zA-Z_0-9]/.test(s[start + 8] ?? '')) {
        this.pos = start + 8;
        return { t: '$__loc__', start, end: this.pos };
      }
      IDENT_RE.lastIndex = start + 1;
      const m = IDENT_RE.exec(s);
      if (m) {
        this.pos = start + 1 + m[0].length;
        return { t: 'BINDING', v: m[0], start, end: this.pos };
      }
      this.pos++;
      return { t: '$', start, end: this.pos };
    }
    if (c === '@') {
      const m = /@[a-zA-Z0-9_]+/y;
      m.lastIndex = start;
      const r = m.exec(s);
      if (r) {
        this.pos = start + r[0].length;
        return { t: 'FORMAT', v: r[0].slice(1), start, end: this.pos };
      }
      this.pos++;
      return { t: 'INVALID', start, end: this.pos };
    }
    if (/[a-zA-Z_]/.test(c)) {
      IDENT_RE.lastIndex = start;
      const m = IDENT_RE.exec(s)!;
      this.pos = start + m[0].length;
      if (KEYWORDS.has(m[0])) return { t: m[0], start, end: this.pos };
      return { t: 'IDENT', v: m[0], start, end: this.pos };
    }
    for (const op of OPS) {
      if (s.startsWith(op, start)) {
        this.pos = start + op.length;
        return { t: op, start, end: this.pos };
      }
    }
    if ('.?=;,:|+-*/%$<>[]{}()'.includes(c)) {
      this.pos++;
      if (c === '(' || c === '[' || c === '{') this.open.push(c);
      else if (c === ')' || c === ']' || c === '}') {
        if (this.open[this.open.length - 1] !== (c === ')' ? '(' : c === ']' ? '[' : '{')) return { t: 'INVALID', start, end: this.pos };
        this.open.pop();
      }
      return { t: c, start, end: this.pos };
    }
    this.pos++;
    return { t: 'INVALID', start, end: this.pos };
  }

  private peek(): Tok {
    return (this.tok ??= this.lex());
  }

  private next(): Tok {
    const t = this.peek();
    this.tok = null;
    return t;
  }

  private is(t: string): boolean {
    return this.peek().t === t;
  }

  private accept(t: string): boolean {
    if (this.is(t)) {
      this.next();
      return true;
    }
    return false;
  }

  private unexpected(tok: Tok = this.peek(), expecting?: string): never {
    let msg = `syntax error, unexpected ${tokName(tok)}`;
    if (expecting) msg += `, expecting ${expecting}`;
    throw new JqSyntaxError(msg, tok.start);
  }

  private expect(t: string, expecting?: string): Tok {
    if (!this.is(t)) this.unexpected(this.peek(), expecting);
    return this.next();
  }

  lineOf(offset: number): number {
    let line = 1;
    for (let i = 0; i < offset && i < this.src.length; i++) if (this.src[i] === '\n') line++;
    return line;
  }

  // ---- grammar ----

  parseProgram(): Node {
    this.parseHeader();
    if (this.is('EOF')) return { k: 'identity' };
    // bison reduces an empty program before it sees a token that starts nothing: only the end is expected
    if (!STARTS.has(this.peek().t)) this.unexpected(this.peek(), 'end of file');
    const n = this.parsePipe();
    if (!this.is('EOF')) this.unexpected(this.peek(), 'end of file');
    return n;
  }

  /** A module file: `module`, imports, then definitions only. */
  parseLibrary(): Library {
    this.parseHeader();
    const defs: FuncDef[] = [];
    while (this.is('def')) defs.push(this.parseDef());
    if (!this.is('EOF')) {
      if (!STARTS.has(this.peek().t)) this.unexpected(this.peek(), 'end of file');
      const start = this.peek().start;
      this.parsePipe();
      if (!this.is('EOF')) this.unexpected(this.peek(), 'end of file');
      throw new JqSyntaxError('library should only have function definitions, not a main expression', start);
    }
    return { meta: this.meta, imports: this.imports, defs };
  }

  private parseHeader(): void {
    if (this.is('module')) {
      this.next();
      this.meta = this.parseMeta();
      this.expect(';');
    }
    while (this.is('import') || this.is('include')) {
      const kw = this.next();
      const str = this.peek();
      if (str.t !== 'QQSTRING_START') this.unexpected(str);
      const path = this.parseString(null);
      if (path.k !== 'literal') throw new JqSyntaxError('Import path must be constant', str.start);
      let as: string | null = null;
      let isData = false;
      if (kw.t === 'import') {
        this.expect('as');
        const a = this.next();
        if (a.t === 'IDENT') as = a.v as string;
        else if (a.t === 'BINDING') {
          as = a.v as string;
          isData = true;
        } else this.unexpected(a, 'IDENT or BINDING');
      }
      const meta = this.is(';') ? null : this.parseMeta();
      this.expect(';');
      this.imports.push({ relpath: path.value as string, as, isData, meta });
    }
  }

  /** Module or import metadata: a constant object. */
  private parseMeta(): JsonObject {
    const start = this.peek().start;
    const n = this.parsePipe();
    if (!isConst(n)) throw new JqSyntaxError('Module metadata must be constant', start);
    const v = constValue(n);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new JqSyntaxError('Module metadata must be an object', start);
    return v;
  }

  private parsePipe(): Node {
    if (this.is('def')) {
      const defs: FuncDef[] = [];
      while (this.is('def')) defs.push(this.parseDef());
      if (this.is('EOF') || this.is(')') || this.is(']') || this.is('}')) return { k: 'defs', defs, body: { k: 'identity' } };
      const body = this.parsePipe();
      return { k: 'defs', defs, body };
    }
    if (this.is('label')) {
      this.next();
      const b = this.expect('BINDING');
      this.expect('|');
      const body = this.parsePipe();
      return { k: 'label', name: b.v as string, body };
    }
    let left = this.parseExpr(0);
    if (this.is('as')) {
      this.next();
      const patterns = this.parsePatterns();
      this.expect('|');
      const body = this.parsePipe();
      return { k: 'bind', source: left, patterns, body };
    }
    while (this.is(',')) {
      this.next();
      if (this.is('def') || this.is('label')) {
        left = { k: 'comma', left, right: this.parsePipe() };
        return left;
      }
      const right = this.parseExpr(0);
      if (this.is('as')) {
        this.next();
        const patterns = this.parsePatterns();
        this.expect('|');
        const body = this.parsePipe();
        return { k: 'comma', left, right: { k: 'bind', source: right, patterns, body } };
      }
      left = { k: 'comma', left, right };
    }
    if (this.is('|')) {
      this.next();
      return { k: 'pipe', left, right: this.parsePipe() };
    }
    return left;
  }

  private parseDef(): FuncDef {
    this.expect('def');
    const nameTok = this.peek();
    let name: string;
    if (nameTok.t === 'IDENT') name = nameTok.v as string;
    else if (KEYWORDS.has(nameTok.t)) name = nameTok.t;
    else this.unexpected(nameTok, 'IDENT');
    this.next();
    const params: string[] = [];
    if (this.accept('(')) {
      do {
        const p = this.next();
        if (p.t === 'BINDING') params.push('$' + (p.v as string));
        else if (p.t === 'IDENT') params.push(p.v as string);
        else if (KEYWORDS.has(p.t)) params.push(p.t);
        else this.unexpected(p);
      } while (this.accept(';'));
      this.expect(')');
    }
    this.expect(':');
    const body = this.parsePipe();
    this.expect(';');
    return { name, params, body };
  }

  private parsePatterns(): Pattern[] {
    const out = [this.parsePattern()];
    while (this.accept('?//')) out.push(this.parsePattern());
    return out;
  }

  private parsePattern(): Pattern {
    const t = this.peek();
    if (t.t === 'BINDING') {
      this.next();
      return { k: 'pvar', name: t.v as string };
    }
    if (t.t === '[') {
      this.next();
      if (this.is(']')) this.unexpected(this.peek(), "BINDING or '[' or '{'");
      const items: Pattern[] = [];
      do items.push(this.parsePattern());
      while (this.accept(','));
      this.expect(']');
      return { k: 'parray', items };
    }
    if (t.t === '{') {
      this.next();
      const entries: { key: Node; bind?: string; pat?: Pattern }[] = [];
      do {
        const e = this.peek();
        if (e.t === 'BINDING') {
          this.next();
          const name = e.v as string;
          if (this.accept(':')) entries.push({ key: { k: 'literal', value: name }, bind: name, pat: this.parsePattern() });
          else entries.push({ key: { k: 'literal', value: name }, bind: name });
        } else if (e.t === 'IDENT' || KEYWORDS.has(e.t)) {
          this.next();
          this.expect(':');
          entries.push({ key: { k: 'literal', value: e.t === 'IDENT' ? (e.v as string) : e.t }, pat: this.parsePattern() });
        } else if (e.t === 'QQSTRING_START') {
          const key = this.parseString(null);
          this.expect(':');
          entries.push({ key, pat: this.parsePattern() });
        } else if (e.t === '(') {
          this.next();
          const key = this.parsePipe();
          this.expect(')');
          checkObjectKey(key, e.start + 1);
          this.expect(':');
          entries.push({ key, pat: this.parsePattern() });
        } else this.unexpected(e);
      } while (this.accept(','));
      this.expect('}');
      return { k: 'pobject', entries };
    }
    return this.unexpected(t);
  }

  private static readonly PREC: Record<string, [number, 'l' | 'r' | 'n']> = {
    '//': [1, 'r'],
    '=': [2, 'n'], '|=': [2, 'n'], '+=': [2, 'n'], '-=': [2, 'n'], '*=': [2, 'n'], '/=': [2, 'n'], '%=': [2, 'n'], '//=': [2, 'n'],
    or: [3, 'l'],
    and: [4, 'l'],
    '==': [5, 'n'], '!=': [5, 'n'], '<': [5, 'n'], '<=': [5, 'n'], '>': [5, 'n'], '>=': [5, 'n'],
    '+': [6, 'l'], '-': [6, 'l'],
    '*': [7, 'l'], '/': [7, 'l'], '%': [7, 'l'],
  };

  private parseExpr(minPrec: number): Node {
    let left = this.parsePostfix();
    for (;;) {
      const t = this.peek();
      const p = Parser.PREC[t.t];
      if (!p || p[0] < minPrec) return left;
      this.next();
      const [prec, assoc] = p;
      const right = this.parseExpr(assoc === 'r' ? prec : prec + 1);
      left = makeBinary(t.t, left, right);
      if (assoc === 'n') {
        const t2 = this.peek();
        const p2 = Parser.PREC[t2.t];
        if (p2 && p2[0] === prec) this.unexpected(t2);
      }
    }
  }

  private parsePostfix(): Node {
    let term = this.parseTerm();
    for (;;) {
      const t = this.peek();
      if (t.t === 'FIELD') {
        this.next();
        term = { k: 'index', target: term, key: { k: 'literal', value: t.v as string }, opt: this.accept('?'), pos: t.start };
      } else if (t.t === '.' ) {
        // Term '.' String | Term '.' '[' ...
        this.next();
        const n = this.peek();
        if (n.t === 'QQSTRING_START') {
          const key = this.parseString(null);
          term = { k: 'index', target: term, key, opt: this.accept('?'), pos: t.start };
        } else if (n.t === '[') {
          term = this.parseBracketSuffix(term);
        } else this.unexpected(n);
      } else if (t.t === '[') {
        term = this.parseBracketSuffix(term);
      } else if (t.t === '?') {
        this.next();
        term = { k: 'try', body: term, catch: null };
      } else return term;
    }
  }

  private parseBracketSuffix(term: Node): Node {
    const open = this.expect('[');
    if (this.accept(']')) return { k: 'iterate', target: term, opt: this.accept('?') };
    if (this.accept(':')) {
      const to = this.parsePipe();
      this.expect(']');
      return { k: 'slice', target: term, from: null, to, opt: this.accept('?') };
    }
    const q = this.parsePipe();
    if (this.accept(':')) {
      if (this.accept(']')) return { k: 'slice', target: term, from: q, to: null, opt: this.accept('?') };
      const to = this.parsePipe();
      this.expect(']');
      return { k: 'slice', target: term, from: q, to, opt: this.accept('?') };
    }
    this.expect(']');
    return { k: 'index', target: term, key: q, opt: this.accept('?'), pos: open.start };
  }

  private parseTerm(): Node {
    const t = this.peek();
    switch (t.t) {
      case '.': {
        this.next();
        const n = this.peek();
        if (n.t === 'QQSTRING_START') {
          const key = this.parseString(null);
          return { k: 'index', target: { k: 'identity' }, key, opt: this.accept('?'), pos: t.start };
        }
        if (n.t === '[' ) return this.parseBracketSuffix({ k: 'identity' });
        return { k: 'identity' };
      }
      case '..':
        this.next();
        return { k: 'recurse' };
      case 'FIELD':
        this.next();
        return { k: 'index', target: { k: 'identity' }, key: { k: 'literal', value: t.v as string }, opt: this.accept('?'), pos: t.start };
      case 'LITERAL':
        this.next();
        return { k: 'literal', value: t.v as number };
      case 'QQSTRING_START':
        return this.parseString(null);
      case 'FORMAT': {
        this.next();
        if (this.is('QQSTRING_START')) return this.parseString(t.v as string);
        return { k: 'format', name: t.v as string, pos: t.start };
      }
      case '-':
        this.next();
        return { k: 'neg', body: this.parsePostfix() };
      case '(': {
        this.next();
        const q = this.parsePipe();
        this.expect(')');
        return q;
      }
      case '[': {
        this.next();
        if (this.accept(']')) return { k: 'array', body: null };
        const q = this.parsePipe();
        this.expect(']');
        return { k: 'array', body: q };
      }
      case '{':
        return this.parseObject();
      case 'reduce': {
        this.next();
        const source = this.parseExpr(0);
        this.expect('as');
        const pattern = this.parsePatterns();
        this.expect('(');
        const init = this.parsePipe();
        this.expect(';');
        const update = this.parsePipe();
        this.expect(')');
        return wrapAlt({ k: 'reduce', source, pattern: pattern[0]!, init, update }, pattern);
      }
      case 'foreach': {
        this.next();
        const source = this.parseExpr(0);
        this.expect('as');
        const pattern = this.parsePatterns();
        this.expect('(');
        const init = this.parsePipe();
        this.expect(';');
        const update = this.parsePipe();
        let extract: Node | null = null;
        if (this.accept(';')) extract = this.parsePipe();
        this.expect(')');
        return wrapAlt({ k: 'foreach', source, pattern: pattern[0]!, init, update, extract }, pattern);
      }
      case 'if': {
        this.next();
        return this.parseIfRest();
      }
      case 'try': {
        this.next();
        const body = this.parsePostTry();
        if (this.accept('catch')) return { k: 'try', body, catch: this.parsePostTry() };
        return { k: 'try', body, catch: null };
      }
      case '$': {
        this.next();
        this.unexpected(this.peek());
        break;
      }
      case '$__loc__':
        this.next();
        return { k: 'loc', line: this.lineOf(t.start) };
      case 'BINDING':
        this.next();
        return { k: 'var', name: t.v as string, pos: t.start };
      case 'break': {
        this.next();
        const b = this.expect('BINDING');
        return { k: 'break', name: b.v as string, pos: t.start };
      }
      case 'IDENT': {
        this.next();
        const name = t.v as string;
        if (name === 'true' && !this.is('(')) return { k: 'literal', value: true };
        if (name === 'false' && !this.is('(')) return { k: 'literal', value: false };
        if (name === 'null' && !this.is('(')) return { k: 'literal', value: null };
        const args: Node[] = [];
        if (this.accept('(')) {
          do args.push(this.parsePipe());
          while (this.accept(';'));
          this.expect(')');
        }
        return { k: 'call', name, args, pos: t.start };
      }
      default:
        return this.unexpected(t);
    }
  }

  private parsePostTry(): Node {
    // "try" binds tighter than any binary operator: its body is a postfix term
    return this.parsePostfix();
  }

  private parseIfRest(): Node {
    const cond = this.parsePipe();
    this.expect('then');
    const then = this.parsePipe();
    if (this.accept('elif')) return { k: 'if', cond, then, else: this.parseIfRest() };
    if (this.accept('else')) {
      const e = this.parsePipe();
      this.expect('end');
      return { k: 'if', cond, then, else: e };
    }
    this.expect('end');
    return { k: 'if', cond, then, else: null };
  }

  private parseObject(): Node {
    this.expect('{');
    const entries: { key: Node; value: Node }[] = [];
    if (this.accept('}')) return { k: 'object', entries };
    do {
      const t = this.peek();
      let key: Node;
      let value: Node | null = null;
      if (t.t === 'IDENT' || KEYWORDS.has(t.t)) {
        this.next();
        const name = t.t === 'IDENT' ? (t.v as string) : t.t;
        key = { k: 'literal', value: name };
        if (!this.is(':')) value = { k: 'index', target: { k: 'identity' }, key, opt: false, pos: t.start };
      } else if (t.t === 'BINDING') {
        this.next();
        const name = t.v as string;
        if (this.is(':')) key = { k: 'var', name, pos: t.start };
        else {
          key = { k: 'literal', value: name };
          value = { k: 'var', name, pos: t.start };
        }
      } else if (t.t === '$__loc__') {
        this.next();
        key = { k: 'literal', value: '__loc__' };
        value = { k: 'loc', line: this.lineOf(t.start) };
      } else if (t.t === 'QQSTRING_START' || t.t === 'FORMAT') {
        if (t.t === 'FORMAT') {
          this.next();
          if (!this.is('QQSTRING_START')) this.unexpected(this.peek());
        }
        key = this.parseString(t.t === 'FORMAT' ? (t.v as string) : null);
        if (!this.is(':')) value = { k: 'index', target: { k: 'identity' }, key, opt: false, pos: t.start };
      } else if (t.t === 'LITERAL' && typeof t.v === 'number') {
        // a number as a key is a syntax error in jq unless parenthesised
        throw new JqSyntaxError('May need parentheses around object key expression', t.start);
      } else if (t.t === '(') {
        this.next();
        key = this.parsePipe();
        this.expect(')');
        checkObjectKey(key, t.start + 1);
      } else {
        this.unexpected(t);
      }
      if (value === null) {
        this.expect(':');
        value = this.parseObjectValue();
      }
      entries.push({ key, value });
    } while (this.accept(','));
    this.expect('}');
    return { k: 'object', entries };
  }

  private parseObjectValue(): Node {
    let v = this.parseExpr(0);
    while (this.accept('|')) v = { k: 'pipe', left: v, right: this.parseExpr(0) };
    return v;
  }

  /** A string starting at the current QQSTRING_START token. */
  private parseString(fmt: string | null): Node {
    const t = this.next();
    if (t.t !== 'QQSTRING_START') this.unexpected(t);
    this.pos = t.end;
    return this.parseStringBody(fmt);
  }

  private parseStringBody(fmt: string | null): Node {
    const s = this.src;
    const parts: (string | Node)[] = [];
    let buf = '';
    let run = -1; // start of the current run of escapes: one token of jq's lexer, where its errors point
    for (;;) {
      if (this.pos >= s.length) throw new JqSyntaxError('syntax error, unexpected end of file', this.pos);
      const c = s[this.pos]!;
      if (c === '"') {
        this.pos++;
        break;
      }
      if (c === '\\') {
        const d = s[this.pos + 1];
        if (d === '(') {
          this.pos += 2;
          run = -1;
          if (buf) parts.push(buf);
          buf = '';
          this.tok = null;
          this.open.push('(');
          const q = this.parsePipe();
          const close = this.peek();
          if (close.t !== ')') this.unexpected(close);
          this.tok = null;
          this.pos = close.end;
          parts.push(q);
          continue;
        }
        if (run < 0) run = this.pos;
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (d !== undefined && simple[d] !== undefined) {
          buf += simple[d];
          this.pos += 2;
          continue;
        }
        if (d === 'u') {
          const hex = /^[0-9a-fA-F]{4}/.exec(s.slice(this.pos + 2, this.pos + 6));
          if (hex) {
            let code = parseInt(hex[0], 16);
            this.pos += 6;
            if (code >= 0xd800 && code <= 0xdbff && s[this.pos] === '\\' && s[this.pos + 1] === 'u') {
              const lo = /^[0-9a-fA-F]{4}/.exec(s.slice(this.pos + 2, this.pos + 6));
              const lc = lo ? parseInt(lo[0], 16) : 0;
              if (lc >= 0xdc00 && lc <= 0xdfff) {
                code = 0x10000 + ((code - 0xd800) << 10) + (lc - 0xdc00);
                this.pos += 6;
              }
            }
            buf += code >= 0xd800 && code <= 0xdfff ? '\ufffd' : String.fromCodePoint(code);
            continue;
          }
        }
        // jq hands the run of escapes to its JSON parser, which rejects this one
        let end = this.pos;
        while (s[end] === '\\' && s[end + 1] !== '(' && end + 1 < s.length) end += 2;
        const text = s.slice(run, end);
        throw new JqSyntaxError(`Invalid escape at line 1, column ${text.length + 2} (while parsing '"${text}"')`, run);
      }
      run = -1;
      buf += c;
      this.pos++;
    }
    if (buf || parts.length === 0) parts.push(buf);
    this.tok = null;
    if (parts.length === 1 && typeof parts[0] === 'string' && fmt === null) return { k: 'literal', value: parts[0] };
    return { k: 'string', fmt, parts };
  }
}

/** Tokens that can start a program (jq's Exp or FuncDef). */
const STARTS = new Set([
  '.', '..', 'FIELD', 'LITERAL', 'QQSTRING_START', 'FORMAT', '-', '(', '[', '{', 'reduce', 'foreach', 'if', 'try', '$', '$__loc__', 'BINDING', 'break', 'IDENT', 'def', 'label',
]);

/** The value of a constant expression (isConst). */
function constValue(n: Node): Json {
  if (n.k === 'literal') return n.value;
  if (n.k === 'object') {
    const o: JsonObject = {};
    for (const e of n.entries) o[(e.key as { value: string }).value] = constValue(e.value);
    return o;
  }
  if (n.k === 'array') {
    const out: Json[] = [];
    const add = (m: Node): void => {
      if (m.k === 'comma') {
        add(m.left);
        add(m.right);
      } else out.push(constValue(m));
    };
    if (n.body) add(n.body);
    return out;
  }
  return null;
}

function isConstObject(n: Node): boolean {
  if (n.k !== 'object') return false;
  return n.entries.every((e) => e.key.k === 'literal' && isConst(e.value));
}

function isConst(n: Node): boolean {
  if (n.k === 'literal') return true;
  if (n.k === 'object') return isConstObject(n);
  if (n.k === 'array') return n.body === null || isConst(n.body) || (n.body.k === 'comma' && isConst(n.body.left) && isConst(n.body.right));
  if (n.k === 'comma') return isConst(n.left) && isConst(n.right);
  return false;
}

function checkObjectKey(key: Node, offset: number): void {
  if (key.k === 'literal' && typeof key.value !== 'string') {
    throw new JqSyntaxError(`Cannot use ${typeofJson(key.value)} (${dump(key.value)}) as object key`, offset);
  }
}

function typeofJson(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function makeBinary(op: string, left: Node, right: Node): Node {
  switch (op) {
    case '//':
      return { k: 'alt', left, right };
    case 'and':
      return { k: 'and', left, right };
    case 'or':
      return { k: 'or', left, right };
    case '=':
    case '|=':
    case '+=':
    case '-=':
    case '*=':
    case '/=':
    case '%=':
    case '//=':
      return { k: 'assign', op, left, right };
    default:
      return { k: 'binop', op, left, right };
  }
}

/** `reduce`/`foreach` with `?//` alternatives: the first pattern is kept (jq applies all; rare). */
function wrapAlt(n: Node, patterns: Pattern[]): Node {
  if (patterns.length > 1) throw new JqError('?// alternatives in reduce/foreach are not supported');
  return n;
}
