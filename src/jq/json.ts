/**
 * jq 1.8.2's JSON parser (src/jv_parse.c, without decNumber), for `fromjson` and for the inputs of the
 * `jq` command: the same values and the same error messages as jq (`Invalid numeric literal at line 1,
 * column 4`), with jq's extensions: `nan`/`NaN`, `Infinity`, `+1`, `.5`, `01`, a leading byte order mark.
 * JSON.parse stays the fast path of `fromjson`; this parser runs when it refuses the text.
 */
import { JqError, MAX_DEPTH, setKey, type Json, type JsonObject } from './value.js';

const NUMBER = /^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)$/i;

/** A parse error; the parser's line and column (jq's: lines from 1, bytes from 0) say where. */
class ParseError extends Error {}

class Parser {
  line = 1;
  column = 0;
  private st: 0 | 1 | 2 = 0; // normal, in a string, after a backslash in a string
  private token = '';
  private readonly stack: (Json[] | JsonObject | string)[] = [];
  private next: Json | undefined = undefined;

  constructor(private readonly emit: (v: Json) => void) {}

  /** Feeds the whole text; throws ParseError with jq's message (without the position). */
  feed(text: string): void {
    let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    for (; i < text.length; i++) {
      const code = text.charCodeAt(i);
      this.column += code < 0x80 ? 1 : code < 0x800 ? 2 : code >= 0xd800 && code <= 0xdfff ? 2 : 3;
      if (code === 10) {
        this.line++;
        this.column = 0;
      }
      this.scan(text[i]!);
    }
  }

  /** The end of the text: jq's checks at EOF. */
  end(): void {
    if (this.st !== 0) throw new ParseError('Unfinished string');
    this.checkLiteral();
    if (this.stack.length > 0) throw new ParseError('Unfinished JSON term');
    if (this.next !== undefined) {
      const v = this.next;
      this.next = undefined;
      this.emit(v);
    }
  }

  private scan(ch: string): void {
    if (this.st === 0) {
      const structure = ch === '[' || ch === ',' || ch === ']' || ch === '{' || ch === ':' || ch === '}';
      const ws = ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
      if (!structure && !ws && ch !== '"') {
        this.token += ch;
        return;
      }
      this.checkLiteral();
      this.checkDone();
      if (ch === '"') this.st = 1;
      else if (structure) this.structure(ch);
      this.checkDone();
      return;
    }
    if (ch === '"' && this.st === 1) {
      this.value(unescape(this.token));
      this.token = '';
      this.st = 0;
      this.checkDone();
      return;
    }
    this.token += ch;
    this.st = ch === '\\' && this.st === 1 ? 2 : 1;
  }

  private checkDone(): void {
    if (this.stack.length === 0 && this.next !== undefined) {
      const v = this.next;
      this.next = undefined;
      this.emit(v);
    }
  }

  private value(v: Json): void {
    if (this.next !== undefined) throw new ParseError('Expected separator between values');
    this.next = v;
  }

  private checkLiteral(): void {
    const t = this.token;
    if (t === '') return;
    let pattern: string | null = null;
    let v: Json = null;
    if (t[0] === 't') {
      pattern = 'true';
      v = true;
    } else if (t[0] === 'f') {
      pattern = 'false';
      v = false;
    } else if (t[0] === "'") throw new ParseError('Invalid string literal; expected ", but got \'');
    else if (t[0] === 'n' && t[1] === 'u') pattern = 'null';
    if (pattern !== null) {
      if (t !== pattern) throw new ParseError('Invalid literal');
    } else {
      if (!NUMBER.test(t)) throw new ParseError('Invalid numeric literal');
      const lower = t.toLowerCase();
      const neg = lower[0] === '-';
      const body = lower[0] === '-' || lower[0] === '+' ? lower.slice(1) : lower;
      v = body === 'nan' ? NaN : body === 'inf' || body === 'infinity' ? (neg ? -Infinity : Infinity) : Number(t);
    }
    this.value(v);
    this.token = '';
  }

