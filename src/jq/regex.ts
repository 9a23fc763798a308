/**
 * jq's regular expressions (Oniguruma, Perl-NT syntax in jq 1.8) mapped onto JavaScript's RegExp with
 * the `u` flag. Differences are documented in docs/jq.md ("Regular expressions").
 *
 * Flags: g global, i ignore case, x extended (whitespace and # comments in the pattern ignored),
 * n ignore empty matches, s single line (^ $ at the text's ends), l longest (no effect here), p (s, and . matches
 * a newline).
 * Offsets and lengths are in code points, as jq reports them.
 */
import * as V from './value.js';
import type { Json } from './value.js';

const cache = new Map<string, RegExp>();

function stripExtended(re: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < re.length; i++) {
    const c = re[i]!;
    if (c === '\\') {
      out += c + (re[i + 1] ?? '');
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') continue;
    if (c === '#') {
      while (i < re.length && re[i] !== '\n') i++;
      continue;
    }
    out += c;
  }
  return out;
}

/**
 * Oniguruma's word character inside a bracket class: Alphabetic, Mark, Decimal_Number,
 * Connector_Punctuation (JavaScript's \w is ASCII).
 */
const CLASS_WORD = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}';
/** \w outside a class: the same, and the Latin-1 fractions and superscripts (² ³ ¹ ¼ ½ ¾), as Oniguruma's table. */
const WORD = `${CLASS_WORD}\\xb2\\xb3\\xb9\\xbc-\\xbe`;

/**
 * Oniguruma-only syntax rewritten to JavaScript: \h (hex digit), \A, \z, \Z; the class escapes \w \W
 * \d \D \s \S and the word boundaries \b \B with Oniguruma's Unicode meaning (\W inside a bracket
 * class stays ASCII); possessive/atomic not supported.
 */
function translate(re: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < re.length; i++) {
    const c = re[i]!;
    if (c === '\\') {
      const d = re[i + 1] ?? '';
      i++;
      if (d === 'h') out += inClass ? '0-9a-fA-F' : '[0-9a-fA-F]';
      else if (d === 'H') out += '[^0-9a-fA-F]';
      else if (d === 'A' && !inClass) out += '(?<![\\s\\S])';
      else if ((d === 'z' || d === 'Z') && !inClass) out += d === 'z' ? '(?![\\s\\S])' : '(?=\\n?(?![\\s\\S]))';
      else if (d === 'w') out += inClass ? CLASS_WORD : `[${WORD}]`;
      else if (d === 'W' && !inClass) out += `[^${WORD}]`;
      else if (d === 'd' || d === 'D') out += d === 'd' ? '\\p{Nd}' : '\\P{Nd}';
      else if (d === 's' || d === 'S') out += d === 's' ? '\\p{White_Space}' : '\\P{White_Space}';
      else if (d === 'b' && !inClass) out += `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
      else if (d === 'B' && !inClass) out += `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`;
      else out += '\\' + d;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    if (c === '(' && re[i + 1] === '?' && re[i + 2] === '<' && re[i + 3] !== '=' && re[i + 3] !== '!') {
      out += '(?<';
      i += 2;
      continue;
    }
    out += c;
  }
  return out;
}

function compileRegex(re: string, flags: string): { rx: RegExp; global: boolean; noEmpty: boolean } {
  let global = false;
  let noEmpty = false;
  let js = 'u';
  let extended = false;
  let dotAll = false;
  for (const f of flags) {
    switch (f) {
      case 'g':
        global = true;
        break;
      case 'i':
        js += 'i';
        break;
      case 'x':
        extended = true;
        break;
      case 'n':
        noEmpty = true;
        break;
      case 's':
        // single line: ^ and $ at the ends of the text only, which is already JavaScript's meaning
        break;
      case 'p':
        dotAll = true;
        break;
      case 'l':
        break;
      default:
        V.fail(`${flags} is not a valid modifier string`);
    }
  }
  const key = `${js}${extended ? 'x' : ''}${dotAll ? 's' : ''}/${re}`;
  let rx = cache.get(key);
  if (!rx) {
    const source = translate(extended ? stripExtended(re) : re);
    try {
      rx = new RegExp(source, js + 'gd' + (dotAll ? 's' : ''));
    } catch (e) {
      V.fail(`${re} (at offset 0) is not a valid regex: ${(e as Error).message}`);
    }
    if (cache.size > 500) cache.clear();
    cache.set(key, rx);
  }
  return { rx, global, noEmpty };
}

function cpIndex(s: string, unitIndex: number, ascii: boolean): number {
  return ascii ? unitIndex : V.codepointLength(s.slice(0, unitIndex));
}

/** jq's `_match_impl(re; flags; test)`. */
export function matchImpl(input: Json, re: Json, flags: Json, test: Json): Json {
  if (typeof input !== 'string') V.fail(`${V.describe(input)} cannot be matched, as it is not a string`);
  if (typeof re !== 'string') V.fail(`${V.describe(re)} is not a string`);
  if (flags !== null && typeof flags !== 'string') V.fail(`${V.describe(flags)} is not a string`);
  const { rx, global, noEmpty } = compileRegex(re, flags ?? '');
  rx.lastIndex = 0;
  if (test === true) {
    for (;;) {
      const m = rx.exec(input);
      if (!m) return false;
      if (!(noEmpty && m[0] === '')) return true;
      if (m[0] === '') rx.lastIndex = m.index + 1;
    }
  }
   
  const ascii = !/[\ud800-\udfff]/.test(input);
  const out: Json[] = [];
  const names: (string | null)[] = [];
  const groupNames = /\(\?<([a-zA-Z_][a-zA-Z0-9_]*)>|\((?!\?)|\(\?:|\(\?[=!]|\(\?<[=!]/g;
  const src = rx.source;
  // map capture group numbers to names, in order of their opening parenthesis
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '(' && !inClass) {
      if (src[i + 1] !== '?') names.push(null);
      else {
        const m = /^\(\?<([a-zA-Z_][a-zA-Z0-9_]*)>/.exec(src.slice(i));
        if (m) names.push(m[1]!);
      }
    }
  }
  void groupNames;
  for (;;) {
    const m = rx.exec(input);
    if (!m) break;
    const empty = m[0] === '';
    if (empty) rx.lastIndex = m.index + (input.codePointAt(m.index)! > 0xffff ? 2 : 1);
    if (!(noEmpty && empty)) {
      const offset = cpIndex(input, m.index, ascii);
      const captures: Json[] = [];
      const indices = (m as RegExpExecArray & { indices?: [number, number][] }).indices;
      for (let g = 1; g < m.length; g++) {
        const s = m[g];
        const name = names[g - 1] ?? null;
        if (s === undefined) {
          // jq 1.8.2 builds a group that did not participate with its keys in this order
          captures.push({ offset: -1, string: null, length: 0, name });
          continue;
        }
        const at = indices ? indices[g]![0] : input.indexOf(s, m.index);
        captures.push({ offset: cpIndex(input, at, ascii), length: ascii ? s.length : V.codepointLength(s), string: s, name });
      }
      out.push({ offset, length: ascii ? m[0].length : V.codepointLength(m[0]), string: m[0], captures });
    }
    if (!global || m.index >= input.length) break;
  }
  return out;
}
