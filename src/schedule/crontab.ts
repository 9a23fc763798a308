/**
 * Crontab parsing with the grammar of gopkg.in/robfig/cron.v2 as used by shell-operator:
 * - 5 fields: standard crontab `min hour dom month dow` (seconds = 0);
 * - 6 fields: `sec min hour dom month dow` (seconds first);
 * - descriptors `@yearly @annually @monthly @weekly @daily @midnight @hourly`, and `@every <Go duration>`;
 * - an optional `TZ=<IANA zone> ` prefix.
 * Field items: `*`, `?`, `N`, `N-M`, each optionally `/step`; month and weekday names (JAN, mon...).
 * Day-of-month and day-of-week are ORed unless either of them starts with `*` or `?` (robfig's rule).
 *
 * Every field is expanded to an explicit list of values, so that croner only ever sees a plain 6-field
 * pattern and cannot interpret anything differently from robfig.
 */

export class CrontabError extends Error {
  override name = 'CrontabError';
  constructor(
    readonly crontab: string,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** A crontab that fires on calendar times (evaluated with croner). */
export interface CalendarCrontab {
  readonly kind: 'calendar';
  /** The spec as written by the hook (this is the identity of a schedule entry). */
  readonly spec: string;
  /** An explicit 6-field croner pattern (seconds first). */
  readonly pattern: string;
  /** true ⇒ day-of-month AND day-of-week (one of them starred); false ⇒ OR. */
  readonly domAndDow: boolean;
  /** IANA zone from a `TZ=` prefix; undefined ⇒ the process's local zone. */
  readonly timezone: string | undefined;
}

/** `@every <duration>`: fires every `intervalMs`, aligned to whole seconds. */
export interface EveryCrontab {
  readonly kind: 'every';
  readonly spec: string;
  /** At least 1000, a multiple of 1000 (robfig rounds down to seconds, minimum one second). */
  readonly intervalMs: number;
  readonly timezone: string | undefined;
}

export type ParsedCrontab = CalendarCrontab | EveryCrontab;

interface FieldDef {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12,
};
const DAYS: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

const FIELDS: readonly FieldDef[] = [
  { name: 'seconds', min: 0, max: 59 },
  { name: 'minutes', min: 0, max: 59 },
  { name: 'hours', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 6, names: DAYS },
];

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@midnight': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
};

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parse a Go duration string (`300ms`, `1.5h`, `2h45m`, `-1s`, `0`) into milliseconds.
 * Throws an Error with Go-like text on bad input.
 */
export function parseGoDuration(text: string): number {
  const orig = text;
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new Error(`time: invalid duration "${orig}"`);
  let total = 0;
  const re = /^(\d*)(?:\.(\d*))?([^\d.]+)/;
  while (s !== '') {
    const m = re.exec(s);
    if (!m || (m[1] === '' && (m[2] === undefined || m[2] === ''))) throw new Error(`time: invalid duration "${orig}"`);
    const unit = m[3]!;
    const factor = DURATION_UNITS[unit];
    if (factor === undefined) {
      if (/^[a-zµμ]+$/i.test(unit)) throw new Error(`time: unknown unit "${unit}" in duration "${orig}"`);
      throw new Error(`time: invalid duration "${orig}"`);
    }
    const value = Number(`${m[1] || '0'}.${m[2] ?? '0'}`);
    total += value * factor;
    s = s.slice(m[0].length);
  }
  return sign * total;
}

function fieldError(spec: string, detail: string): CrontabError {
  return new CrontabError(spec, detail);
}

function parseValue(token: string, def: FieldDef, spec: string): number {
  const named = def.names?.[token.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^\d+$/.test(token)) throw fieldError(spec, `Failed to parse int from ${token}: invalid ${def.name} value`);
  return Number(token);
}

/** Expand one field to its sorted list of values; report whether it is starred (`*` or `?` first). */
function expandField(expr: string, def: FieldDef, spec: string): { values: number[]; star: boolean } {
  const set = new Set<number>();
  let star = false;
  for (const item of expr.split(',')) {
    if (item === '') throw fieldError(spec, `empty item in ${def.name} field '${expr}'`);
    const parts = item.split('/');
    if (parts.length > 2) throw fieldError(spec, `Too many slashes: ${item}`);
    const rangePart = parts[0]!;
    let start: number;
    let end: number;
    let step = 1;
    let itemStar = false;
    if (rangePart === '*' || rangePart === '?') {
      start = def.min;
      end = def.max;
      itemStar = true;
    } else {
      const bounds = rangePart.split('-');
      if (bounds.length > 2) throw fieldError(spec, `Too many hyphens: ${item}`);
      start = parseValue(bounds[0]!, def, spec);
      end = bounds.length === 2 ? parseValue(bounds[1]!, def, spec) : start;
    }
    if (parts.length === 2) {
      if (!/^\d+$/.test(parts[1]!)) throw fieldError(spec, `Failed to parse int from ${parts[1]}: invalid step`);
      step = Number(parts[1]);
      if (step <= 0) throw fieldError(spec, `Step of range should be a positive number: ${item}`);
      // `N/step` means N to the maximum.
      if (!itemStar && !rangePart.includes('-')) end = def.max;
    }
    if (start < def.min) throw fieldError(spec, `Beginning of range (${start}) below minimum (${def.min}): ${item}`);
    if (end > def.max) throw fieldError(spec, `End of range (${end}) above maximum (${def.max}): ${item}`);
    if (start > end) throw fieldError(spec, `Beginning of range (${start}) beyond end of range (${end}): ${item}`);
    if (itemStar) star = true;
    for (let v = start; v <= end; v += step) set.add(v);
  }
  return { values: [...set].sort((a, b) => a - b), star };
}

function isValidTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Parse a crontab spec. Throws CrontabError with a clear message. */
export function parseCrontab(spec: string): ParsedCrontab {
  if (typeof spec !== 'string') throw new CrontabError(String(spec), 'crontab must be a string');
  let rest = spec.trim();
  let timezone: string | undefined;
  if (rest.startsWith('TZ=')) {
    const space = rest.search(/\s/);
    if (space < 0) throw new CrontabError(spec, `a TZ= prefix must be followed by a space and a schedule: ${spec}`);
    const zone = rest.slice(3, space);
    if (zone === '' || !isValidTimezone(zone)) throw new CrontabError(spec, `Provided bad location ${zone}: unknown time zone ${zone}`);
    timezone = zone;
    rest = rest.slice(space).trim();
  }
  if (rest.startsWith('@')) {
    if (rest.startsWith('@every ') || rest.startsWith('@every\t')) {
      const durText = rest.slice('@every'.length).trim();
      let ms: number;
      try {
        ms = parseGoDuration(durText);
      } catch (err) {
        throw new CrontabError(spec, `Failed to parse duration ${rest}: ${(err as Error).message}`);
      }
      // robfig: below one second becomes one second; otherwise rounded down to whole seconds.
      const intervalMs = ms < 1000 ? 1000 : Math.floor(ms / 1000) * 1000;
      return { kind: 'every', spec, intervalMs, timezone };
    }
    const six = DESCRIPTORS[rest];
    if (six === undefined) throw new CrontabError(spec, `Unrecognized descriptor: ${rest}`);
    return { ...calendarFromFields(six.split(' '), spec), timezone };
  }
  const fields = rest.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5 && fields.length !== 6) {
    throw new CrontabError(spec, `Expected 5 or 6 fields, found ${fields.length}: ${spec}`);
  }
  if (fields.length === 5) fields.unshift('0');
  return { ...calendarFromFields(fields, spec), timezone };
}

function calendarFromFields(fields: readonly string[], spec: string): Omit<CalendarCrontab, 'timezone'> {
  const expanded = fields.map((f, i) => expandField(f, FIELDS[i]!, spec));
  const pattern = expanded.map((e) => e.values.join(',')).join(' ');
  const domAndDow = expanded[3]!.star || expanded[5]!.star;
  return { kind: 'calendar', spec, pattern, domAndDow };
}

/** Validate a crontab; returns null when valid, otherwise the problem. */
export function validateCrontab(spec: string): string | null {
  try {
    parseCrontab(spec);
    return null;
  } catch (err) {
    if (err instanceof CrontabError) return err.message;
    throw err;
  }
}
