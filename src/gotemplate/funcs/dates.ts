/** Go's time.Time (formatting/parsing with Go layouts, zones via Intl) and sprig's date functions. */
import type { FuncDef } from '../exec.js';
import { GoInt, goSyntaxOf, isInt, intOf } from '../values.js';
import { goQuote } from '../strconv.js';

export interface Zone {
  name: string; // "UTC", "Local" or an IANA name
}

const ABBR: Record<string, [string, string]> = {
  'Asia/Tokyo': ['JST', 'JST'],
  'Asia/Seoul': ['KST', 'KST'],
  'Asia/Kolkata': ['IST', 'IST'],
  'Asia/Calcutta': ['IST', 'IST'],
  'Asia/Shanghai': ['CST', 'CST'],
  'Asia/Hong_Kong': ['HKT', 'HKT'],
  'Asia/Jerusalem': ['IST', 'IDT'],
  'Europe/Berlin': ['CET', 'CEST'],
  'Europe/Paris': ['CET', 'CEST'],
  'Europe/Amsterdam': ['CET', 'CEST'],
  'Europe/Madrid': ['CET', 'CEST'],
  'Europe/Rome': ['CET', 'CEST'],
  'Europe/Vienna': ['CET', 'CEST'],
  'Europe/Warsaw': ['CET', 'CEST'],
  'Europe/Prague': ['CET', 'CEST'],
  'Europe/Stockholm': ['CET', 'CEST'],
  'Europe/Zurich': ['CET', 'CEST'],
  'Europe/London': ['GMT', 'BST'],
  'Europe/Dublin': ['GMT', 'IST'],
  'Europe/Lisbon': ['WET', 'WEST'],
  'Europe/Athens': ['EET', 'EEST'],
  'Europe/Helsinki': ['EET', 'EEST'],
  'Europe/Kiev': ['EET', 'EEST'],
  'Europe/Kyiv': ['EET', 'EEST'],
  'Europe/Moscow': ['MSK', 'MSK'],
  'Australia/Sydney': ['AEST', 'AEDT'],
  'Australia/Melbourne': ['AEST', 'AEDT'],
  'Australia/Brisbane': ['AEST', 'AEST'],
  'Australia/Perth': ['AWST', 'AWST'],
  'Australia/Adelaide': ['ACST', 'ACDT'],
  'Pacific/Auckland': ['NZST', 'NZDT'],
  'Africa/Johannesburg': ['SAST', 'SAST'],
  'Africa/Cairo': ['EET', 'EEST'],
  'America/Sao_Paulo': ['-03', '-03'],
};

const dtfCache = new Map<string, Intl.DateTimeFormat>();
function zoneValid(name: string): boolean {
  if (name === 'UTC' || name === 'Local' || name === '') return true;
  try {
    getDtf(name);
    return true;
  } catch {
    return false;
  }
}
function getDtf(name: string): Intl.DateTimeFormat {
  let f = dtfCache.get(name);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      timeZoneName: 'short',
    });
    dtfCache.set(name, f);
  }
  return f;
}
const localZoneName = (): string => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
};

/** Offset (seconds east of UTC) and abbreviation of a zone at a UTC instant. */
function zoneAt(zone: Zone, unixSec: number): { offset: number; abbr: string } {
  let name = zone.name;
  if (name === 'Local') name = localZoneName();
  if (name === 'UTC' || name === 'Etc/UTC' || name === '') return { offset: 0, abbr: 'UTC' };
  const f = getDtf(name);
  const parts = f.formatToParts(new Date(unixSec * 1000));
  const get = (t: string): number => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const asUTC = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) / 1000;
  const offset = Math.round(asUTC - Math.floor(unixSec));
  let abbr = parts.find((p) => p.type === 'timeZoneName')?.value ?? '';
  if (/^(GMT|UTC)([+-]|$)/.test(abbr)) {
    const known = ABBR[name];
    if (offset % 60 !== 0) abbr = 'LMT'; // local mean time before standard zones
    else if (known) {
      // pick standard or summer by comparing with January's offset
      const jan = zoneOffsetOnly(name, Date.UTC(new Date(unixSec * 1000).getUTCFullYear(), 0, 1) / 1000);
      abbr = offset === jan ? known[0] : known[1];
    } else if (offset === 0 && /^(GMT|UTC)$/.test(abbr)) abbr = abbr === 'UTC' ? 'UTC' : 'GMT';
    else {
      const sign = offset < 0 ? '-' : '+';
      const a = Math.abs(offset);
      const h = String(Math.floor(a / 3600)).padStart(2, '0');
      const m = Math.floor((a % 3600) / 60);
      abbr = sign + h + (m ? String(m).padStart(2, '0') : '');
    }
  }
  return { offset, abbr };
}
function zoneOffsetOnly(name: string, unixSec: number): number {
  const parts = getDtf(name).formatToParts(new Date(unixSec * 1000));
  const get = (t: string): number => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return Math.round(Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) / 1000 - unixSec);
}

