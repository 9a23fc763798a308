/**
 * jq's date builtins in UTC (the operator runs with TZ unset): "broken down time" is
 * [year, month (0-11), day, hours, minutes, seconds (may be fractional), weekday, day of year].
 */
import * as V from './value.js';
import type { Json } from './value.js';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export function gmtime(x: Json): Json {
  if (typeof x !== 'number') return V.fail('gmtime() requires a number');
  const secs = Math.floor(x);
  const d = new Date(secs * 1000);
  if (Number.isNaN(d.getTime())) return V.fail('gmtime() requires a valid time');
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  const yday = Math.floor((d.getTime() - start) / 86400000);
  return [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds() + (x - secs), d.getUTCDay(), yday];
}

function tmFrom(x: Json, fn: string): number[] {
  if (!Array.isArray(x)) return V.fail(`${fn} requires array of 6 numbers`);
  const out: number[] = [];
  for (const v of x) {
    if (typeof v !== 'number') return V.fail(`${fn} requires parsed datetime inputs`);
    out.push(v);
  }
  return out;
}

export function mktime(x: Json): Json {
  if (!Array.isArray(x)) return V.fail('mktime requires array of 6 numbers');
  const tm = tmFrom(x, 'mktime');
  const ms = Date.UTC(tm[0] ?? 1900, tm[1] ?? 0, tm[2] ?? 0, tm[3] ?? 0, tm[4] ?? 0, Math.floor(tm[5] ?? 0));
  return Math.floor(ms / 1000);
}

function pad(n: number, w: number, c = '0'): string {
  return String(n).padStart(w, c);
}

function isoWeek(d: Date): { year: number; week: number } {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const day = (d.getUTCDay() + 6) % 7;
  t.setUTCDate(t.getUTCDate() - day + 3);
  const year = t.getUTCFullYear();
  const jan4 = new Date(Date.UTC(year, 0, 4));
  const week = 1 + Math.round((t.getTime() - jan4.getTime()) / 86400000 / 7 - ((jan4.getUTCDay() + 6) % 7) / 7 + 3 / 7 - 3 / 7);
  return { year, week: Math.floor(1 + ((t.getTime() - Date.UTC(year, 0, 1)) / 86400000) / 7) || week };
}

export function strftime(x: Json, fmt: Json, fn: string): Json {
  if (typeof x === 'number') x = gmtime(x);
  else if (!Array.isArray(x)) return V.fail(`${fn}/1 requires parsed datetime inputs`);
  if (typeof fmt !== 'string') return V.fail(`${fn}/1 requires a string format`);
  const tm = tmFrom(x, `${fn}/1`);
  const [year, mon, mday, hour, min, sec] = [tm[0] ?? 1900, tm[1] ?? 0, tm[2] ?? 0, tm[3] ?? 0, tm[4] ?? 0, Math.floor(tm[5] ?? 0)];
  const d = new Date(Date.UTC(year, mon, mday, hour, min, sec));
  d.setUTCFullYear(year);
  const wday = tm[6] ?? d.getUTCDay();
  const yday = tm[7] ?? Math.floor((d.getTime() - Date.UTC(year, 0, 1)) / 86400000);
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  let out = '';
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    const f = fmt[++i];
    switch (f) {
      case 'Y': out += year; break;
      case 'C': out += pad(Math.floor(year / 100), 2); break;
      case 'y': out += pad(year % 100, 2); break;
      case 'm': out += pad(mon + 1, 2); break;
      case 'd': out += pad(mday, 2); break;
      case 'e': out += pad(mday, 2, ' '); break;
      case 'H': out += pad(hour, 2); break;
      case 'k': out += pad(hour, 2, ' '); break;
      case 'I': out += pad(h12, 2); break;
      case 'l': out += pad(h12, 2, ' '); break;
      case 'M': out += pad(min, 2); break;
      case 'S': out += pad(sec, 2); break;
      case 'j': out += pad(yday + 1, 3); break;
      case 'Z': out += 'UTC'; break;
      case 'z': out += '+0000'; break;
      case 'a': out += DAYS[wday]!.slice(0, 3); break;
      case 'A': out += DAYS[wday]!; break;
      case 'b': case 'h': out += MONTHS[mon]!.slice(0, 3); break;
      case 'B': out += MONTHS[mon]!; break;
      case 'p': out += hour < 12 ? 'AM' : 'PM'; break;
      case 'P': out += hour < 12 ? 'am' : 'pm'; break;
      case 'c': out += `${DAYS[wday]!.slice(0, 3)} ${MONTHS[mon]!.slice(0, 3)} ${pad(mday, 2, ' ')} ${pad(hour, 2)}:${pad(min, 2)}:${pad(sec, 2)} ${year}`; break;
      case 'D': case 'x': out += `${pad(mon + 1, 2)}/${pad(mday, 2)}/${pad(year % 100, 2)}`; break;
      case 'F': out += `${year}-${pad(mon + 1, 2)}-${pad(mday, 2)}`; break;
      case 'T': case 'X': out += `${pad(hour, 2)}:${pad(min, 2)}:${pad(sec, 2)}`; break;
      case 'R': out += `${pad(hour, 2)}:${pad(min, 2)}`; break;
      case 'r': out += `${pad(h12, 2)}:${pad(min, 2)}:${pad(sec, 2)} ${hour < 12 ? 'AM' : 'PM'}`; break;
      case 's': out += Math.floor(d.getTime() / 1000); break;
      case 'u': out += wday === 0 ? 7 : wday; break;
      case 'w': out += wday; break;
      case 'U': out += pad(Math.floor((yday + 7 - wday) / 7), 2); break;
      case 'W': out += pad(Math.floor((yday + 7 - ((wday + 6) % 7)) / 7), 2); break;
      case 'V': out += pad(isoWeek(d).week, 2); break;
      case 'G': out += isoWeek(d).year; break;
      case 'g': out += pad(isoWeek(d).year % 100, 2); break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '%': out += '%'; break;
      default: out += '%' + (f ?? '');
    }
  }
  return out;
}

