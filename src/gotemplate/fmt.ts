/** Go's fmt: Sprint, Sprintln, Sprintf with verbs, flags, width, precision and Go's error forms. */
import { formatFloat } from './floatfmt.js';
import { goQuote, goQuoteRune, canBackquote } from './strconv.js';
import { GoComplex, GoInt, goSyntaxOf, isMap, sortedKeys, typeName, utf8, isStruct } from './values.js';

interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  plusV: boolean;
  sharpV: boolean;
  wid: number; // -1 when absent
  prec: number; // -1 when absent
}

const noFlags = (): Flags => ({ plus: false, minus: false, sharp: false, space: false, zero: false, plusV: false, sharpV: false, wid: -1, prec: -1 });
const PLAIN: Flags = noFlags();

function pad(s: string, f: Flags): string {
  if (f.wid < 0) return s;
  const n = [...s].length;
  if (n >= f.wid) return s;
  const padding = (f.zero && !f.minus ? '0' : ' ').repeat(f.wid - n);
  return f.minus ? s + ' '.repeat(f.wid - n) : padding + s;
}

/** Does the value have a Go String() method? */
function stringer(v: unknown): string | undefined {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !isMap(v)) {
    const f = (v as any).String;
    if (typeof f === 'function') return String(f.call(v));
    const e = (v as any).Error;
    if (typeof e === 'function') return String(e.call(v));
  }
  return undefined;
}

function fmtInteger(u: bigint, unsigned: boolean, verb: string, f: Flags, typ: string): string {
  let neg = false;
  let a = u;
  if (!unsigned && a < 0n) {
    neg = true;
    a = -a;
  }
  let digits: string;
  let prefix = '';
  switch (verb) {
    case 'v':
    case 'd':
      digits = a.toString(10);
      break;
    case 'b':
      digits = a.toString(2);
      if (f.sharp) prefix = '0b';
      break;
    case 'o':
    case 'O':
      digits = a.toString(8);
      if (verb === 'O') prefix = '0o';
      break;
    case 'x':
      digits = a.toString(16);
      if (f.sharp) prefix = '0x';
      break;
    case 'X':
      digits = a.toString(16).toUpperCase();
      if (f.sharp) prefix = '0X';
      break;
    case 'c':
      return pad(String.fromCodePoint(validRune(u)), f);
    case 'q':
      return pad(goQuoteRune(Number(validRune(u)), f.plus), f);
    case 'U': {
      let s = 'U+' + (u < 0n ? BigInt.asUintN(64, u) : a).toString(16).toUpperCase().padStart(4, '0');
      if (f.sharp && u >= 0n && u <= 0x10ffffn && isPrintable(Number(u))) s += " '" + String.fromCodePoint(Number(u)) + "'";
      return pad(s, { ...f, zero: false });
    }
    default:
      return badVerbTyped(verb, typ, fmtInteger(u, unsigned, 'v', f, typ));
  }
  // precision; a zero value with precision 0 prints only the padding (no sign, no prefix)
  if (f.prec === 0 && a === 0n) return ' '.repeat(Math.max(0, f.wid));
  if (f.prec >= 0) {
    if (f.prec === 0 && a === 0n) digits = '';
    else if (digits.length < f.prec) digits = '0'.repeat(f.prec - digits.length) + digits;
  } else if (f.zero && !f.minus && f.wid >= 0) {
    let w = f.wid;
    if (neg || f.plus || f.space) w--;
    if (digits.length < w) digits = '0'.repeat(w - digits.length) + digits;
  }
  // %#o and %#O: a leading 0 unless the digits (padded to the precision) start with one
  if ((verb === 'o' || verb === 'O') && f.sharp && digits[0] !== '0') digits = '0' + digits;
  let sign = '';
  if (neg) sign = '-';
  else if (f.plus) sign = '+';
  else if (f.space) sign = ' ';
  const s = sign + prefix + digits;
  // zero padding already done above; pad with spaces
  return pad(s, { ...f, zero: false });
}

const isNilValue = (v: unknown): boolean => v === null || v === undefined;

function isPrintable(cp: number): boolean {
  if (cp < 0x20 || cp === 0x7f || (cp >= 0xd800 && cp <= 0xdfff)) return false;
  if (cp < 0x7f) return true;
  return /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(String.fromCodePoint(cp));
}

function validRune(u: bigint): number {
  if (u < 0n || u > 0x10ffffn || (u >= 0xd800n && u <= 0xdfffn)) return 0xfffd;
  return Number(u);
}

