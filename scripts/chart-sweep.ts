// Renders every chart under the given directories as `helm template` would: with its default values
// and with each of its ci/*.yaml values files, in parallel on the machine's cores. Prints one line per
// render and a total; exits 1 when a render fails. Run it through scripts/chart-sweep.sh (docs/helm.md).
//
// A render passes when it succeeds and every document is YAML with apiVersion and kind, or when Helm
// itself would fail and ours fails with Helm's message: a dependency declared in Chart.yaml but absent
// from charts/ (Helm's dependency check), or the chart's own `fail`/`required`.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { checkInstallable, loadChart, parseChartMetadata, renderChart } from '../src/helm/index.js';
import { semverCompare } from '../src/gotemplate/funcs/semver.js';
import { parseYaml } from '../src/util/yaml.js';
import { isPlainObject, type JsonObject } from '../src/util/json.js';

const USAGE = `usage: scripts/chart-sweep.sh [-j N] [--dependency-build] [--release NAME] [--namespace NS] DIR...

Renders each chart found under each DIR with its default values and with each ci/*.yaml file.
  -j N                 renders at a time (default: the number of cores)
  --dependency-build   as 'helm dependency build' would: a dependency missing from charts/ is taken
                       from a file:// path or from a chart of the same name under the same DIR whose
                       version matches the pin (never from the network)
  --release NAME       release name (default: release-name, as helm template)
  --namespace NS       namespace (default: default)`;

interface Job {
  chart: string;
  /** what the line shows for the chart */
  label: string;
  /** null: default values */
  valuesFile: string | null;
  release: string;
  namespace: string;
}

interface Outcome {
  ok: boolean;
  /** 'rendered' | 'helm-fails': how a pass passed */
  how?: string;
  detail: string;
}

/** One render, judged by the sweep's rules. */
export function sweepOne(job: Job): Outcome {
  let values: JsonObject = {};
  try {
    if (job.valuesFile) {
      const v = parseYaml(readFileSync(job.valuesFile, 'utf8'), job.valuesFile);
      if (v !== null && v !== undefined && !isPlainObject(v)) throw new Error(`${job.valuesFile}: a values file must be a map`);
      values = (v ?? {}) as JsonObject;
    }
    const chart = loadChart(job.chart);
    checkInstallable(chart);
    const r = renderChart(chart, values, { releaseName: job.release, namespace: job.namespace });
    const docs = [...r.manifests.map((m) => [m.name, m.content]), ...r.hooks.map((h) => [h.path, h.manifest])];
    for (const [name, content] of docs) {
      let doc: unknown;
      try {
        doc = parseYaml(content!, name!);
      } catch (e) {
        return { ok: false, detail: `${name}: not YAML: ${firstLine((e as Error).message)}` };
      }
      // a document of comments only is no object (Helm prints it; kubectl and Helm's install skip it)
      if (doc === null || doc === undefined) continue;
      if (!isPlainObject(doc)) return { ok: false, detail: `${name}: a document that is not a map` };
      if (typeof doc.apiVersion !== 'string' || !doc.apiVersion) return { ok: false, detail: `${name}: a document without apiVersion` };
      if (typeof doc.kind !== 'string' || !doc.kind) return { ok: false, detail: `${name}: a document without kind` };
    }
    return { ok: true, how: 'rendered', detail: '' };
  } catch (e) {
    const msg = (e as Error).message ?? String(e);
    if (helmFailsToo(msg)) return { ok: true, how: 'helm-fails', detail: firstLine(msg) };
    return { ok: false, detail: firstLine(msg) };
  }
}

/** Errors Helm gives too, in Helm's words: its dependency check, a chart's own fail/required. */
function helmFailsToo(msg: string): boolean {
  return (
    msg.startsWith('An error occurred while checking for chart dependencies.') ||
    /^\S+ charts are not installable$/.test(msg) ||
    // the chart's own fail/required, wherever it is called from (include, tpl)
    /^execution error at \([^)]*\): /.test(msg)
  );
}

/** An error in one line: Helm's multi-line traces (location, `executing ... at <node>:`, message) joined. */
function firstLine(s: string): string {
  const line = s
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l)
    .join(' ');
  return line.length > 400 ? `${line.slice(0, 200)} ... ${line.slice(-200)}` : line;
}

/** Directories holding a Chart.yaml under `dir` (not looking inside a chart). */
function findCharts(dir: string, out: string[] = []): string[] {
  if (existsSync(join(dir, 'Chart.yaml'))) {
    out.push(dir);
    return out;
  }
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) findCharts(p, out);
  }
  return out;
}

interface Known {
  dir: string;
  name: string;
  version: string;
}

/**
 * `helm dependency build` without a network: a copy of the chart (in `work`) whose missing
 * dependencies are copied into charts/ from a file:// path or from a chart of `known` with the same
 * name and a version that satisfies the pin. Returns the chart itself when nothing is missing or found.
 */
