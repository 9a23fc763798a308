/**
 * The benchmark report's logic (no I/O): a run's figures beside their targets, their baselines and the
 * previous recorded run of the same mode; flags for targets missed and figures more than 20 % worse
 * than the previous run; the Markdown table. bench/run.ts runs the suites and writes the files.
 */
import type { Figure } from './figures.js';

export interface Machine {
  cores: number;
  memoryMiB: number;
  node: string;
  cpu: string;
  /** 1-minute load average when the run started and when it ended. */
  load: [number, number];
}

export interface SuiteResult {
  suite: string;
  status: 'ok' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  reason?: string;
  seconds: number;
  /** CPU time of the suite's processes (user + system), steadier than `seconds` on a loaded machine. */
  cpuSeconds?: number;
  figures: Figure[];
  /** In a previous run made of several (previousBySuite): the run this suite's result comes from. */
  from?: { date: string; commit: string };
}

export interface Run {
  date: string;
  commit: string;
  mode: 'quick' | 'full';
  machine: Machine;
  suites: SuiteResult[];
}

export interface Row {
  suite: string;
  figure: Figure;
  /** value / baseline.value, when the figure has a baseline. */
  ratio?: number;
  /** Whether the target is met; undefined without a target. */
  met?: boolean;
  /** The figure that is compared between runs and judged: the ratio when there is one, else the value. */
  judged: number;
  /** Relative change of `judged` from the previous run (+0.25: 25 % higher); undefined if not measured then. */
  change?: number;
  /** More than WORSE_LIMIT worse than the previous run, in the figure's bad direction. */
  worse: boolean;
  /** The value (or its ratio to the baseline) is not a finite number: the suite did not measure it. */
  unmeasured: boolean;
}

/** A figure this much worse than the previous run's is flagged. */
export const WORSE_LIMIT = 0.2;

export function ratioOf(f: Figure): number | undefined {
  return f.baseline && f.baseline.value > 0 ? f.value / f.baseline.value : undefined;
}

function judgedOf(f: Figure): number {
  return ratioOf(f) ?? f.value;
}

export function targetMet(f: Figure): boolean | undefined {
  const t = f.target;
  if (!t || (t.max === undefined && t.min === undefined)) return undefined;
  const v = t.of === 'ratio' ? ratioOf(f) : f.value;
  if (v === undefined || !Number.isFinite(v)) return false;
  return (t.max === undefined || v <= t.max) && (t.min === undefined || v >= t.min);
}

/** Whether `cur` is more than WORSE_LIMIT worse than `prev`, given which way is better. */
export function isWorse(cur: number, prev: number, better: 'lower' | 'higher' = 'lower'): boolean {
  if (!Number.isFinite(cur) || !Number.isFinite(prev)) return false;
  // from 0 (no missed events, no errors) any rise of a lower-is-better figure is worse by more than 20 %
  if (prev === 0) return better === 'lower' ? cur > 0 : cur < 0;
  return better === 'lower' ? cur > prev * (1 + WORSE_LIMIT) : cur < prev * (1 - WORSE_LIMIT);
}

/** The rows of `run`, each compared with the same figure of `previous` (same suite and name). */
export function compare(run: Run, previous?: Run): Row[] {
  const prev = new Map<string, Figure>();
  for (const s of previous?.suites ?? []) for (const f of s.figures) prev.set(`${s.suite}\0${f.name}`, f);
  const rows: Row[] = [];
  for (const s of run.suites) {
    for (const f of s.figures) {
      const judged = judgedOf(f);
      const p = prev.get(`${s.suite}\0${f.name}`);
      const before = p && (ratioOf(f) === undefined) === (ratioOf(p) === undefined) ? judgedOf(p) : undefined;
      const change = before !== undefined && before !== 0 && Number.isFinite(before) ? judged / before - 1 : undefined;
      rows.push({
        suite: s.suite,
        figure: f,
        ratio: ratioOf(f),
        met: targetMet(f),
        judged,
        change,
        worse: before !== undefined && isWorse(judged, before, f.better),
        unmeasured: !Number.isFinite(judged),
      });
    }
  }
  return rows;
}

export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const a = Math.abs(n);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

function targetText(f: Figure): string {
  const t = f.target;
  if (!t) return '';
  const unit = t.of === 'ratio' ? '×' : ` ${f.unit}`;
  const parts: string[] = [];
  if (t.max !== undefined) parts.push(`≤ ${formatNumber(t.max)}${unit}`);
  if (t.min !== undefined) parts.push(`≥ ${formatNumber(t.min)}${unit}`);
  return parts.join(', ');
}

