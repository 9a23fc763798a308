// Release engine benchmark (issue 12): a module of 60 objects against the in-process sandbox.
// Run: node --import tsx bench/helm.ts [--objects 60] [--rounds 5] [--noop 100]
//
// - install: `upgradeInstall` of a fresh release, as a ratio to the same server-side applies made
//   directly (the same rendered objects, the same kind order and concurrency, a fresh namespace),
//   median of the rounds, both measured in the same run (target ≤ 1.5×);
// - no-change runs: write requests in the sandbox's request log over `--noop` runs (target 0), and
//   the median time of one;
// - drift: a managed field edited with another field manager, time until the resources monitor has
//   applied it back (median of the rounds);
// - absent: an object deleted, time until the engine has it back (the monitor's event → a run);
// - fleet no-change: the charts of bench/fleet (`--fleet` modules, 30 objects each) installed, then one
//   run of each with nothing changed: write requests, and those to release records (target 0 and 0);
// - start drift check (issue 33): a new engine over the fleet (an operator restart): its no-change
//   runs until every object is listed by the monitor and checked against its manifest (target < 3 s,
//   0 writes); health upkeep: a Deployment's status written until its release's health has it (p99 <
//   50 ms), an EndpointSlice's first ready endpoint until its Service's health has it (p99 < 50 ms),
//   and the CPU of the statuses and module healths of the fleet's watch events.
import { performance } from 'node:perf_hooks';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox } from '../src/sandbox/index.js';
import { isApiStatus, requestJson } from '../src/kube/http.js';
import { RestMapper } from '../src/kube/mapper.js';
import { HelmReleases } from '../src/helm/release-engine.js';
import { loadChart } from '../src/helm/chart.js';
import { renderChart } from '../src/helm/render.js';
import { defaultCapabilities } from '../src/helm/capabilities.js';
import { ClusterObjects, manifestObjects, type PlacedObject } from '../src/helm/objects.js';
import { readFileSync, readdirSync } from 'node:fs';
import { parseYaml } from '../src/util/yaml.js';
import type { JsonObject } from '../src/util/json.js';
import { generateFleet } from './fleet/generate.js';
import { objectHealth } from '../src/helm/object-health.js';
import { computeModuleHealth } from '../src/operator/module-health.js';

const argv = process.argv.slice(2);
const arg = (name: string, def: number): number => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const OBJECTS = arg('--objects', 60);
const ROUNDS = arg('--rounds', 5);
const NOOP = arg('--noop', 100);
const FLEET = arg('--fleet', 100);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

/** A chart of `n` objects: half ConfigMaps, a quarter Services, a quarter ServiceAccounts. */
function chartDir(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-helm-'));
  mkdirSync(join(dir, 'templates'));
  writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: bench\nversion: 0.1.0\n');
  const cms = Math.ceil(n / 2);
  const svcs = Math.floor((n - cms) / 2);
  const sas = n - cms - svcs;
  writeFileSync(join(dir, 'values.yaml'), `cms: ${cms}\nsvcs: ${svcs}\nsas: ${sas}\nsize: 1\n`);
  writeFileSync(
    join(dir, 'templates/cm.yaml'),
    '{{- range $i := until (int .Values.cms) }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{{ $i }}\n  labels:\n    app: bench\ndata:\n  index: {{ $i | quote }}\n  size: {{ $.Values.size | quote }}\n  text: {{ repeat 40 "x" | quote }}\n{{- end }}\n',
  );
  writeFileSync(
    join(dir, 'templates/svc.yaml'),
    '{{- range $i := until (int .Values.svcs) }}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{{ $i }}\n  labels:\n    app: bench\nspec:\n  selector:\n    app: bench-{{ $i }}\n  ports:\n  - name: http\n    port: 80\n    targetPort: 8080\n{{- end }}\n',
  );
  writeFileSync(
    join(dir, 'templates/sa.yaml'),
    '{{- range $i := until (int .Values.sas) }}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa-{{ $i }}\n  labels:\n    app: bench\n{{- end }}\n',
  );
  return dir;
}

