/**
 * Helm 3.19's strvals (pkg/strvals/parser.go and literal_parser.go): the syntax of `--set`,
 * `--set-string`, `--set-file`, `--set-json` and `--set-literal`, written from its source.
 *
 * `a=1,b.c=x,list={a,b},arr[0].k=v`, `\` escapes the next rune (`a\.b=1`, `x=a\,b`). Types as Helm
 * reads them with --set: `true`/`false` (any case) booleans, `null` deletes, `0` and integers that do
 * not start with 0 are int64 (GoInt), anything else a string. Errors are Helm's texts; a failed line
 * may have set some of its keys already, as in Helm (callers work on a copy).
 */
import { GoInt } from '../gotemplate/index.js';
import { goQuote } from '../gotemplate/strconv.js';

/** Reads the value of one key (a --set-file path) as a rune string. */
export type RunesValueReader = (runes: string) => unknown;

type Data = Record<string, unknown>;

/** Helm's MaxIndex and MaxNestedNameLevel. */
const MAX_INDEX = 65536;
const MAX_NESTED_NAME_LEVEL = 30;

class GoError extends Error {}
const EOF = new GoError('EOF');
const NOT_LIST = new GoError('not a list');
/** A Go runtime panic; recovered into "unable to parse key: ..." by the innermost key(). */
class Panic extends Error {}

const wrap = (e: Error, msg: string): GoError => new GoError(`${msg}: ${e.message}`);

/** The Go type name of a value decoded by strvals or JSON, for interface conversion panics. */
function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (v instanceof GoInt) return v.type;
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

function asList(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  throw new Panic(`interface conversion: interface {} is ${goTypeOf(v)}, not []interface {}`);
}

function asMap(v: unknown): Data {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof GoInt)) return v as Data;
  throw new Panic(`interface conversion: interface {} is ${goTypeOf(v)}, not map[string]interface {}`);
}

const isGoSpace = (r: string): boolean => /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/u.test(r);

/** strconv.Atoi with Go's error texts. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new GoError(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) throw new GoError(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`);
  return Number(n);
}

/** typedVal: how --set (st false) and --set-string (st true) read a value. */
function typedVal(val: string, st: boolean): unknown {
  if (st) return val;
  const lower = val.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (lower === 'null') return null;
  if (val === '0') return new GoInt('int64', 0n);
  if (val.length !== 0 && val[0] !== '0' && /^[+-]?[0-9]+$/.test(val)) {
    const n = BigInt(val);
    if (n <= 9223372036854775807n && n >= -9223372036854775808n) return new GoInt('int64', n);
  }
  return val;
}

/**
 * Where the JSON value that starts at `i` (after blanks) ends, as Go's json.Decoder reads one value
 * from a stream; the value must be complete (a scalar ends at the first rune that cannot continue it).
 */
function jsonValueEnd(s: string, i: number): number {
  const n = s.length;
  while (i < n && ' \t\n\r'.includes(s[i]!)) i++;
  if (i >= n) throw new GoError('EOF');
  const c = s[i]!;
  if (c === '{' || c === '[') {
    let depth = 0;
    let inString = false;
    for (; i < n; i++) {
      const ch = s[i]!;
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        if (--depth === 0) return i + 1;
      }
    }
    throw new GoError('unexpected EOF');
  }
  if (c === '"') {
    for (i++; i < n; i++) {
      if (s[i] === '\\') i++;
      else if (s[i] === '"') return i + 1;
    }
    throw new GoError('unexpected EOF');
  }
  const m = /^(?:true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)/.exec(s.slice(i));
  if (!m) throw new GoError(`invalid character ${goQuote(c)} looking for beginning of value`);
  return i + m[0].length;
}

class Parser {
  private readonly r: string[];
  private pos = 0;

  constructor(
    s: string,
    private readonly data: Data,
    private readonly reader: RunesValueReader | undefined,
    private readonly json = false,
  ) {
    this.r = Array.from(s);
  }

  parse(): void {
    for (;;) {
      const err = this.key(this.data, 0);
      if (err === null) continue;
      if (err === EOF) return;
      throw new Error(err.message);
    }
  }

  private readRune(): string | undefined {
    return this.pos < this.r.length ? this.r[this.pos++] : undefined;
  }

