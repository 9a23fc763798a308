/** Sprig string, string-list, encoding and path functions. */
import { createHash, randomInt } from 'node:crypto';
import type { FuncDef } from '../exec.js';
import { sprintf } from '../fmt.js';
import { goQuote } from '../strconv.js';
import { GoInt, byteLength, byteSlice, isNil, utf8, fromUtf8, withGoType, compareStrings } from '../values.js';
import { strval } from './conv.js';

const ANY = 'interface {}';
const S = 'string';
const I = 'int';

const n = (v: bigint): number => Number(v);

/** sprig's strslice: a list of strings from a list (nil elements dropped) or a single value. */
export function strslice(v: unknown): string[] {
  if (Array.isArray(v)) return v.filter((x) => !isNil(x)).map(strval);
  if (isNil(v)) return [];
  return [strval(v)];
}

function isSeparatorForTitle(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  if (c <= 0x7f) {
    if (/[0-9A-Za-z_]/.test(ch)) return false;
    return true;
  }
  if (/\p{L}|\p{Nd}/u.test(ch)) return false;
  return /\s/u.test(ch);
}

/** unicode.ToUpper/ToLower per rune: a rune whose case mapping is several runes stays as is. */
export function goMapCase(s: string, upper: boolean): string {
  const m = upper ? s.toUpperCase() : s.toLowerCase();
  if (m.length === s.length && !/[\u0130\u0131\u03c2\u1e9e\u2126\u212a\u212b]/.test(s)) return m;
  let out = '';
  for (const ch of s) {
    if (!upper && ch === '\u0130') {
      out += 'i'; // Go's simple mapping of İ
      continue;
    }
    const c = upper ? ch.toUpperCase() : ch.toLowerCase();
    out += [...c].length === 1 ? c : ch;
  }
  return out;
}

const TITLE: Record<string, string> = { 'ǆ': 'ǅ', 'Ǆ': 'ǅ', 'ǅ': 'ǅ', 'ǉ': 'ǈ', 'Ǉ': 'ǈ', 'ǈ': 'ǈ', 'ǌ': 'ǋ', 'Ǌ': 'ǋ', 'ǋ': 'ǋ', 'ǳ': 'ǲ', 'Ǳ': 'ǲ', 'ǲ': 'ǲ' };
const toTitleRune = (ch: string): string => TITLE[ch] ?? goMapCase(ch, true);

export function goTitle(s: string): string {
  let prev = ' ';
  let out = '';
  for (const ch of s) {
    out += isSeparatorForTitle(prev) ? toTitleRune(ch) : ch;
    prev = ch;
  }
  return out;
}

function untitle(s: string): string {
  let ws = true;
  let out = '';
  for (const ch of s) {
    if (/\s/u.test(ch)) {
      ws = true;
      out += ch;
    } else if (ws) {
      out += ch.toLowerCase();
      ws = false;
    } else out += ch;
  }
  return out;
}

/** goutils.DeleteWhiteSpace: works on bytes (each byte taken as a rune), as Go's does. */
function deleteWhiteSpace(s: string): string {
  const b = utf8(s);
  let out = '';
  let count = 0;
  for (const x of b) {
    if ((x >= 9 && x <= 13) || x === 32 || x === 0x85 || x === 0xa0) continue;
    out += String.fromCharCode(x);
    count++;
  }
  return count === b.length ? s : out;
}

const SPECIAL_LOWER: Record<string, string> = { 'İ': 'i', 'ǅ': 'ǆ', 'ǈ': 'ǉ', 'ǋ': 'ǌ', 'ǲ': 'ǳ' };
function swapcase(s: string): string {
  let ws = true;
  let out = '';
  for (const ch of s) {
    const isTitle = ch in SPECIAL_LOWER && ch !== 'İ';
    const up = goMapCase(ch, true);
    const lo = SPECIAL_LOWER[ch] ?? goMapCase(ch, false);
    if (isTitle || (ch !== lo && ch === up)) {
      out += lo;
      ws = false;
    } else if (ch !== up && ch === lo) {
      out += ws ? toTitleRune(ch) : up;
      ws = false;
    } else {
      ws = /\s/u.test(ch);
      out += ch;
    }
  }
  return out;
}

