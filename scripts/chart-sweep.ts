// Renders every chart under the given directories as `helm template` would: with its default values
// and with each of its ci/*.yaml values files, in parallel on the machine's cores. Prints one line per
// render and a total; exits 1 when a render fails. Run it through scripts/chart-sweep.sh (docs/helm.md).
//
// A render passes when it succeeds and every document is YAML with apiVersion and kind, or when Helm
// itself would fail and ours fails with Helm's message: a dependency declared in Chart.yaml but absent
// from charts/ (Helm's dependency check), or the chart's own `fail`/`required`.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { checkInstallable, loadChart, renderChart } from '../src/helm/index.js';
import { parseYaml } from '../src/util/yaml.js';
import { isPlainObject, type JsonObject } from '../src/util/json.js';
import { findCharts, firstLine, helmFailsToo, knownCharts, sweepArgs, withDependencies } from './chart-sweep-charts.js';

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

async function main(): Promise<void> {
  const settings = { release: 'release-name', namespace: 'default' };
  const opts = sweepArgs(USAGE, availableParallelism(), (flag, value) => {
    if (flag === '--release') settings.release = value();
    else if (flag === '--namespace') settings.namespace = value();
    else return false;
    return true;
  });
  const work = mkdtempSync(join(tmpdir(), 'chart-sweep-'));
  const jobs: Job[] = [];
  const notes: string[] = [];
  try {
    for (const root of opts.dirs) {
      const charts = findCharts(resolve(root));
      const known = knownCharts(charts);
      for (const dir of charts) {
        const label = relative(process.cwd(), dir) || dir;
        let renderDir = dir;
        if (opts.dependencyBuild) {
          const r = withDependencies(dir, known, work);
          renderDir = r.dir;
          if (r.copied.length) notes.push(`${label}: charts/ given ${r.copied.join(', ')} from the same directory`);
        }
        const base = { chart: renderDir, label, release: settings.release, namespace: settings.namespace };
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
