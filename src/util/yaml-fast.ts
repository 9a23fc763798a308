/**
 * A fast reader for the plain block YAML that charts render and values files hold: block maps and
 * sequences (also a sequence item's compact map), single-line plain and quoted scalars, literal block
 * scalars (`|`, `|-`), one-line flow collections and comments. It builds the JSON data
 * directly, several times faster than the yaml library's CST → AST → JS path and with far less
 * garbage.
 *
 * It answers only for text it is sure to read as the library does (util/yaml.ts's Go rules), and
 * returns `UNSUPPORTED` for anything else: tabs, anchors, aliases, tags, directives, several
 * documents, folded or multi-line scalars, complex or non-string keys, duplicate keys, and every
 * error. The caller then parses with the library, which gives the result or the error message.
 */

/** The fast reader's answer for text it leaves to the full parser. */
export const UNSUPPORTED: unique symbol = Symbol('unsupported YAML');

/** How a plain scalar that starts with a digit, a sign or a dot resolves (util/yaml's goResolve). */
export type NumberResolver = (text: string) => string | number;

class Unsupported extends Error {}
const unsupported = new Unsupported();
function bail(): never {
  throw unsupported;
}

// anything that makes the text more than plain block YAML: tabs, CR, BOM, NEL/LS/PS (YAML 1.1 line
// breaks), control characters, and the indicators of anchors, aliases, tags and directives at a line start
const SPECIAL = /[\t\r\ufeff\x85\u2028\u2029\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff]/;