export function strptime(x: Json, fmt: Json): Json {
  if (typeof x !== 'string') return V.fail(`strptime/1 requires string inputs and arguments`);
  if (typeof fmt !== 'string') return V.fail(`strptime/1 requires string inputs and arguments`);
  let year = 1900;
  let mon = 0;
  let mday = 1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let epoch: number | null = null;
  let pm: boolean | null = null;
  let i = 0;
  const bad = (): never => V.fail(`date "${x}" does not match format "${fmt}"`);
  const num = (maxLen: number, signed = false): number => {
    const m = (signed ? /^[+-]?\d+/ : /^\d+/).exec(x.slice(i, i + maxLen + (signed ? 1 : 0)));
    if (!m) return bad();
    i += m[0].length;
    return Number(m[0]);
  };
  const name = (list: string[]): number => {
    const rest = x.slice(i).toLowerCase();
    for (let k = 0; k < list.length; k++) {
      const full = list[k]!.toLowerCase();
      if (rest.startsWith(full)) {
        i += full.length;
        return k;
      }
      if (rest.startsWith(full.slice(0, 3))) {
        i += 3;
        return k;
      }
    }
    return bad();
  };
  for (let j = 0; j < fmt.length; j++) {
    const c = fmt[j]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      while (i < x.length && /\s/.test(x[i]!)) i++;
      continue;
    }
    if (c !== '%') {
      if (x[i] !== c) bad();
      i++;
      continue;
    }
    const f = fmt[++j];
    switch (f) {
      case 'Y': year = num(4, true); break;
      case 'm': mon = num(2) - 1; break;
      case 'd': case 'e': while (x[i] === ' ') i++; mday = num(2); break;
      case 'H': case 'k': while (x[i] === ' ') i++; hour = num(2); break;
      case 'I': case 'l': while (x[i] === ' ') i++; hour = num(2); break;
      case 'M': min = num(2); break;
      case 'S': sec = num(2); break;
      case 'y': { const y = num(2); year = y < 69 ? 2000 + y : 1900 + y; break; }
      case 'j': { const yd = num(3); mon = 0; mday = yd; break; }
      case 'a': case 'A': name(DAYS); break;
      case 'b': case 'B': case 'h': mon = name(MONTHS); break;
      case 'p': { const r = x.slice(i, i + 2).toUpperCase(); if (r !== 'AM' && r !== 'PM') bad(); pm = r === 'PM'; i += 2; break; }
      case 'Z': { const m = /^[A-Za-z]+/.exec(x.slice(i)); if (m) i += m[0].length; break; }
      case 'z': { const m = /^(?:[+-]\d{2}:?\d{2}|Z)/.exec(x.slice(i)); if (!m) bad(); i += m![0].length; break; }
      case 's': epoch = num(20, true); break;
      case 'T': { hour = num(2); if (x[i++] !== ':') bad(); min = num(2); if (x[i++] !== ':') bad(); sec = num(2); break; }
      case 'R': { hour = num(2); if (x[i++] !== ':') bad(); min = num(2); break; }
      case 'F': { year = num(4, true); if (x[i++] !== '-') bad(); mon = num(2) - 1; if (x[i++] !== '-') bad(); mday = num(2); break; }
      case 'D': { mon = num(2) - 1; if (x[i++] !== '/') bad(); mday = num(2); if (x[i++] !== '/') bad(); const y = num(2); year = y < 69 ? 2000 + y : 1900 + y; break; }
      case 'n': case 't': while (i < x.length && /\s/.test(x[i]!)) i++; break;
      case '%': if (x[i++] !== '%') bad(); break;
      default: bad();
    }
  }
  if (i < x.length) bad();
  if (pm !== null) hour = (hour % 12) + (pm ? 12 : 0);
  if (epoch !== null) return gmtime(epoch);
  const d = new Date(Date.UTC(year, mon, mday, hour, min, sec));
  d.setUTCFullYear(year);
  const yday = Math.floor((d.getTime() - Date.UTC(year, 0, 1)) / 86400000);
  return [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCDay(), yday];
}
