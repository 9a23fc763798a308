/**
 * toYaml as Helm does it: sigs.k8s.io/yaml.Marshal = encoding/json, then the JSON re-read and written
 * by gopkg.in/yaml.v2 (2.4): natural-sorted keys, block sequences not indented under their key,
 * scalars quoted when they would resolve to something else, plain scalars folded past column 80.
 *
 * fromYaml: YAML 1.1 like yaml.v2, converted through JSON (numbers become float64).
 */
import YAML from 'yaml';
import { formatFloat } from './floatfmt.js';
import { jsonFloat } from './json.js';
import { sprintf } from './fmt.js';
import { GoInt, byteLength, fromUtf8, isMap, isNil, isNilSlice } from './values.js';

// ---------------------------------------------------------------------------------------------
// value normalisation (what json.Marshal + yaml.v2 Unmarshal produce)

type YNode = null | boolean | string | { num: string } | YNode[] | Map<string, YNode>;

function toYNode(v: unknown, depth = 0): YNode {
  if (depth > 1000) throw new Error('json: unsupported value: encountered a cycle');
  if (isNil(v)) return null;
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'string':
      checkReadable(v);
      return foldNEL(v);
    case 'number':
      return { num: yamlNumberFromJSON(jsonFloat(v)) };
    case 'bigint':
      return { num: v.toString() };
    case 'function':
      throw new Error('json: unsupported type: func()');
  }
  if (v instanceof GoInt) return { num: v.v.toString() };
  if (Array.isArray(v)) return isNilSlice(v) ? null : v.map((x) => toYNode(x, depth + 1));
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  const o = v as any;
  if (typeof o.MarshalJSON === 'function') return toYNode(JSON.parse(String(o.MarshalJSON())), depth + 1);
  const m = new Map<string, YNode>();
  const keys = isMap(v) ? Object.keys(v) : Object.keys(v).filter((k) => typeof o[k] !== 'function');
  for (const k of keys) {
    checkReadable(k);
    m.set(foldNEL(k), toYNode(o[k], depth + 1));
  }
  return m;
}

/**
 * encoding/json leaves these characters raw and yaml.v2's reader rejects them, so Helm's toYaml
 * fails (and returns "") on such strings.
 */
function checkReadable(s: string): void {
  if (/[\x7f-\x84\x86-\x9f\ufffe\uffff]/.test(s)) throw new Error('error converting JSON to YAML: yaml: control characters are not allowed');
}

/** JSON leaves U+0085 raw; yaml.v2 reads it as a line break inside the quoted scalar and folds it. */
function foldNEL(s: string): string {
  if (!s.includes('\x85')) return s;
  return s.replace(/[ \t]*(?:\x85[ \t]*)+/g, (m) => {
    const k = m.split('\x85').length - 1;
    return k === 1 ? ' ' : '\n'.repeat(k - 1);
  });
}

/** yaml.v2 reads a JSON number: int when it parses as int64 (or uint64), else float64 'g'. */
function yamlNumberFromJSON(s: string): string {
  if (/^-?\d+$/.test(s)) {
    const b = BigInt(s);
    if (b >= -(2n ** 63n) && b < 2n ** 64n) return s;
  }
  const f = Number(s);
  if (f === Infinity) return '.inf';
  if (f === -Infinity) return '-.inf';
  return formatFloat(f, 'g', -1);
}

// ---------------------------------------------------------------------------------------------
// yaml.v2 resolve(): would this plain scalar read back as something other than a string?

const RESOLVE_NONSTR = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
]);
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60 = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

function parsesAsGoInt(plain: string): boolean {
  // strconv.ParseInt(plain, 0, 64) or ParseUint
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(plain);
  if (!m) return false;
  let body = m[2];
  let v: bigint;
  try {
    if (/^0[oO]/.test(body)) body = '0o' + body.slice(2);
    else if (/^0[0-7]+$/.test(body)) body = '0o' + body.slice(1);
    v = BigInt(body);
  } catch {
    return false;
  }
  if (m[1] === '-') v = -v;
  return v >= -(2n ** 63n) && v < 2n ** 64n;
}