/** A Go time.Time: an instant (unix seconds + nanoseconds) and a location. */
export class GoTime {
  get goTypeName(): string {
    return 'time.Time';
  }
  get goKind(): string {
    return 'struct';
  }
  constructor(
    readonly sec: number, // unix seconds (integer)
    readonly nsec: number, // 0..999999999
    readonly zone: Zone,
    readonly fixedOffset?: { offset: number; abbr: string },
  ) {}

  static now(): GoTime {
    const ms = Date.now();
    const ns = Number(process.hrtime.bigint() % 1000000n);
    return new GoTime(Math.floor(ms / 1000), (ms % 1000) * 1e6 + (ns % 1e6), { name: 'Local' });
  }
  static zero(): GoTime {
    return new GoTime(-62135596800, 0, { name: 'UTC' });
  }
  In(zone: Zone): GoTime {
    return new GoTime(this.sec, this.nsec, zone);
  }
  zoneInfo(): { offset: number; abbr: string } {
    return this.fixedOffset ?? zoneAt(this.zone, this.sec);
  }
  /** wall-clock fields in the time's zone */
  fields(): { year: number; month: number; day: number; hour: number; min: number; sec: number; wday: number; yday: number; offset: number; abbr: string } {
    const z = this.zoneInfo();
    const d = new Date((this.sec + z.offset) * 1000);
    const year = d.getUTCFullYear();
    const start = utcSeconds(year, 0, 1, 0, 0, 0) * 1000;
    const yday = Math.floor((d.getTime() - start) / 86400000) + 1;
    return {
      year,
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      min: d.getUTCMinutes(),
      sec: d.getUTCSeconds(),
      wday: d.getUTCDay(),
      yday,
      offset: z.offset,
      abbr: z.abbr,
    };
  }
  Unix(): GoInt {
    return new GoInt('int64', BigInt(this.sec));
  }
  UnixNano(): GoInt {
    return new GoInt('int64', BigInt(this.sec) * 1000000000n + BigInt(this.nsec));
  }
  Format(layout: string): string {
    return formatTime(this, layout);
  }
  Year(): bigint {
    return BigInt(this.fields().year);
  }
  Month(): GoNamed {
    const m = this.fields().month;
    return new GoNamed('time.Month', BigInt(m), LONG_MONTHS[m - 1]);
  }
  Weekday(): GoNamed {
    const w = this.fields().wday;
    return new GoNamed('time.Weekday', BigInt(w), LONG_DAYS[w]);
  }
  Day(): bigint {
    return BigInt(this.fields().day);
  }
  Hour(): bigint {
    return BigInt(this.fields().hour);
  }
  Minute(): bigint {
    return BigInt(this.fields().min);
  }
  Second(): bigint {
    return BigInt(this.fields().sec);
  }
  Nanosecond(): bigint {
    return BigInt(this.nsec);
  }
  YearDay(): bigint {
    return BigInt(this.fields().yday);
  }
  UTC(): GoTime {
    return new GoTime(this.sec, this.nsec, { name: 'UTC' });
  }
  IsZero(): boolean {
    return this.sec === -62135596800 && this.nsec === 0;
  }
  AddDate(y: unknown, m: unknown, d: unknown): GoTime {
    const f = this.fields();
    const wall = utcSeconds(f.year + Number(y), f.month - 1 + Number(m), f.day + Number(d), f.hour, f.min, f.sec);
    let guess = wall;
    for (let i = 0; i < 2; i++) guess = wall - (this.fixedOffset ?? zoneAt(this.zone, guess)).offset;
    return new GoTime(guess, this.nsec, this.zone, this.fixedOffset);
  }
  /** Go's Time.GoString, which %#v prints: time.Date(2024, time.March, 5, 0, 0, 0, 0, time.UTC). */
  GoString(): string {
    const f = this.fields();
    let loc: string;
    if (this.fixedOffset) loc = `time.Location(${goQuote(this.fixedOffset.abbr)})`;
    else if (this.zone.name === 'UTC') loc = 'time.UTC';
    else if (this.zone.name === 'Local') loc = 'time.Local';
    else loc = `time.Location(${goQuote(this.zone.name)})`;
    return `time.Date(${f.year}, time.${LONG_MONTHS[f.month - 1]}, ${f.day}, ${f.hour}, ${f.min}, ${f.sec}, ${this.nsec}, ${loc})`;
  }
  [goSyntaxOf](): string {
    return this.GoString();
  }
  String(): string {
    return formatTime(this, '2006-01-02 15:04:05.999999999 -0700 MST');
  }
  Add(ns: bigint): GoTime {
    const total = BigInt(this.sec) * 1000000000n + BigInt(this.nsec) + ns;
    let s = total / 1000000000n;
    let n = total % 1000000000n;
    if (n < 0n) {
      n += 1000000000n;
      s -= 1n;
    }
    return new GoTime(Number(s), Number(n), this.zone, this.fixedOffset);
  }
  MarshalJSON(): string {
    return JSON.stringify(formatTime(this, '2006-01-02T15:04:05.999999999Z07:00'));
  }
  equals(o: unknown): boolean {
    return o instanceof GoTime && o.sec === this.sec && o.nsec === this.nsec && o.zone.name === this.zone.name;
  }
}