  /** runesUntil: the runes up to a stop rune (consumed), `\` escaping the next; EOF as an error. */
  private runesUntil(stop: string): [string, string, GoError | null] {
    let v = '';
    for (;;) {
      const r = this.readRune();
      if (r === undefined) return [v, '', EOF];
      if (stop.includes(r)) return [v, r, null];
      if (r === '\\') {
        const next = this.readRune();
        if (next === undefined) return [v, '', EOF];
        v += next;
      } else v += r;
    }
  }

  private key(data: Data, nestedNameLevel: number): GoError | null {
    try {
      return this.keyInner(data, nestedNameLevel);
    } catch (e) {
      if (e instanceof Panic) return new GoError(`unable to parse key: ${e.message}`);
      throw e;
    }
  }

  private keyInner(data: Data, nestedNameLevel: number): GoError | null {
    const [k, last, err] = this.runesUntil('=[,.');
    if (err) return k.length === 0 ? err : new GoError(`key ${goQuote(k)} has no value`);
    switch (last) {
      case '[': {
        const [i, ierr] = this.keyIndex();
        if (ierr) return wrap(ierr, 'error parsing index');
        let list: unknown[] = [];
        if (Object.hasOwn(data, k)) list = asList(data[k]);
        const [out, lerr] = this.listItem(list, i, nestedNameLevel);
        set(data, k, out);
        return lerr;
      }
      case '=': {
        if (this.json) {
          if (this.emptyVal()) {
            set(data, k, null);
            return null;
          }
          const [v, jerr] = this.jsonVal();
          if (jerr) return jerr;
          set(data, k, v);
          this.emptyVal();
          return null;
        }
        const [vl, e] = this.valList();
        if (e === null) {
          set(data, k, vl);
          return null;
        }
        if (e === EOF) {
          set(data, k, '');
          return e;
        }
        if (e === NOT_LIST) {
          const [rs, verr] = this.val();
          if (verr && verr !== EOF) return verr;
          const [v, rerr] = this.read(rs);
          set(data, k, v);
          return rerr;
        }
        return e;
      }
      case ',':
        set(data, k, '');
        return new GoError(`key ${goQuote(k)} has no value (cannot end with ,)`);
      default: {
        // '.'
        nestedNameLevel++;
        if (nestedNameLevel > MAX_NESTED_NAME_LEVEL) {
          return new GoError(`value name nested level is greater than maximum supported nested level of ${MAX_NESTED_NAME_LEVEL}`);
        }
        let inner: Data = {};
        if (Object.hasOwn(data, k)) inner = asMap(data[k]);
        const e = this.key(inner, nestedNameLevel);
        if (e === null && Object.keys(inner).length === 0) return new GoError(`key map ${goQuote(k)} has no value`);
        if (Object.keys(inner).length !== 0) set(data, k, inner);
        return e;
      }
    }
  }

  private read(rs: string): [unknown, GoError | null] {
    try {
      return [this.reader!(rs), null];
    } catch (e) {
      return [undefined, new GoError((e as Error).message)];
    }
  }

  private jsonVal(): [unknown, GoError | null] {
    const rest = this.r.slice(this.pos).join('');
    let end: number;
    try {
      end = jsonValueEnd(rest, 0);
    } catch (e) {
      return [undefined, e as GoError];
    }
    let v: unknown;
    try {
      v = JSON.parse(rest.slice(0, end));
    } catch (e) {
      return [undefined, new GoError((e as Error).message)];
    }
    this.pos += Array.from(rest.slice(0, end)).length;
    return [v, null];
  }

  private keyIndex(): [number, GoError | null] {
    const [v, , err] = this.runesUntil(']');
    if (err) return [0, err];
    try {
      return [atoi(v), null];
    } catch (e) {
      return [0, e as GoError];
    }
  }

