/**
 * The fleet headline for the benchmark report (bench/run.ts): one cold converge of the generated fleet
 * of bench/fleet (generateFleet, runFleet; that bench is the fleet engineer's, this only calls it), as
 * figures, then object events spread over the fleet's kubernetes bindings. Needs dist/ built
 * (bench/run.ts builds it when it is older than src/).
 *   node --import tsx bench/fleet-report.ts [--modules 100] [--objects 30] [--parallel 1] [--events 1000] [--disable 5] [--functional-depth 0] [--pairs 1] [--hook-wait-ms 0]
 *
 * Where the converge's wall time goes, from the operator's own metrics (series of the first converge,
 * activation="OperatorStartup"): inside hooks (`module_hook_run_seconds` and `global_hook_run_seconds`:
 * each run from its start to its outputs read, spawn included; shell and in-process apart), in Helm
 * (`module_helm_seconds`: render, release history, applies), and the rest, the engine's own share (start
 * and module loading, queues, values, snapshots, status). With `--parallel-module-runs` above 1 module
 * runs overlap and the shares are not computed. The hook processes' CPU comes from the spawner helper's
 * /proc cutime and cstime (bench/fleet/run.ts).
 *
 * The events: `--events N` ConfigMaps created, carrying the label of module i % modules, so that each
 * is one Added event of that module's kubernetes binding; the time from the first create to the end of
 * the last run of those hooks (the operator's /status.json), against the hooks' own run time (the
 * growth of their `module_hook_run_seconds` sum; runs queued back to back are combined, as in Go).
 *
 * Then the modules disabled: `--disable N` modules (spread over the fleet) switched off in the
 * operator's ConfigMap (`<name>Enabled: "false"`); the time from that edit to the end of the last of
 * their afterDeleteHelm runs (each after its release's uninstall), their objects and releases checked
 * gone from the API server.
 *
 * With `--functional-depth D` (issue 34) the run is three cold converges of the same fleet, nothing else:
 * all modules critical (no module.yaml), then the second half functional with requirements D levels
 * deep (generate.ts functionalModuleYaml), both with `--parallel N` (and the first with 1, today's
 * default); target: the functional converge at most 0.7× the all-critical one with the same flags.
 * `--pairs K` runs the two converges alternately K times and compares their medians; `--hook-wait-ms N`
 * makes each module's beforeHelm hook wait N ms (time without CPU: the order of the module runs, not the
 * machine's load, then sets the converge's time).
 *
 * The fleet's webhook bindings (kubernetesValidating, kubernetesMutating,
 * kubernetesCustomResourceConversion) are served: the sandbox calls the validating and mutating ones
 * on the modules' ConfigMaps; the conversion ones name CRDs that do not exist, so they are never called
 * (generate.ts).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '../src/kube/kube-config.js';
import { isApiStatus, requestJson } from '../src/kube/http.js';
import { closeConnections } from '../src/kube/connections.js';
import { moduleValuesKey } from '../src/modules/names.js';
import { generateFleet, watchForm, webhookKind, WATCH_BINDING, WATCH_GROUP, type Fleet, type WatchForm } from './fleet/generate.js';
import { runFleet } from './fleet/run.js';
import { median } from './soak.js';
import { emitFigures, type Figure } from './figures.js';
import { spawnOnce } from './processes.js';
import { queuesEmpty } from './cluster.js';

/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped; label values unescaped). */
export function parseSamples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{.*\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of the samples named `name` whose labels pass `where`. */
export function sumOf(samples: readonly Sample[], name: string, where: (labels: Record<string, string>) => boolean = () => true): number {
  let sum = 0;
  for (const s of samples) if (s.name === name && where(s.labels)) sum += s.value;
  return sum;
}

const P = 'addon_operator_';
/** In-process hooks are the `*.hook.js` / `*.hook.mjs` files (src/hooks/discovery.ts). */
const inProcess = (hook: string | undefined) => /\.hook\.m?js$/.test(hook ?? '');

/** Seconds inside hook runs, shell and in-process, and in Helm, over the series passing `where`. */
export function phaseSeconds(
  samples: readonly Sample[],
  where: (labels: Record<string, string>) => boolean,
): { shellHooks: number; inProcessHooks: number; globalHooks: number; helm: number; moduleRuns: number; hookRuns: number; shellHookCpu: number } {
  const hooks = (kind: 'shell' | 'in-process', suffix: string, metric = 'hook_run_seconds') =>
    [`${P}module_${metric}${suffix}`, `${P}global_${metric}${suffix}`].reduce((s, n) => s + sumOf(samples, n, (l) => where(l) && inProcess(l.hook) === (kind === 'in-process')), 0);
  return {
    shellHooks: hooks('shell', '_sum'),
    inProcessHooks: hooks('in-process', '_sum'),
    // of which global hooks' runs (onStartup, beforeAll, afterAll...: outside the ModuleRun tasks)
    globalHooks: sumOf(samples, `${P}global_hook_run_seconds_sum`, where),
    helm: sumOf(samples, `${P}module_helm_seconds_sum`, where),
    // ModuleRun tasks from start to end (their hooks and Helm included)
    moduleRuns: sumOf(samples, `${P}module_run_seconds_sum`, where),
    hookRuns: hooks('shell', '_count') + hooks('in-process', '_count'),
    // the CPU each shell hook run reported (its process tree's, from the hook-exec wrapper or the helper)
    shellHookCpu: hooks('shell', '_sum', 'hook_run_user_cpu_seconds') + hooks('shell', '_sum', 'hook_run_sys_cpu_seconds'),
  };
}

/** Shares of the wall time: hooks, Helm, and the rest (the engine's own), each 0..1. */
export function wallShares(wallSeconds: number, p: { shellHooks: number; inProcessHooks: number; helm: number }): { hooks: number; helm: number; engine: number } {
  const hooks = (p.shellHooks + p.inProcessHooks) / wallSeconds;
  const helm = p.helm / wallSeconds;
  return { hooks, helm, engine: 1 - hooks - helm };
}

/** Hook runs recorded on the status page (`/status.json`, the last 50 runs). */
interface StatusJson {
  queues: { name: string; length: number }[];
  hookRuns: { at: number; durationMs: number; binding: string; module?: string }[];
}

const getText = (url: string) => fetch(url).then((r) => (r.ok ? r.text() : Promise.reject(new Error(`GET ${url}: ${r.status}`))));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Creates `events` ConfigMaps spread over the fleet's modules (8 requests in flight), and waits until
 * the operator has handled every event and its queues are empty. Returns the time from the first
 * create to the end of the last run of the watching hooks, and those hooks' own run time.
 */
export async function objectEvents(fleet: Fleet, op: { httpUrl: string; kubeconfig: string }, events: number, timeoutMs: number) {
  const metrics = async () => parseSamples(await getText(`${op.httpUrl}/metrics`));
  const watching = (l: Record<string, string>) => l.binding === 'kubernetes' && l.activation === '';
  const eventsSeen = (s: Sample[]) => sumOf(s, `${P}kube_event_duration_seconds_count`);
  // the converge's own objects' events may still be queued: start from empty queues
  await queuesEmpty(Number(new URL(op.httpUrl).port), timeoutMs);
  const before = await metrics();
  const kc = new KubeConfig();
  kc.loadFromFile(op.kubeconfig);
  const ns = fleet.shape.namespace;
  const started = Date.now();
  let next = 0;
  const create = async () => {
    for (let i = next++; i < events; i = next++) {
      const module = fleet.names[i % fleet.names.length]!;
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${module}-event-${i}`, namespace: ns, labels: { 'fleet.example.com/module': module } }, data: { event: String(i) } };
      await requestJson(kc, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {}, body);
    }
  };
  await Promise.all(Array.from({ length: 8 }, create));
  const created = Date.now();
  closeConnections(kc);
  // cheap reads of /status.json until the queues are empty, then /metrics (a larger read) to see that
  // every event arrived; the end is the last watching run's end when the status page's ring of the last
  // 50 runs still holds it (scheduled runs may have pushed it out), else the first read that saw the
  // final count of runs
  const runsOf = (s: Sample[]) => sumOf(s, `${P}module_hook_run_seconds_count`, watching);
  let lastCount = runsOf(before);
  let countSince = started;
  for (;;) {
    const at = Date.now();
    const status = JSON.parse(await getText(`${op.httpUrl}/status.json`)) as StatusJson;
    if (status.queues.every((q) => q.length === 0)) {
      const now = await metrics();
      const handled = eventsSeen(now) - eventsSeen(before);
      if (runsOf(now) !== lastCount) [lastCount, countSince] = [runsOf(now), at];
      if (handled >= events) {
        const runs = status.hookRuns.filter((r) => (r.binding === WATCH_BINDING || r.binding === WATCH_GROUP) && r.at >= started);
        const end = runs.length ? Math.max(...runs.map((r) => r.at + r.durationMs)) : countSince;
        const seconds = sumOf(now, `${P}module_hook_run_seconds_sum`, watching) - sumOf(before, `${P}module_hook_run_seconds_sum`, watching);
        return { untilDoneMs: end - started, createMs: created - started, hookSeconds: seconds, hookRuns: runsOf(now) - runsOf(before), handled };
      }
      if (Date.now() - started > timeoutMs) throw new Error(`after ${timeoutMs} ms the operator had handled ${handled} of ${events} events`);
    } else if (Date.now() - started > timeoutMs) throw new Error(`the operator's queues were not empty ${timeoutMs} ms after the first event`);
    await sleep(100);
  }
}

/**
 * Modules `count` of the fleet's, spread over it: one in each of `count` equal parts, from its middle on
 * (wrapping within the part) the first whose kubernetes binding has a form not picked yet, so that the
 * disabled modules carry every form (watchForm); the middle when the part has no new form.
 */
export function spreadModules(fleet: Fleet, count: number): string[] {
  const n = fleet.names.length;
  const c = Math.min(count, n);
  const forms = new Set<WatchForm>();
  const picked: string[] = [];
  for (let k = 0; k < c; k++) {
    const [start, end, middle] = [Math.floor((k * n) / c), Math.floor(((k + 1) * n) / c), Math.floor(((k + 0.5) * n) / c)];
    let i = middle;
    for (let step = 0; step < end - start; step++) {
      const j = start + ((middle - start + step) % (end - start));
      if (!forms.has(watchForm(j))) {
        i = j;
        break;
      }
    }
    forms.add(watchForm(i));
    picked.push(fleet.names[i]!);
  }
  return picked;
}

/**
 * Disables `modules` in the operator's ConfigMap (`addon-operator` in the fleet's namespace, created
 * when absent) and waits until each has had its afterDeleteHelm run (after its release's uninstall) and
 * the queues are empty. Returns the time from the edit to the end of the last of those runs; throws
 * when an object or a release of those modules is left in the API server.
 */
export async function disableModules(fleet: Fleet, op: { httpUrl: string; kubeconfig: string }, modules: string[], timeoutMs: number) {
  const port = Number(new URL(op.httpUrl).port);
  await queuesEmpty(port, timeoutMs);
  const deleteRuns = (s: Sample[]) => sumOf(s, `${P}module_hook_run_seconds_count`, (l) => l.binding === 'afterDeleteHelm');
  const before = deleteRuns(parseSamples(await getText(`${op.httpUrl}/metrics`)));
  const kc = new KubeConfig();
  kc.loadFromFile(op.kubeconfig);
  const ns = fleet.shape.namespace;
  const data = Object.fromEntries(modules.map((m) => [`${moduleValuesKey(m)}Enabled`, 'false']));
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const started = Date.now();
  try {
    await requestJson(kc, 'PATCH', `${path}/addon-operator`, {}, { data }, 'application/merge-patch+json');
  } catch (e) {
    if (!isApiStatus(e, 404)) throw e;
    await requestJson(kc, 'POST', path, {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: ns }, data });
  }
  let end: number;
  for (;;) {
    const at = Date.now();
    const status = JSON.parse(await getText(`${op.httpUrl}/status.json`)) as StatusJson;
    if (status.queues.every((q) => q.length === 0) && deleteRuns(parseSamples(await getText(`${op.httpUrl}/metrics`))) - before >= modules.length) {
      const runs = status.hookRuns.filter((r) => r.binding === 'afterDeleteHelm' && r.at >= started);
      end = runs.length >= modules.length ? Math.max(...runs.map((r) => r.at + r.durationMs)) : at;
      break;
    }
    if (at - started > timeoutMs) throw new Error(`${timeoutMs} ms after disabling ${modules.join(', ')} their afterDeleteHelm runs were not all done`);
    await sleep(100);
  }
  try {
    for (const m of modules) {
      const left: string[] = [];
      for (const p of [path, `/api/v1/namespaces/${ns}/services`, `/apis/apps/v1/namespaces/${ns}/deployments`]) {
        const items = (await requestJson<{ items: { metadata: { name: string } }[] }>(kc, 'GET', p, { labelSelector: `fleet.example.com/module=${m}` })).items;
        // the bench's own event ConfigMaps carry the label too: only the chart's objects count
        left.push(...items.map((o) => o.metadata.name).filter((n) => !n.startsWith(`${m}-event-`)));
      }
      const releases = (await requestJson<{ items: unknown[] }>(kc, 'GET', `/api/v1/namespaces/${ns}/secrets`, { labelSelector: `owner=helm,name=${m}` })).items.length;
      if (left.length || releases) throw new Error(`module ${m} disabled, but ${left.length} of its objects (${left.slice(0, 3).join(', ')}) and ${releases} release Secrets are left`);
    }
  } finally {
    closeConnections(kc);
  }
  return { untilDeletedMs: end - started, modules };
}

/**
 * The watching hook's own run time: its script run directly (spawned from this process, a binding
 * context of one Added event prepared once), `samples` times one after the other; ms per run.
 */
async function directRunMs(fleet: Fleet, root: string, samples: number): Promise<number> {
  const module = fleet.names[0]!;
  const dir = readdirSync(fleet.modulesDir).find((d) => d.endsWith(`-${module}`))!;
  const hook = join(fleet.modulesDir, dir, 'hooks', 'watch-configmaps.sh');
  const pre = join(root, 'direct');
  mkdirSync(pre, { recursive: true });
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${module}-event-0`, namespace: fleet.shape.namespace, labels: { 'fleet.example.com/module': module } }, data: { event: '0' } };
  const context = [{ binding: 'own-configmaps', type: 'Event', watchEvent: 'Added', object, filterResult: { name: object.metadata.name, keys: ['event'] } }];
  const env = { BINDING_CONTEXT_PATH: join(pre, 'binding-context.json') };
  writeFileSync(env.BINDING_CONTEXT_PATH, JSON.stringify(context));
  for (let i = 0; i < 3; i++) await spawnOnce(hook, env); // warm-up
  const t = performance.now();
  for (let i = 0; i < samples; i++) await spawnOnce(hook, env);
  return (performance.now() - t) / samples;
}

const pct = (x: number) => Math.round(x * 1000) / 10;

/**
 * The least ratio the fleet's shape allows, every module run taking the same time and CPU to spare,
 * the start-up left out (it only adds to both): module i has order 10 + ⌊i/2⌋, so with `parallel` > 1
 * the all-critical converge runs one step per pair; with the second half functional, the first half's
 * pairs come first (Go's order: functional modules start once the critical ones are done), then the
 * functional modules take at least ⌈n/parallel⌉ steps, whatever their requirements.
 */
function functionalFloor(modules: number, parallel: number): { ratio: number; text: string } {
  const first = Math.floor(modules / 2);
  const steps = (n: number) => (parallel > 1 ? Math.ceil(n / 2) : n);
  const all = steps(modules);
  const critical = steps(first);
  const functional = Math.ceil((modules - first) / parallel);
  return { ratio: (critical + functional) / all, text: `${critical} steps of critical pairs + at least ${functional} of functional modules against ${all}` };
}

/**
 * Issue 34's target: the same fleet converged cold twice in one run, all critical and with its second
 * half functional (`depth` levels of requirements), both with --parallel-module-runs `parallel`.
 */
async function functionalConverges(modules: number, objects: number, parallel: number, depth: number, pairs: number, hookWaitMs: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-fleet-functional-'));
  try {
    let n = 0;
    const converge = async (functionalDepth: number, runs: number) => {
      const dir = join(root, `${n++}-depth-${functionalDepth}-parallel-${runs}`);
      mkdirSync(dir);
      const fleet = generateFleet(dir, { modules, objects, functionalDepth, hookWaitMs });
      return (await runFleet(fleet, dir, { parallel: runs })).convergeMs / 1000;
    };
    // today's default, then the same flags for both sets, alternately `pairs` times (the machine's load
    // moves a single converge by a third): the medians are compared
    const defaultRuns = await converge(0, 1);
    const criticals: number[] = [];
    const functionals: number[] = [];
    for (let i = 0; i < pairs; i++) {
      criticals.push(await converge(0, parallel));
      functionals.push(await converge(depth, parallel));
    }
    const critical = median(criticals);
    const functional = median(functionals);
    if (pairs > 1) console.log(`bench/fleet: ${pairs} pairs (all-critical, functional) in s: ${criticals.map((c, i) => `${c.toFixed(2)}/${functionals[i]!.toFixed(2)} (${(functionals[i]! / c).toFixed(2)})`).join(', ')}; medians compared`);
    const floor = functionalFloor(modules, parallel);
    console.log(
      `bench/fleet: ${modules} modules × ${objects} objects${hookWaitMs ? `, each beforeHelm hook waiting ${hookWaitMs} ms` : ''}: cold converge with every module critical ${defaultRuns.toFixed(2)} s (--parallel-module-runs 1), ${critical.toFixed(2)} s (${parallel}); ` +
        `with the second half functional, requirements ${depth} levels deep, ${functional.toFixed(2)} s (${parallel}): ratio ${(functional / critical).toFixed(2)} to the all-critical converge with the same flags (target ≤ 0.7), ` +
        `${(functional / defaultRuns).toFixed(2)} to the default; the shape's floor ${floor.ratio.toFixed(2)} (${floor.text})`,
    );
    emitFigures([
      { name: 'cold converge, every module critical, --parallel-module-runs 1 (wall)', value: defaultRuns, unit: 's' },
      { name: `cold converge, every module critical, --parallel-module-runs ${parallel} (wall)`, value: critical, unit: 's' },
      {
        name: `cold converge, half the modules functional, depth ${depth}, --parallel-module-runs ${parallel} (wall)`,
        value: functional,
        unit: 's',
        baseline: { what: `the all-critical converge of the same set with --parallel-module-runs ${parallel}`, value: critical, unit: 's' },
        target: { max: 0.7, of: 'ratio' },
        note: `${(functional / defaultRuns).toFixed(2)}× the all-critical converge with --parallel-module-runs 1; the shape's floor ${floor.ratio.toFixed(2)} (${floor.text})`,
      },
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const arg = (name: string, fallback: number): number => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const modules = arg('--modules', 100);
  const objects = arg('--objects', 30);
  const parallel = arg('--parallel', 1);
  const events = arg('--events', 1000);
  const disable = arg('--disable', 5);
  const functionalDepth = arg('--functional-depth', 0);
  if (functionalDepth > 0) return functionalConverges(modules, objects, parallel, functionalDepth, Math.max(1, arg('--pairs', 1)), arg('--hook-wait-ms', 0));
  const root = mkdtempSync(join(tmpdir(), 'bench-fleet-report-'));
  try {
    const fleet = generateFleet(root, { modules, objects });
    let phases: ReturnType<typeof phaseSeconds> | undefined;
    let ev: Awaited<ReturnType<typeof objectEvents>> | undefined;
    let off: Awaited<ReturnType<typeof disableModules>> | undefined;
    const r = await runFleet(fleet, root, {
      parallel,
      afterConverge: async (op) => {
        phases = phaseSeconds(parseSamples(await getText(`${op.httpUrl}/metrics`)), (l) => l.activation === 'OperatorStartup');
        if (events > 0) ev = await objectEvents(fleet, op, events, 900_000);
        if (disable > 0) off = await disableModules(fleet, op, spreadModules(fleet, disable), 900_000);
      },
    });
    const p = phases!;
    const directMs = ev ? await directRunMs(fleet, root, Math.min(100, Math.max(10, ev.hookRuns))) : 0;
    const full = modules >= 100;
    const wall = r.convergeMs / 1000;
    const webhooks = (kind: string) => fleet.names.filter((_, i) => webhookKind(i) === kind).length;
    console.log(
      `bench/fleet: ${modules} modules × ${objects} objects × 5 hooks (${fleet.hooks.shell} bash with jq, ${fleet.hooks.inProcess} in-process; ${fleet.hooks.global} global hooks; every binding kind). ` +
        `The ${webhooks('kubernetesValidating')} kubernetesValidating, ${webhooks('kubernetesMutating')} kubernetesMutating and ${webhooks('kubernetesCustomResourceConversion')} kubernetesCustomResourceConversion bindings are served (the sandbox calls the validating and mutating ones on the modules' ConfigMaps; the conversion ones name CRDs that do not exist)`,
    );
    console.log(
      `  --parallel-module-runs ${parallel}: converge ${wall.toFixed(2)} s; ` +
        `operator CPU ${(r.operatorCpuMs / modules).toFixed(1)} ms/module; hook processes' CPU ${(r.hooksCpuMs / 1000).toFixed(2)} s (spawner helper ${(r.helperCpuMs / 1000).toFixed(2)} s); ` +
        `sandbox CPU ${(r.sandboxCpuMs / 1000).toFixed(2)} s; peak RSS ${r.peakRssMiB.toFixed(0)} MiB; TLS handshakes ${r.handshakes} over ${r.sockets} sockets; ${r.objects} objects`,
    );
    console.log(
      `  inside hooks ${(p.shellHooks + p.inProcessHooks).toFixed(2)} s (${p.hookRuns} runs; shell ${p.shellHooks.toFixed(2)} s, in-process ${p.inProcessHooks.toFixed(2)} s); ` +
        `in Helm ${p.helm.toFixed(2)} s${parallel > 1 ? ' (summed over the parallel queues)' : ''}; the shell hook runs' CPU by the metrics ${p.shellHookCpu.toFixed(2)} s`,
    );
    const figures: Figure[] = [
      // the wall-time target is for the 100-module fleet; smaller runs are reported without it
      { name: 'cold converge (wall)', value: wall, unit: 's', ...(full ? { target: { max: parallel > 1 ? 10 : 15 } } : {}) },
      { name: 'operator CPU per module', value: r.operatorCpuMs / modules, unit: 'ms', target: { max: 40 } },
      { name: 'hook processes CPU', value: r.hooksCpuMs / 1000, unit: 's', note: 'the spawner helper\'s reaped children' },
    ];
    if (parallel === 1) {
      const s = wallShares(wall, p);
      const start = r.startMs / 1000;
      const inRuns = p.moduleRuns - (p.shellHooks + p.inProcessHooks - p.globalHooks + p.helm);
      console.log(
        `  shares of the wall time: hooks ${pct(s.hooks)} %, Helm ${pct(s.helm)} %, engine ${pct(s.engine)} % (target < 20 %): ` +
          `the start to 'modules discovered' ${start.toFixed(2)} s (Node, the operator's code, every hook loaded with the shell hooks' --config runs), ` +
          `ModuleRun tasks outside their hooks and Helm ${inRuns.toFixed(2)} s, the rest ${(wall - start - p.moduleRuns - p.globalHooks).toFixed(2)} s (global hook runs ${p.globalHooks.toFixed(2)} s apart)`,
      );
      figures.push(
        { name: 'cold converge: share inside hooks', value: pct(s.hooks), unit: '%', better: 'higher', note: `shell ${p.shellHooks.toFixed(1)} s, in-process ${p.inProcessHooks.toFixed(1)} s` },
        { name: 'cold converge: share in Helm rendering and applying', value: pct(s.helm), unit: '%', better: 'higher' },
        { name: 'cold converge: engine share', value: pct(s.engine), unit: '%', target: { max: 20 }, note: `of which the start and the hooks' loading (--config runs) ${start.toFixed(1)} s, ModuleRun tasks outside hooks and Helm ${inRuns.toFixed(1)} s` },
      );
    }
    if (ev) {
      const own = (ev.hookRuns * directMs) / 1000;
      console.log(
        `  ${events} object events over ${modules} kubernetes bindings (created in ${(ev.createMs / 1000).toFixed(2)} s): every hook run done ${(ev.untilDoneMs / 1000).toFixed(2)} s after the first create; ` +
          `${ev.hookRuns} runs (${ev.handled} events), timed by the operator ${ev.hookSeconds.toFixed(2)} s; the hook run directly ${directMs.toFixed(1)} ms, × ${ev.hookRuns} = ${own.toFixed(2)} s; ` +
          `ratio ${(ev.untilDoneMs / 1000 / own).toFixed(2)} (target ≤ 1.25: engine share < 20 %)`,
      );
      figures.push({
        name: `${events} object events: until every hook has run`,
        value: ev.untilDoneMs / 1000,
        unit: 's',
        baseline: { what: `the hook run directly × ${ev.hookRuns} runs`, value: own, unit: 's' },
        // the engine's share under 20 % of the time, as for the converge
        target: { max: 1.25, of: 'ratio' },
        note: `${modules} bindings; the runs as the operator times them: ${ev.hookSeconds.toFixed(1)} s`,
      });
    }
    if (off) {
      console.log(
        `  ${off.modules.length} module${off.modules.length === 1 ? '' : 's'} disabled (${off.modules.join(', ')}): releases uninstalled and afterDeleteHelm run ${(off.untilDeletedMs / 1000).toFixed(2)} s after the ConfigMap edit`,
      );
      figures.push({
        name: `${off.modules.length} module${off.modules.length === 1 ? '' : 's'} disabled: until deleted`,
        value: off.untilDeletedMs / 1000,
        unit: 's',
        note: 'from the ConfigMap edit to the last afterDeleteHelm run, each after its release uninstalled; a converge with beforeAll and afterAll',
      });
    }
    figures.push(
      { name: 'operator peak RSS', value: r.peakRssMiB, unit: 'MiB', target: { max: 150 } },
      { name: 'TLS handshakes per socket', value: r.handshakes / r.sockets, unit: '', target: { max: 1 } },
    );
    emitFigures(figures);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