/** goutils.Initials: works on bytes (each byte taken as a rune), as Go's does. */
function initials(s: string): string {
  let out = '';
  let ws = true;
  for (const b of utf8(s)) {
    if ((b >= 9 && b <= 13) || b === 32 || b === 0x85 || b === 0xa0) ws = true;
    else if (ws) {
      out += String.fromCharCode(b);
      ws = false;
    }
  }
  return out;
}

function abbreviateFull(str: string, offset: number, maxWidth: number): string {
  if (str === '') return '';
  if (maxWidth < 4) return '';
  const len = byteLength(str);
  if (len <= maxWidth) return str;
  if (offset > len) offset = len;
  if (len - offset < maxWidth - 3) offset = len - (maxWidth - 3);
  const marker = '...';
  if (offset <= 4) return byteSlice(str, 0, maxWidth - 3) + marker;
  if (maxWidth < 7) return '';
  if (offset + maxWidth - 3 < len) return marker + abbreviateFull(byteSlice(str, offset), 0, maxWidth - 3);
  return marker + byteSlice(str, len - (maxWidth - 3));
}

function wrapCustom(str: string, wrapLength: number, newLine: string, wrapLongWords: boolean): string {
  if (str === '') return '';
  if (newLine === '') newLine = '\n';
  if (wrapLength < 1) wrapLength = 1;
  const b = utf8(str);
  const s = (a: number, e?: number): string => fromUtf8(b.subarray(a, e));
  const len = b.length;
  let offset = 0;
  let out = '';
  const lastSpace = (a: number, e: number): number => {
    for (let i = Math.min(e, len) - 1; i >= a; i--) if (b[i] === 32) return i - a;
    return -1;
  };
  while (len - offset > wrapLength) {
    if (b[offset] === 32) {
      offset++;
      continue;
    }
    const end = wrapLength + offset + 1;
    let spaceToWrapAt = lastSpace(offset, end) + offset;
    if (spaceToWrapAt >= offset) {
      out += s(offset, spaceToWrapAt) + newLine;
      offset = spaceToWrapAt + 1;
    } else if (wrapLongWords) {
      const e = wrapLength + offset;
      out += s(offset, e) + newLine;
      offset += wrapLength;
    } else {
      const e = wrapLength + offset;
      let index = -1;
      for (let i = e; i < len; i++)
        if (b[i] === 32) {
          index = i - e;
          break;
        }
      if (index === -1) {
        out += s(offset);
        offset = len;
      } else {
        spaceToWrapAt = index + e;
        out += s(offset, spaceToWrapAt) + newLine;
        offset = spaceToWrapAt + 1;
      }
    }
  }
  return out + s(offset);
}

// --- xstrings (huandu/xstrings 1.3) snake/kebab case: split into typed words, then join ---
const enum W {
  Invalid,
  Number,
  Upper,
  Alpha,
  Connector,
  Punct,
  Other,
}
const isConnectorCh = (c: string): boolean => c === '-' || c === '_' || /^\s$/u.test(c);
const isPunctCh = (c: string): boolean => /^\p{P}$/u.test(c);
const isUpperCh = (c: string): boolean => /^\p{Lu}$/u.test(c);
const isLetterCh = (c: string): boolean => /^\p{L}$/u.test(c) && !/^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u.test(c);
const isNumberCh = (c: string): boolean => /^\p{N}$/u.test(c);

/** xstrings nextWord over an array of runes starting at i; returns [type, end]. */
function nextWord(r: string[], i: number): [W, number] {
  const c = r[i];
  let j = i + 1;
  if (isConnectorCh(c)) {
    while (j < r.length && isConnectorCh(r[j])) j++;
    return [W.Connector, j];
  }
  if (isPunctCh(c)) {
    while (j < r.length && isPunctCh(r[j])) j++;
    return [W.Punct, j];
  }
  if (isUpperCh(c)) {
    if (j >= r.length) return [W.Upper, j];
    if (isUpperCh(r[j])) {
      while (j < r.length && isUpperCh(r[j])) j++;
      // "HTTPStatus": the S belongs to the next word
      if (j < r.length && isLetterCh(r[j])) j--;
    } else if (isLetterCh(r[j])) {
      while (j < r.length && isLetterCh(r[j]) && !isUpperCh(r[j])) j++;
    }
    return [W.Upper, j];
  }
  if (isLetterCh(c)) {
    while (j < r.length && isLetterCh(r[j]) && !isUpperCh(r[j])) j++;
    return [W.Alpha, j];
  }
  if (isNumberCh(c)) {
    while (j < r.length && isNumberCh(r[j])) j++;
    return [W.Number, j];
  }
  while (j < r.length && !isConnectorCh(r[j]) && !isLetterCh(r[j]) && !isNumberCh(r[j]) && !isPunctCh(r[j])) j++;
  return [W.Other, j];
}

