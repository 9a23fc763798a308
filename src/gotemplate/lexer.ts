/**
 * Lexer for Go text/template (behaviour of Go's text/template/parse/lex.go, written anew).
 *
 * Positions are byte offsets into the UTF-8 text, like Go's, because Go reports columns in bytes.
 * The lexer works on a JS string and keeps a parallel byte offset; for ASCII-only text (the common
 * case) both are equal.
 */

export const enum T {
  Error,
  Bool,
  Char,
  CharConstant,
  Comment,
  Complex,
  Assign,
  Declare,
  EOF,
  Field,
  Identifier,
  LeftDelim,
  LeftParen,
  Number,
  Pipe,
  RawString,
  RightDelim,
  RightParen,
  Space,
  String,
  Text,
  Variable,
  // keywords (all after Keyword)
  Keyword,
  Block,
  Break,
  Continue,
  Dot,
  Define,
  Else,
  End,
  If,
  Nil,
  Range,
  Template,
  With,
}

export interface Item {
  typ: T;
  pos: number; // byte offset
  val: string;
  line: number;
}

const KEYWORDS: Record<string, T> = {
  '.': T.Dot,
  block: T.Block,
  break: T.Break,
  continue: T.Continue,
  define: T.Define,
  else: T.Else,
  end: T.End,
  if: T.If,
  range: T.Range,
  nil: T.Nil,
  template: T.Template,
  with: T.With,
};

/** Go's item.String(), used in "unexpected X in Y" messages. */
export function itemString(i: Item): string {
  if (i.typ === T.EOF) return 'EOF';
  if (i.typ === T.Error) return i.val;
  if (i.typ > T.Keyword) return `<${i.val}>`;
  if ([...i.val].length > 10) return goQuoteTrunc(i.val, 10) + '...';
  return goQuoteSimple(i.val);
}

function goQuoteSimple(s: string): string {
  return JSON.stringify(s);
}
function goQuoteTrunc(s: string, n: number): string {
  return JSON.stringify([...s].slice(0, n).join(''));
}

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isAlphaNumeric = (c: string): boolean => c === '_' || /[\p{L}\p{Nd}]/u.test(c);

const LEFT = '{{';
const RIGHT = '}}';
const LEFT_COMMENT = '/*';
const RIGHT_COMMENT = '*/';

