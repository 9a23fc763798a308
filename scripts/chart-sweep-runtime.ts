// The run-time chart sweep (`scripts/chart-sweep.sh --runtime`, docs/helm.md "Run-time chart sweep"):
// every chart under the given directories wrapped as a module, as users wrap a public chart (a module
// chart whose one dependency is the chart, aliased to the module's values key, fullnameOverride set),
// and converged by `addon-operator start --sandbox` with the simulated controllers. Per chart: the
// release is deployed and every object the module's render prints (hooks aside) exists; an operator
// restart's converge writes nothing (no new revision, no object changed but by its status); a values
// change through the ConfigMap upgrades it; disabling it uninstalls every object and record. One line
// per chart and a total; exit status 1 when a chart fails.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkInstallable, loadChart, parseChartMetadata, splitManifests } from '../src/helm/index.js';
import { loadKubeConfig } from '../src/kube/load-kubeconfig.js';
import { isApiStatus, requestJson } from '../src/kube/http.js';
import { RestMapper } from '../src/kube/mapper.js';
import type { KubeConfig } from '../src/kube/kube-config.js';
import { debugRequest } from '../src/cli/debug.js';
import { moduleValuesKey } from '../src/modules/names.js';
import { parseGoDuration } from '../src/util/duration.js';
import { parseYaml } from '../src/util/yaml.js';
import { isPlainObject, type JsonObject } from '../src/util/json.js';
import { findCharts, firstLine, helmFailsToo, isDirectory, knownCharts, sweepArgs, withDependencies } from './chart-sweep-charts.js';

const USAGE = `usage: scripts/chart-sweep.sh --runtime [-j N] [--dependency-build] [--dependencies-from DIR] [--timeout DURATION]
                                [--pod-start DURATION] [--keep] DIR...

Converges each chart found under each DIR as a module on 'addon-operator start --sandbox' and checks
its install, a no-change converge, an upgrade and its uninstall.
  -j N                 charts at a time (default 1: each runs an operator and its sandbox)
  --dependency-build   as the static sweep: a dependency missing from charts/ is taken from a
                       file:// path or a chart of the same name and a matching version under DIR
  --dependencies-from DIR  with --dependency-build: charts under DIR may be taken too (not swept
                       themselves; repeatable), e.g. a chart that moved to another repository
  --timeout DURATION   how long each step may take (default 5m)
  --pod-start DURATION the simulated kubelet's Pod start time (--sandbox-pod-start, default 0.5s)
  --keep               keep each chart's work directory (module tree, operator logs)`;

const NAMESPACE = 'addons';
const CONFIGMAP = `/api/v1/namespaces/${NAMESPACE}/configmaps/addon-operator`;
const MAIN = join(import.meta.dirname, '../src/cli/main.ts');
const TSX = pathToFileURL(join(import.meta.dirname, '../node_modules/tsx/dist/loader.mjs')).href;
const KEEP_POLICY = 'helm.sh/resource-policy';

interface RuntimeOptions {
  stepMs: number;
  podStart: string;
  work: string;
}

interface ChartResult {
  /** passed, expected (Helm refuses the chart too), failed */
  result: 'passed' | 'expected' | 'failed';
  detail: string;
  seconds: number;
}

/** A chart failing a step: the step and what was seen. */
class StepFailure extends Error {}

/** A module name from a chart name: lower case, other characters as '-'. */
function moduleNameOf(chart: string): string {
  return chart.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'chart';
}

/** The module tree of `chartDir` in `root`: modules/001-NAME (the wrapper chart, the chart in its charts/), global-hooks/, tmp/. */
function wrapAsModule(chartDir: string, root: string): { module: string; valuesKey: string } {
  const meta = parseChartMetadata(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8'), join(chartDir, 'Chart.yaml'));
  const module = moduleNameOf(meta.name);
  const valuesKey = moduleValuesKey(module);
  const dir = join(root, 'modules', `001-${module}`);
  mkdirSync(join(root, 'global-hooks'), { recursive: true });
  mkdirSync(join(root, 'tmp'), { recursive: true });
  mkdirSync(join(dir, 'charts'), { recursive: true });
  writeFileSync(
    join(dir, 'Chart.yaml'),
    `apiVersion: v2\nname: ${module}\nversion: 0.1.0\ndependencies:\n  - name: ${meta.name}\n    version: ${JSON.stringify(meta.version)}\n    alias: ${valuesKey}\n`,
  );
  writeFileSync(join(dir, 'values.yaml'), `${valuesKey}:\n  fullnameOverride: ${module}\n`);
  writeFileSync(join(root, 'modules', 'values.yaml'), `${valuesKey}Enabled: true\n`);
  cpSync(chartDir, join(dir, 'charts', meta.name), { recursive: true });
  return { module, valuesKey };
}

/** `addon-operator start --sandbox` over `root`, the sandbox's state kept in root/sandbox-data across starts. */
function startOperator(root: string, o: RuntimeOptions, phase: string) {
  const args = [
    '--import', TSX, MAIN, 'start', '--sandbox',
    '--sandbox-data-dir', join(root, 'sandbox-data'),
    '--sandbox-kubeconfig', join(root, 'kubeconfig'),
    '--sandbox-pod-start', o.podStart,
    '--modules-dir', join(root, 'modules'),
    '--global-hooks-dir', join(root, 'global-hooks'),
    '--tmp-dir', join(root, 'tmp'),
    '--namespace', NAMESPACE,
    '--log-type', 'json',
    '--listen-port', '0',
    '--debug-unix-socket', join(root, 'debug.socket'),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (out += c));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
    writeFileSync(join(root, `operator-${phase}.log`), out);
  };
  return { output: () => out, exited, stop, child };
}