/** A Go named integer type with a String method (time.Month, time.Weekday). */
export class GoNamed {
  get goKind(): string {
    return 'int';
  }
  constructor(
    readonly goTypeName: string,
    readonly value: bigint,
    private readonly name: string,
  ) {}
  String(): string {
    return this.name;
  }
}

/** Unix seconds of a UTC wall clock, valid for any year (Date.UTC maps years 0..99 to 19xx). */
function utcSeconds(year: number, month0: number, day: number, h: number, mi: number, s: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month0, day);
  d.setUTCHours(h, mi, s, 0);
  return Math.floor(d.getTime() / 1000);
}

const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

type Tok = { lit: string } | { std: string };

const STD_TOKENS = [
  'January', 'Jan', 'Monday', 'Mon', 'MST',
  '-07:00:00', '-070000', '-07:00', '-0700', '-07',
  'Z07:00:00', 'Z070000', 'Z07:00', 'Z0700', 'Z07',
  '2006', '__2', '_2', '002', '01', '02', '03', '04', '05', '06', '15', '1', '2', '3', '4', '5', 'PM', 'pm',
];

/** Splits a Go layout into literal text and std chunks (like time.nextStdChunk). */
function tokenize(layout: string): Tok[] {
  const out: Tok[] = [];
  let lit = '';
  let i = 0;
  while (i < layout.length) {
    // fractional seconds: .000 / ,000 / .999 / ,999 after a seconds field
    const c = layout[i];
    if ((c === '.' || c === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
      const ch = layout[i + 1];
      let j = i + 1;
      while (j < layout.length && layout[j] === ch) j++;
      if (!/[0-9]/.test(layout[j] ?? '')) {
        if (lit) out.push({ lit });
        lit = '';
        out.push({ std: c + layout.slice(i + 1, j) });
        i = j;
        continue;
      }
    }
    let matched: string | null = null;
    for (const t of STD_TOKENS) {
      if (layout.startsWith(t, i)) {
        // Go's special cases: "Jan"/"Mon" must not be followed by a lower-case letter
        if ((t === 'Jan' || t === 'Mon' || t === 'January' || t === 'Monday') && /[a-z]/.test(layout[i + t.length] ?? '') && t.length === 3) continue;
        matched = t;
        break;
      }
    }
    if (matched) {
      if (lit) out.push({ lit });
      lit = '';
      out.push({ std: matched });
      i += matched.length;
      continue;
    }
    lit += c;
    i++;
  }
  if (lit) out.push({ lit });
  return out;
}

const p2 = (n: number): string => String(n).padStart(2, '0');

export function formatTime(t: GoTime, layout: string): string {
  const f = t.fields();
  let out = '';
  for (const tok of tokenize(layout)) {
    if ('lit' in tok) {
      out += tok.lit;
      continue;
    }
    const s = tok.std;
    switch (s) {
      case 'January':
        out += LONG_MONTHS[f.month - 1];
        break;
      case 'Jan':
        out += LONG_MONTHS[f.month - 1].slice(0, 3);
        break;
      case 'Monday':
        out += LONG_DAYS[f.wday];
        break;
      case 'Mon':
        out += LONG_DAYS[f.wday].slice(0, 3);
        break;
      case 'MST':
        out += f.abbr;
        break;
      case '2006':
        out += String(f.year).padStart(4, '0');
        break;
      case '06':
        out += p2(f.year % 100);
        break;
      case '01':
        out += p2(f.month);
        break;
      case '1':
        out += String(f.month);
        break;
      case '02':
        out += p2(f.day);
        break;
      case '_2':
        out += String(f.day).padStart(2, ' ');
        break;
      case '2':
        out += String(f.day);
        break;
      case '002':
        out += String(f.yday).padStart(3, '0');
        break;
      case '__2':
        out += String(f.yday).padStart(3, ' ');
        break;
      case '15':
        out += p2(f.hour);
        break;
      case '03':
        out += p2(f.hour % 12 === 0 ? 12 : f.hour % 12);
        break;
      case '3':
        out += String(f.hour % 12 === 0 ? 12 : f.hour % 12);
        break;
      case '04':
        out += p2(f.min);
        break;
      case '4':
        out += String(f.min);
        break;
      case '05':
        out += p2(f.sec);
        break;
      case '5':
        out += String(f.sec);
        break;
      case 'PM':
        out += f.hour >= 12 ? 'PM' : 'AM';
        break;
      case 'pm':
        out += f.hour >= 12 ? 'pm' : 'am';
        break;
      default:
        if (/^[.,][09]+$/.test(s)) {
          const digits = s.length - 1;
          let frac = String(t.nsec).padStart(9, '0').slice(0, digits);
          if (s[1] === '9') {
            frac = frac.replace(/0+$/, '');
            if (frac) out += s[0] + frac;
          } else out += s[0] + frac;
          break;
        }
        out += formatZone(s, f.offset);
    }
  }
  return out;
}

function formatZone(s: string, offset: number): string {
  if (s[0] === 'Z' && offset === 0) return 'Z';
  const sign = offset < 0 ? '-' : '+';
  const a = Math.abs(offset);
  const h = p2(Math.floor(a / 3600));
  const m = p2(Math.floor((a % 3600) / 60));
  const sec = p2(a % 60);
  const std = s.replace(/^Z/, '-');
  switch (std) {
    case '-07:00:00':
      return `${sign}${h}:${m}:${sec}`;
    case '-070000':
      return `${sign}${h}${m}${sec}`;
    case '-07:00':
      return `${sign}${h}:${m}`;
    case '-0700':
      return `${sign}${h}${m}`;
    case '-07':
      return `${sign}${h}`;
  }
  return '';
}

class ParseError extends Error {}

/** time.ParseInLocation for the common layouts. */
export function parseTime(layout: string, value: string, loc: Zone): GoTime {
  const toks = tokenize(layout);
  let v = value;
  let year = 1;
  let month = 1;
  let day = 1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let pm: boolean | null = null;
  let zoneOffset: number | null = null;
  let zoneAbbr: string | null = null;
  const bad = (elem: string): never => {
    throw new ParseError(`parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(v)} as ${JSON.stringify(elem)}`);
  };
  const num = (min: number, max: number, elem: string): number => {
    const m = new RegExp(`^\\d{${min},${max}}`).exec(v);
    if (!m) bad(elem);
    v = v.slice(m![0].length);
    return Number(m![0]);
  };
  for (const tok of toks) {
    if ('lit' in tok) {
      if (!v.startsWith(tok.lit)) bad(tok.lit);
      v = v.slice(tok.lit.length);
      continue;
    }
    const s = tok.std;
    switch (s) {
      case '2006':
        year = num(4, 4, s);
        break;
      case '06':
        year = num(2, 2, s);
        year += year >= 69 ? 1900 : 2000;
        break;
      case '01':
        month = num(2, 2, s);
        break;
      case '1':
        month = num(1, 2, s);
        break;
      case 'January':
      case 'Jan': {
        const names = s === 'Jan' ? LONG_MONTHS.map((x) => x.slice(0, 3)) : LONG_MONTHS;
        const i = names.findIndex((nm) => v.toLowerCase().startsWith(nm.toLowerCase()));
        if (i < 0) bad(s);
        month = i + 1;
        v = v.slice(names[i].length);
        break;
      }
      case 'Monday':
      case 'Mon': {
        const names = s === 'Mon' ? LONG_DAYS.map((x) => x.slice(0, 3)) : LONG_DAYS;
        const i = names.findIndex((nm) => v.toLowerCase().startsWith(nm.toLowerCase()));
        if (i < 0) bad(s);
        v = v.slice(names[i].length);
        break;
      }
      case '02':
        day = num(2, 2, s);
        break;
      case '_2':
        if (v[0] === ' ') v = v.slice(1);
        day = num(1, 2, s);
        break;
      case '2':
        day = num(1, 2, s);
        break;
      case '15':
        hour = num(2, 2, s);
        if (hour > 23) throw new ParseError(`parsing time ${JSON.stringify(value)}: hour out of range`);
        break;
      case '03':
        hour = num(2, 2, s);
        break;
      case '3':
        hour = num(1, 2, s);
        break;
      case '04':
        min = num(2, 2, s);
        if (min > 59) throw new ParseError(`parsing time ${JSON.stringify(value)}: minute out of range`);
        break;
      case '4':
        min = num(1, 2, s);
        break;
      case '05':
      case '5':
        sec = num(s === '05' ? 2 : 1, 2, s);
        if (sec > 59) throw new ParseError(`parsing time ${JSON.stringify(value)}: second out of range`);
        // fractional seconds may follow even if not in layout
        if ((v[0] === '.' || v[0] === ',') && /^[.,]\d/.test(v) && !toks.some((t) => 'std' in t && /^[.,]/.test(t.std))) {
          const m = /^[.,](\d+)/.exec(v)!;
          nsec = Number(m[1].slice(0, 9).padEnd(9, '0'));
          v = v.slice(m[0].length);
        }
        break;
      case 'PM':
      case 'pm': {
        const a = v.slice(0, 2).toUpperCase();
        if (a !== 'AM' && a !== 'PM') bad(s);
        pm = a === 'PM';
        v = v.slice(2);
        break;
      }
      case 'MST': {
        const m = /^([A-Z]{3,5}|[+-]\d\d(\d\d)?)/.exec(v);
        if (!m) bad(s);
        zoneAbbr = m![0];
        v = v.slice(m![0].length);
        break;
      }
      default: {
        if (/^[.,][09]+$/.test(s)) {
          const m = /^[.,](\d+)/.exec(v);
          if (!m) {
            if (s[1] === '9') break;
            bad(s);
          }
          nsec = Number(m![1].slice(0, 9).padEnd(9, '0'));
          v = v.slice(m![0].length);
          break;
        }
        if (s[0] === 'Z' && v[0] === 'Z') {
          v = v.slice(1);
          zoneOffset = 0;
          break;
        }
        const m = /^([+-])(\d\d):?(\d\d)?(?::?(\d\d))?/.exec(v);
        if (!m) bad(s);
        zoneOffset = (m![1] === '-' ? -1 : 1) * (Number(m![2]) * 3600 + Number(m![3] ?? 0) * 60 + Number(m![4] ?? 0));
        v = v.slice(m![0].length);
      }
    }
  }
  if (v.length > 0) throw new ParseError(`parsing time ${JSON.stringify(value)}: extra text: ${JSON.stringify(v)}`);
  if (pm !== null) {
    if (hour > 12) throw new ParseError(`parsing time ${JSON.stringify(value)}: hour out of range`);
    if (pm && hour < 12) hour += 12;
    else if (!pm && hour === 12) hour = 0;
  }
  if (month < 1 || month > 12) throw new ParseError(`parsing time ${JSON.stringify(value)}: month out of range`);
  const dimDate = new Date(0);
  dimDate.setUTCFullYear(year, month, 0);
  const dim = dimDate.getUTCDate();
  if (day < 1 || day > dim) throw new ParseError(`parsing time ${JSON.stringify(value)}: day out of range`);
  const wall = utcSeconds(year, month - 1, day, hour, min, sec);
  if (zoneOffset !== null) {
    const t = new GoTime(wall - zoneOffset, nsec, zoneOffset === 0 ? { name: 'UTC' } : loc, zoneOffset === 0 ? undefined : { offset: zoneOffset, abbr: '' });
    return t;
  }
  if (zoneAbbr !== null && zoneAbbr === 'UTC') return new GoTime(wall, nsec, { name: 'UTC' });
  // interpret wall clock in loc
  let guess = wall;
  for (let i = 0; i < 2; i++) {
    const off = zoneAt(loc, guess).offset;
    guess = wall - off;
  }
  return new GoTime(guess, nsec, loc);
}

// --- durations ---
const UNIT: Record<string, bigint> = { ns: 1n, us: 1000n, 'µs': 1000n, 'μs': 1000n, ms: 1000000n, s: 1000000000n, m: 60000000000n, h: 3600000000000n };

export function parseDuration(s0: string): bigint {
  let s = s0;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw new Error(`time: invalid duration ${JSON.stringify(s0)}`);
  let total = 0;
  let totalBig = 0n;
  while (s !== '') {
    const m = /^(\d*)(\.(\d*))?/.exec(s)!;
    if (m[1] === '' && (m[3] ?? '') === '') throw new Error(`time: invalid duration ${JSON.stringify(s0)}`);
    s = s.slice(m[0].length);
    const u = /^[^\d.]+/.exec(s);
    if (!u) throw new Error(`time: missing unit in duration ${JSON.stringify(s0)}`);
    const unit = UNIT[u[0]];
    if (unit === undefined) throw new Error(`time: unknown unit ${JSON.stringify(u[0])} in duration ${JSON.stringify(s0)}`);
    s = s.slice(u[0].length);
    totalBig += BigInt(m[1] || '0') * unit;
    if (m[3]) total += Number('0.' + m[3]) * Number(unit);
  }
  const r = totalBig + BigInt(Math.floor(total));
  return neg ? -r : r;
}

export function durationString(d: bigint): string {
  if (d === 0n) return '0s';
  const neg = d < 0n;
  let u = neg ? -d : d;
  let out: string;
  if (u < 1000000000n) {
    // sub-second: ns, µs, ms
    let prec: number;
    let unit: string;
    if (u < 1000n) return (neg ? '-' : '') + u + 'ns';
    if (u < 1000000n) {
      prec = 3;
      unit = 'µs';
    } else {
      prec = 6;
      unit = 'ms';
    }
    out = fmtFrac(u, prec) + unit;
  } else {
    let s: string;
    const secsFrac = fmtFrac(u, 9);
    u = u / 1000000000n;
    const secPart = secsFrac.includes('.') ? secsFrac.slice(secsFrac.indexOf('.')) : '';
    s = String(u % 60n) + secPart + 's';
    u /= 60n;
    if (u > 0n) {
      s = String(u % 60n) + 'm' + s;
      u /= 60n;
      if (u > 0n) s = String(u) + 'h' + s;
    }
    out = s;
  }
  return (neg ? '-' : '') + out;
}
function fmtFrac(v: bigint, prec: number): string {
  const p = 10n ** BigInt(prec);
  const whole = v / p;
  let frac = String(v % p).padStart(prec, '0').replace(/0+$/, '');
  if (frac) frac = '.' + frac;
  return String(whole) + frac;
}

function toTime(v: unknown): GoTime {
  if (v instanceof GoTime) return v;
  if (v instanceof GoInt && (v.type === 'int64' || v.type === 'int32')) return new GoTime(Number(v.v), 0, { name: 'Local' });
  if (typeof v === 'bigint') return new GoTime(Number(v), 0, { name: 'Local' });
  return GoTime.now();
}

function dateInZone(fmt: string, date: unknown, zone: string): string {
  const t = toTime(date);
  const z = zoneValid(zone) ? { name: zone } : { name: 'UTC' };
  return formatTime(t.In(z), fmt);
}

function durationRound(v: unknown): string {
  let d = 0n;
  if (typeof v === 'string') {
    try {
      d = parseDuration(v);
    } catch {
      d = 0n;
    }
  } else if (v instanceof GoInt && v.type === 'int64') d = v.v;
  else if (v instanceof GoTime) {
    const now = GoTime.now();
    d = (BigInt(now.sec) - BigInt(v.sec)) * 1000000000n + BigInt(now.nsec - v.nsec);
  }
  let u = d < 0n ? -d : d;
  u = BigInt.asUintN(64, u);
  const year = 3600000000000n * 24n * 365n;
  const month = 3600000000000n * 24n * 30n;
  const day = 3600000000000n * 24n;
  const hour = 3600000000000n;
  const minute = 60000000000n;
  const second = 1000000000n;
  if (u > year) return `${u / year}y`;
  if (u > month) return `${u / month}mo`;
  if (u > day) return `${u / day}d`;
  if (u > hour) return `${u / hour}h`;
  if (u > minute) return `${u / minute}m`;
  if (u > second) return `${u / second}s`;
  return '0s';
}

const S = 'string';
const ANY = 'interface {}';
const T = 'time.Time';
const d = (params: string[], fn: FuncDef['fn']): FuncDef => ({ params, fn });

export const dateFuncs: Record<string, FuncDef> = {
  now: d([], () => GoTime.now()),
  date: d([S, ANY], ([f, t]) => dateInZone(f, t, 'Local')),
  dateInZone: d([S, ANY, S], ([f, t, z]) => dateInZone(f, t, z)),
  date_in_zone: d([S, ANY, S], ([f, t, z]) => dateInZone(f, t, z)),
  htmlDate: d([ANY], ([t]) => dateInZone('2006-01-02', t, 'Local')),
  htmlDateInZone: d([ANY, S], ([t, z]) => dateInZone('2006-01-02', t, z)),
  dateModify: d([S, T], ([f, t]) => {
    try {
      return (t as GoTime).Add(parseDuration(f));
    } catch {
      return t;
    }
  }),
  date_modify: d([S, T], ([f, t]) => {
    try {
      return (t as GoTime).Add(parseDuration(f));
    } catch {
      return t;
    }
  }),
  mustDateModify: d([S, T], ([f, t]) => (t as GoTime).Add(parseDuration(f))),
  must_date_modify: d([S, T], ([f, t]) => (t as GoTime).Add(parseDuration(f))),
  toDate: d([S, S], ([f, s]) => {
    try {
      return parseTime(f, s, { name: 'Local' });
    } catch {
      return GoTime.zero();
    }
  }),
  mustToDate: d([S, S], ([f, s]) => parseTime(f, s, { name: 'Local' })),
  unixEpoch: d([T], ([t]) => String((t as GoTime).sec)),
  ago: d([ANY], ([t]) => {
    const tt = toTime(t);
    const now = GoTime.now();
    let ns = (BigInt(now.sec) - BigInt(tt.sec)) * 1000000000n + BigInt(now.nsec - tt.nsec);
    // Round(time.Second)
    const r = ns % 1000000000n;
    ns -= r;
    if (r * 2n >= 1000000000n) ns += 1000000000n;
    return durationString(ns);
  }),
  duration: d([ANY], ([v]) => {
    let n = 0n;
    if (typeof v === 'string') n = /^[+-]?\d+$/.test(v) ? BigInt(v) : 0n;
    else if (v instanceof GoInt && v.type === 'int64') n = v.v;
    return durationString(BigInt.asIntN(64, n * 1000000000n));
  }),
  durationRound: d([ANY], ([v]) => durationRound(v)),
};

export { isInt, intOf };
