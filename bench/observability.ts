/**
 * bench/observability (issue 11): with 200 modules and 600 hooks loaded and converged (`start
 * --sandbox` as its own process), the time of a `/metrics` scrape and of a `/status.json` read over
 * HTTP (target: a scrape under 50 ms); and what recording a hook run (metrics and the status page's
 * record) adds to one in-process hook run (target: under 2 %), measured in this process on the same
 * hook with and without the recording; and, as the baseline of the same run, the same hook run series
 * recorded and rendered by prom-client.
 * Run: node --import tsx bench/observability.ts [modules] [scrapes] [recorded runs]
 * (env SKIP_RECORDING, SKIP_SCRAPES or ONLY_IN_PROCESS run a part)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadHooks } from '../src/hooks/hook.js';
import { lifecycleContext } from '../src/hooks/binding-context.js';
import { Histogram, Counter, Registry } from 'prom-client';
import { OperatorMetrics } from '../src/metrics/operator-metrics.js';
import { Activity } from '../src/operator/activity.js';
import { emitFigures, type Figure } from './figures.js';

const MODULES = Number(process.argv[2] ?? 200);
const SCRAPES = Number(process.argv[3] ?? 50);
const RECORDED_RUNS = Number(process.argv[4] ?? 20_000);
const figures: Figure[] = [];
const MAIN = join(import.meta.dirname, '../src/cli/main.ts');

const hookFile = (binding: string) => `export const config = { configVersion: 'v1', ${binding}: 1 };
export function run(ctx) {
  ctx.patchValues([{ op: 'add', path: '/' + Object.keys(ctx.values).find((k) => k !== 'global') + '/seen', value: true }]);
  ctx.metrics.set('bench_hook_runs', 1, { labels: { binding: '${binding}' } });
}
`;

function letters(n: number): string {
  let s = '';
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return s;
}

function moduleSet(root: string): void {
  const flags: string[] = [];
  for (let i = 0; i < MODULES; i++) {
    // names must survive the kebab-case ↔ camelCase round trip: letters only
    const word = letters(i);
    const name = `mod-${word}`;
    const key = `mod${word[0]!.toUpperCase()}${word.slice(1)}`;
    const dir = join(root, 'modules', `${String(100 + i)}-${name}`);
    mkdirSync(join(dir, 'hooks'), { recursive: true });
    mkdirSync(join(dir, 'templates'), { recursive: true });
    writeFileSync(join(dir, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`);
    writeFileSync(join(dir, 'values.yaml'), `${key}:\n  replicas: 1\n`);
    writeFileSync(join(dir, 'templates', 'cm.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  replicas: "{{ .Values.${key}.replicas }}"\n`);
    for (const b of ['onStartup', 'beforeHelm', 'afterHelm']) writeFileSync(join(dir, 'hooks', `${b}.hook.mjs`), hookFile(b));
    flags.push(`${key}Enabled: true`);
  }
  writeFileSync(join(root, 'modules', 'values.yaml'), flags.join('\n') + '\n');
  mkdirSync(join(root, 'global-hooks'), { recursive: true });
}

async function timed(url: string, n: number): Promise<{ medianMs: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const body = await (await fetch(url)).text();
    times.push(performance.now() - t);
    bytes = body.length;
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)]!, bytes };
}

async function scrapes(root: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'start', '--sandbox', '--modules-dir', join(root, 'modules'), '--global-hooks-dir', join(root, 'global-hooks'), '--tmp-dir', join(root, 'tmp'), '--namespace', 'addons', '--log-type', 'json', '--log-level', 'info', '--listen-port', '0', '--debug-unix-socket', join(root, 'debug.socket')], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  try {
    const started = performance.now();
    let base: string | undefined;
    while (!base) {
      await new Promise((r) => setTimeout(r, 100));
      base = /"address":"(http:[^"]+)"/.exec(out)?.[1];
      if (child.exitCode !== null) throw new Error(`the operator exited: ${out}`);
    }
    while ((await fetch(base + '/readyz')).status !== 200) {
      if (child.exitCode !== null) throw new Error(`the operator exited: ${out.slice(-2000)}`);
      if (performance.now() - started > 240_000) throw new Error(`no first converge in 4 minutes: ${out.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    console.log(`${MODULES} modules, ${MODULES * 3} in-process hooks converged in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const metrics = await timed(base + '/metrics', SCRAPES);
    const status = await timed(base + '/status.json', SCRAPES);
    const hooks = await timed(base + '/metrics/hooks', SCRAPES);
    console.log(`/metrics       median ${metrics.medianMs.toFixed(1)} ms (${(metrics.bytes / 1024).toFixed(0)} KiB)   target < 50 ms`);
    figures.push({ name: '/metrics scrape', value: metrics.medianMs, unit: 'ms', target: { max: 50 } }, { name: '/status.json read', value: status.medianMs, unit: 'ms' });
    console.log(`/status.json   median ${status.medianMs.toFixed(1)} ms (${(status.bytes / 1024).toFixed(0)} KiB)`);
    console.log(`/metrics/hooks median ${hooks.medianMs.toFixed(1)} ms (${(hooks.bytes / 1024).toFixed(0)} KiB)`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
  }
}

/** One in-process hook run, alone and with what the operator records about it. */
async function recordingCost(root: string): Promise<void> {
  const dir = join(root, 'single', 'hooks');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'b.hook.mjs'), hookFile('beforeHelm'));
  const [hook] = await loadHooks(dir, { kind: 'module', module: 'bench', timeoutMs: 10_000 });
  const metrics = new OperatorMetrics();
  const activity = new Activity();
  const req = () => ({ contexts: [lifecycleContext(hook!.config, 'beforeHelm')], values: { global: {}, bench: { replicas: 1 } }, configValues: { global: {}, bench: {} } });
  const rt = { tmpDir: join(root, 'tmp'), timeoutMs: 10_000 };
  const N = RECORDED_RUNS;
  // both loops time each run, as the operator does for its log and status page whatever it records:
  // the difference between them is the recording alone
  let timedMs = 0;
  const plain = async () => {
    for (let i = 0; i < N; i++) {
      const at = Date.now();
      const t = performance.now();
      await hook!.run(req(), rt);
      timedMs += performance.now() - t;
      void at;
    }
  };
  const recorded = async () => {
    for (let i = 0; i < N; i++) {
      const at = Date.now();
      const t = performance.now();
      await hook!.run(req(), rt);
      const ms = performance.now() - t;
      metrics.hookRun({ module: 'bench', hook: hook!.name, binding: 'beforeHelm', queue: 'main', activation: '' }, ms / 1000);
      metrics.hookTaskResult({ module: 'bench', hook: hook!.name, binding: 'beforeHelm', queue: 'main', activation: '' }, 'success');
      activity.hookRun({ at, durationMs: ms, hook: hook!.name, module: 'bench', binding: 'beforeHelm', queue: 'main', result: 'success' });
    }
  };
  const recordOnly = () => {
    const t = performance.now();
    for (let i = 0; i < N; i++) {
      const at = Date.now();
      const ms = 0.001 * (i & 7);
      metrics.hookRun({ module: 'bench', hook: hook!.name, binding: 'beforeHelm', queue: 'main', activation: '' }, ms / 1000);
      metrics.hookTaskResult({ module: 'bench', hook: hook!.name, binding: 'beforeHelm', queue: 'main', activation: '' }, 'success');
      activity.hookRun({ at, durationMs: ms, hook: hook!.name, module: 'bench', binding: 'beforeHelm', queue: 'main', result: 'success' });
    }
    return ((performance.now() - t) * 1000) / N;
  };
  await plain();
  await recorded();
  recordOnly();
  // Two measures, each the median of 9 alternating rounds. The share: the recording alone (timed in a
  // loop of its own, which a busy machine disturbs far less than it does a hook run) against the hook
  // run as the plain loop times it in the same round. The ratio: the whole loop with recording against
  // the whole loop without, which holds the recording's effect on the run (caches, GC) too, but moves
  // by a few per cent between rounds on a shared machine.
  const shares: number[] = [];
  const ratios: number[] = [];
  const runs: number[] = [];
  const records: number[] = [];
  for (let r = 0; r < 9; r++) {
    timedMs = 0;
    let t = performance.now();
    await plain();
    const a = performance.now() - t;
    const perRun = (timedMs * 1000) / N;
    t = performance.now();
    await recorded();
    const b = performance.now() - t;
    const perRecord = recordOnly();
    ratios.push(b / a);
    runs.push(perRun);
    records.push(perRecord);
    shares.push(perRecord / perRun);
  }
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  console.log(`one in-process hook run ${med(runs).toFixed(1)} µs; recording it ${med(records).toFixed(2)} µs (medians of 9 rounds of ${N})`);
  console.log(`recording / hook run: ${(med(shares) * 100).toFixed(2)} % (median of the rounds' shares; range ${(Math.min(...shares) * 100).toFixed(2)}–${(Math.max(...shares) * 100).toFixed(2)} %)   target < 2 %`);
  console.log(`loop with recording / without: ${med(ratios).toFixed(3)} (range ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}; includes the machine's noise)`);
  figures.push({ name: 'recording a hook run, share of the run', value: med(records), unit: 'µs', baseline: { what: 'the in-process hook run', value: med(runs), unit: 'µs' }, target: { max: 0.02, of: 'ratio' } });
}