type Operator = ReturnType<typeof startOperator>;

/** The JSON log records of the operator so far. */
function records(out: string): Array<Record<string, unknown>> {
  const list: Array<Record<string, unknown>> = [];
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      list.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut by the pipe's buffering: read again on the next poll
    }
  }
  return list;
}

/** Whether a log record is a failed task of `module` (a ModuleRun's line names the module, a ModuleDelete's task does). */
const failedTaskOf = (r: Record<string, unknown>, module: string): boolean =>
  typeof r.error === 'string' && (r.module === module || String(r.task ?? '').startsWith(`ModuleDelete:main:${module}:`));

/** Polls `cond` every 200 ms until it gives a value; a module error, the operator's exit or the step's time fails the step. */
async function until<T>(op: Operator, module: string, what: string, ms: number, cond: () => Promise<T | undefined> | T | undefined, since = 0): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v !== undefined) return v;
    const error = records(op.output()).slice(since).find((x) => failedTaskOf(x, module));
    if (error) throw new StepFailure(`${what}: the module failed: ${String(error.error)}`);
    if (op.child.exitCode !== null) throw new StepFailure(`${what}: the operator exited (${op.child.exitCode}): ${firstLine(op.output().slice(-600))}`);
    if (Date.now() > end) throw new StepFailure(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const converged = (op: Operator) => (op.output().includes('startup converge done') ? true : undefined);

/** The first converge's time as the operator logs it (`converge #1 done in 23.2s: ...`). */
const firstConverge = (op: Operator): string => /"msg":"converge #1 done in (\S+?):/.exec(op.output())?.[1] ?? '?';

interface RenderedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  keep: boolean;
}

/** The objects `module render` prints (hooks are not in it; a document of comments only is no object). */
async function renderedObjects(root: string, module: string): Promise<RenderedObject[]> {
  const r = await debugRequest(join(root, 'debug.socket'), 'GET', `/module/${module}/render`);
  if (r.status !== 200) throw new StepFailure(`render: ${firstLine(r.body)}`);
  const out: RenderedObject[] = [];
  for (const doc of splitManifests(r.body)) {
    const o = parseYaml(doc, 'render') as unknown;
    if (!isPlainObject(o)) continue;
    const meta = (o.metadata ?? {}) as JsonObject;
    const annotations = (meta.annotations ?? {}) as Record<string, string>;
    if (annotations['helm.sh/hook']) continue;
    out.push({
      apiVersion: String(o.apiVersion),
      kind: String(o.kind),
      name: String(meta.name),
      ...(typeof meta.namespace === 'string' ? { namespace: meta.namespace } : {}),
      keep: annotations[KEEP_POLICY] === 'keep',
    });
  }
  return out;
}

async function getOrUndefined(kc: KubeConfig, path: string): Promise<JsonObject | undefined> {
  try {
    return await requestJson<JsonObject>(kc, 'GET', path);
  } catch (e) {
    if (isApiStatus(e, 404)) return undefined;
    throw e;
  }
}

/** Each rendered object as it is in the cluster (undefined when absent), keyed `Kind ns/name`. */
async function liveObjects(kc: KubeConfig, mapper: RestMapper, objects: RenderedObject[]): Promise<Map<string, JsonObject | undefined>> {
  const live = new Map<string, JsonObject | undefined>();
  for (const o of objects) {
    const info = await mapper.resolve(o.apiVersion, o.kind);
    const ns = info.namespaced ? (o.namespace ?? NAMESPACE) : undefined;
    live.set(`${o.kind} ${ns ? `${ns}/` : ''}${o.name}`, await getOrUndefined(kc, mapper.objectPath(info, ns, o.name)));
  }
  return live;
}