  private listItem(list: unknown[], i: number, nestedNameLevel: number): [unknown[], GoError | null] {
    if (i < 0) return [list, new GoError(`negative ${i} index not allowed`)];
    const [k, last, err] = this.runesUntil('[.=');
    if (k.length > 0) return [list, new GoError(`unexpected data at end of array index: ${goQuote(k)}`)];
    if (err) return [list, err];
    switch (last) {
      case '=': {
        if (this.json) {
          if (this.emptyVal()) return setIndex(list, i, null);
          const [v, jerr] = this.jsonVal();
          if (jerr) return [list, jerr];
          const [out, serr] = setIndex(list, i, v);
          if (serr) return [out, serr];
          this.emptyVal();
          return [out, null];
        }
        const [vl, e] = this.valList();
        if (e === null) return setIndex(list, i, vl);
        if (e === EOF) return setIndex(list, i, '');
        if (e === NOT_LIST) {
          const [rs, verr] = this.val();
          if (verr && verr !== EOF) return [list, verr];
          const [v, rerr] = this.read(rs);
          if (rerr) return [list, rerr];
          return setIndex(list, i, v);
        }
        return [list, e];
      }
      case '[': {
        const [nextI, ierr] = this.keyIndex();
        if (ierr) return [list, wrap(ierr, 'error parsing index')];
        let crtList: unknown[] = [];
        if (list.length > i && list[i] !== null && list[i] !== undefined) crtList = asList(list[i]);
        const [list2, lerr] = this.listItem(crtList, nextI, nestedNameLevel);
        if (lerr) return [list, lerr];
        return setIndex(list, i, list2);
      }
      default: {
        // '.'
        let inner: Data = {};
        if (list.length > i) {
          const cur = list[i];
          if (cur !== null && typeof cur === 'object' && !Array.isArray(cur) && !(cur instanceof GoInt)) inner = cur as Data;
          else list[i] = inner;
        }
        const e = this.key(inner, nestedNameLevel);
        if (e) return [list, e];
        return setIndex(list, i, inner);
      }
    }
  }

  /** Blanks up to a comma or the end (an empty value, consumed) or anything else (left). */
  private emptyVal(): boolean {
    for (;;) {
      const r = this.readRune();
      if (r === undefined || r === ',') return true;
      if (!isGoSpace(r)) {
        this.pos--;
        return false;
      }
    }
  }

  private val(): [string, GoError | null] {
    const [v, , err] = this.runesUntil(',');
    return [v, err];
  }

  private valList(): [unknown[], GoError | null] {
    const r = this.readRune();
    if (r === undefined) return [[], EOF];
    if (r !== '{') {
      this.pos--;
      return [[], NOT_LIST];
    }
    const list: unknown[] = [];
    for (;;) {
      const [rs, last, err] = this.runesUntil(',}');
      if (err) return [list, err === EOF ? new GoError("list must terminate with '}'") : err];
      if (last === '}') {
        const next = this.readRune();
        if (next !== undefined && next !== ',') this.pos--;
        const [v, e] = this.read(rs);
        list.push(v);
        return [list, e];
      }
      const [v, e] = this.read(rs);
      if (e) return [list, e];
      list.push(v);
    }
  }
}

function set(data: Data, key: string, val: unknown): void {
  if (key.length === 0) return;
  data[key] = val;
}

function setIndex(list: unknown[], index: number, val: unknown): [unknown[], GoError | null] {
  if (index < 0) return [list, new GoError(`negative ${index} index not allowed`)];
  if (index > MAX_INDEX) return [list, new GoError(`index of ${index} is greater than maximum supported index of ${MAX_INDEX}`)];
  while (list.length <= index) list.push(null);
  list[index] = val;
  return [list, null];
}

/** strvals.ParseInto (--set): merges `s` into `dest`. Throws Error with Helm's text. */
export function parseInto(s: string, dest: Data): void {
  new Parser(s, dest, (rs) => typedVal(rs, false)).parse();
}

/** strvals.ParseIntoString (--set-string). */
export function parseIntoString(s: string, dest: Data): void {
  new Parser(s, dest, (rs) => typedVal(rs, true)).parse();
}

/** strvals.ParseIntoFile (--set-file): each value is read by `reader` (the file's text). */
export function parseIntoFile(s: string, dest: Data, reader: RunesValueReader): void {
  new Parser(s, dest, reader).parse();
}

/** strvals.ParseJSON (--set-json): values are JSON; an empty value is null. */
export function parseJSON(s: string, dest: Data): void {
  new Parser(s, dest, undefined, true).parse();
}

/**
 * strvals.ParseLiteralInto (--set-literal): one `key=value`; the value is taken whole as a string
 * (no commas, lists or escapes in it); the key has the --set syntax of dots and indexes.
 */