/**
 * The same hook run series (600 hooks: run seconds with CPU seconds and max RSS, success counters)
 * recorded and rendered by the operator's metrics and by prom-client's Histogram/Counter, in this
 * process: the baseline of the same run for what the operator keeps itself.
 */
async function versusPromClient(): Promise<void> {
  const labelNames = ['module', 'hook', 'binding', 'queue', 'activation'] as const;
  const registry = new Registry();
  const h = (name: string) => new Histogram({ name, help: name, labelNames, registers: [registry] });
  const prom = { seconds: h('s'), user: h('u'), sys: h('y'), success: new Counter({ name: 'ok', help: 'ok', labelNames, registers: [registry] }) };
  const ours = new OperatorMetrics();
  const hooks = Array.from({ length: MODULES * 3 }, (_, i) => ({ module: `mod-${Math.floor(i / 3)}`, hook: `hooks/${['onStartup', 'beforeHelm', 'afterHelm'][i % 3]}.hook.mjs`, binding: ['onStartup', 'beforeHelm', 'afterHelm'][i % 3]!, queue: 'main', activation: 'OperatorStartup' }));
  const usage = { userSeconds: 0.01, sysSeconds: 0.002, maxRssBytes: 4e6 };
  const recordProm = () => {
    for (const l of hooks) {
      prom.seconds.observe(l, 0.02);
      prom.user.observe(l, usage.userSeconds);
      prom.sys.observe(l, usage.sysSeconds);
      prom.success.inc(l);
    }
  };
  const recordOurs = () => {
    for (const l of hooks) {
      ours.hookRun(l, 0.02, usage);
      ours.hookTaskResult(l, 'success');
    }
  };
  const median = async (f: () => unknown, n: number) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await f();
      times.push(performance.now() - t);
    }
    return times.sort((x, y) => x - y)[Math.floor(n / 2)]!;
  };
  const recProm = await median(recordProm, 21);
  const recOurs = await median(recordOurs, 21);
  const renderProm = await median(() => registry.metrics(), 11);
  const renderOurs = await median(() => ours.render(), 11);
  const perRun = (ms: number) => ((ms * 1000) / hooks.length).toFixed(2);
  console.log(`recording a hook run (${hooks.length} hooks): ours ${perRun(recOurs)} µs, prom-client ${perRun(recProm)} µs (ratio ${(recOurs / recProm).toFixed(3)})`);
  console.log(`rendering those series: ours ${renderOurs.toFixed(1)} ms, prom-client ${renderProm.toFixed(1)} ms (ratio ${(renderOurs / renderProm).toFixed(3)})`);
  figures.push(
    { name: 'recording a hook run', value: (recOurs * 1000) / hooks.length, unit: 'µs', baseline: { what: 'prom-client', value: (recProm * 1000) / hooks.length, unit: 'µs' } },
    { name: 'rendering the hook run series', value: renderOurs, unit: 'ms', baseline: { what: 'prom-client', value: renderProm, unit: 'ms' } },
  );
}

const root = mkdtempSync(join(tmpdir(), 'bench-observability-'));
try {
  moduleSet(root);
  await versusPromClient();
  if (process.env.ONLY_IN_PROCESS) process.exit(0);
  if (!process.env.SKIP_RECORDING) await recordingCost(root);
  if (!process.env.SKIP_SCRAPES) await scrapes(root);
  emitFigures(figures);
} finally {
  rmSync(root, { recursive: true, force: true });
}
