/** Go's strconv quoting and unquoting rules (Quote, QuoteToASCII, QuoteRune, Unquote). */

const SIMPLE_ESC: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, "'": 39, '"': 34 };

/** strconv.UnquoteChar: decodes one (possibly escaped) char; returns [codepoint, tail]. */
export function unquoteChar(s: string, quote: string): [number, string] {
  const c = s[0];
  if (c === undefined) throw new Error('invalid syntax');
  if (c === quote && (quote === "'" || quote === '"')) throw new Error('invalid syntax');
  if (c !== '\\') {
    const cp = s.codePointAt(0)!;
    return [cp, s.slice(cp > 0xffff ? 2 : 1)];
  }
  const e = s[1];
  if (e === undefined) throw new Error('invalid syntax');
  if (e in SIMPLE_ESC) {
    if ((e === "'" || e === '"') && e !== quote) throw new Error('invalid syntax');
    return [SIMPLE_ESC[e], s.slice(2)];
  }
  const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
  if (hexLen) {
    const h = s.slice(2, 2 + hexLen);
    if (h.length < hexLen || !/^[0-9a-fA-F]+$/.test(h)) throw new Error('invalid syntax');
    const v = parseInt(h, 16);
    if (e !== 'x' && (v > 0x10ffff || (v >= 0xd800 && v < 0xe000))) throw new Error('invalid syntax');
    // \x produces a byte; we map bytes >= 0x80 to the same code point (lossy, rare)
    return [v, s.slice(2 + hexLen)];
  }
  if (e >= '0' && e <= '7') {
    const o = s.slice(1, 4);
    if (!/^[0-7]{3}$/.test(o)) throw new Error('invalid syntax');
    const v = parseInt(o, 8);
    if (v > 255) throw new Error('invalid syntax');
    return [v, s.slice(4)];
  }
  throw new Error('invalid syntax');
}

/** strconv.Unquote for "..." and `...` literals (as produced by the lexer). */
export function unquoteGo(s: string): string {
  const q = s[0];
  if (s.length < 2 || s[s.length - 1] !== q) throw new Error('invalid syntax');
  const body = s.slice(1, -1);
  if (q === '`') {
    if (body.includes('`')) throw new Error('invalid syntax');
    return body.replace(/\r/g, '');
  }
  if (q !== '"' && q !== "'") throw new Error('invalid syntax');
  if (!body.includes('\\') && !body.includes(q)) return body;
  let out = '';
  let rest = body;
  const bytes: number[] = [];
  const flushBytes = (): void => {
    if (bytes.length) {
      out += Buffer.from(bytes).toString('utf8');
      bytes.length = 0;
    }
  };
  while (rest.length > 0) {
    const isHexByte = rest[0] === '\\' && (rest[1] === 'x' || (rest[1] >= '0' && rest[1] <= '7'));
    const [cp, tail] = unquoteChar(rest, q);
    if (isHexByte) {
      bytes.push(cp);
    } else {
      flushBytes();
      out += String.fromCodePoint(cp);
    }
    rest = tail;
  }
  flushBytes();
  return out;
}

function isPrintRune(cp: number): boolean {
  if (cp < 0x20 || cp === 0x7f) return false;
  if (cp < 0x7f) return true;
  return /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(String.fromCodePoint(cp));
}

function escapeRune(cp: number, quote: string, asciiOnly: boolean): string {
  const ch = String.fromCodePoint(cp);
  if (ch === quote || ch === '\\') return '\\' + ch;
  if (asciiOnly ? cp < 0x80 && isPrintRune(cp) : isPrintRune(cp)) return ch;
  switch (cp) {
    case 7: return '\\a';
    case 8: return '\\b';
    case 12: return '\\f';
    case 10: return '\\n';
    case 13: return '\\r';
    case 9: return '\\t';
    case 11: return '\\v';
  }
  if (cp < 0x20 || cp === 0x7f) return '\\x' + cp.toString(16).padStart(2, '0');
  if (cp === 0xfffd) return asciiOnly ? '\\ufffd' : ch;
  if (cp < 0x10000) return '\\u' + cp.toString(16).padStart(4, '0');
  return '\\U' + cp.toString(16).padStart(8, '0');
}

/** strconv.Quote (asciiOnly = QuoteToASCII). Invalid UTF-8 cannot occur in JS strings. */
export function goQuote(s: string, asciiOnly = false): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += '\\ufffd';
      continue;
    }
    out += escapeRune(cp, '"', asciiOnly);
  }
  return out + '"';
}

/** strconv.QuoteRune */
export function goQuoteRune(cp: number, asciiOnly = false): string {
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp < 0) cp = 0xfffd;
  return "'" + escapeRune(cp, "'", asciiOnly) + "'";
}

/** strconv.CanBackquote */
export function canBackquote(s: string): boolean {
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0xfeff) return false;
    if (ch === '`') return false;
    if (cp < 0x20 && ch !== '\t') return false;
    if (cp === 0x7f) return false;
  }
  return true;
}