const NULL = /^(?:~|null|Null|NULL)?$/;
const TRUE = /^(?:Y|y|yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const FALSE = /^(?:N|n|no|No|NO|false|False|FALSE|off|Off|OFF)$/;
const NUMBERISH = /^[-+.0-9]/;
/** Characters a plain scalar may not start with (YAML's c-indicator), `-`, `?` and `:` included. */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;
const MAX_KEY = 1000;
/**
 * Collections nested deeper than this are left to the library, which reads them or refuses them with
 * its own error (util/yaml.ts: "collections nested too deeply"); the recursion here stays shallow.
 */
const MAX_DEPTH = 64;

interface Line {
  indent: number;
  /** The line without its indentation. */
  text: string;
}

class Reader {
  private readonly lines: Line[];
  private pos = 0;
  /** Collections open around the node being read, block and flow. */
  depth = 0;

  constructor(
    private readonly raw: string[],
    private readonly resolveNumber: NumberResolver,
    private readonly lastKeyWins: boolean,
  ) {
    this.lines = raw.map((l) => {
      let i = 0;
      while (l.charCodeAt(i) === 32) i++;
      return { indent: i, text: l.slice(i) };
    });
  }

  /** The next line that is neither blank nor a comment, or undefined at the end. */
  private peek(): Line | undefined {
    while (this.pos < this.lines.length) {
      const l = this.lines[this.pos]!;
      if (l.text !== '' && l.text[0] !== '#') return l;
      this.pos++;
    }
    return undefined;
  }

  document(): unknown {
    const first = this.peek();
    if (!first) return null;
    if (first.indent !== 0) bail();
    const value = this.node(first, -1);
    if (this.peek()) bail();
    return value;
  }

  /** The node that starts at line `l` (current position), inside a parent indented `parent`. */
  private node(l: Line, parent: number): unknown {
    if (isSeqItem(l.text) || keyEnd(l.text) >= 0) {
      // a throw ends the whole read: no need to step back out of it
      if (++this.depth > MAX_DEPTH) bail();
      const v = isSeqItem(l.text) ? this.sequence(l.indent) : this.mapping(l.indent);
      this.depth--;
      return v;
    }
    // a lone scalar (a sequence item's): one line, nothing more indented after it
    this.pos++;
    const v = this.scalarLine(l.text, parent);
    return v;
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      const l = this.peek();
      if (!l || l.indent < indent) return out;
      if (l.indent > indent) bail();
      if (!isSeqItem(l.text)) return out;
      let rest = l.text.slice(1);
      let spaces = 0;
      while (rest.charCodeAt(spaces) === 32) spaces++;
      rest = rest.slice(spaces);
      if (rest === '' || rest[0] === '#') {
        this.pos++;
        out.push(this.nested(indent, false));
        continue;
      }
      // the item's content as a line of its own, indented where it starts
      const virtual: Line = { indent: indent + 1 + spaces, text: rest };
      this.lines[this.pos] = virtual;
      if (rest[0] === '|' || rest[0] === '>') {
        this.pos++;
        out.push(this.blockScalar(rest, indent));
      } else out.push(this.node(virtual, indent));
    }
  }

  /** The value on the lines after a key or an item that has none on its own line. */
  private nested(indent: number, allowCompactSeq: boolean): unknown {
    const l = this.peek();
    if (!l) return null;
    if (l.indent > indent) return this.node(l, indent);
    if (allowCompactSeq && l.indent === indent && isSeqItem(l.text)) return this.sequence(indent);
    return null;
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (;;) {
      const l = this.peek();
      if (!l || l.indent < indent) return out;
      if (l.indent > indent) bail();
      const end = keyEnd(l.text);
      if (end < 0) {
        if (isSeqItem(l.text)) return out; // the end of a compact sequence's parent is the caller's
        bail();
      }
      const key = this.key(l.text.slice(0, end));
      if (Object.hasOwn(out, key) && !this.lastKeyWins) bail();
      let rest = l.text.slice(end + 1);
      let spaces = 0;
      while (rest.charCodeAt(spaces) === 32) spaces++;
      rest = rest.slice(spaces);
      this.pos++;
      if (rest === '' || rest[0] === '#') out[key] = this.nested(indent, true);
      else if (rest[0] === '|' || rest[0] === '>') out[key] = this.blockScalar(rest, indent);
      else out[key] = this.scalarLine(rest, indent);
    }
  }

  private key(text: string): string {
    if (text.length > MAX_KEY) bail();
    const q = text[0];
    if (q === '"' || q === "'") {
      const [value, end] = q === '"' ? doubleQuoted(text, 0) : singleQuoted(text, 0);
      if (text.slice(end).trim() !== '') bail();
      if (value === '__proto__') bail();
      return value;
    }
    const key = text.trimEnd();
    if (INDICATOR.test(key) || NUMBERISH.test(key) || NULL.test(key) || TRUE.test(key) || FALSE.test(key)) bail();
    if (key === '__proto__' || key === '<<' || key.includes(' #')) bail();
    return key;
  }

  /** A value written on one line (after `key:` or `- `); nothing more indented than `parent` may follow. */
  private scalarLine(text: string, parent: number): unknown {
    let value: unknown;
    let end: number;
    const c = text[0];
    if (c === '"') [value, end] = doubleQuoted(text, 0);
    else if (c === "'") [value, end] = singleQuoted(text, 0);
    else if (c === '[' || c === '{') [value, end] = new Flow(text, this).value(0);
    else {
      if (INDICATOR.test(text) && !NUMBERISH.test(text)) bail();
      if (c === '-' && (text.length === 1 || text[1] === ' ')) bail();
      const hash = text.indexOf(' #');
      const plain = (hash >= 0 ? text.slice(0, hash) : text).trimEnd();
      if (plain.includes(': ') || plain.endsWith(':')) bail();
      value = this.plain(plain);
      end = text.length;
    }
    const after = text.slice(end).trimStart();
    if (after !== '' && after[0] !== '#') bail();
    if (after !== '' && end < text.length && text[end] !== ' ') bail();
    // a more indented line would continue the scalar (or be an error): the full parser's
    const next = this.peek();
    if (next && next.indent > parent) bail();
    return value;
  }

  /** A plain scalar's value: null, a YAML 1.1 bool, a number as yaml.v2 reads it, or the string. */
  plain(s: string): unknown {
    if (NULL.test(s)) return null;
    if (TRUE.test(s)) return true;
    if (FALSE.test(s)) return false;
    if (NUMBERISH.test(s)) {
      const v = this.resolveNumber(s);
      if (typeof v === 'number' && !Number.isFinite(v)) bail();
      return v;
    }
    return s;
  }

  /** `|` and `|-` (the lines after the current one); `|+`, folded scalars and explicit indentation are left. */
  private blockScalar(header: string, parent: number): string {
    const m = /^\|(-?)(?: +#.*| *)$/.exec(header);
    if (!m) bail();
    const chomp = m[1];
    const body: string[] = [];
    let indent = -1;
    while (this.pos < this.lines.length) {
      const raw = this.raw[this.pos]!;
      const l = this.lines[this.pos]!;
      if (l.text === '') {
        // a blank line: empty content, unless it is indented past the content (then it holds spaces)
        if (indent < 0 ? raw.length > parent + 1 : raw.length > indent) bail();
        body.push('');
        this.pos++;
        continue;
      }
      if (indent < 0) {
        if (l.indent <= parent) break;
        indent = l.indent;
      } else if (l.indent < indent) break;
      body.push(raw.slice(indent));
      this.pos++;
    }
    if (indent < 0) bail();
    // trailing blank lines belong to the chomping, and the next node starts after them
    let last = body.length;
    while (last > 0 && body[last - 1] === '') last--;
    const content = body.slice(0, last).join('\n');
    if (chomp === '-') return content;
    return `${content}\n`;
  }
}

/** A one-line flow collection: `[a, "b", {c: 1}]`, `{cpu: 10m, memory: 16Mi}`. */
class Flow {
  constructor(
    private readonly text: string,
    private readonly reader: Reader,
  ) {}

  private skip(i: number): number {
    while (this.text.charCodeAt(i) === 32) i++;
    return i;
  }

  value(i: number): [unknown, number] {
    i = this.skip(i);
    const c = this.text[i];
    if (c === '[' || c === '{') {
      if (++this.reader.depth > MAX_DEPTH) bail();
      const v = c === '[' ? this.seq(i + 1) : this.map(i + 1);
      this.reader.depth--;
      return v;
    }
    if (c === '"') return doubleQuoted(this.text, i);
    if (c === "'") return singleQuoted(this.text, i);
    return this.plain(i, false);
  }

  private plain(i: number, key: boolean): [unknown, number] {
    let j = i;
    for (; j < this.text.length; j++) {
      const ch = this.text[j]!;
      if (ch === ',' || ch === ']' || ch === '}' || ch === '[' || ch === '{' || ch === '#') break;
      if (ch === ':' && (this.text[j + 1] === ' ' || key)) break;
    }
    const s = this.text.slice(i, j).trimEnd();
    if (s === '' || (INDICATOR.test(s) && !NUMBERISH.test(s)) || s.includes(': ')) bail();
    if (s[0] === '-' && s[1] === ' ') bail();
    if (key) {
      if (NUMBERISH.test(s) || NULL.test(s) || TRUE.test(s) || FALSE.test(s) || s === '__proto__' || s === '<<') bail();
      return [s, j];
    }
    return [this.reader.plain(s), j];
  }

  private seq(i: number): [unknown[], number] {
    const out: unknown[] = [];
    for (;;) {
      i = this.skip(i);
      if (this.text[i] === ']') return [out, i + 1];
      const [v, end] = this.value(i);
      out.push(v);
      i = this.skip(end);
      if (this.text[i] === ',') i++;
      else if (this.text[i] !== ']') bail();
    }
  }

  private map(i: number): [Record<string, unknown>, number] {
    const out: Record<string, unknown> = {};
    for (;;) {
      i = this.skip(i);
      if (this.text[i] === '}') return [out, i + 1];
      const c = this.text[i];
      let key: unknown;
      [key, i] = c === '"' ? doubleQuoted(this.text, i) : c === "'" ? singleQuoted(this.text, i) : this.plain(i, true);
      if (typeof key !== 'string' || key === '__proto__' || Object.hasOwn(out, key)) bail();
      if (this.text[i] !== ':' || this.text[i + 1] !== ' ') bail();
      i = this.skip(i + 1);
      const c2 = this.text[i];
      if (c2 === ',' || c2 === '}') out[key] = null;
      else [out[key], i] = this.value(i);
      i = this.skip(i);
      if (this.text[i] === ',') i++;
      else if (this.text[i] !== '}') bail();
    }
  }
}

const ESCAPES: Record<string, string> = { '0': '\0', a: '\x07', b: '\b', t: '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ', '"': '"', '/': '/', '\\': '\\' };

/** A double-quoted scalar on one line starting at `i`: its value and the index after the closing quote. */
function doubleQuoted(text: string, i: number): [string, number] {
  let out = '';
  let j = i + 1;
  for (;;) {
    const k = text.indexOf('"', j);
    const b = text.indexOf('\\', j);
    if (k < 0) bail();
    if (b < 0 || b > k) {
      out += text.slice(j, k);
      return [out, k + 1];
    }
    out += text.slice(j, b);
    const e = text[b + 1];
    const simple = e === undefined ? undefined : ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      j = b + 2;
    } else if (e === 'x' || e === 'u') {
      const n = e === 'x' ? 2 : 4;
      const hex = text.slice(b + 2, b + 2 + n);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) bail();
      const code = parseInt(hex, 16);
      if (code >= 0xd800 && code <= 0xdfff) bail();
      out += String.fromCharCode(code);
      j = b + 2 + n;
    } else bail();
  }
}

