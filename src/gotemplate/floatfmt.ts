/** strconv.FormatFloat for bitSize 64, formats 'e' 'E' 'f' 'F' 'g' 'G' 'x' 'X' 'b', any precision. */

interface Digits {
  d: string; // significant digits, no leading zeros ('' for zero)
  dp: number; // decimal point position relative to the digits
}

/** Exact decimal expansion of a finite non-negative double. */
function exactDigits(x: number): Digits {
  if (x === 0) return { d: '', dp: 0 };
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e2: number;
  if (bexp === 0) e2 = -1074;
  else {
    mant |= 1n << 52n;
    e2 = bexp - 1075;
  }
  let s: string;
  let dp: number;
  if (e2 >= 0) {
    s = (mant << BigInt(e2)).toString();
    dp = s.length;
  } else {
    s = (mant * 5n ** BigInt(-e2)).toString();
    dp = s.length + e2;
  }
  // trim leading/trailing zeros
  let i = 0;
  while (i < s.length && s[i] === '0') i++;
  s = s.slice(i);
  let j = s.length;
  while (j > 0 && s[j - 1] === '0') j--;
  return { d: s.slice(0, j), dp };
}

/** Shortest round-trip digits (same as Go's shortest formatting). */
function shortestDigits(x: number): Digits {
  if (x === 0) return { d: '', dp: 0 };
  const e = x.toExponential(); // "d.ddde+N"
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(e)!;
  let d = m[1] + (m[2] ?? '');
  d = d.replace(/0+$/, '');
  return { d, dp: Number(m[3]) + 1 };
}

/** Rounds to nd significant digits, half to even on exact ties. */
function roundDigits(dg: Digits, nd: number): Digits {
  if (nd < 0) return { d: '', dp: dg.dp };
  if (nd >= dg.d.length) return dg;
  const c = dg.d.charCodeAt(nd) - 48;
  let up: boolean;
  if (c > 5) up = true;
  else if (c < 5) up = false;
  else if (nd + 1 < dg.d.length) up = true; // more nonzero digits follow (digits are trimmed)
  else up = nd > 0 && (dg.d.charCodeAt(nd - 1) - 48) % 2 === 1;
  let d = dg.d.slice(0, nd);
  let dp = dg.dp;
  if (up) {
    // increment
    const arr = d.split('');
    let i = arr.length - 1;
    while (i >= 0 && arr[i] === '9') {
      arr[i] = '0';
      i--;
    }
    if (i < 0) {
      arr.unshift('1');
      dp++;
      arr.pop();
      if (nd === 0) {
        return { d: '1', dp: dp };
      }
    } else arr[i] = String.fromCharCode(arr[i].charCodeAt(0) + 1);
    d = arr.join('');
  }
  d = d.replace(/0+$/, '');
  return { d, dp };
}

function digitAt(d: string, i: number): string {
  return i >= 0 && i < d.length ? d[i] : '0';
}

function fmtE(neg: boolean, dg: Digits, prec: number, fmt: string): string {
  let s = neg ? '-' : '';
  s += dg.d.length ? dg.d[0] : '0';
  if (prec > 0) {
    s += '.';
    for (let i = 1; i <= prec; i++) s += digitAt(dg.d, i);
  }
  s += fmt;
  let exp = dg.dp - 1;
  if (dg.d.length === 0) exp = 0;
  s += exp < 0 ? '-' : '+';
  exp = Math.abs(exp);
  s += exp < 10 ? '0' + exp : String(exp);
  return s;
}

function fmtF(neg: boolean, dg: Digits, prec: number): string {
  let s = neg ? '-' : '';
  if (dg.dp > 0) {
    for (let i = 0; i < dg.dp; i++) s += digitAt(dg.d, i);
  } else s += '0';
  if (prec > 0) {
    s += '.';
    for (let i = 1; i <= prec; i++) s += digitAt(dg.d, dg.dp + i - 1);
  }
  return s;
}