function toDelimited(str: string, connector: string): string {
  if (str === '') return '';
  const r = [...str];
  let out = '';
  const lower = (wt: W, w: string): void => {
    if (wt !== W.Upper && wt !== W.Connector) {
      out += w;
      return;
    }
    for (const ch of w) out += isConnectorCh(ch) ? connector : isUpperCh(ch) ? goMapCase(ch, false) : ch;
  };
  let pos = 0;
  const take = (): [W, string] => {
    if (pos >= r.length) return [W.Invalid, ''];
    const [t, e] = nextWord(r, pos);
    const w = r.slice(pos, e).join('');
    pos = e;
    return [t, w];
  };
  let [wt, word] = take();
  while (pos < r.length) {
    if (wt !== W.Connector) lower(wt, word);
    const prev = wt;
    const last = word;
    [wt, word] = take();
    if (prev === W.Number) {
      while (wt === W.Alpha || wt === W.Number) {
        lower(wt, word);
        [wt, word] = take();
      }
      if (wt !== W.Invalid && wt !== W.Punct && wt !== W.Connector) out += connector;
    } else if (prev === W.Connector) {
      lower(prev, last);
    } else if (prev === W.Punct) {
      // nothing
    } else {
      if (wt !== W.Number) {
        if (wt !== W.Connector && wt !== W.Punct) out += connector;
        continue;
      }
      if (pos >= r.length) continue;
      const num = word;
      [wt, word] = take();
      if (wt !== W.Alpha) {
        lower(W.Number, num);
        if (wt !== W.Connector && wt !== W.Punct) out += connector;
        continue;
      }
      out += connector;
      lower(W.Number, num);
      while (wt === W.Alpha || wt === W.Number) {
        lower(wt, word);
        [wt, word] = take();
      }
      if (wt !== W.Invalid && wt !== W.Connector && wt !== W.Punct) out += connector;
    }
  }
  lower(wt, word);
  return out;
}

/**
 * xstrings 1.5.0 toCamelCase: with `isBig` its ToPascalCase, which Sprig 3.3.0 (so Helm 3.17+) maps
 * `camelcase` to ("camelcase used to call xstrings.ToCamelCase, but that function had a breaking
 * change in version 1.5 ... A new xstrings.ToPascalCase function was added": functions.go at v3.3.0).
 * Leading connectors (`_`, `-`, spaces) are kept; a connector between words is dropped and the next
 * rune is upper-cased; a doubled connector keeps one; the first rune is upper-cased (lower-cased
 * without `isBig`); a word that starts with an upper-case rune has its following upper-case run
 * lower-cased ("GOLANG_IS" -> "GolangIs"), other runes keep their case ("CamelCase" stays). A lone
 * connector comes out twice, as in xstrings.
 */
function toCamelCase(str: string, isBig: boolean): string {
  if (str === '') return '';
  const r = [...str];
  let out = '';
  let i = 0;
  let r0 = '';
  let firstUpper = false;
  while (i < r.length) {
    r0 = r[i++];
    if (!isConnectorCh(r0)) {
      firstUpper = isUpperCh(r0);
      r0 = goMapCase(r0, isBig);
      break;
    }
    out += r0;
  }
  if (i >= r.length) return out + r0;
  while (i < r.length) {
    const r1 = r0;
    r0 = r[i++];
    if (isConnectorCh(r0) && isConnectorCh(r1)) {
      out += r1;
      continue;
    }
    if (isConnectorCh(r1)) {
      firstUpper = isUpperCh(r0);
      r0 = goMapCase(r0, true);
    } else {
      if (firstUpper) {
        if (isUpperCh(r0)) r0 = goMapCase(r0, false);
        else firstUpper = false;
      }
      out += r1;
    }
  }
  if (firstUpper && !isBig) r0 = goMapCase(r0, false);
  return out + r0;
}