function isTimestamp(s: string): boolean {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|[ \t]+)(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d*)?(?:[ \t]*(?:Z|[-+]\d{1,2}(?::?\d{2})?))?)?$/.exec(s);
  if (!m) return false;
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59)) return false;
  // the date-only form needs exact digits counts per Go layouts "2006-1-2"
  return true;
}

export function resolvesToNonString(s: string): boolean {
  if (RESOLVE_NONSTR.has(s)) return true;
  const c = s[0];
  if ((c >= '0' && c <= '9') || c === '+' || c === '-' || c === '.') {
    const plain = s.replace(/_/g, '');
    if (parsesAsGoInt(plain)) return true;
    if (YAML_FLOAT.test(plain)) return true;
    if (c >= '0' && c <= '9' && isTimestamp(s)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// scalar analysis (libyaml's yaml_emitter_analyze_scalar)

interface Analysis {
  multiline: boolean;
  flowPlain: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

function isPrintableCp(cp: number): boolean {
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    cp === 0x85 ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}
const isBreakCp = (cp: number): boolean => cp === 0x0a || cp === 0x0d || cp === 0x85 || cp === 0x2028 || cp === 0x2029;
const isSpaceCp = (cp: number): boolean => cp === 0x20;
const isBlankCp = (cp: number | undefined): boolean => cp === 0x20 || cp === 0x09;

const SIMPLE_PLAIN = /^[A-Za-z0-9_/+=][A-Za-z0-9_./+=-]*(?: [A-Za-z0-9_./+=-]+)*$/;
const ALL_PLAIN: Analysis = { multiline: false, flowPlain: true, blockPlain: true, singleQuoted: true, block: true };

function analyze(value: string): Analysis {
  if (SIMPLE_PLAIN.test(value)) return ALL_PLAIN;
  if (value.length === 0) return { multiline: false, flowPlain: false, blockPlain: true, singleQuoted: true, block: false };
  let blockInd = false;
  let flowInd = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let prevSpace = false;
  let prevBreak = false;
  if (value.startsWith('---') || value.startsWith('...')) {
    blockInd = true;
    flowInd = true;
  }
  const cps = Array.from(value, (ch) => ch.codePointAt(0)!);
  let precededByWs = true;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i];
    const next = cps[i + 1];
    const followedByWs = i + 1 >= cps.length || isBlankCp(next) || isBreakCp(next!);
    const ch = String.fromCodePoint(c);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) {
        flowInd = true;
        blockInd = true;
      } else if (ch === '?' || ch === ':') {
        flowInd = true;
        if (followedByWs) blockInd = true;
      } else if (ch === '-') {
        if (followedByWs) {
          flowInd = true;
          blockInd = true;
        }
      }
    } else {
      if (',?[]{}'.includes(ch)) flowInd = true;
      else if (ch === ':') {
        flowInd = true;
        if (followedByWs) blockInd = true;
      } else if (ch === '#') {
        if (precededByWs) {
          flowInd = true;
          blockInd = true;
        }
      }
    }
    if (!isPrintableCp(c)) special = true;
    if (isSpaceCp(c)) {
      if (i === 0) leadingSpace = true;
      if (i === cps.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreakCp(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === cps.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWs = isBlankCp(c) || isBreakCp(c);
  }
  const a: Analysis = { multiline: lineBreaks, flowPlain: true, blockPlain: true, singleQuoted: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) {
    a.flowPlain = false;
    a.blockPlain = false;
  }
  if (trailingSpace) a.block = false;
  if (breakSpace) {
    a.flowPlain = false;
    a.blockPlain = false;
    a.singleQuoted = false;
  }
  if (spaceBreak || special) {
    a.flowPlain = false;
    a.blockPlain = false;
    a.singleQuoted = false;
    a.block = false;
  }
  if (lineBreaks) {
    a.flowPlain = false;
    a.blockPlain = false;
  }
  if (flowInd) a.flowPlain = false;
  if (blockInd) a.blockPlain = false;
  return a;
}

// ---------------------------------------------------------------------------------------------
// emitter

const BEST_WIDTH = 80;

class Emitter {
  out = '';
  column = 0;
  indent = -1;
  whitespace = true;
  indention = true;

  put(s: string): void {
    this.out += s;
    this.column += s.length === 1 || /^[\x00-\x7f]*$/.test(s) ? s.length : Array.from(s).length;
  }
  putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }
  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }
  indicator(s: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(s);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  // scalar writers ------------------------------------------------------
  plain(value: string, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    if (!allowBreaks || this.column + value.length <= BEST_WIDTH || !value.includes(' ')) {
      if (/^[\x00-\x7f]*$/.test(value)) {
        this.out += value;
        this.column += value.length;
      } else this.put(value);
      this.whitespace = false;
      this.indention = false;
      return;
    }
    let spaces = false;
    const cps = Array.from(value);
    for (let i = 0; i < cps.length; i++) {
      const ch = cps[i];
      if (ch === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && cps[i + 1] !== ' ') {
          this.writeIndent();
        } else this.put(ch);
        spaces = true;
      } else {
        this.put(ch);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  singleQuoted(value: string, allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    const cps = Array.from(value);
    for (let i = 0; i < cps.length; i++) {
      const ch = cps[i];
      if (ch === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < cps.length - 1 && cps[i + 1] !== ' ') {
          this.writeIndent();
        } else this.put(ch);
        spaces = true;
      } else if (ch === '\n' || ch === '\r' || ch === '\u0085' || ch === '\u2028' || ch === '\u2029') {
        if (!breaks && ch === '\n') this.putBreak();
        if (ch === '\n') this.putBreak();
        else {
          this.out += ch;
          this.column = 0;
        }
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (ch === "'") this.put("'");
        this.put(ch);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.indicator("'", false, false, false);
  }

  doubleQuoted(value: string, allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    let spaces = false;
    const cps = Array.from(value);
    for (let i = 0; i < cps.length; i++) {
      const ch = cps[i];
      const cp = ch.codePointAt(0)!;
      if (!isPrintableCp(cp) || cp === 0xfeff || isBreakCp(cp) || ch === '"' || ch === '\\') {
        let esc: string;
        switch (cp) {
          case 0x00: esc = '0'; break;
          case 0x07: esc = 'a'; break;
          case 0x08: esc = 'b'; break;
          case 0x09: esc = 't'; break;
          case 0x0a: esc = 'n'; break;
          case 0x0b: esc = 'v'; break;
          case 0x0c: esc = 'f'; break;
          case 0x0d: esc = 'r'; break;
          case 0x1b: esc = 'e'; break;
          case 0x22: esc = '"'; break;
          case 0x5c: esc = '\\'; break;
          case 0x85: esc = 'N'; break;
          case 0xa0: esc = '_'; break;
          case 0x2028: esc = 'L'; break;
          case 0x2029: esc = 'P'; break;
          default:
            if (cp <= 0xff) esc = 'x' + cp.toString(16).toUpperCase().padStart(2, '0');
            else if (cp <= 0xffff) esc = 'u' + cp.toString(16).toUpperCase().padStart(4, '0');
            else esc = 'U' + cp.toString(16).toUpperCase().padStart(8, '0');
        }
        this.put('\\' + esc);
        spaces = false;
      } else if (ch === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < cps.length - 1) {
          this.writeIndent();
          if (cps[i + 1] === ' ') this.put('\\');
        } else this.put(ch);
        spaces = true;
      } else {
        this.put(ch);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
  }

  literal(value: string): void {
    this.indicator('|', true, false, false);
    // block scalar hints
    const first = value.codePointAt(0);
    if (first !== undefined && (isSpaceCp(first) || isBreakCp(first))) this.indicator('2', false, false, false);
    let chomp = '';
    if (value.length === 0) chomp = '-';
    else {
      const last = value[value.length - 1];
      if (last !== '\n') chomp = '-';
      else if (value.length === 1) chomp = '+';
      else if (value[value.length - 2] === '\n') chomp = '+';
    }
    if (chomp) this.indicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const ch of value) {
      if (ch === '\n') {
        this.putBreak();
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) {
          this.writeIndent();
          breaks = false;
        }
        this.put(ch);
        this.indention = false;
      }
    }
  }

  /** Emits a string scalar with yaml.v2's style choice. */
  stringScalar(s: string, simpleKey: boolean): void {
    const canUsePlain = !resolvesToNonString(s) && !BASE60.test(s);
    let style: 'plain' | 'single' | 'double' | 'literal';
    if (s.includes('\n')) style = 'literal';
    else if (canUsePlain) style = 'plain';
    else style = 'double';
    this.scalar(s, style, simpleKey);
  }

  scalar(s: string, requested: 'plain' | 'single' | 'double' | 'literal', simpleKey: boolean): void {
    const a = analyze(s);
    let style = requested;
    if (simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if (!a.blockPlain) style = 'single';
      if (s.length === 0 && simpleKey) style = 'single';
    }
    if (style === 'single' && !a.singleQuoted) style = 'double';
    if (style === 'literal' && (!a.block || simpleKey)) style = 'double';
    const allowBreaks = !simpleKey;
    const savedIndent = this.indent;
    this.indent = this.indent < 0 ? 2 : this.indent + 2;
    switch (style) {
      case 'plain':
        this.plain(s, allowBreaks);
        break;
      case 'single':
        this.singleQuoted(s, allowBreaks);
        break;
      case 'double':
        this.doubleQuoted(s, allowBreaks);
        break;
      case 'literal':
        this.literal(s);
        break;
    }
    this.indent = savedIndent;
  }

  // nodes ----------------------------------------------------------------
  node(n: YNode, ctx: 'root' | 'seq' | 'mapvalue' | 'key'): void {
    if (n === null) return this.scalar('null', 'plain', ctx === 'key');
    if (typeof n === 'boolean') return this.scalar(n ? 'true' : 'false', 'plain', ctx === 'key');
    if (typeof n === 'string') return this.stringScalar(n, ctx === 'key');
    if (Array.isArray(n)) return this.sequence(n, ctx);
    if (n instanceof Map) return this.mapping(n, ctx);
    return this.scalar(n.num, 'plain', ctx === 'key');
  }

  sequence(items: YNode[], ctx: string): void {
    if (items.length === 0) {
      this.indicator('[]', true, false, false);
      return;
    }
    const saved = this.indent;
    // block sequence: indentless when directly a mapping value
    const indentless = ctx === 'mapvalue' && !this.indention;
    this.indent = indentless ? Math.max(saved, 0) : saved < 0 ? 0 : saved + 2;
    if (indentless && saved < 0) this.indent = 0;
    for (const it of items) {
      this.writeIndent();
      this.indicator('-', true, false, true);
      this.node(it, 'seq');
    }
    this.indent = saved;
  }

  mapping(m: Map<string, YNode>, _ctx: string): void {
    if (m.size === 0) {
      this.indicator('{}', true, false, false);
      return;
    }
    const saved = this.indent;
    this.indent = saved < 0 ? 0 : saved + 2;
    const keys = [...m.keys()].sort((a, b) => (keyLess(a, b) ? -1 : keyLess(b, a) ? 1 : 0));
    for (const k of keys) {
      this.writeIndent();
      const v = m.get(k)!;
      if (/[\n\r\x85\u2028\u2029]/.test(k) || byteLength(k) > 128) {
        // not a simple key: "? key" then ": value" (libyaml's check_simple_key)
        this.indicator('?', true, false, true);
        this.stringScalar(k, false);
        this.writeIndent();
        this.indicator(':', true, false, true);
      } else {
        this.stringScalar(k, true);
        this.indicator(':', false, false, false);
      }
      this.node(v, 'mapvalue');
    }
    this.indent = saved;
  }
}

const isLetter = (c: string): boolean => /\p{L}/u.test(c);
const isDigit = (c: string): boolean => /\p{Nd}/u.test(c);

const ASCII_WORDY = /^[A-Za-z_./-]*$/;

/** yaml.v2's keyList.Less for string keys (digit runs compare numerically). */
function keyLess(a: string, b: string): boolean {
  if (ASCII_WORDY.test(a) && ASCII_WORDY.test(b)) {
    // no digits: letters vs non-letters decide, else code points
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const x = a.charCodeAt(i);
      const y = b.charCodeAt(i);
      if (x === y) continue;
      const xl = (x >= 65 && x <= 90) || (x >= 97 && x <= 122);
      const yl = (y >= 65 && y <= 90) || (y >= 97 && y <= 122);
      if (xl && yl) return x < y;
      if (xl || yl) return yl;
      return x < y;
    }
    return a.length < b.length;
  }
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return ar[i].codePointAt(0)! < br[i].codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai].codePointAt(0)! - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi].codePointAt(0)! - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i].codePointAt(0)! < br[i].codePointAt(0)!;
  }
  return ar.length < br.length;
}