  private structure(ch: string): void {
    const stack = this.stack;
    const top = stack[stack.length - 1];
    switch (ch) {
      case '[':
      case '{':
        if (stack.length >= MAX_DEPTH) throw new ParseError('Exceeds depth limit for parsing');
        if (this.next !== undefined) throw new ParseError('Expected separator between values');
        stack.push(ch === '[' ? [] : {});
        return;
      case ':':
        if (this.next === undefined) throw new ParseError("Expected string key before ':'");
        if (top === undefined || typeof top === 'string' || Array.isArray(top)) throw new ParseError("':' not as part of an object");
        if (typeof this.next !== 'string') throw new ParseError('Object keys must be strings');
        stack.push(this.next);
        this.next = undefined;
        return;
      case ',':
        if (this.next === undefined) throw new ParseError("Expected value before ','");
        if (top === undefined) throw new ParseError("',' not as part of an object or array");
        if (Array.isArray(top)) top.push(this.next);
        else if (typeof top === 'string') {
          stack.pop();
          setKey(stack[stack.length - 1] as JsonObject, top, this.next);
        } else throw new ParseError('Objects must consist of key:value pairs');
        this.next = undefined;
        return;
      case ']':
        if (!Array.isArray(top)) throw new ParseError("Unmatched ']'");
        if (this.next !== undefined) top.push(this.next);
        else if (top.length !== 0) throw new ParseError('Expected another array element');
        this.next = stack.pop() as Json[];
        return;
      default: // '}'
        if (top === undefined) throw new ParseError("Unmatched '}'");
        if (this.next !== undefined) {
          if (typeof top !== 'string') throw new ParseError('Objects must consist of key:value pairs');
          stack.pop();
          setKey(stack[stack.length - 1] as JsonObject, top, this.next);
        } else {
          if (typeof top === 'string' || Array.isArray(top)) throw new ParseError("Unmatched '}'");
          if (Object.keys(top).length !== 0) throw new ParseError('Expected another key-value pair');
        }
        this.next = stack.pop() as JsonObject;
    }
  }
}

function unescape(s: string): string {
  if (!s.includes('\\') && !/[\u0000-\u001f]/.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      if (c.charCodeAt(0) < 0x20) throw new ParseError('Invalid string: control characters from U+0000 through U+001F must be escaped');
      out += c;
      continue;
    }
    if (++i >= s.length) throw new ParseError('Expected escape character at end of string');
    const e = s[i]!;
    const simple = SIMPLE[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    if (e !== 'u') throw new ParseError('Invalid escape');
    if (i + 5 > s.length) throw new ParseError('Invalid \\uXXXX escape');
    const hex = s.slice(i + 1, i + 5);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new ParseError('Invalid characters in \\uXXXX escape');
    let code = parseInt(hex, 16);
    i += 4;
    if (code >= 0xd800 && code <= 0xdbff) {
      const lo = s.slice(i + 1, i + 7);
      if (!/^\\u[0-9a-fA-F]{4}$/.test(lo)) throw new ParseError('Invalid \\uXXXX\\uXXXX surrogate pair escape');
      const low = parseInt(lo.slice(2), 16);
      if (low < 0xdc00 || low > 0xdfff) throw new ParseError('Invalid \\uXXXX\\uXXXX surrogate pair escape');
      code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
      i += 6;
    }
    out += code >= 0xdc00 && code <= 0xdfff ? '\ufffd' : String.fromCodePoint(code);
  }
  return out;
}

const SIMPLE: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', b: '\b', f: '\f', t: '\t', n: '\n', r: '\r' };

/**
 * Every JSON value of `text`, as jq reads its inputs. On bad text: the values before the error have
 * been emitted, then JqError(`<message> at line L, column C`), as jq's parse errors read.
 */
export function parseJsonStream(text: string, emit: (v: Json) => void): void {
  const p = new Parser(emit);
  try {
    p.feed(text);
  } catch (e) {
    if (e instanceof ParseError) throw new JqError(`${e.message} at line ${p.line}, column ${p.column}`);
    throw e;
  }
  try {
    p.end();
  } catch (e) {
    if (e instanceof ParseError) throw new JqError(`${e.message} at EOF at line ${p.line}, column ${p.column}`);
    throw e;
  }
}

/** One JSON value, as `fromjson` (jq's jv_parse) reads it; errors end with `(while parsing '<text>')`. */
export function parseJsonValue(text: string): Json {
  const values: Json[] = [];
  let error: string | null = null;
  try {
    parseJsonStream(text, (v) => {
      values.push(v);
    });
  } catch (e) {
    if (!(e instanceof JqError)) throw e;
    error = e.message;
  }
  if (values.length > 1) error = 'Unexpected extra JSON values';
  else if (error === null && values.length === 0) error = 'Expected JSON value';
  if (error !== null) throw new JqError(`${error} (while parsing '${text}')`);
  return values[0]!;
}