function withDependencies(chartDir: string, known: Known[], work: string): { dir: string; copied: string[] } {
  const meta = parseChartMetadata(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8'), join(chartDir, 'Chart.yaml'));
  const present = new Set<string>();
  try {
    for (const d of loadChart(chartDir).dependencies) present.add(d.metadata.name);
  } catch {
    return { dir: chartDir, copied: [] };
  }
  const copies: [string, string][] = [];
  for (const dep of meta.dependencies ?? []) {
    if (present.has(dep.name) || copies.some(([n]) => n === dep.name)) continue;
    let from: string | undefined;
    if (dep.repository?.startsWith('file://')) {
      const p = resolve(chartDir, dep.repository.slice('file://'.length));
      if (existsSync(join(p, 'Chart.yaml'))) from = p;
    } else {
      from = known.find((k) => k.name === dep.name && versionMatches(dep.version, k.version))?.dir;
    }
    if (from) copies.push([dep.name, from]);
  }
  if (copies.length === 0) return { dir: chartDir, copied: [] };
  const dir = join(mkdtempSync(join(work, 'chart-')), basename(chartDir));
  cpSync(chartDir, dir, { recursive: true });
  for (const [name, from] of copies) cpSync(from, join(dir, 'charts', name), { recursive: true });
  return { dir, copied: copies.map(([n]) => n) };
}

function versionMatches(constraint: string | undefined, version: string): boolean {
  if (!constraint) return true;
  try {
    return semverCompare(constraint, version);
  } catch {
    return false;
  }
}

function parseArgs(argv: string[]) {
  const opts = { jobs: availableParallelism(), dependencyBuild: false, release: 'release-name', namespace: 'default', dirs: [] as string[] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '-j' || a === '--jobs') {
      opts.jobs = Number(value());
      if (!Number.isInteger(opts.jobs) || opts.jobs < 1) throw new Error(`${a}: a positive integer, not ${argv[i]}`);
    } else if (a === '--dependency-build') opts.dependencyBuild = true;
    else if (a === '--release') opts.release = value();
    else if (a === '--namespace') opts.namespace = value();
    else if (a === '-h' || a === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else opts.dirs.push(a);
  }
  if (opts.dirs.length === 0) throw new Error('no directory given');
  for (const d of opts.dirs) if (!existsSync(d) || !statSync(d).isDirectory()) throw new Error(`${d}: not a directory`);
  return opts;
}

async function main(): Promise<void> {
  let opts: ReturnType<typeof parseArgs>;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`chart-sweep: ${(e as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const work = mkdtempSync(join(tmpdir(), 'chart-sweep-'));
  const jobs: Job[] = [];
  const notes: string[] = [];
  try {
    for (const root of opts.dirs) {
      const charts = findCharts(resolve(root));
      const known: Known[] = [];
      for (const dir of charts) {
        try {
          const m = parseChartMetadata(readFileSync(join(dir, 'Chart.yaml'), 'utf8'), join(dir, 'Chart.yaml'));
          known.push({ dir, name: m.name, version: m.version });
        } catch {
          // reported by its render
        }
      }
      for (const dir of charts) {
        const label = relative(process.cwd(), dir) || dir;
        let renderDir = dir;
        if (opts.dependencyBuild) {
          const r = withDependencies(dir, known, work);
          renderDir = r.dir;
          if (r.copied.length) notes.push(`${label}: charts/ given ${r.copied.join(', ')} from the same directory`);
        }
        const base = { chart: renderDir, label, release: opts.release, namespace: opts.namespace };
        jobs.push({ ...base, valuesFile: null });
        const ci = join(dir, 'ci');
        if (existsSync(ci) && statSync(ci).isDirectory()) {
          for (const f of readdirSync(ci).sort()) {
            if (/\.ya?ml$/.test(f)) jobs.push({ ...base, valuesFile: join(ci, f) });
          }
        }
      }
    }
    for (const n of notes) console.log(`# ${n}`);
    const outcomes = await runAll(jobs, Math.min(opts.jobs, Math.max(1, jobs.length)));
    let passed = 0;
    for (let i = 0; i < jobs.length; i++) {
      const j = jobs[i]!;
      const o = outcomes[i]!;
      const what = `${j.label} [${j.valuesFile ? `ci/${basename(j.valuesFile)}` : 'default values'}]`;
      if (o.ok) passed++;
      console.log(o.ok ? `ok    ${what}${o.how === 'helm-fails' ? `: fails as Helm does: ${o.detail}` : ''}` : `FAIL  ${what}: ${o.detail}`);
    }
    console.log(`${passed} passed, ${jobs.length - passed} failed`);
    process.exitCode = passed === jobs.length ? 0 : 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Runs the jobs on `n` worker threads; results in job order. A worker that dies fails its job only. */
function runAll(jobs: Job[], n: number): Promise<Outcome[]> {
  return new Promise((resolveAll) => {
    const results: Outcome[] = new Array(jobs.length);
    let next = 0;
    let done = 0;
    if (jobs.length === 0) return resolveAll(results);
    const finish = (i: number, o: Outcome) => {
      results[i] = o;
      if (++done === jobs.length) resolveAll(results);
    };
    const start = () => {
      if (next >= jobs.length) return;
      const worker = new Worker(new URL('./chart-sweep-worker.mjs', import.meta.url), { workerData: { worker: true } });
      let current = -1;
      const feed = () => {
        if (next >= jobs.length) {
          void worker.terminate();
          return;
        }
        current = next++;
        worker.postMessage(jobs[current]);
      };
      worker.on('message', (o: Outcome) => {
        finish(current, o);
        feed();
      });
      worker.on('error', (e) => {
        if (current >= 0 && results[current] === undefined) finish(current, { ok: false, detail: `the render crashed: ${firstLine(e.message)}` });
        start();
      });
      feed();
    };
    for (let w = 0; w < n; w++) start();
  });
}

if (isMainThread) {
  await main();
} else if ((workerData as { worker?: boolean })?.worker) {
  parentPort!.on('message', (job: Job) => parentPort!.postMessage(sweepOne(job)));
}