export function formatFloat(x: number, fmt: string, prec: number): string {
  if (fmt === 'g' && prec < 0) {
    // fast path: Go's shortest %g prints plain decimals for exponents -4..5, as JS does
    const ax = Math.abs(x);
    if (ax >= 1e-4 && ax < 1e6) return String(x);
    if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  }
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  if (fmt === 'x' || fmt === 'X') return hexFloat(x, prec, fmt);
  if (fmt === 'b') return binFloat(x);
  const shortest = prec < 0;
  let dg: Digits;
  if (shortest) {
    dg = shortestDigits(ax);
    switch (fmt) {
      case 'e':
      case 'E':
        prec = Math.max(dg.d.length - 1, 0);
        break;
      case 'f':
      case 'F':
        prec = Math.max(dg.d.length - dg.dp, 0);
        break;
      case 'g':
      case 'G':
        prec = dg.d.length;
        break;
    }
  } else {
    const ex = exactDigits(ax);
    switch (fmt) {
      case 'e':
      case 'E':
        dg = roundDigits(ex, prec + 1);
        break;
      case 'f':
      case 'F':
        dg = roundDigits(ex, ex.dp + prec);
        if (dg.d === '' && ex.dp + prec < 0) dg = { d: '', dp: 0 };
        break;
      default:
        if (prec === 0) prec = 1;
        dg = roundDigits(ex, prec);
    }
  }
  switch (fmt) {
    case 'e':
    case 'E':
      return fmtE(neg, dg, prec, fmt);
    case 'f':
    case 'F':
      return fmtF(neg, dg, prec);
    case 'g':
    case 'G': {
      let eprec = prec;
      const nd = dg.d.length;
      if (eprec > nd && nd >= dg.dp) eprec = nd;
      if (shortest) eprec = 6;
      const exp = dg.dp - 1;
      if (exp < -4 || exp >= eprec) {
        if (prec > nd) prec = nd;
        return fmtE(neg, dg, Math.max(prec - 1, 0), fmt === 'g' ? 'e' : 'E');
      }
      if (prec > dg.dp) prec = nd;
      return fmtF(neg, dg, Math.max(prec - dg.dp, 0));
    }
  }
  return String(x);
}

function hexFloat(x: number, prec: number, fmt: string): string {
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  let s = neg ? '-' : '';
  if (ax === 0) {
    s += '0x0';
    if (prec > 0) s += '.' + '0'.repeat(prec);
    s += 'p+00';
    return fmt === 'X' ? s.toUpperCase() : s;
  }
  let exp = Math.floor(Math.log2(ax));
  let m = ax / Math.pow(2, exp);
  while (m >= 2) {
    m /= 2;
    exp++;
  }
  while (m < 1) {
    m *= 2;
    exp--;
  }
  // mantissa bits after the point: 52 -> 13 hex digits
  let frac = BigInt(Math.round((m - 1) * 2 ** 52));
  let digits = frac.toString(16).padStart(13, '0');
  if (prec >= 0 && prec < 13) {
    const shift = BigInt((13 - prec) * 4);
    const half = 1n << (shift - 1n);
    const rem = frac & ((1n << shift) - 1n);
    let q = frac >> shift;
    if (rem > half || (rem === half && (q & 1n) === 1n)) q++;
    if (q >> BigInt(prec * 4) >= 1n && prec >= 0 && q === 1n << BigInt(prec * 4)) {
      q = 0n;
      exp++;
    }
    frac = q;
    digits = prec === 0 ? '' : frac.toString(16).padStart(prec, '0');
  } else if (prec < 0) {
    digits = digits.replace(/0+$/, '');
  } else {
    digits = digits + '0'.repeat(prec - 13);
  }
  s += '0x1' + (digits ? '.' + digits : '') + 'p' + (exp < 0 ? '-' : '+') + String(Math.abs(exp)).padStart(2, '0');
  return fmt === 'X' ? s.toUpperCase().replace('0X', '0X') : s;
}

function binFloat(x: number): string {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const neg = hi >>> 31 === 1;
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e = bexp - 1075;
  if (bexp === 0) e = -1074;
  else mant |= 1n << 52n;
  return (neg ? '-' : '') + mant.toString() + 'p' + (e >= 0 ? '+' : '-') + Math.abs(e);
}