function fmtFloat(v: number, verb: string, f: Flags): string {
  let fverb: string;
  let prec: number;
  switch (verb) {
    case 'v':
      fverb = 'g';
      prec = -1;
      break;
    case 'b':
    case 'g':
    case 'G':
    case 'x':
    case 'X':
      fverb = verb;
      prec = -1;
      break;
    case 'f':
    case 'e':
    case 'E':
    case 'F':
      fverb = verb;
      prec = 6;
      break;
    default:
      return badVerbTyped(verb, 'float64', fmtFloat(v, 'v', f));
  }
  if (f.prec >= 0) prec = f.prec;
  let num = formatFloat(v, fverb === 'F' ? 'f' : fverb, prec);
  if (num[0] !== '-' && num[0] !== '+') num = '+' + num;
  if (f.space && num[0] === '+' && !f.plus) num = ' ' + num.slice(1);
  if (num[1] === 'I' || num[1] === 'N') {
    if (num[1] === 'N' && !f.space && !f.plus) num = num.slice(1);
    return pad(num, { ...f, zero: false });
  }
  if (f.sharp && verb !== 'b') {
    // Go: force a decimal point; %g/%v and %x keep `prec` significant digits (6 when shortest).
    // Every char after the sign counts as a digit once a non-'0' one is seen, the 'x' of "0x" too.
    let digits = 0;
    if (fverb === 'g' || fverb === 'G' || fverb === 'x') digits = prec === -1 ? 6 : prec;
    let body = num;
    let tail = '';
    let hasDot = false;
    let nonzero = false;
    for (let i = 1; i < body.length; i++) {
      const c = body[i];
      if (c === '.') hasDot = true;
      else if (c === 'p' || c === 'P' || ((c === 'e' || c === 'E') && fverb !== 'x' && fverb !== 'X')) {
        tail = body.slice(i);
        body = body.slice(0, i);
        break;
      } else {
        nonzero = nonzero || c !== '0';
        if (nonzero) digits--;
      }
    }
    if (!hasDot) {
      if (body.length === 2 && body[1] === '0') digits--;
      body += '.';
    }
    if (digits > 0) body += '0'.repeat(digits);
    num = body + tail;
  }
  if (f.plus || num[0] !== '+') {
    if (f.zero && !f.minus && f.wid > num.length) {
      return num[0] + '0'.repeat(f.wid - num.length) + num.slice(1);
    }
    return pad(num, { ...f, zero: false });
  }
  return pad(num.slice(1), f.zero && !f.minus ? f : { ...f, zero: false });
}

function fmtString(s: string, verb: string, f: Flags): string | null {
  switch (verb) {
    case 'v':
      if (f.sharpV) return pad(goQuote(s), f);
      return padString(s, f);
    case 's':
      return padString(s, f);
    case 'x':
    case 'X':
      return pad(hexBytes(s, verb, f), f);
    case 'q': {
      const t = truncPrec(s, f);
      if (f.sharp && canBackquote(t)) return pad('`' + t + '`', f);
      return pad(goQuote(t, f.plus), f);
    }
  }
  return null;
}

function truncPrec(s: string, f: Flags): string {
  if (f.prec < 0) return s;
  const cps = [...s];
  return cps.length > f.prec ? cps.slice(0, f.prec).join('') : s;
}
function padString(s: string, f: Flags): string {
  return pad(truncPrec(s, f), f);
}

function hexBytes(s: string, verb: string, f: Flags): string {
  let b = utf8(s);
  if (f.prec >= 0 && f.prec < b.length) b = b.subarray(0, f.prec); // precision counts bytes
  let out = '';
  for (let i = 0; i < b.length; i++) {
    if (f.space && i > 0) out += ' ';
    if (f.sharp && (f.space || i === 0)) out += verb === 'x' ? '0x' : '0X';
    const h = b[i].toString(16).padStart(2, '0');
    out += verb === 'X' ? h.toUpperCase() : h;
  }
  return out;
}

function badVerbTyped(verb: string, typ: string, shown: string): string {
  return `%!${verb}(${typ}=${shown})`;
}