async function main(): Promise<void> {
  const sandbox = await startSandbox({ requestLogLimit: 200_000 });
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  const mapper = new RestMapper(kc);
  const ns = async (name: string) => requestJson(kc, 'POST', '/api/v1/namespaces', {}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const dir = chartDir(OBJECTS);
  const values = { size: 1 };
  let absentAt: (() => void) | undefined;
  const helm = new HelmReleases({ kc, mapper, monitor: { drift: 'fix', onAbsent: () => absentAt?.() } });
  const direct = new ClusterObjects(kc, mapper, 'bench-direct');

  // the objects as the engine renders them, applied directly in the engine's order: runs of one kind, 8 at a time
  const chart = loadChart(dir, { syntheticName: 'bench' });
  const rendered = renderChart(chart, values, { releaseName: 'bench', namespace: 'x', capabilities: defaultCapabilities() });
  const objects = manifestObjects(rendered.manifests);
  if (objects.length !== OBJECTS) throw new Error(`the chart rendered ${objects.length} objects, not ${OBJECTS}`);
  const extra = { labels: { 'app.kubernetes.io/managed-by': 'Helm' }, annotations: { 'meta.helm.sh/release-name': 'bench', 'meta.helm.sh/release-namespace': 'x' } };
  const applyDirect = async (namespace: string) => {
    const placed: PlacedObject[] = [];
    for (const o of objects) placed.push(await direct.placeOrFail(o, namespace));
    for (let i = 0; i < placed.length; ) {
      const kind = placed[i]!.kind;
      let j = i;
      while (j < placed.length && placed[j]!.kind === kind) j++;
      const batch = placed.slice(i, j);
      for (let k = 0; k < batch.length; k += 8) await Promise.all(batch.slice(k, k + 8).map((p) => direct.apply(p, extra)));
      i = j;
    }
  };

  // warm-up: discovery, the render path, connections
  await ns('warm-a');
  await ns('warm-b');
  await applyDirect('warm-a');
  await helm.upgradeInstall({ release: 'warm', namespace: 'warm-b', chartDir: dir, values });

  const install: number[] = [];
  const baseline: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    await ns(`direct-${r}`);
    await ns(`engine-${r}`);
    // alternate which goes first, so that neither always meets a warmer or a busier moment
    const runDirect = async () => {
      const t = performance.now();
      await applyDirect(`direct-${r}`);
      baseline.push(performance.now() - t);
    };
    const runEngine = async () => {
      const t = performance.now();
      const outcome = await helm.upgradeInstall({ release: `bench-${r}`, namespace: `engine-${r}`, chartDir: dir, values });
      install.push(performance.now() - t);
      if (outcome !== 'installed') throw new Error(`install: ${outcome}`);
    };
    if (r % 2) {
      await runDirect();
      await runEngine();
    } else {
      await runEngine();
      await runDirect();
    }
  }

  // no-change runs of release bench-0, once its watches have listed
  const req = { release: 'bench-0', namespace: 'engine-0', chartDir: dir, values };
  for (let i = 0; i < 200 && helm.watched()['bench-0'] === undefined; i++) await new Promise((r) => setTimeout(r, 25));
  for (let i = 0; i < 200 && (await helm.absentObjects('bench-0', 'engine-0')).length; i++) await new Promise((r) => setTimeout(r, 25));
  await new Promise((r) => setTimeout(r, 300));
  sandbox.clearRequestLog();
  const noop: number[] = [];
  for (let i = 0; i < NOOP; i++) {
    const t = performance.now();
    const outcome = await helm.upgradeInstall(req);
    noop.push(performance.now() - t);
    if (outcome !== 'unchanged') throw new Error(`no-change run ${i}: ${outcome}`);
  }
  const log = sandbox.requests;
  const writes = log.filter((e) => WRITES.has(e.method)).length;
  const reads = log.length;

  // drift: a managed field edited by kubectl-edit, until the monitor has applied it back
  const cmPath = (name: string) => `/api/v1/namespaces/engine-0/configmaps/${name}`;
  const get = async (path: string): Promise<any> => {
    try {
      return await requestJson(kc, 'GET', path);
    } catch (e) {
      if (isApiStatus(e, 404)) return undefined;
      throw e;
    }
  };
  const drift: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const cm = await get(cmPath(`cm-${r}`));
    cm.data.size = 'edited';
    const t = performance.now();
    await requestJson(kc, 'PUT', cmPath(`cm-${r}`), { fieldManager: 'kubectl-edit' }, cm);
    for (;;) {
      if ((await get(cmPath(`cm-${r}`))).data.size === '1') break;
      if (performance.now() - t > 30_000) throw new Error('drift not restored within 30 s');
      await new Promise((res) => setTimeout(res, 5));
    }
    drift.push(performance.now() - t);
  }

  // absent: deleted, the monitor's event, a run of the engine (as the operator's ModuleRun would be)
  const absent: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const raised = new Promise<void>((resolve) => (absentAt = resolve));
    const t = performance.now();
    await requestJson(kc, 'DELETE', cmPath(`cm-${10 + r}`));
    await raised;
    await helm.upgradeInstall(req);
    if (!(await get(cmPath(`cm-${10 + r}`)))) throw new Error('the absent object was not restored');
    absent.push(performance.now() - t);
  }

  // the fleet's charts: installed, then one no-change run each
  const fleet = generateFleet(mkdtempSync(join(tmpdir(), 'bench-helm-fleet-')), { modules: FLEET });
  await ns(fleet.shape.namespace);
  const globalValues = (parseYaml(readFileSync(join(fleet.modulesDir, 'values.yaml'), 'utf8'), 'values.yaml') as JsonObject).global as JsonObject;
  const fleetReqs = readdirSync(fleet.modulesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => {
      const chartDir = join(fleet.modulesDir, d.name);
      const own = parseYaml(readFileSync(join(chartDir, 'values.yaml'), 'utf8'), 'values.yaml') as Record<string, JsonObject>;
      // what the module's beforeHelm hook sets
      for (const section of Object.values(own)) section.internal = { replicas: 1, image: 'registry.example.com/fleet/app:v1' };
      return { release: d.name.replace(/^\d+-/, ''), namespace: fleet.shape.namespace, chartDir, values: { global: globalValues, ...own } };
    });
  for (const r of fleetReqs) if ((await helm.upgradeInstall(r)) !== 'installed') throw new Error(`fleet install of ${r.release}`);
  for (const r of fleetReqs) for (let i = 0; i < 200 && helm.watched()[r.release] === undefined; i++) await new Promise((res) => setTimeout(res, 25));
  await new Promise((r) => setTimeout(r, 300));
  sandbox.clearRequestLog();
  const fleetStart = performance.now();
  for (const r of fleetReqs) if ((await helm.upgradeInstall(r)) !== 'unchanged') throw new Error(`fleet no-change run of ${r.release}`);
  const fleetMs = performance.now() - fleetStart;
  const fleetWrites = sandbox.requests.filter((e) => WRITES.has(e.method));
  const recordWrites = fleetWrites.filter((e) => /\/secrets\/?sh\.helm\.release|\/secrets$/.test(e.path)).length;


  // module health and the start-up drift check over the fleet (issue 33): an operator restart is a
  // new engine whose no-change runs hand the 100 releases to its monitor
  await helm.stop();
  const healthWaiters = new Map<string, () => void>();
  const restarted = new HelmReleases({ kc, mapper, monitor: { drift: 'fix', onHealth: (release) => healthWaiters.get(release)?.() } });
  sandbox.clearRequestLog();
  const restartAt = performance.now();
  for (const r of fleetReqs) if ((await restarted.upgradeInstall(r)) !== 'unchanged') throw new Error(`fleet restart run of ${r.release}`);
  // every watch listed: the objects' kinds and the Services' EndpointSlices
  const listed = () => fleetReqs.every((r) => restarted.objectHealth(r.release, r.namespace)?.every((o) => o.status !== 'Unknown'));
  while (!listed()) await new Promise((res) => setTimeout(res, 5));
  const restartMs = performance.now() - restartAt;
  const restartWrites = sandbox.requests.filter((e) => WRITES.has(e.method) && e.query.dryRun !== 'All').length;
  const restartDryRuns = sandbox.requests.filter((e) => e.query.dryRun === 'All').length;
  const restartReads = sandbox.requests.filter((e) => e.method === 'GET' && e.query.watch !== 'true').length;
  const fleetObjects = fleetReqs.reduce((n, r) => n + (restarted.objectHealth(r.release, r.namespace)?.length ?? 0), 0);

  // health upkeep: an object's status changed (a Deployment rolled out, through its status) until
  // its release's health says so, one Deployment of each release
  const latencies: number[] = [];
  for (const r of fleetReqs) {
    const deploy = restarted.objectHealth(r.release, r.namespace)!.find((o) => o.object.startsWith('Deployment '));
    if (!deploy) throw new Error(`no Deployment in ${r.release}`);
    const name = deploy.object.slice(deploy.object.indexOf('/') + 1);
    const path = `/apis/apps/v1/namespaces/${r.namespace}/deployments/${name}`;
    const live = (await requestJson(kc, 'GET', path)) as { metadata: { generation: number }; spec: { replicas?: number } };
    const n = live.spec.replicas ?? 1;
    const changed = new Promise<void>((resolve) => {
      healthWaiters.set(r.release, () => {
        if (restarted.objectHealth(r.release, r.namespace)!.find((o) => o.object === deploy.object)?.status === 'Current') resolve();
      });
    });
    const t = performance.now();
    await requestJson(kc, 'PATCH', `${path}/status`, {}, {
      status: { observedGeneration: live.metadata.generation, replicas: n, updatedReplicas: n, readyReplicas: n, availableReplicas: n, conditions: [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }] },
    }, 'application/merge-patch+json');
    await changed;
    latencies.push(performance.now() - t);
    healthWaiters.delete(r.release);
  }
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.99) - 1)]!;

  // a Service's endpoints: an EndpointSlice with a ready endpoint written (as kube-controller-manager
  // does once a Pod is Ready) until its release's health has the Service ready, one Service of each
  const endpointLatencies: number[] = [];
  for (const r of fleetReqs) {
    const svc = restarted.objectHealth(r.release, r.namespace)!.find((o) => o.object.startsWith('Service '));
    if (!svc) throw new Error(`no Service in ${r.release}`);
    if (!svc.message.startsWith('no ready endpoints')) throw new Error(`${svc.object}: ${svc.message}, not waiting for endpoints`);
    const name = svc.object.slice(svc.object.indexOf('/') + 1);
    const ns = svc.object.slice('Service '.length, svc.object.indexOf('/'));
    const changed = new Promise<void>((resolve) => {
      healthWaiters.set(r.release, () => {
        if (restarted.objectHealth(r.release, r.namespace)!.find((o) => o.object === svc.object)?.status === 'Current') resolve();
      });
    });
    const t = performance.now();
    await requestJson(kc, 'POST', `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {}, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4',
      metadata: { name: `${name}-bench`, labels: { 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } },
      endpoints: [{ addresses: ['10.244.0.10'], conditions: { ready: true, serving: true, terminating: false } }], ports: [{ name: 'http', port: 8000, protocol: 'TCP' }],
    });
    await changed;
    endpointLatencies.push(performance.now() - t);
    healthWaiters.delete(r.release);
  }
  endpointLatencies.sort((a, b) => a - b);
  const endpointP99 = endpointLatencies[Math.min(endpointLatencies.length - 1, Math.ceil(endpointLatencies.length * 0.99) - 1)]!;

  // its CPU: an object's status from its watch event, then its module's health, for every object of
  // the fleet as many times as the fleet converge's watch events (each object added, then its status
  // written: 3 events an object with the simulated controllers, counted generously)
  const liveObjects: unknown[] = [];
  for (const kind of ['configmaps', 'services', 'deployments']) {
    const list = (await requestJson(kc, 'GET', `/api/v1/namespaces/${fleet.shape.namespace}/${kind}`.replace('/api/v1/namespaces/' + fleet.shape.namespace + '/deployments', `/apis/apps/v1/namespaces/${fleet.shape.namespace}/deployments`))) as { items: unknown[] };
    liveObjects.push(...list.items);
  }
  const EVENTS_PER_OBJECT = 3;
  const cpuAt = process.cpuUsage();
  for (let e = 0; e < EVENTS_PER_OBJECT; e++) {
    for (const o of liveObjects) objectHealth(o);
    for (const r of fleetReqs) for (let i = 0; i < 30; i++) computeModuleHealth({ lastRun: { result: 'success' }, failingHooks: [], hasChart: true, objects: restarted.objectHealth(r.release, r.namespace)! });
  }
  const cpu = process.cpuUsage(cpuAt);
  const healthCpuMs = (cpu.user + cpu.system) / 1000;
  await restarted.stop();
  await sandbox.stop();
  const ratio = median(install) / median(baseline);
  console.log(`bench/helm: ${OBJECTS} objects, ${ROUNDS} rounds, ${NOOP} no-change runs (load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')})`);
  console.log(`install                 median ${ms(median(install))}   direct applies median ${ms(median(baseline))}   ratio ${ratio.toFixed(2)}x (target <= 1.5x)`);
  console.log(`  rounds                engine ${install.map((x) => x.toFixed(0)).join(' ')} ms; direct ${baseline.map((x) => x.toFixed(0)).join(' ')} ms`);
  console.log(`no-change runs          ${writes} write requests (target 0), ${reads} reads in all, median ${ms(median(noop))} a run`);
  console.log(`drift restored          median ${ms(median(drift))} after the edit (${drift.map((x) => x.toFixed(0)).join(' ')} ms)`);
  console.log(`fleet no-change         ${fleetReqs.length} modules: ${fleetWrites.length} object writes (target 0), ${recordWrites} release record writes (target 0), ${ms(fleetMs)} for the pass`);
  console.log(`start drift check       ${fleetReqs.length} releases, ${fleetObjects} objects: ${ms(restartMs)} from the restart (no-change runs, watches listed, every object checked) (target < 3 s), ${restartWrites} writes (target 0), ${restartDryRuns} dry runs, ${restartReads} reads`);
  console.log(`health upkeep           status change -> module health p99 ${ms(p99)}, median ${ms(median(latencies))} over ${latencies.length} (target p99 < 50 ms); CPU ${ms(healthCpuMs)} for ${liveObjects.length} objects x ${EVENTS_PER_OBJECT} events, each changing its module's health (${((healthCpuMs * 1000) / (liveObjects.length * EVENTS_PER_OBJECT)).toFixed(1)} µs an event; to compare with the fleet converge's operator CPU, bench/fleet)`);
  console.log(`endpoints upkeep        EndpointSlice with a ready endpoint -> module health p99 ${ms(endpointP99)}, median ${ms(median(endpointLatencies))} over ${endpointLatencies.length} (target p99 < 50 ms)`);
  console.log(`absent restored         median ${ms(median(absent))} after the delete, burst window 200 ms included (${absent.map((x) => x.toFixed(0)).join(' ')} ms)`);
}

await main();