/** sigs.k8s.io/yaml.Marshal(v) as a string (with its trailing newline). */
export function marshalYAML(v: unknown): string {
  const n = toYNode(v);
  const e = new Emitter();
  e.node(n, 'root');
  return e.column === 0 && e.out.endsWith('\n') ? e.out : e.out + '\n';
}

// ---------------------------------------------------------------------------------------------
// parsing

const yamlOpts = {
  version: '1.1' as const,
  customTags: (tags: any[]) => [
    ...tags.filter((t: any) => t.tag !== 'tag:yaml.org,2002:timestamp' && t.format !== 'TIME'),
    // explicit !!float on an integer-looking scalar (yaml.v2 accepts it)
    { tag: 'tag:yaml.org,2002:float', resolve: (s: string) => Number(s.replace(/_/g, '')) },
  ],
  uniqueKeys: false,
  merge: true,
  intAsBigInt: true,
};

/** Converts a parsed YAML value the way sigs.k8s.io/yaml does (via JSON): numbers are float64. */
function jsonify(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number' && !Number.isFinite(v)) throw new YAMLError(`error converting YAML to JSON: json: unsupported value: ${formatFloat(v, 'g', -1)}`);
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return fromUtf8(v);
  if (Array.isArray(v)) return v.map(jsonify);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, val] of v) {
      if (k === null || k === undefined) {
        throw new YAMLError(`error converting YAML to JSON: Unsupported map key of type: %!s(<nil>), key: <nil>, value: ${goSyntaxValue(val)}`);
      }
      if (typeof k === 'object') throw new YAMLError(`error converting YAML to JSON: yaml: invalid map key: ${goSyntaxKey(k)}`);
      o[keyString(k)] = jsonify(val);
    }
    return o;
  }
  if (typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(v as object)) o[k] = jsonify(val);
    return o;
  }
  return v;
}