function byteLen(s: string): number {
  // fast path for ASCII
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n++;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function hasLeftTrimMarker(s: string, i: number): boolean {
  return s.length - i >= 2 && s[i] === '-' && isSpace(s[i + 1]);
}
function hasRightTrimMarker(s: string, i: number): boolean {
  return s.length - i >= 2 && isSpace(s[i]) && s[i + 1] === '-';
}

/** Tokenises the whole input eagerly (an error item ends the list). */
export function lex(input: string): Item[] {
  const items: Item[] = [];
  const ascii = !/[^\x00-\x7f]/.test(input);
  let pos = 0; // JS index
  let start = 0;
  let line = 1;
  let startLine = 1;
  let parenDepth = 0;
  const bytePos = ascii ? (i: number) => i : (() => {
    // prefix byte offsets, computed lazily once
    const table = new Int32Array(input.length + 1);
    let b = 0;
    for (let i = 0; i < input.length; i++) {
      table[i] = b;
      const c = input.charCodeAt(i);
      if (c < 0x80) b += 1;
      else if (c < 0x800) b += 2;
      else if (c >= 0xd800 && c <= 0xdbff) {
        table[i + 1] = b; // low surrogate maps inside; fine
        b += 4;
        i++;
        continue;
      } else b += 3;
    }
    table[input.length] = b;
    return (i: number) => table[i];
  })();

  const emit = (typ: T): void => {
    const val = input.slice(start, pos);
    items.push({ typ, pos: bytePos(start), val, line: startLine });
    for (let i = start; i < pos; i++) if (input.charCodeAt(i) === 10) line++;
    start = pos;
    startLine = line;
  };
  const ignore = (): void => {
    for (let i = start; i < pos; i++) if (input.charCodeAt(i) === 10) line++;
    start = pos;
    startLine = line;
  };
  let failed = false;
  const errorf = (msg: string): void => {
    items.push({ typ: T.Error, pos: bytePos(start), val: msg, line: startLine });
    failed = true;
  };
  const next = (): string => {
    if (pos >= input.length) {
      pos++;
      return '';
    }
    const c = input.codePointAt(pos)!;
    const s = String.fromCodePoint(c);
    pos += s.length;
    return s;
  };
  // We only ever back up one char; remember its width.
  let lastWidth = 0;
  const nextW = (): string => {
    const s = next();
    lastWidth = s.length || 1;
    return s;
  };
  const backup = (): void => {
    pos -= lastWidth;
  };
  const peek = (): string => {
    if (pos >= input.length) return '';
    return String.fromCodePoint(input.codePointAt(pos)!);
  };
  const atRightDelim = (): [boolean, boolean] => {
    if (hasRightTrimMarker(input, pos) && input.startsWith(RIGHT, pos + 2)) return [true, true];
    if (input.startsWith(RIGHT, pos)) return [true, false];
    return [false, false];
  };
  const atTerminator = (): boolean => {
    const r = peek();
    if (r === '' || isSpace(r)) return true;
    switch (r) {
      case '.':
      case ',':
      case '|':
      case ':':
      case ')':
      case '(':
        return true;
    }
    return input.startsWith(RIGHT, pos);
  };
  const leftTrimLength = (i: number): number => {
    let j = i;
    while (j < input.length && isSpace(input[j])) j++;
    return j - i;
  };

  type State = () => State | null;

  const lexText: State = () => {
    const x = input.indexOf(LEFT, pos);
    if (x >= 0) {
      if (x > pos) {
        pos = x;
        let trimLength = 0;
        const delimEnd = pos + LEFT.length;
        if (hasLeftTrimMarker(input, delimEnd)) {
          let j = pos;
          while (j > start && isSpace(input[j - 1])) j--;
          trimLength = pos - j;
        }
        pos -= trimLength;
        if (pos > start) emit(T.Text);
        pos += trimLength;
        ignore();
      }
      return lexLeftDelim;
    }
    pos = input.length;
    if (pos > start) emit(T.Text);
    emit(T.EOF);
    return null;
  };

  const lexLeftDelim: State = () => {
    pos += LEFT.length;
    const trimSpace = hasLeftTrimMarker(input, pos);
    const afterMarker = trimSpace ? 2 : 0;
    if (input.startsWith(LEFT_COMMENT, pos + afterMarker)) {
      pos += afterMarker;
      ignore();
      return lexComment;
    }
    emit(T.LeftDelim);
    pos += afterMarker;
    ignore();
    parenDepth = 0;
    return lexInsideAction;
  };

  const lexComment: State = () => {
    pos += LEFT_COMMENT.length;
    const x = input.indexOf(RIGHT_COMMENT, pos);
    if (x < 0) {
      errorf('unclosed comment');
      return null;
    }
    pos = x + RIGHT_COMMENT.length;
    const [delim, trimSpace] = atRightDelim();
    if (!delim) {
      errorf('comment ends before closing delimiter');
      return null;
    }
    if (trimSpace) pos += 2;
    pos += RIGHT.length;
    if (trimSpace) pos += leftTrimLength(pos);
    ignore();
    return lexText;
  };

  const lexRightDelim: State = () => {
    const [, trimSpace] = atRightDelim();
    if (trimSpace) {
      pos += 2;
      ignore();
    }
    pos += RIGHT.length;
    emit(T.RightDelim);
    if (trimSpace) {
      pos += leftTrimLength(pos);
      ignore();
    }
    return lexText;
  };

  const lexInsideAction: State = () => {
    const [delim] = atRightDelim();
    if (delim) {
      if (parenDepth === 0) return lexRightDelim;
      errorf('unclosed left paren');
      return null;
    }
    const r = nextW();
    if (r === '') {
      errorf('unclosed action');
      return null;
    }
    if (isSpace(r)) {
      backup();
      return lexSpace;
    }
    switch (r) {
      case '=':
        emit(T.Assign);
        return lexInsideAction;
      case ':':
        if (nextW() !== '=') {
          errorf('expected :=');
          return null;
        }
        emit(T.Declare);
        return lexInsideAction;
      case '|':
        emit(T.Pipe);
        return lexInsideAction;
      case '"':
        return lexQuote;
      case '`':
        return lexRawQuote;
      case '$':
        return lexFieldOrVariable(T.Variable);
      case "'":
        return lexChar;
      case '(':
        emit(T.LeftParen);
        parenDepth++;
        return lexInsideAction;
      case ')':
        parenDepth--;
        if (parenDepth < 0) {
          errorf('unexpected right paren');
          return null;
        }
        emit(T.RightParen);
        return lexInsideAction;
    }
    if (r === '.') {
      if (pos < input.length) {
        const c = input[pos];
        if (c < '0' || c > '9') return lexFieldOrVariable(T.Field);
      }
      backup();
      return lexNumber;
    }
    if (r === '+' || r === '-' || (r >= '0' && r <= '9')) {
      backup();
      return lexNumber;
    }
    if (isAlphaNumeric(r)) {
      backup();
      return lexIdentifier;
    }
    const cp = r.codePointAt(0)!;
    if (cp <= 0x7f && cp >= 0x20 && cp !== 0x7f) {
      emit(T.Char);
      return lexInsideAction;
    }
    errorf(`unrecognized character in action: ${goUnicode(cp)}`);
    return null;
  };

  const lexSpace: State = () => {
    let numSpaces = 0;
    while (pos < input.length && isSpace(input[pos])) {
      pos++;
      numSpaces++;
    }
    if (hasRightTrimMarker(input, pos - 1) && input.startsWith(RIGHT, pos - 1 + 2)) {
      pos--;
      if (numSpaces === 1) return lexRightDelim;
    }
    emit(T.Space);
    return lexInsideAction;
  };

  const lexIdentifier: State = () => {
    for (;;) {
      const r = nextW();
      if (r !== '' && isAlphaNumeric(r)) continue;
      backup();
      const word = input.slice(start, pos);
      if (!atTerminator()) {
        errorf(`bad character ${goUnicode(r === '' ? 0 : r.codePointAt(0)!)}`);
        return null;
      }
      const kw = KEYWORDS[word];
      if (kw !== undefined && kw > T.Keyword) emit(kw);
      else if (word[0] === '.') emit(T.Field);
      else if (word === 'true' || word === 'false') emit(T.Bool);
      else emit(T.Identifier);
      return lexInsideAction;
    }
  };

  const lexFieldOrVariable = (typ: T): State => () => {
    if (atTerminator()) {
      emit(typ === T.Variable ? T.Variable : T.Dot);
      return lexInsideAction;
    }
    let r: string;
    for (;;) {
      r = nextW();
      if (r === '' || !isAlphaNumeric(r)) {
        backup();
        break;
      }
    }
    if (!atTerminator()) {
      errorf(`bad character ${goUnicode(r === '' ? 0 : r.codePointAt(0)!)}`);
      return null;
    }
    emit(typ);
    return lexInsideAction;
  };

  const lexChar: State = () => {
    for (;;) {
      let r = nextW();
      if (r === '\\') {
        r = nextW();
        if (r !== '' && r !== '\n') continue;
      }
      if (r === '' || r === '\n') {
        errorf('unterminated character constant');
        return null;
      }
      if (r === "'") break;
    }
    emit(T.CharConstant);
    return lexInsideAction;
  };

  const accept = (valid: string): boolean => {
    const r = nextW();
    if (r !== '' && valid.includes(r)) return true;
    backup();
    return false;
  };
  const acceptRun = (valid: string): void => {
    for (;;) {
      const r = nextW();
      if (r === '' || !valid.includes(r)) {
        backup();
        return;
      }
    }
  };
  const scanNumber = (): boolean => {
    accept('+-');
    let digits = '0123456789_';
    if (accept('0')) {
      if (accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (accept('oO')) digits = '01234567_';
      else if (accept('bB')) digits = '01_';
    }
    acceptRun(digits);
    if (accept('.')) acceptRun(digits);
    if (digits.length === 11 && accept('eE')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    if (digits.length === 23 && accept('pP')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    accept('i');
    const p = peek();
    if (p !== '' && isAlphaNumeric(p)) {
      nextW();
      return false;
    }
    return true;
  };
  const lexNumber: State = () => {
    if (!scanNumber()) {
      errorf(`bad number syntax: ${JSON.stringify(input.slice(start, pos))}`);
      return null;
    }
    const sign = peek();
    if (sign === '+' || sign === '-') {
      if (!scanNumber() || input[pos - 1] !== 'i') {
        errorf(`bad number syntax: ${JSON.stringify(input.slice(start, pos))}`);
        return null;
      }
      emit(T.Complex);
    } else emit(T.Number);
    return lexInsideAction;
  };

  const lexQuote: State = () => {
    for (;;) {
      let r = nextW();
      if (r === '\\') {
        r = nextW();
        if (r !== '' && r !== '\n') continue;
      }
      if (r === '' || r === '\n') {
        errorf('unterminated quoted string');
        return null;
      }
      if (r === '"') break;
    }
    emit(T.String);
    return lexInsideAction;
  };

  const lexRawQuote: State = () => {
    const x = input.indexOf('`', pos);
    if (x < 0) {
      errorf('unterminated raw quoted string');
      return null;
    }
    pos = x + 1;
    emit(T.RawString);
    return lexInsideAction;
  };

  let state: State | null = lexText;
  while (state && !failed) state = state();
  return items;
}

export function goUnicode(cp: number): string {
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  const ch = String.fromCodePoint(cp);
  // %#U prints U+0041 'A' for printable runes
  if (cp >= 0x20 && cp !== 0x7f && /[\p{L}\p{N}\p{P}\p{S}\p{Zs}\p{M}]/u.test(ch)) return `U+${hex} '${ch}'`;
  return `U+${hex}`;
}

export { byteLen };