/** The release's storage Secrets: `VERSION:STATUS` in version order (`withVersions`: `VERSION:STATUS@resourceVersion`). */
async function revisions(kc: KubeConfig, module: string, withVersions = false): Promise<string[]> {
  const list = await requestJson<{ items: Array<{ metadata: { labels?: Record<string, string>; resourceVersion?: string } }> }>(kc, 'GET', `/api/v1/namespaces/${NAMESPACE}/secrets`, { labelSelector: `owner=helm,name=${module}` });
  return list.items
    .map((s) => ({ l: s.metadata.labels ?? {}, rv: s.metadata.resourceVersion }))
    .sort((a, b) => Number(a.l.version) - Number(b.l.version))
    .map(({ l, rv }) => `${l.version}:${l.status}${withVersions ? `@${rv}` : ''}`);
}

/** An object without what controllers write (status, their managedFields entries) and its resourceVersion. */
function withoutStatus(o: JsonObject): string {
  const { status: _status, ...rest } = o;
  const meta = { ...(rest.metadata as JsonObject) };
  delete meta.resourceVersion;
  const fields = Array.isArray(meta.managedFields) ? (meta.managedFields as JsonObject[]) : [];
  meta.managedFields = fields.filter((f) => f.subresource !== 'status');
  return JSON.stringify({ ...rest, metadata: meta });
}

function kubeClient(root: string): { kc: KubeConfig; mapper: RestMapper } {
  const { kc } = loadKubeConfig({ file: join(root, 'kubeconfig') });
  return { kc, mapper: new RestMapper(kc) };
}

/** Writes `data` into the operator's ConfigMap (created when absent). */
async function setConfig(kc: KubeConfig, data: Record<string, string>): Promise<void> {
  if (await getOrUndefined(kc, CONFIGMAP)) await requestJson(kc, 'PATCH', CONFIGMAP, {}, { data }, 'application/merge-patch+json');
  else await requestJson(kc, 'POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator' }, data });
}

/** The steps of one chart (already wrapped in `root`). */
async function convergeSteps(root: string, module: string, valuesKey: string, o: RuntimeOptions): Promise<string> {
  // install: the first converge deploys the release with every rendered object
  let op = startOperator(root, o, 'install');
  let objects: RenderedObject[];
  let before: Map<string, JsonObject | undefined>;
  let history: string[];
  let took: string;
  try {
    await until(op, module, 'install', o.stepMs, () => converged(op));
    took = firstConverge(op);
    const { kc, mapper } = kubeClient(root);
    history = await revisions(kc, module, true);
    if (!history.at(-1)?.startsWith('1:deployed@')) throw new StepFailure(`install: release revisions ${history.join(', ') || 'none'}, not 1:deployed`);
    objects = await renderedObjects(root, module);
    before = await liveObjects(kc, mapper, objects);
    const absent = [...before].filter(([, v]) => !v).map(([k]) => k);
    if (absent.length) throw new StepFailure(`install: rendered but absent: ${absent.join(', ')}`);
  } finally {
    await op.stop();
  }

  // a restart: its converge writes nothing (no revision, no object changed but by controllers' status)
  op = startOperator(root, o, 'converge');
  try {
    await until(op, module, 'no-change converge', o.stepMs, () => converged(op));
    const { kc, mapper } = kubeClient(root);
    const again = await revisions(kc, module, true);
    if (again.join() !== history.join()) throw new StepFailure(`no-change converge: release records ${history.join(', ')} became ${again.join(', ')}`);
    const after = await liveObjects(kc, mapper, objects);
    const changed = [...after].filter(([k, v]) => !v || withoutStatus(v) !== withoutStatus(before.get(k)!)).map(([k]) => k);
    if (changed.length) throw new StepFailure(`no-change converge: written: ${changed.join(', ')}`);

    // a values change through the ConfigMap: one upgrade, the objects there
    const since = records(op.output()).length;
    await setConfig(kc, { [valuesKey]: 'chartSweepChange: "1"\n' });
    await until(op, module, 'upgrade', o.stepMs, async () => ((await revisions(kc, module)).at(-1) === '2:deployed' ? true : undefined), since);
    objects = await renderedObjects(root, module);
    const upgraded = await liveObjects(kc, mapper, objects);
    const absent = [...upgraded].filter(([, v]) => !v).map(([k]) => k);
    if (absent.length) throw new StepFailure(`upgrade: rendered but absent: ${absent.join(', ')}`);

    // disabled: the release and every object go (but those Helm keeps)
    const disabledAt = records(op.output()).length;
    await setConfig(kc, { [`${valuesKey}Enabled`]: 'false' });
    await until(op, module, 'uninstall', o.stepMs, async () => ((await revisions(kc, module)).length === 0 ? true : undefined), disabledAt);
    const gone = objects.filter((x) => !x.keep);
    await until(op, module, 'uninstall', o.stepMs, async () => {
      const left = [...(await liveObjects(kc, mapper, gone))].filter(([, v]) => v && !(v.metadata as JsonObject).deletionTimestamp);
      return left.length === 0 ? true : undefined;
    }, disabledAt).catch(async (e: unknown) => {
      const left = [...(await liveObjects(kc, mapper, gone))].filter(([, v]) => v).map(([k]) => k);
      throw e instanceof StepFailure ? new StepFailure(`${e.message}; left: ${left.join(', ')}`) : e;
    });
    return `${objects.length} objects, installed by a converge of ${took}; upgraded, unchanged on restart, uninstalled`;
  } finally {
    await op.stop();
  }
}