function goSyntaxKey(k: unknown): string {
  if (Array.isArray(k)) return sprintf('%#v', [k.map((x) => jsonifyLoose(x))]);
  if (k instanceof Map) return 'map[interface {}]interface {}{...}';
  return sprintf('%#v', [k]);
}
function jsonifyLoose(v: unknown): unknown {
  if (typeof v === 'bigint') return v;
  if (Array.isArray(v)) return v.map(jsonifyLoose);
  return v instanceof Map ? null : v;
}

function goSyntaxValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return '<nil>';
  return String(v);
}

function keyString(k: unknown): string {
  if (typeof k === 'bigint') return k.toString();
  if (typeof k === 'string') return k;
  if (typeof k === 'number') return Number.isInteger(k) ? String(k) : formatFloat(k, 'g', -1);
  if (typeof k === 'boolean') return k ? 'true' : 'false';
  if (k === null) return 'null';
  return String(k);
}

export class YAMLError extends Error {}

/** Parses one YAML document like yaml.v2 → JSON; throws "error converting YAML to JSON: yaml: ..." */
export function parseYAMLAsJSON(text: string): unknown {
  // a flow collection used as a key after "key: " on the same line: yaml.v2's scanner refuses it
  if (/^[ \t]*[A-Za-z0-9_./-]+:[ \t]+[[{][^\]}\n#'"]*[\]}][ \t]*:([ \t]|$)/m.test(text)) {
    throw new YAMLError('error converting YAML to JSON: yaml: mapping values are not allowed in this context');
  }
  let doc: YAML.Document.Parsed;
  try {
    const docs = YAML.parseAllDocuments(text, yamlOpts as any);
    if (Array.isArray(docs)) {
      doc = docs[0] as YAML.Document.Parsed;
      if (!doc) return null;
    } else doc = docs as unknown as YAML.Document.Parsed;
  } catch (e) {
    throw new YAMLError(`error converting YAML to JSON: yaml: ${(e as Error).message}`);
  }
  if (doc.errors.length > 0) {
    throw new YAMLError(`error converting YAML to JSON: yaml: ${goYamlMessage(doc.errors[0], text)}`);
  }
  // yaml.v2 keeps an out-of-range float such as 1e1000 as a string; only .inf is infinite
  YAML.visit(doc, {
    Scalar(_k, node) {
      if (typeof node.value === 'number' && !Number.isFinite(node.value) && node.source !== undefined) {
        // yaml.v2 resolves only .inf/.nan spellings; "." or an out-of-range 1e1000 stay strings
        if (Number.isNaN(node.value) ? !/^\.nan$/i.test(node.source) : !/^[-+]?\.inf$/i.test(node.source)) node.value = node.source;
      }
      // a clipped block scalar that ends the input without a line break has no final newline
      if ((node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') && typeof node.value === 'string' && node.range) {
        const header = text.slice(node.range[0], node.range[0] + 4);
        if (!/^[|>][0-9]?\+|^[|>]\+/.test(header) && node.range[1] >= text.length && !text.endsWith('\n') && node.value.endsWith('\n')) {
          node.value = node.value.replace(/\n$/, '');
        }
      }
    },
  });
  let v: unknown;
  try {
    v = doc.toJS({ mapAsMap: true, maxAliasCount: 10000 });
  } catch (e) {
    const m = (e as Error).message;
    if (/Merge sources/i.test(m)) throw new YAMLError('error converting YAML to JSON: yaml: map merge requires map or sequence of maps as the value');
    throw new YAMLError(`error converting YAML to JSON: yaml: ${m}`);
  }
  return jsonify(v);
}

function goYamlMessage(err: YAML.YAMLError, text: string): string {
  const line = err.linePos?.[0]?.line ?? 1; // 1-based line of the error
  const m = err.message;
  const code = err.code as string;
  // yaml.v2 prints scanner errors with the 1-based line (none on the first line) and parser
  // errors with the 0-based line of the offending token; the end of input counts as a new line.
  const scanner = (msg: string, l = line): string => (l > 1 ? `line ${l}: ${msg}` : msg);
  const parser = (msg: string, l0: number): string => (l0 > 0 ? `line ${l0}: ${msg}` : msg);
  const eofLine = (text.match(/\n/g)?.length ?? 0) + (text.endsWith('\n') ? 0 : 1);
  if (code === 'TAB_AS_INDENT' || code === 'BAD_SCALAR_START') return scanner('found character that cannot start any token');
  if (code === 'MISSING_CHAR' && /quote/.test(m)) return scanner('found unexpected end of stream', (text.match(/\n/g)?.length ?? 0) + 1);
  if (/Flow (sequence|map)/.test(m)) {
    const open = /sequence/.test(m) ? '[' : '{';
    const close = open === '[' ? ']' : '}';
    const after = text.slice(text.lastIndexOf(open) + 1);
    if (after.trim() === '') return parser('did not find expected node content', eofLine);
    return parser(`did not find expected ',' or '${close}'`, eofLine);
  }
  if (code === 'BLOCK_AS_IMPLICIT_KEY' || code === 'MULTILINE_IMPLICIT_KEY') return scanner('mapping values are not allowed in this context');
  // a plain line inside a block mapping: yaml.v2 notices the stale simple key on the next line (the
  // end of input counts as one)
  if (/Implicit map keys need to be followed by map values/.test(m)) return scanner("could not find expected ':'", line + 1);
  if (code === 'BAD_INDENT' || /must start at the same column/.test(m) || code === 'UNEXPECTED_TOKEN') {
    // a '-' was expected after a sequence item, a key otherwise
    const lines = text.split('\n');
    let p = line - 2;
    while (p >= 0 && lines[p].trim() === '') p--;
    const prev = p >= 0 ? lines[p] : '';
    const what = /^\s*- /.test(prev) || /^\s*-$/.test(prev) ? "'-' indicator" : 'key';
    return parser(`did not find expected ${what}`, line - 1);
  }
  return parser('did not find expected node content', line - 1);
}
