/**
 * `npm run bench`: runs every suite of bench/, each in its own process at the mode's size, collects the
 * figures they emit (bench/figures.ts), and writes the run to bench/results/<date>-<commit>.json,
 * bench/results/latest.json and bench/results/latest.md (the Markdown table of bench/report.ts, also
 * printed), each suite compared with its latest recorded run of the same mode where it ran fine.
 *
 *   npm run bench [-- --quick] [--suite NAME]... [--out DIR] [--no-build]
 *
 * --quick: each suite at a small size (CI: proves every suite still runs; its runs are recorded in
 * bench/results/quick/, which git ignores). Exit status 1 when a suite fails to run; targets missed
 * and figures worse than the previous run are flagged in the table, not failures (the machine is
 * shared and noisy). Suites that need a reference built (the Go template engine) are skipped, saying
 * so, when it is absent.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Figure } from './figures.js';
import { markdown, previousBySuite, runFileName, type Run, type SuiteResult } from './report.js';

const REPO = resolve(import.meta.dirname, '..');

interface Suite {
  name: string;
  file: string;
  quick: string[];
  full: string[];
  /** Node flags for the suite's process. */
  node?: string[];
  /** Why the suite cannot run here, or undefined. */
  missing?: () => string | undefined;
  /** Needs dist/ built (runs the CLI as processes). */
  dist?: boolean;
  timeoutSec: { quick: number; full: number };
}

const goRef = join(REPO, 'tools/gotemplate-ref/bin/gotemplate-ref');

export const SUITES: Suite[] = [
  { name: 'sandbox', file: 'bench/sandbox.ts', quick: ['--objects', '500', '--watchers', '4', '--warmup', '100'], full: [], timeoutSec: { quick: 300, full: 600 } },
  { name: 'kube-events', file: 'bench/kube-events.ts', node: ['--expose-gc'], quick: ['--objects', '500', '--seconds', '2'], full: [], timeoutSec: { quick: 300, full: 600 } },
  { name: 'memory', file: 'bench/memory.ts', node: ['--expose-gc'], quick: ['--modules', '4', '--bindings', '2', '--objects', '200', '--events', '200', '--settle', '2'], full: [], timeoutSec: { quick: 300, full: 900 } },
  { name: 'fleet', file: 'bench/fleet-report.ts', dist: true, quick: ['--modules', '4', '--objects', '3', '--events', '40', '--disable', '1'], full: [], timeoutSec: { quick: 300, full: 1200 } },
  // the same fleet's cold converge with same-order modules in parallel (issue 22's < 10 s target)
  { name: 'fleet-parallel', file: 'bench/fleet-report.ts', dist: true, quick: ['--modules', '4', '--objects', '3', '--parallel', '2', '--events', '0', '--disable', '0'], full: ['--parallel', '4', '--events', '0', '--disable', '0'], timeoutSec: { quick: 300, full: 600 } },
  // a large cluster (issue 37): the sandbox seeded through its API, 200 modules, Pods and Nodes watched cluster-wide, a churn
  { name: 'scale', file: 'bench/scale.ts', dist: true, quick: ['--quick'], full: [], timeoutSec: { quick: 300, full: 3600 } },
  // the same fleet all critical against its second half functional, 4 levels of requirements (issue 34's 0.7× target)
  { name: 'fleet-functional', file: 'bench/fleet-report.ts', dist: true, quick: ['--modules', '8', '--objects', '3', '--parallel', '2', '--functional-depth', '2'], full: ['--parallel', '4', '--functional-depth', '4', '--pairs', '3'], timeoutSec: { quick: 300, full: 1800 } },
  { name: 'converge', file: 'bench/converge.ts', quick: ['10', '3'], full: [], timeoutSec: { quick: 300, full: 900 } },
  { name: 'hooks', file: 'bench/hooks.ts', quick: ['20'], full: ['200'], timeoutSec: { quick: 300, full: 900 } },
  { name: 'webhooks', file: 'bench/webhooks.ts', quick: ['2', '20'], full: ['10', '200'], timeoutSec: { quick: 300, full: 900 } },
  { name: 'observability', file: 'bench/observability.ts', quick: ['10', '5', '500'], full: [], timeoutSec: { quick: 300, full: 600 } },
  { name: 'values', file: 'bench/values.ts', quick: ['--modules', '10', '--rounds', '3'], full: [], timeoutSec: { quick: 300, full: 600 } },
  { name: 'jq', file: 'bench/jq.ts', quick: ['--objects', '300'], full: [], timeoutSec: { quick: 300, full: 600 } },
  { name: 'gotemplate', file: 'bench/gotemplate.ts', quick: ['--seconds', '1'], full: [], timeoutSec: { quick: 300, full: 300 } },
  {
    name: 'gotemplate-go',
    file: 'bench/gotemplate.ts',
    quick: ['--seconds', '0.2', '--go', '20'],
    full: ['--seconds', '1', '--go', '200'],
    missing: () => (existsSync(goRef) ? undefined : 'needs the Go reference engine, not built here (tools/gotemplate-ref/build.sh)'),
    timeoutSec: { quick: 300, full: 300 },
  },
];