/** Prints one operand with a verb (pp.printArg / printValue). depth > 0 inside containers. */
export function formatValue(v: unknown, verb: string, f: Flags = PLAIN, depth = 0): string {
  if (v === null || v === undefined) {
    if (depth > 0) return '<nil>'; // a nil element of a container: never padded
    if (verb === 'T' || verb === 'v') return pad('<nil>', f);
    return `%!${verb}(<nil>)`;
  }
  if (verb === 'T') return padString(typeName(v), f);
  if (f.sharpV) return goSyntax(v, depth, f);
  if (verb === 'p') {
    // maps, slices, functions and pointers print their address (Go's differs from run to run)
    if (Array.isArray(v) || isMap(v) || typeof v === 'function' || typeName(v).startsWith('*')) {
      return pad(f.sharp ? 'c000010000' : '0xc000010000', f);
    }
    return badVerbTyped('p', typeName(v), formatValue(v, 'v', f, depth));
  }
  switch (typeof v) {
    case 'boolean':
      if (verb === 't' || verb === 'v') return pad(v ? 'true' : 'false', f);
      return badVerbTyped(verb, 'bool', pad(v ? 'true' : 'false', f));
    case 'number':
      return fmtFloat(v, verb, f);
    case 'bigint':
      return fmtInteger(v, false, verb, f, 'int');
    case 'string': {
      const r = fmtString(v, verb, f);
      return r ?? badVerbTyped(verb, 'string', fmtString(v, 'v', f)!);
    }
    case 'function':
      return `%!${verb}(func=<func>)`;
  }
  if (v instanceof GoInt) {
    return fmtInteger(v.v, v.type.startsWith('u'), verb, f, v.type);
  }
  if (v instanceof GoComplex) {
    if (!'vbgGxXfFeE'.includes(verb)) return `%!${verb}(complex128=${formatValue(v, 'v', f)})`;
    return '(' + fmtFloat(v.re, verb, f) + fmtFloat(v.im, verb, { ...f, plus: true }) + 'i)';
  }
  if (v instanceof Uint8Array) {
    if (verb === 's' || verb === 'q' || verb === 'x' || verb === 'X') {
      return fmtString(new TextDecoder().decode(v), verb, f) ?? '';
    }
    return '[' + [...v].map((b) => fmtInteger(BigInt(b), true, verb, f, 'uint8')).join(' ') + ']';
  }
  if (verb === 'v' || verb === 's' || verb === 'x' || verb === 'X' || verb === 'q') {
    const s = stringer(v);
    if (s !== undefined) return fmtString(s, verb, f) ?? s;
  }
  if (Array.isArray(v)) {
    const tt = typeName(v);
    if ((verb === 's' || verb === 'q' || verb === 'x' || verb === 'X') && tt === '[]uint8') {
      return fmtString(String.fromCharCode(...v.map((x: any) => Number(x instanceof GoInt ? x.v : x))), verb, f) ?? '';
    }
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ' ';
      out += formatValue(v[i], verb, f, depth + 1);
    }
    return out + ']';
  }
  if (isMap(v)) {
    let out = 'map[';
    let first = true;
    for (const k of sortedKeys(v)) {
      if (!first) out += ' ';
      first = false;
      out += formatValue(k, verb, f, depth + 1) + ':' + formatValue(v[k], verb, f, depth + 1);
    }
    return out + ']';
  }
  if (isStruct(v)) {
    // struct: {field field}; pointers to structs print with & at top level
    const fields = Object.keys(v).filter((k) => typeof (v as any)[k] !== 'function');
    let out = depth === 0 && typeName(v).startsWith('*') ? '&{' : '{';
    out += fields
      .map((k) => (f.plusV ? k + ':' : '') + formatValue((v as any)[k], verb, f, depth + 1))
      .join(' ');
    return out + '}';
  }
  return String(v);
}

/** %#v: Go-syntax representation; width and flags apply to each scalar, as in Go. */
function goSyntax(v: unknown, depth: number, f: Flags): string {
  if (v === null || v === undefined) return depth > 0 ? 'interface {}(nil)' : pad('<nil>', f);
  switch (typeof v) {
    case 'string':
      return pad(goQuote(truncPrec(v, f)), f);
    case 'boolean':
      return pad(v ? 'true' : 'false', f);
    case 'number':
      return fmtFloat(v, 'v', { ...f, sharp: false, sharpV: false });
    case 'bigint':
      return fmtInteger(v, false, 'v', f, 'int');
  }
  if (v instanceof GoInt) {
    const unsigned = v.type.startsWith('u');
    return unsigned ? fmtInteger(v.v, true, 'x', { ...f, sharp: true }, v.type) : fmtInteger(v.v, false, 'v', f, v.type);
  }
  if (v instanceof GoComplex) {
    const fl = { ...f, sharp: false, sharpV: false };
    return '(' + fmtFloat(v.re, 'v', fl) + fmtFloat(v.im, 'v', { ...fl, plus: true }) + 'i)';
  }
  if (Array.isArray(v)) return typeName(v) + '{' + v.map((x) => goSyntax(x, depth + 1, f)).join(', ') + '}';
  if (isMap(v)) {
    return typeName(v) + '{' + sortedKeys(v).map((k) => goSyntax(k, depth + 1, f) + ':' + goSyntax(v[k], depth + 1, f)).join(', ') + '}';
  }
  if (typeof v === 'object' && typeof (v as any)[goSyntaxOf] === 'function') return (v as any)[goSyntaxOf](depth);
  return pad(formatValue(v, 'v', PLAIN, depth), { ...f, zero: false });
}

