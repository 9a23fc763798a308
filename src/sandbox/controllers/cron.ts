/** Cron schedules as CronJobs write them (five fields or a macro), and the next time one fires (UTC). */

interface Fields {
  minute: Set<number>;
  hour: Set<number>;
  dom: Set<number>;
  month: Set<number>;
  dow: Set<number>;
  domStar: boolean;
  dowStar: boolean;
}

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function field(text: string, min: number, max: number, names: string[] = [], base = 0): Set<number> {
  const out = new Set<number>();
  const num = (s: string): number => {
    const i = names.indexOf(s.toLowerCase());
    if (i >= 0) return i + base;
    if (!/^\d+$/.test(s)) throw new Error(`"${s}" is not a number`);
    return Number(s);
  };
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : num(stepText);
    if (step < 1) throw new Error(`bad step in "${part}"`);
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') [lo, hi] = [min, max];
    else if (range.includes('-')) [lo, hi] = range.split('-').map(num) as [number, number];
    else {
      lo = num(range);
      hi = stepText === undefined ? lo : max;
    }
    if (lo < min || hi > max || lo > hi) throw new Error(`"${part}" is out of range ${min}-${max}`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

export function parseCron(schedule: string): Fields {
  let s = schedule.trim().replace(/^(CRON_)?TZ=\S+\s+/, '');
  s = MACROS[s] ?? s;
  const parts = s.split(/\s+/);
  if (parts.length !== 5) throw new Error(`the schedule "${schedule}" has ${parts.length} fields, not 5`);
  const dow = field(parts[4], 0, 7, DAYS);
  if (dow.has(7)) dow.add(0);
  return {
    minute: field(parts[0], 0, 59),
    hour: field(parts[1], 0, 23),
    dom: field(parts[2], 1, 31),
    month: field(parts[3], 1, 12, MONTHS, 1),
    dow,
    domStar: parts[2] === '*' || parts[2] === '?',
    dowStar: parts[4] === '*' || parts[4] === '?',
  };
}

/** The first time after `fromMs` (whole minutes, UTC) the schedule fires, or undefined within 5 years. */
export function nextRun(f: Fields, fromMs: number): number | undefined {
  const d = new Date(Math.floor(fromMs / 60000) * 60000 + 60000);
  const end = fromMs + 5 * 366 * 86400000;
  while (d.getTime() < end) {
    if (!f.month.has(d.getUTCMonth() + 1)) {
      d.setUTCMonth(d.getUTCMonth() + 1, 1);
      d.setUTCHours(0, 0, 0, 0);
      continue;
    }
    const domOk = f.dom.has(d.getUTCDate());
    const dowOk = f.dow.has(d.getUTCDay());
    const dayOk = f.domStar || f.dowStar ? domOk && dowOk : domOk || dowOk;
    if (!dayOk) {
      d.setUTCDate(d.getUTCDate() + 1);
      d.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!f.hour.has(d.getUTCHours())) {
      d.setUTCHours(d.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (!f.minute.has(d.getUTCMinutes())) {
      d.setUTCMinutes(d.getUTCMinutes() + 1, 0, 0);
      continue;
    }
    return d.getTime();
  }
  return undefined;
}