/** A single-quoted scalar on one line starting at `i` (`''` is a quote). */
function singleQuoted(text: string, i: number): [string, number] {
  let out = '';
  let j = i + 1;
  for (;;) {
    const k = text.indexOf("'", j);
    if (k < 0) bail();
    out += text.slice(j, k);
    if (text[k + 1] === "'") {
      out += "'";
      j = k + 2;
    } else return [out, k + 1];
  }
}

function isSeqItem(text: string): boolean {
  return text[0] === '-' && (text.length === 1 || text[1] === ' ');
}

/**
 * Where the `:` of a block map entry is in a line (a plain or quoted key, then `: ` or `:` at the end,
 * or before a comment), or -1 when the line is not a map entry.
 */
function keyEnd(text: string): number {
  const c = text[0];
  if (c === '"' || c === "'") {
    let end: number;
    try {
      end = (c === '"' ? doubleQuoted(text, 0) : singleQuoted(text, 0))[1];
    } catch (e) {
      if (e instanceof Unsupported) return -1;
      throw e;
    }
    return text[end] === ':' && (end + 1 === text.length || text[end + 1] === ' ') ? end : -1;
  }
  if (c === '[' || c === '{' || isSeqItem(text)) return -1;
  for (let i = text.indexOf(':'); i >= 0; i = text.indexOf(':', i + 1)) {
    if (i + 1 === text.length || text[i + 1] === ' ') {
      const hash = text.indexOf(' #');
      return hash >= 0 && hash < i ? -1 : i;
    }
  }
  return -1;
}

/**
 * Reads `text` as one YAML document of the plain block kind, or returns UNSUPPORTED. `lastKeyWins`:
 * a repeated key keeps its later value (else the text is left to the full parser, which refuses it).
 */
export function parseSimpleYaml(text: string, resolveNumber: NumberResolver, lastKeyWins = false): unknown {
  if (SPECIAL.test(text)) return UNSUPPORTED;
  const lines = text.split('\n');
  for (const l of lines) {
    // directives, document markers
    const c = l[0];
    if ((c === '-' || c === '.') && (l.startsWith('---') || l.startsWith('...'))) return UNSUPPORTED;
    if (c === '%') return UNSUPPORTED;
  }
  try {
    return new Reader(lines, resolveNumber, lastKeyWins).document();
  } catch (e) {
    if (e instanceof Unsupported) return UNSUPPORTED;
    throw e;
  }
}