function shuffle(s: string): string {
  const a = [...s];
  for (let i = a.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.join('');
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function randFrom(chars: string, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += chars[randomInt(chars.length)];
  return out;
}
function randAscii(count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += String.fromCharCode(32 + randomInt(95));
  return out;
}

function adler32(s: string): number {
  let a = 1;
  let b = 0;
  for (const byte of utf8(s)) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return (b * 65536 + a) >>> 0;
}

function hash(alg: string, s: string): string {
  return createHash(alg).update(utf8(s)).digest('hex');
}

/** Position of the first error as Go's base64.StdEncoding.DecodeString reports it, or -1. */
export function base64ErrorAt(src: string): number {
  const ok = (c: string): boolean => /[A-Za-z0-9+/]/.test(c);
  let si = 0;
  const n = src.length;
  while (si < n) {
    let j = 0;
    for (; j < 4; j++) {
      if (si === n) {
        if (j === 0) return -1;
        return si - j;
      }
      const c = src[si++];
      if (ok(c)) continue;
      if (c === '\n' || c === '\r') {
        j--;
        continue;
      }
      if (c !== '=') return si - 1;
      if (j === 0 || j === 1) return si - 1;
      if (j === 2) {
        while (si < n && (src[si] === '\n' || src[si] === '\r')) si++;
        if (si === n) return n;
        if (src[si] !== '=') return si - 1;
        si++;
      }
      while (si < n && (src[si] === '\n' || src[si] === '\r')) si++;
      if (si < n) return si;
      return -1;
    }
  }
  return -1;
}

function base64Decode(s: string): string {
  const at = base64ErrorAt(s);
  if (at >= 0) return `illegal base64 data at input byte ${at}`;
  return fromUtf8(Buffer.from(s.replace(/[\r\n]/g, ''), 'base64'));
}

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function base32Encode(s: string): string {
  const b = utf8(s);
  let out = '';
  let bits = 0;
  let val = 0;
  for (const x of b) {
    val = (val << 8) | x;
    bits += 8;
    while (bits >= 5) {
      out += B32[(val >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(val << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}
/** Position of the first error as Go's base32.StdEncoding.DecodeString reports it, or -1. */
function base32ErrorAt(s0: string): number {
  const src = s0.replace(/[\r\n]/g, '');
  const olen = src.length;
  let i = 0;
  const left = (): number => olen - i;
  while (i < olen) {
    let j = 0;
    while (j < 8) {
      if (left() === 0) return olen - j;
      const c = src[i++];
      if (c === '=' && j >= 2 && left() < 8) {
        if (left() + j < 7) return olen;
        for (let k = 0; k < 7 - j; k++) if (left() > k && src[i + k] !== '=') return i + k - 1;
        if (j === 1 || j === 3 || j === 6) return i - 1;
        return -1;
      }
      if (B32.indexOf(c) < 0) return i - 1;
      j++;
    }
  }
  return -1;
}

function base32Decode(s: string): string {
  const at = base32ErrorAt(s);
  if (at >= 0) return `illegal base32 data at input byte ${at}`;
  const clean = s.replace(/=+$/, '');
  const bytes: number[] = [];
  let bits = 0;
  let val = 0;
  for (let i = 0; i < clean.length; i++) {
    const idx = B32.indexOf(clean[i]);
    if (idx < 0) return `illegal base32 data at input byte ${i}`;
    val = (val << 5) | idx;
    bits += 5;
    if (bits >= 8) {
      bytes.push((val >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return fromUtf8(new Uint8Array(bytes));
}

// --- path (Go's path package) ---
export function pathClean(p: string): string {
  if (p === '') return '.';
  const rooted = p[0] === '/';
  const parts = p.split('/');
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const s = (rooted ? '/' : '') + out.join('/');
  return s === '' ? '.' : s;
}
function pathBase(p: string): string {
  if (p === '') return '.';
  p = p.replace(/\/+$/, '');
  if (p === '') return '/';
  const i = p.lastIndexOf('/');
  return i >= 0 ? p.slice(i + 1) : p;
}
function pathDir(p: string): string {
  const i = p.lastIndexOf('/');
  return pathClean(p.slice(0, i + 1));
}
function pathExt(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i);
  return '';
}

function substr(start: number, end: number, s: string): string {
  const len = byteLength(s);
  if (start < 0) {
    if (end > len || end < 0) throw new Error(`runtime error: slice bounds out of range [:${end}] with length ${len}`);
    return byteSlice(s, 0, end);
  }
  if (end < 0 || end > len) {
    if (start > len) throw new Error(`runtime error: slice bounds out of range [${start}:${len}]`);
    return byteSlice(s, start);
  }
  if (start > end) throw new Error(`runtime error: slice bounds out of range [${start}:${end}]`);
  return byteSlice(s, start, end);
}

function trunc(c: number, s: string): string {
  const len = byteLength(s);
  if (c < 0 && len + c > 0) return byteSlice(s, len + c);
  if (c >= 0 && len > c) return byteSlice(s, 0, c);
  return s;
}

function goTrim(s: string, cutset: string): string {
  if (s === '' || cutset === '') return s;
  const set = new Set([...cutset]);
  const a = [...s];
  let i = 0;
  let j = a.length;
  while (i < j && set.has(a[i])) i++;
  while (j > i && set.has(a[j - 1])) j--;
  return a.slice(i, j).join('');
}

const goSpace = /^[\s\u0085]+|[\s\u0085]+$/gu;

function splitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const chars = [...s];
    if (n < 0 || n >= chars.length) return chars;
    return [...chars.slice(0, n - 1), chars.slice(n - 1).join('')];
  }
  const parts = s.split(sep);
  if (n < 0 || parts.length <= n) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

function toMapSS(parts: string[]): Record<string, string> {
  const m: Record<string, string> = {};
  parts.forEach((p, i) => (m['_' + i] = p));
  return withGoType(m, 'map[string]string');
}

function goReplaceAll(src: string, old: string, neu: string): string {
  if (old === '') {
    const chars = [...src];
    return neu + chars.map((c) => c + neu).join('');
  }
  return src.split(old).join(neu);
}

const d = (params: string[], fn: FuncDef['fn'], variadic?: string): FuncDef => (variadic ? { params, variadic, fn } : { params, fn });

export const stringFuncs: Record<string, FuncDef> = {
  hello: d([], () => 'Hello!'),
  abbrev: d([I, S], ([w, s]) => (n(w) < 4 ? s : abbreviateFull(s, 0, n(w)))),
  abbrevboth: d([I, I, S], ([l, r, s]) => (n(r) < 4 || (n(l) > 0 && n(r) < 7) ? s : abbreviateFull(s, n(l), n(r)))),
  trunc: d([I, S], ([c, s]) => trunc(n(c), s)),
  trim: d([S], ([s]) => s.replace(goSpace, '')),
  upper: d([S], ([s]) => goMapCase(s, true)),
  lower: d([S], ([s]) => goMapCase(s, false)),
  title: d([S], ([s]) => goTitle(s)),
  untitle: d([S], ([s]) => untitle(s)),
  substr: d([I, I, S], ([a, b, s]) => substr(n(a), n(b), s)),
  repeat: d([I, S], ([c, s]) => {
    if (c < 0n) throw new Error('strings: negative Repeat count');
    return s.repeat(n(c));
  }),
  trimall: d([S, S], ([a, b]) => goTrim(b, a)),
  trimAll: d([S, S], ([a, b]) => goTrim(b, a)),
  trimSuffix: d([S, S], ([a, b]) => (a !== '' && b.endsWith(a) ? b.slice(0, b.length - a.length) : b)),
  trimPrefix: d([S, S], ([a, b]) => (a !== '' && b.startsWith(a) ? b.slice(a.length) : b)),
  nospace: d([S], ([s]) => deleteWhiteSpace(s)),
  initials: d([S], ([s]) => initials(s)),
  randAlphaNum: d([I], ([c]) => randFrom(ALNUM, n(c))),
  randAlpha: d([I], ([c]) => randFrom(ALNUM.slice(0, 52), n(c))),
  randAscii: d([I], ([c]) => randAscii(n(c))),
  randNumeric: d([I], ([c]) => randFrom('0123456789', n(c))),
  swapcase: d([S], ([s]) => swapcase(s)),
  shuffle: d([S], ([s]) => shuffle(s)),
  snakecase: d([S], ([s]) => toDelimited(s, '_')),
  camelcase: d([S], ([s]) => toCamelCase(s, true)),
  kebabcase: d([S], ([s]) => toDelimited(s, '-')),
  wrap: d([I, S], ([l, s]) => wrapCustom(s, n(l), '', false)),
  wrapWith: d([I, S, S], ([l, sep, s]) => wrapCustom(s, n(l), sep, true)),
  contains: d([S, S], ([sub, s]) => s.includes(sub)),
  hasPrefix: d([S, S], ([sub, s]) => s.startsWith(sub)),
  hasSuffix: d([S, S], ([sub, s]) => s.endsWith(sub)),
  quote: d([], (a) => a.filter((x) => !isNil(x)).map((x) => goQuote(strval(x))).join(' '), ANY),
  squote: d([], (a) => a.filter((x) => !isNil(x)).map((x) => `'${strval(x)}'`).join(' '), ANY),
  cat: d([], (a) => {
    const v = a.filter((x) => !isNil(x));
    return sprintf('%v '.repeat(v.length).trim(), v);
  }, ANY),
  indent: d([I, S], ([c, s]) => {
    if (c < 0n) throw new Error('strings: negative Repeat count');
    const pad = ' '.repeat(n(c));
    return pad + s.replaceAll('\n', '\n' + pad);
  }),
  nindent: d([I, S], ([c, s]) => {
    if (c < 0n) throw new Error('strings: negative Repeat count');
    const pad = ' '.repeat(n(c));
    return '\n' + pad + s.replaceAll('\n', '\n' + pad);
  }),
  replace: d([S, S, S], ([o, nw, src]) => goReplaceAll(src, o, nw)),
  plural: d([S, S, I], ([one, many, c]) => (c === 1n ? one : many)),
  sha1sum: d([S], ([s]) => hash('sha1', s)),
  sha256sum: d([S], ([s]) => hash('sha256', s)),
  sha512sum: d([S], ([s]) => hash('sha512', s)),
  adler32sum: d([S], ([s]) => String(adler32(s))),
  toString: d([ANY], ([v]) => strval(v)),
  split: d([S, S], ([sep, s]) => toMapSS(splitN(s, sep, -1))),
  splitList: d([S, S], ([sep, s]) => withGoType(splitN(s, sep, -1), '[]string')),
  splitn: d([S, I, S], ([sep, c, s]) => toMapSS(splitN(s, sep, n(c)))),
  toStrings: d([ANY], ([v]) => withGoType(strslice(v), '[]string')),
  join: d([S, ANY], ([sep, v]) => strslice(v).join(sep)),
  sortAlpha: d([ANY], ([v]) => {
    if (Array.isArray(v)) return withGoType(strslice(v).sort(compareStrings), '[]string');
    return withGoType([strval(v)], '[]string');
  }),
  b64enc: d([S], ([s]) => Buffer.from(utf8(s)).toString('base64')),
  b64dec: d([S], ([s]) => base64Decode(s)),
  b32enc: d([S], ([s]) => base32Encode(s)),
  b32dec: d([S], ([s]) => base32Decode(s)),
  base: d([S], ([s]) => pathBase(s)),
  dir: d([S], ([s]) => pathDir(s)),
  clean: d([S], ([s]) => pathClean(s)),
  ext: d([S], ([s]) => pathExt(s)),
  isAbs: d([S], ([s]) => s.startsWith('/')),
  osBase: d([S], ([s]) => pathBase(s)),
  osDir: d([S], ([s]) => pathDir(s)),
  osClean: d([S], ([s]) => pathClean(s)),
  osExt: d([S], ([s]) => pathExt(s)),
  osIsAbs: d([S], ([s]) => s.startsWith('/')),
};

export { GoInt };