function parseArgs(argv: string[]) {
  const o = { quick: false, suites: [] as string[], out: '', build: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--quick') o.quick = true;
    else if (a === '--no-build') o.build = false;
    else if (a === '--suite' || a === '--out') {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      if (a === '--suite') o.suites.push(v);
      else o.out = resolve(v);
    } else throw new Error(`unknown argument ${a} (expected --quick, --suite NAME, --out DIR, --no-build)`);
  }
  for (const s of o.suites) if (!SUITES.some((x) => x.name === s)) throw new Error(`unknown suite ${s} (suites: ${SUITES.map((x) => x.name).join(', ')})`);
  if (!o.out) o.out = join(REPO, 'bench/results', o.quick ? 'quick' : '');
  return o;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Builds dist/ when it is missing or older than src/. */
function ensureDist(build: boolean): void {
  const cli = join(REPO, 'dist/cli/main.js');
  if (existsSync(cli) && (!build || statSync(cli).mtimeMs >= newestMtime(join(REPO, 'src')))) return;
  if (!build && !existsSync(cli)) throw new Error('dist/ is not built (npm run build), and --no-build was given');
  console.log('bench: building dist/ (npm run build)');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: REPO, stdio: 'inherit' });
}

/** CPU seconds (user + system) of this process's children that have ended, from /proc/self/stat. */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // cutime and cstime: fields 16 and 17 of proc(5), counted from the state field (3); in clock ticks (100 a second)
  return (Number(f[16 - 3]) + Number(f[17 - 3])) / 100;
}

function runSuite(s: Suite, quick: boolean, build: boolean): Promise<SuiteResult> {
  const t0 = performance.now();
  const cpu0 = existsSync('/proc/self/stat') ? childrenCpuSeconds() : NaN;
  const seconds = () => Math.round((performance.now() - t0) / 100) / 10;
  const missing = s.missing?.();
  if (missing) return Promise.resolve({ suite: s.name, status: 'skipped', reason: missing, seconds: 0, figures: [] });
  try {
    if (s.dist) ensureDist(build);
  } catch (e) {
    return Promise.resolve({ suite: s.name, status: 'failed', reason: (e as Error).message, seconds: seconds(), figures: [] });
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-figures-'));
  const file = join(dir, 'figures.jsonl');
  writeFileSync(file, '');
  const args = [...(s.node ?? []), '--import', 'tsx', join(REPO, s.file), ...(quick ? s.quick : s.full)];
  console.log(`\n=== ${s.name}: node ${args.slice((s.node ?? []).length + 2).map((a) => a.replace(`${REPO}/`, '')).join(' ')}`);
  const timeoutSec = quick ? s.timeoutSec.quick : s.timeoutSec.full;
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, BENCH_FIGURES: file } });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    }, timeoutSec * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const figures = readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Figure);
      rmSync(dir, { recursive: true, force: true });
      const failed = timedOut ? `did not finish in ${timeoutSec} s` : code !== 0 ? `exited with ${signal ?? code}` : figures.length === 0 ? 'reported no figures' : undefined;
      const cpuSeconds = Math.round((childrenCpuSeconds() - cpu0) * 10) / 10;
      done({ suite: s.name, status: failed ? 'failed' : 'ok', ...(failed ? { reason: failed } : {}), seconds: seconds(), ...(Number.isFinite(cpuSeconds) ? { cpuSeconds } : {}), figures });
    });
  });
}

function readRuns(dir: string): Run[] {
  if (!existsSync(dir)) return [];
  const runs: Run[] = [];
  for (const f of readdirSync(dir)) {
    if (!f.endsWith('.json') || f === 'latest.json') continue;
    try {
      runs.push(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Run);
    } catch {
      console.error(`bench: ${join(dir, f)} is not a recorded run (not JSON); ignored`);
    }
  }
  return runs;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const mode = o.quick ? 'quick' : 'full';
  const previous = previousBySuite(readRuns(o.out), mode);
  const start = loadavg()[0]!;
  const t0 = performance.now();
  const results: SuiteResult[] = [];
  for (const s of SUITES) {
    if (o.suites.length && !o.suites.includes(s.name)) continue;
    const r = await runSuite(s, o.quick, o.build);
    if (r.status !== 'ok') console.log(`=== ${s.name}: ${r.status}: ${r.reason}`);
    results.push(r);
  }
  const run: Run = {
    date: new Date().toISOString(),
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    mode,
    machine: { cores: cpus().length, memoryMiB: Math.round(totalmem() / 1048576), node: process.version, cpu: cpus()[0]?.model.trim() ?? '?', load: [start, loadavg()[0]!] },
    suites: results,
  };
  const md = markdown(run, previous);
  mkdirSync(o.out, { recursive: true });
  writeFileSync(join(o.out, runFileName(run)), `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(join(o.out, 'latest.json'), `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(join(o.out, 'latest.md'), md);
  console.log(`\n${md}`);
  const cpu = results.reduce((sum, r) => sum + (r.cpuSeconds ?? 0), 0);
  console.log(`bench: ${results.length} suites in ${((performance.now() - t0) / 1000).toFixed(1)} s (${cpu.toFixed(1)} s of CPU); recorded in ${join(o.out, runFileName(run))}`);
  if (results.some((r) => r.status === 'failed')) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