export function parseLiteralInto(s: string, dest: Data): void {
  new LiteralParser(s, dest).parse();
}

/** literal_parser.go */
class LiteralParser {
  private readonly r: string[];
  private pos = 0;

  constructor(
    s: string,
    private readonly data: Data,
  ) {
    this.r = Array.from(s);
  }

  parse(): void {
    for (;;) {
      const err = this.key(this.data, 0);
      if (err === null) continue;
      if (err === EOF) return;
      throw new Error(err.message);
    }
  }

  private runesUntilLiteral(stop: string): [string, string, GoError | null] {
    let v = '';
    while (this.pos < this.r.length) {
      const r = this.r[this.pos++]!;
      if (stop.includes(r)) return [v, r, null];
      v += r;
    }
    return [v, '', EOF];
  }

  private key(data: Data, nestedNameLevel: number): GoError | null {
    try {
      return this.keyInner(data, nestedNameLevel);
    } catch (e) {
      if (e instanceof Panic) return new GoError(`unable to parse key: ${e.message}`);
      throw e;
    }
  }

  private keyInner(data: Data, nestedNameLevel: number): GoError | null {
    const [k, last, err] = this.runesUntilLiteral('=[.');
    if (err) {
      if (k.length === 0) return err;
      return new GoError(`key ${goQuote(k)} has no value`);
    }
    switch (last) {
      case '=': {
        const [v] = this.runesUntilLiteral('');
        set(data, k, v);
        return null;
      }
      case '.': {
        nestedNameLevel++;
        if (nestedNameLevel > MAX_NESTED_NAME_LEVEL) {
          return new GoError(`value name nested level is greater than maximum supported nested level of ${MAX_NESTED_NAME_LEVEL}`);
        }
        let inner: Data = {};
        if (Object.hasOwn(data, k)) inner = asMap(data[k]);
        const e = this.key(inner, nestedNameLevel);
        if (e === null && Object.keys(inner).length === 0) return new GoError(`key map ${goQuote(k)} has no value`);
        if (Object.keys(inner).length !== 0) set(data, k, inner);
        return e;
      }
      default: {
        // '['
        const [i, ierr] = this.keyIndex();
        if (ierr) return wrap(ierr, 'error parsing index');
        let list: unknown[] = [];
        if (Object.hasOwn(data, k)) list = asList(data[k]);
        const [out, lerr] = this.listItem(list, i, nestedNameLevel);
        set(data, k, out);
        return lerr;
      }
    }
  }

  private keyIndex(): [number, GoError | null] {
    const [v, , err] = this.runesUntilLiteral(']');
    if (err) return [0, err];
    try {
      return [atoi(v), null];
    } catch (e) {
      return [0, e as GoError];
    }
  }

  private listItem(list: unknown[], i: number, nestedNameLevel: number): [unknown[], GoError | null] {
    if (i < 0) return [list, new GoError(`negative ${i} index not allowed`)];
    const [k, last, err] = this.runesUntilLiteral('[.=');
    if (k.length > 0) return [list, new GoError(`unexpected data at end of array index: ${goQuote(k)}`)];
    if (err) return [list, err];
    switch (last) {
      case '=': {
        const [v, , e] = this.runesUntilLiteral('');
        if (e && e !== EOF) return [list, e];
        return setIndex(list, i, v);
      }
      case '.': {
        let inner: Data = {};
        if (list.length > i) {
          const cur = list[i];
          if (cur !== null && typeof cur === 'object' && !Array.isArray(cur) && !(cur instanceof GoInt)) inner = cur as Data;
          else list[i] = inner;
        }
        const e = this.key(inner, nestedNameLevel);
        if (e) return [list, e];
        return setIndex(list, i, inner);
      }
      default: {
        // '['
        const [nextI, ierr] = this.keyIndex();
        if (ierr) return [list, wrap(ierr, 'error parsing index')];
        let crtList: unknown[] = [];
        if (list.length > i && list[i] !== null && list[i] !== undefined) crtList = asList(list[i]);
        const [list2, lerr] = this.listItem(crtList, nextI, nestedNameLevel);
        if (lerr) return [list, lerr];
        return setIndex(list, i, list2);
      }
    }
  }
}