/** fmt.Sprint: spaces between operands when neither side is a string. */
export function sprint(args: unknown[]): string {
  let out = '';
  let prevString = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const isString = typeof a === 'string';
    if (i > 0 && !isString && !prevString) out += ' ';
    out += formatValue(a, 'v');
    prevString = isString;
  }
  return out;
}

/** fmt.Sprintln: always spaces, newline at the end. */
export function sprintln(args: unknown[]): string {
  return args.map((a) => formatValue(a, 'v')).join(' ') + '\n';
}

/** fmt.Sprintf. */
export function sprintf(format: string, args: unknown[]): string {
  let out = '';
  let argNum = 0;
  let reordered = false;
  let goodArgNum = true;
  let afterIndex = false;
  const end = format.length;
  let i = 0;
  while (i < end) {
    const lasti = i;
    while (i < end && format[i] !== '%') i++;
    if (i > lasti) out += format.slice(lasti, i);
    if (i >= end) break;
    i++; // skip %
    const f = noFlags();
    // flags
    flags: for (; i < end; i++) {
      switch (format[i]) {
        case '#':
          f.sharp = true;
          break;
        case '0':
          f.zero = !f.minus;
          break;
        case '+':
          f.plus = true;
          break;
        case '-':
          f.minus = true;
          f.zero = false;
          break;
        case ' ':
          f.space = true;
          break;
        default:
          break flags;
      }
    }
    // argument index
    const argIndex = (): void => {
      afterIndex = false;
      if (i < end && format[i] === '[') {
        const close = format.indexOf(']', i);
        if (close < 0) {
          reordered = true;
          return;
        }
        const n = Number(format.slice(i + 1, close));
        if (!/^\d+$/.test(format.slice(i + 1, close)) || n < 1 || n > args.length) {
          reordered = true;
          i = close + 1;
          goodArgNum = false;
          return;
        }
        argNum = n - 1;
        i = close + 1;
        reordered = true;
        afterIndex = true;
      }
    };
    argIndex();
    // width
    let badWidth = false;
    if (i < end && format[i] === '*') {
      i++;
      const a = args[argNum];
      if (argNum >= 0 && argNum < args.length && (typeof a === 'bigint' || a instanceof GoInt)) {
        let w = Number(typeof a === 'bigint' ? a : a.v);
        if (w < 0) {
          f.minus = true;
          f.zero = false;
          w = -w;
        }
        f.wid = w;
      } else badWidth = true;
      argNum++;
      afterIndex = false;
    } else {
      const st = i;
      while (i < end && format[i] >= '0' && format[i] <= '9') i++;
      if (i > st) f.wid = Number(format.slice(st, i));
    }
    if (badWidth) out += '%!(BADWIDTH)';
    // precision
    if (i < end && format[i] === '.') {
      i++;
      if (afterIndex) {
        /* nothing */
      }
      argIndex();
      if (i < end && format[i] === '*') {
        i++;
        const a = args[argNum];
        if (argNum >= 0 && argNum < args.length && (typeof a === 'bigint' || a instanceof GoInt)) {
          const p = Number(typeof a === 'bigint' ? a : a.v);
          f.prec = p < 0 ? -1 : p;
          if (p < 0) out += '%!(BADPREC)';
        } else out += '%!(BADPREC)';
        argNum++;
        afterIndex = false;
      } else {
        const st = i;
        while (i < end && format[i] >= '0' && format[i] <= '9') i++;
        f.prec = Number(format.slice(st, i) || '0');
      }
    }
    if (!afterIndex) argIndex();
    if (i >= end) {
      out += '%!(NOVERB)';
      break;
    }
    const cp = format.codePointAt(i)!;
    const verb = String.fromCodePoint(cp);
    i += verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (!goodArgNum) {
      out += `%!${verb}(BADINDEX)`;
      goodArgNum = true;
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const arg = args[argNum++];
    if (verb === 'w') {
      // Sprintf has no error to wrap: %w is a bad verb
      out += isNilValue(arg) ? '%!w(<nil>)' : `%!w(${typeName(arg)}=${formatValue(arg, 'v')})`;
      continue;
    }
    if (verb === 'v') {
      if (f.sharp) {
        f.sharp = false;
        f.sharpV = true;
      }
      if (f.plus) {
        f.plus = false;
        f.plusV = true;
      }
    }
    out += formatValue(arg, verb, f);
  }
  if (!reordered && argNum < args.length) {
    out += '%!(EXTRA ';
    out += args
      .slice(argNum)
      .map((a) => (a === null || a === undefined ? '<nil>' : `${typeName(a)}=${formatValue(a, 'v')}`))
      .join(', ');
    out += ')';
  }
  return out;
}