/** One chart through the sweep; `buildDir` is the chart with the dependencies the sweep gave it. */
async function sweepChart(buildDir: string, o: RuntimeOptions, index: number): Promise<ChartResult> {
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 100) / 10;
  try {
    checkInstallable(loadChart(buildDir));
  } catch (e) {
    const msg = (e as Error).message;
    return { result: helmFailsToo(msg) ? 'expected' : 'failed', detail: firstLine(msg), seconds: seconds() };
  }
  const root = join(o.work, String(index).padStart(3, '0'));
  const { module, valuesKey } = wrapAsModule(buildDir, root);
  try {
    return { result: 'passed', detail: await convergeSteps(root, module, valuesKey, o), seconds: seconds() };
  } catch (e) {
    const msg = e instanceof StepFailure ? e.message : `the sweep: ${(e as Error).message}`;
    // the chart's own fail/required: Helm fails the same way
    const expected = /the module failed: .*execution error at \(/.test(msg.split('\n')[0]!) && msg.startsWith('install:');
    return { result: expected ? 'expected' : 'failed', detail: firstLine(msg), seconds: seconds() };
  }
}

function durationMs(flag: string, text: string): number {
  try {
    return parseGoDuration(text);
  } catch (e) {
    throw new Error(`${flag}: ${(e as Error).message}`, { cause: e });
  }
}

async function main(): Promise<void> {
  const more = { dependenciesFrom: [] as string[], stepMs: 300_000, podStart: '0.5s', keep: false };
  const opts = sweepArgs(USAGE, 1, (flag, value) => {
    if (flag === '--runtime') return true;
    if (flag === '--dependencies-from') more.dependenciesFrom.push(isDirectory(value()));
    else if (flag === '--timeout') more.stepMs = durationMs(flag, value());
    else if (flag === '--pod-start') more.podStart = value();
    else if (flag === '--keep') more.keep = true;
    else return false;
    return true;
  });
  const work = mkdtempSync(join(tmpdir(), 'chart-sweep-runtime-'));
  const o: RuntimeOptions = { stepMs: more.stepMs, podStart: more.podStart, work };
  const charts: Array<{ label: string; dir: string; build: string; version: string }> = [];
  const extra = knownCharts(more.dependenciesFrom.flatMap((d) => findCharts(resolve(d))));
  for (const root of opts.dirs) {
    const found = findCharts(resolve(root));
    const known = [...knownCharts(found), ...extra];
    for (const dir of found) {
      const label = relative(process.cwd(), dir) || dir;
      let build = dir;
      if (opts.dependencyBuild) {
        const r = withDependencies(dir, known, work);
        build = r.dir;
        if (r.copied.length) console.log(`# ${label}: charts/ given ${r.copied.join(', ')} from the same directory`);
      }
      charts.push({ label, dir, build, version: known.find((k) => k.dir === dir)?.version ?? '?' });
    }
  }
  const counts = { passed: 0, expected: 0, failed: 0 };
  let next = 0;
  const worker = async () => {
    while (next < charts.length) {
      const i = next++;
      const c = charts[i]!;
      const r = await sweepChart(c.build, o, i);
      counts[r.result]++;
      const what = `${c.label} ${c.version}`;
      if (r.result === 'passed') console.log(`ok    ${what}: ${r.detail} (${r.seconds} s)`);
      else if (r.result === 'expected') console.log(`ok    ${what}: fails as Helm does: ${r.detail}`);
      else console.log(`FAIL  ${what}: ${r.detail} (${r.seconds} s)`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(opts.jobs, Math.max(1, charts.length)) }, worker));
    console.log(`${counts.passed} passed, ${counts.expected} fail as Helm does, ${counts.failed} failed`);
    process.exitCode = counts.failed ? 1 : 0;
  } finally {
    if (more.keep) console.log(`# work directories kept in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

await main();