function changeText(r: Row): string {
  if (r.change === undefined) return r.worse ? 'up from 0' : '';
  const pct = r.change * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(0)} %`;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The Markdown report: the machine, one table row per figure, then the flags and the suites not run. */
export function markdown(run: Run, previous?: Run): string {
  const rows = compare(run, previous);
  const m = run.machine;
  const quick = run.mode === 'quick';
  const out: string[] = [];
  out.push(`Benchmark report, ${run.mode} mode: ${run.date}, commit ${run.commit}`);
  out.push('');
  if (quick) out.push('Quick mode: every suite at a small size, to show that it runs; the sizes are too small to judge the targets, so what is missed is flagged in lower case.');
  out.push(`Machine: ${m.cores} cores (${m.cpu}), ${formatNumber(m.memoryMiB / 1024)} GiB memory, Node ${m.node}, load average ${m.load[0].toFixed(1)} at the start, ${m.load[1].toFixed(1)} at the end.`);
  out.push(previous ? `Change: against ${previousText(previous)}; of the ratio where there is a baseline, else of the value.` : 'Change: no previous run of this mode recorded.');
  out.push('');
  out.push('| suite | figure | value | target | baseline (same run) | ratio | change | |');
  out.push('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const f = r.figure;
    const flags = [r.unmeasured ? 'NOT MEASURED' : '', r.met === false ? (quick ? 'missed (quick size)' : 'MISSED') : r.met ? 'met' : '', r.worse ? (quick ? 'worse (quick size)' : 'WORSE') : ''].filter(Boolean).join(', ');
    out.push(
      `| ${cell(r.suite)} | ${cell(f.name)}${f.note ? ` (${cell(f.note)})` : ''} | ${formatNumber(f.value)} ${cell(f.unit)} | ${targetText(f)} | ${f.baseline ? `${cell(f.baseline.what)}: ${formatNumber(f.baseline.value)} ${cell(f.baseline.unit)}` : ''} | ${r.ratio !== undefined ? `${formatNumber(r.ratio)}×` : ''} | ${changeText(r)} | ${flags} |`,
    );
  }
  const missed = rows.filter((r) => r.met === false);
  const worse = rows.filter((r) => r.worse);
  const unmeasured = rows.filter((r) => r.unmeasured);
  const notRun = run.suites.filter((s) => s.status !== 'ok');
  const gone = vanished(run, previous);
  out.push('');
  out.push(missed.length ? `Targets missed (${missed.length}): ${missed.map((r) => `${r.suite}: ${r.figure.name}`).join('; ')}.` : 'Targets missed: none.');
  if (unmeasured.length) out.push(`Not measured (${unmeasured.length}): ${unmeasured.map((r) => `${r.suite}: ${r.figure.name}`).join('; ')}.`);
  out.push(worse.length ? `More than ${WORSE_LIMIT * 100} % worse than the previous run (${worse.length}): ${worse.map((r) => `${r.suite}: ${r.figure.name} (${changeText(r)})`).join('; ')}.` : `More than ${WORSE_LIMIT * 100} % worse than the previous run: none.`);
  if (gone.length) out.push(`Measured in the previous run, not in this one (${gone.length}): ${gone.join('; ')}.`);
  for (const s of notRun) out.push(`Suite ${s.suite} ${s.status === 'skipped' ? 'skipped' : 'FAILED'}: ${s.reason ?? ''}`);
  const ran = run.suites.filter((s) => s.status !== 'skipped');
  const cpu = ran.reduce((sum, s) => sum + (s.cpuSeconds ?? 0), 0);
  const wall = ran.reduce((sum, s) => sum + s.seconds, 0);
  out.push('');
  out.push(`Time: ${formatNumber(wall)} s, ${formatNumber(cpu)} s of CPU (${ran.map((s) => `${s.suite} ${formatNumber(s.seconds)} s / ${s.cpuSeconds === undefined ? '?' : formatNumber(s.cpuSeconds)} s`).join(', ')}).`);
  return `${out.join('\n')}\n`;
}

/** The previous run(s) as the header names them: one run, or each suite's own when they differ. */
function previousText(previous: Run): string {
  const sources = new Map<string, string[]>();
  for (const s of previous.suites) {
    const key = `${s.from?.date ?? previous.date}, commit ${s.from?.commit ?? previous.commit}`;
    sources.set(key, [...(sources.get(key) ?? []), s.suite]);
  }
  if (sources.size <= 1) return `the previous ${previous.mode} run (${[...sources.keys()][0] ?? `${previous.date}, commit ${previous.commit}`})`;
  return `each suite's previous ${previous.mode} run (${[...sources].map(([run, suites]) => `${suites.join(', ')}: ${run}`).join('; ')})`;
}

/** Figures of the previous run's suites that this run's same suites, run fine, no longer report. */
export function vanished(run: Run, previous?: Run): string[] {
  const out: string[] = [];
  for (const s of run.suites) {
    if (s.status !== 'ok') continue; // a failed suite is flagged as such
    const p = previous?.suites.find((x) => x.suite === s.suite && x.status === 'ok');
    for (const f of p?.figures ?? []) if (!s.figures.some((x) => x.name === f.name)) out.push(`${s.suite}: ${f.name}`);
  }
  return out;
}

/**
 * The previous run to compare a new run of `mode` with, suite by suite: each suite's result from the
 * latest recorded run of that mode where it ran fine (a run of one suite, `--suite NAME`, then does not
 * hide the others' previous figures); dated as the latest of those runs. Undefined when none.
 */
export function previousBySuite(runs: Run[], mode: Run['mode']): Run | undefined {
  const sorted = runs.filter((r) => r.mode === mode).sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  if (!sorted.length) return undefined;
  const suites: SuiteResult[] = [];
  for (const r of sorted) {
    for (const s of r.suites) {
      if (s.status === 'ok' && !suites.some((x) => x.suite === s.suite)) suites.push({ ...s, from: { date: r.date, commit: r.commit } });
    }
  }
  return { ...sorted[0]!, suites };
}

/** The file name a run is recorded under: its date (sortable) and commit. */
export function runFileName(run: Pick<Run, 'date' | 'commit'>): string {
  return `${run.date.replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z')}-${run.commit}.json`;
}
