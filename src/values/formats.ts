/**
 * The string formats of go-openapi/strfmt's default registry, the only ones the Go operator checks
 * (`validate/formats.go`: a format applies to string values only, and a name the registry does not
 * know is skipped). Names are given without dashes (`date-time` is `datetime`), as strfmt compares them.
 */
import { isIP } from 'node:net';

const re = (s: string, flags = ''): ((v: string) => boolean) => {
  const r = new RegExp(s, flags);
  return (v) => r.test(v);
};

const DURATION_UNITS =
  'ns|nano|nanos|nanosecond|nanoseconds|us|µs|μs|micro|micros|microsecond|microseconds|ms|milli|millis|millisecond|milliseconds|s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|wk|wks|week|weeks';
// Go's time.ParseDuration, or strfmt's "<number> <unit>" forms ("3 days", "1 week")
const goDuration = /^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;
const strfmtDuration = new RegExp(`^\\s*[-+]?(\\d+)\\s*(${DURATION_UNITS})\\s*$`);

const isDate = (v: string): boolean => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days[mo - 1]!;
};

// strfmt.ParseDateTime's layouts: RFC 3339 with or without the offset's colon and fraction, the local
// ISO 8601 forms, seconds dropped, a space instead of T, or a bare date
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const isDateTime = (v: string): boolean => {
  const m = DATE_TIME.exec(v);
  if (!m || !isDate(m[1]!)) return false;
  if (m[2] === undefined) return true;
  return Number(m[2]) < 24 && Number(m[3]) < 60 && (m[4] === undefined || Number(m[4]) < 60);
};

const isCidr = (v: string): boolean => {
  const slash = v.lastIndexOf('/');
  if (slash < 0 || !/^\d{1,3}$/.test(v.slice(slash + 1))) return false;
  const family = isIP(v.slice(0, slash));
  const bits = Number(v.slice(slash + 1));
  return family === 4 ? bits <= 32 : family === 6 ? bits <= 128 : false;
};

const luhnFree = (v: string): string => v.replace(/[\s-]+/g, '');
const isIsbn10 = (v: string): boolean => {
  const s = luhnFree(v);
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(s[i]);
  sum += s[9] === 'X' ? 100 : 10 * Number(s[9]);
  return sum % 11 === 0;
};
const isIsbn13 = (v: string): boolean => {
  const s = luhnFree(v);
  if (!/^[0-9]{13}$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(s[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(s[12]);
};

const uuid = (version: string): ((v: string) => boolean) =>
  re(`^(?:[0-9a-f]{8}-[0-9a-f]{4}-${version}[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{12}${version}[0-9a-f]{19})$`, 'i');

const RGB = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';

export const STRFMT_FORMATS: Record<string, (v: string) => boolean> = {
  bsonobjectid: re('^[0-9a-fA-F]{24}$'),
  date: isDate,
  datetime: isDateTime,
  uri: (v) => {
    if (v === '' || /\s/.test(v)) return false;
    if (v.startsWith('/')) return true;
    try {
      new URL(v);
      return true;
    } catch {
      return false;
    }
  },
  email: re("^[^\\s@<>()\\[\\],;:\"]+@[^\\s@<>()\\[\\],;:\"]+$"),
  hostname: (v) => v.length > 0 && v.length <= 255 && v.split('.').every((l) => /^[\p{L}\p{N}\p{S}]([\p{L}\p{N}\p{S}-]{0,61}[\p{L}\p{N}\p{S}])?$/u.test(l)),
  ipv4: (v) => isIP(v) === 4,
  ipv6: (v) => isIP(v) === 6,
  cidr: isCidr,
  mac: re('^(?:[0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^(?:[0-9a-fA-F]{2}[:-]){7}[0-9a-fA-F]{2}$|^(?:[0-9a-fA-F]{4}\\.){2}[0-9a-fA-F]{4}$'),
  uuid: uuid('[0-9a-f]'),
  uuid3: uuid('3'),
  uuid4: uuid('4'),
  uuid5: uuid('5'),
  uuid7: uuid('7'),
  isbn: (v) => isIsbn10(v) || isIsbn13(v),
  isbn10: isIsbn10,
  isbn13: isIsbn13,
  creditcard: (v) =>
    /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/.test(
      luhnFree(v),
    ),
  ssn: re('^\\d{3}[- ]?\\d{2}[- ]?\\d{4}$'),
  hexcolor: re('^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$'),
  rgbcolor: re(`^rgb\\(${RGB},${RGB},${RGB}\\)$`),
  byte: (v) => /^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0,
  password: () => true,
  duration: (v) => goDuration.test(v) || strfmtDuration.test(v),
  ulid: re('^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$'),
};
