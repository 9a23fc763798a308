/**
 * bench/scale (issue 37): the operator on a large cluster. The sandbox runs in its own process (as a
 * cluster would, `addon-operator sandbox --controllers none`) and is written through its API in
 * concurrent batches: Nodes, Pods spread over Namespaces, ConfigMaps and Secrets. The module set has
 * five hooks per module (in-process): ConfigMaps of one namespace with a label selector and a
 * jqFilter, Secrets likewise (`executeHookOnSynchronization` true on one, false on the other,
 * alternating), beforeHelm, afterHelm, and a fifth that watches every Pod of the cluster with a
 * jqFilter (the first `--pod-watchers` modules, each on a queue of its own), every Node with a
 * jqFilter (the next `--node-watchers`), or runs onStartup. Then a churn of Pod status updates at
 * `--rate` a second for `--seconds`.
 *
 * Figures: the operator's RSS after the first converge (every binding synchronized) and its idle
 * collection after it (the churn starts once that is done: its stall is a figure of its own), and at
 * the end of the churn; the time from its start to the end of the first converge; event → hook start
 * latency (from the status write to the Pod watcher's run that sees it, through the combining of
 * queued events), p50 and p99, and apart the part up to the API server's answer to the write (the
 * bench's client and the sandbox, on the same cores) and the part after it (mostly the operator); events lost (a Pod whose last status no Pod watcher saw); what the
 * Pod watchers' snapshots retain per Pod (`kube_snapshot_bytes`) against their filter results; the
 * sandbox's RSS per stored object against the objects' JSON, and a paged list of every Pod (500 at a
 * time) against reading the same bytes from a plain server in the same run.
 *
 *   node --import tsx bench/scale.ts [--quick] [--nodes 5000] [--pods 150000] [--namespaces 500]
 *     [--configmaps 10000] [--secrets 10000] [--modules 200] [--pod-watchers 4] [--node-watchers 20]
 *     [--rate 1000] [--seconds 60] [--keep DIR] [--cpu-prof DIR] [--sandbox-cpu-prof DIR] [--operator-node-flags "FLAGS"]
 * A churn of 15 minutes or more (`--seconds 1800`: the issue's 30 minutes) is also judged as bench/soak
 * judges a soak: the median RSS of its last 5 minutes against minutes 5-10 (target < 5 % growth), the
 * Theil-Sen trend of the per-minute medians, and no queue growing at each of the last three minutes.
 * `--keep DIR`: the run's files stay in DIR (seen.txt: each status the watcher saw, with its latency;
 * writes.txt: each write's send and answer times). `--cpu-prof DIR`: the operator's CPU profile (node
 * --cpu-prof) in DIR, written as it stops; the churn's window is printed in the profile's clock (the
 * monotonic clock's µs) so that a reading can keep to the churn. `--operator-node-flags` (or the
 * environment's BENCH_SCALE_NODE_FLAGS): more Node flags for the operator (`--trace-gc`...).
 * `--sandbox-cpu-prof DIR`: the sandbox's CPU profile in DIR, written as it stops.
 * Needs dist/ (npm run build).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { createServer, request as httpRequest, Agent as HttpAgent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { CLI, freePort, operatorCommand, procMemory, queueLengths } from './cluster.js';
import { judge, median, type RssSample, type Sample } from './soak.js';
import { caller, type Call } from './child-server.js';
import { stopChild, waitForLine } from './processes.js';
import { emitFigures, type Figure } from './figures.js';

const QUICK = process.argv.includes('--quick');
const arg = (name: string, full: number, quick: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : QUICK ? quick : full;
};
const NODES = arg('--nodes', 5000, 50);
const PODS = arg('--pods', 150_000, 2000);
const NAMESPACES = arg('--namespaces', 500, 10);
const CONFIGMAPS = arg('--configmaps', 10_000, 200);
const SECRETS = arg('--secrets', 10_000, 200);
const MODULES = arg('--modules', 200, 20);
const POD_WATCHERS = arg('--pod-watchers', 4, 2);
const NODE_WATCHERS = arg('--node-watchers', 20, 4);
const RATE = arg('--rate', 1000, 100);
const SECONDS = arg('--seconds', 60, 5);
const keepIdx = process.argv.indexOf('--keep');
const profIdx = process.argv.indexOf('--cpu-prof');
const PROF_DIR = profIdx > 0 ? process.argv[profIdx + 1]! : undefined;
const sandboxProfIdx = process.argv.indexOf('--sandbox-cpu-prof');
const SANDBOX_PROF_DIR = sandboxProfIdx > 0 ? process.argv[sandboxProfIdx + 1]! : undefined;
const flagsIdx = process.argv.indexOf('--operator-node-flags');
const OPERATOR_FLAGS = flagsIdx > 0 ? process.argv[flagsIdx + 1]!.split(/\s+/).filter(Boolean) : [];
const CONCURRENCY = 48;
const OPERATOR_NS = 'addon-operator';

const nsName = (i: number) => `ns-${String(i).padStart(3, '0')}`;
const podName = (i: number) => `app-${String(i).padStart(6, '0')}`;
const podNs = (i: number) => nsName(i % NAMESPACES);

function node(i: number): object {
  const name = `node-${String(i).padStart(4, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'node-role.kubernetes.io/worker': '', 'topology.kubernetes.io/zone': `zone-${i % 3}` } },
    spec: { podCIDR: `10.${Math.floor(i / 256) % 256}.${i % 256}.0/24`, providerID: `sandbox://${name}` },
    status: {
      capacity: { cpu: '8', memory: '32Gi', pods: '110' },
      allocatable: { cpu: '7800m', memory: '31Gi', pods: '110' },
      conditions: [
        { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', lastHeartbeatTime: '2026-11-29T00:00:00Z', lastTransitionTime: '2026-11-29T00:00:00Z' },
        { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', lastHeartbeatTime: '2026-11-29T00:00:00Z', lastTransitionTime: '2026-11-29T00:00:00Z' },
        { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: '2026-11-29T00:00:00Z', lastTransitionTime: '2026-11-29T00:00:00Z' },
      ],
      addresses: [{ type: 'InternalIP', address: `192.168.${Math.floor(i / 256) % 256}.${i % 256}` }, { type: 'Hostname', address: name }],
      nodeInfo: { kubeletVersion: 'v1.33.1', containerRuntimeVersion: 'containerd://1.7.27', osImage: 'Debian GNU/Linux 12', architecture: 'amd64', operatingSystem: 'linux' },
    },
  };
}

/** A Pod of a Deployment as a cluster stores it, about 2.5 KB of JSON. */
function pod(i: number): object {
  const app = `app-${i % 300}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(i),
      namespace: podNs(i),
      labels: { app, 'pod-template-hash': '7d4b9c6f5d', tier: i % 2 ? 'backend' : 'frontend' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-01T00:00:00Z', 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-7d4b9c6f5d`, uid: `00000000-0000-4000-8000-${String(i % 300).padStart(12, '0')}`, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      nodeName: `node-${String(i % NODES).padStart(4, '0')}`,
      serviceAccountName: 'default',
      containers: [
        {
          name: 'app',
          image: `registry.example.com/team/${app}:v1.2.${i % 10}`,
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }, { name: 'metrics', containerPort: 9090, protocol: 'TCP' }],
          env: [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
          readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 10 },
          volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
        },
      ],
      volumes: [{ name: 'config', configMap: { name: `${app}-config` } }],
    },
  };
}

function configMap(i: number): object {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cfg-${String(i).padStart(5, '0')}`, namespace: nsName(i % NAMESPACES), labels: { app: i % 4 ? 'cfg' : 'other' } },
    data: { v: '1', 'settings.yaml': `key: value-${i}\n`.repeat(8) },
  };
}

function secret(i: number): object {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `sec-${String(i).padStart(5, '0')}`, namespace: nsName(i % NAMESPACES), labels: { app: i % 4 ? 'sec' : 'other' } },
    type: 'Opaque',
    data: { password: Buffer.from(`password-${i}`).toString('base64'), token: Buffer.from('x'.repeat(64)).toString('base64') },
  };
}

const kubeHook = (binding: object, body = '', imports = '') => `${imports}export const config = ${JSON.stringify({ configVersion: 'v1', kubernetes: [binding] })};
export function run(ctx) {${body}}
`;

/**
 * The first Pod watcher records, for every Pod status it sees in an Event, "name seq latency-ms"; the
 * lines go to the file every 100 ms in one write, so that the measure adds no file write per run to
 * the operator's thread (an in-process hook runs on it).
 */
const LATENCY_IMPORTS = `import { appendFileSync } from 'node:fs';
const pending = [];
setInterval(() => {
  if (pending.length) appendFileSync(process.env.BENCH_SCALE_SEEN, pending.splice(0).join('\\n') + '\\n');
}, 100).unref();
`;
const LATENCY_BODY = `
  const now = Date.now();
  for (const c of ctx.bindingContext) {
    if (c.type !== 'Event' || !c.filterResult || !c.filterResult.m) continue;
    const [seq, sent, name] = String(c.filterResult.m).split(' ');
    pending.push(name + ' ' + seq + ' ' + (now - Number(sent)));
  }
`;

function writeModuleSet(root: string): { modulesDir: string; globalHooksDir: string } {
  const modulesDir = join(root, 'modules');
  const globalHooksDir = join(root, 'global-hooks');
  mkdirSync(join(globalHooksDir, 'hooks'), { recursive: true });
  const flags: string[] = [];
  for (let i = 0; i < MODULES; i++) {
    const letters = [676, 26, 1].map((d) => String.fromCharCode(97 + (Math.floor(i / d) % 26))).join('');
    const name = `scale-${letters}`;
    const key = `scale${letters[0]!.toUpperCase()}${letters.slice(1)}`;
    const dir = join(modulesDir, `${String(100 + i)}-${name}`);
    mkdirSync(join(dir, 'hooks'), { recursive: true });
    mkdirSync(join(dir, 'templates'), { recursive: true });
    writeFileSync(join(dir, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`);
    writeFileSync(join(dir, 'values.yaml'), `${key}:\n  replicas: 1\n`);
    writeFileSync(join(dir, 'templates', 'cm.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  replicas: "{{ .Values.${key}.replicas }}"\n`);
    const h = (file: string, text: string) => writeFileSync(join(dir, 'hooks', file), text);
    h('configmaps.hook.mjs', kubeHook({ name: 'configmaps', kind: 'ConfigMap', namespace: { nameSelector: { matchNames: [nsName(i % NAMESPACES)] } }, labelSelector: { matchLabels: { app: 'cfg' } }, jqFilter: '.data.v', keepFullObjectsInMemory: false, executeHookOnSynchronization: i % 2 === 0 }));
    h('secrets.hook.mjs', kubeHook({ name: 'secrets', kind: 'Secret', namespace: { nameSelector: { matchNames: [nsName((i + 1) % NAMESPACES)] } }, labelSelector: { matchLabels: { app: 'sec' } }, jqFilter: '.metadata.name', keepFullObjectsInMemory: false, executeHookOnSynchronization: i % 2 === 1 }));
    h('before-helm.hook.mjs', `export const config = { configVersion: 'v1', beforeHelm: 10 };\nexport function run() {}\n`);
    h('after-helm.hook.mjs', `export const config = { configVersion: 'v1', afterHelm: 10 };\nexport function run() {}\n`);
    if (i < POD_WATCHERS) {
      h('pods.hook.mjs', kubeHook({ name: 'pods', kind: 'Pod', queue: `pods-${i}`, jqFilter: '{phase: .status.phase, m: .status.message}', keepFullObjectsInMemory: false }, i === 0 ? LATENCY_BODY : '', i === 0 ? LATENCY_IMPORTS : ''));
    } else if (i < POD_WATCHERS + NODE_WATCHERS) {
      h('nodes.hook.mjs', kubeHook({ name: 'nodes', kind: 'Node', jqFilter: '{name: .metadata.name, ready: ([.status.conditions[]? | select(.type == "Ready")][0].status)}', keepFullObjectsInMemory: false }));
    } else h('startup.hook.mjs', `export const config = { configVersion: 'v1', onStartup: 10 };\nexport function run() {}\n`);
    flags.push(`${key}Enabled: true`);
  }
  writeFileSync(join(modulesDir, 'values.yaml'), `${flags.join('\n')}\n`);
  return { modulesDir, globalHooksDir };
}

/** A client of the sandbox from its kubeconfig: many connections, kept alive. */
function sandboxCaller(kubeconfig: string): Call {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const cluster = kc.getCurrentCluster()!;
  const ca = cluster.caData ? Buffer.from(cluster.caData, 'base64') : cluster.caFile ? readFileSync(cluster.caFile) : undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca });
  return caller(httpsRequest, agent, cluster.server, kc.getCurrentUser()!.token!);
}

/** Runs `count` jobs with at most CONCURRENCY at once. */
async function pool(count: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
}

async function create(call: Call, path: string, objects: (i: number) => object, count: number): Promise<number> {
  let bytes = 0;
  await pool(count, async (i) => {
    const o = objects(i) as { metadata: { namespace?: string } };
    const body = JSON.stringify(o);
    bytes += body.length;
    const r = await call('POST', path.replace('{ns}', o.metadata.namespace ?? ''), body);
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.body.toString().slice(0, 300)}`);
  });
  return bytes;
}

/** Every page of a list of `path` at 500: the bytes and the time. */
async function pagedList(call: Call, path: string): Promise<{ ms: number; bytes: number; pages: number; items: number; firstPage: Buffer }> {
  const t0 = performance.now();
  let firstPage: Buffer | undefined;
  let bytes = 0;
  let pages = 0;
  let items = 0;
  let cont = '';
  do {
    const r = await call('GET', `${path}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
    bytes += r.body.length;
    firstPage ??= r.body;
    pages++;
    const list = JSON.parse(r.body.toString()) as { items: unknown[]; metadata: { continue?: string } };
    items += list.items.length;
    cont = list.metadata.continue ?? '';
  } while (cont);
  return { ms: performance.now() - t0, bytes, pages, items, firstPage: firstPage! };
}

/** As many pages from a plain HTTP server that sends a page it was given (nothing computed), read and parsed the same way. */
async function plainPages(body: Buffer, pages: number): Promise<number> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const call = caller(httpRequest, new HttpAgent({ keepAlive: true, maxSockets: 1 }), `http://127.0.0.1:${port}`, '');
  const t0 = performance.now();
  for (let p = 0; p < pages; p++) JSON.parse((await call('GET', '/')).body.toString());
  const ms = performance.now() - t0;
  server.close();
  return ms;
}

/** The operator's first idle collection in its JSON log (waits up to timeoutMs for it), or undefined. */
async function settled(logFile: string, timeoutMs: number): Promise<{ ms: number; rssBeforeMiB: number; rssAfterMiB: number } | undefined> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    const line = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').find((l) => l.includes('"idle: garbage collected"')) : undefined;
    if (line) return JSON.parse(line) as { ms: number; rssBeforeMiB: number; rssAfterMiB: number };
  }
  return undefined;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const root = keepIdx > 0 ? process.argv[keepIdx + 1]! : mkdtempSync(join(tmpdir(), 'bench-scale-'));
mkdirSync(root, { recursive: true });
const procs: ChildProcess[] = [];
try {
  if (!existsSync(CLI)) throw new Error('dist/ is not built: npm run build');
  const load0 = loadavg()[0]!;
  console.log(`bench/scale: ${NODES} Nodes, ${PODS} Pods in ${NAMESPACES} Namespaces, ${CONFIGMAPS} ConfigMaps, ${SECRETS} Secrets; ${MODULES} modules, ${MODULES * 5} hooks (${POD_WATCHERS} watch every Pod, ${NODE_WATCHERS} every Node); churn ${RATE}/s for ${SECONDS} s`);
  const out = join(root, 'seen.txt');
  writeFileSync(out, '');
  const set = writeModuleSet(root);
  const kubeconfig = join(root, 'kubeconfig');

  // the cluster
  // change history for two minutes of churn, as an API server's etcd keeps minutes of it: a list of
  // every Pod takes longer than 10,000 events at 1,000 a second, and its watch would start at a 410
  const sandbox = spawn(process.execPath, [...(SANDBOX_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${SANDBOX_PROF_DIR}`] : []), CLI, 'sandbox', '--kubeconfig', kubeconfig, '--controllers', 'none', '--watch-history', String(Math.max(10_000, RATE * 120))], { stdio: ['ignore', 'pipe', 'inherit'] });
  procs.push(sandbox);
  await waitForLine(sandbox, (l) => l.includes(kubeconfig), 'the sandbox to start', 120_000);
  const call = sandboxCaller(kubeconfig);
  // the baseline after a warm-up of the same kind of traffic (written, listed, deleted), as bench/sandbox's:
  // the runtime's steady state (compiled code, the young generation grown to its size, TLS buffers) is
  // not a cost of the objects stored after it. Small Pods: the watch history keeps the warm-up's 9,000
  // events (about 4 MiB) until the seeding pushes them out, and that memory is then reused.
  const WARM = Math.min(3000, PODS);
  await call('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'warm-up' } }));
  const warmPod = (i: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `warm-${i}`, namespace: 'warm-up' }, spec: { containers: [{ name: 'c', image: 'registry.example.com/warm:1' }] } });
  await create(call, '/api/v1/namespaces/{ns}/pods', warmPod, WARM);
  // the churn's requests too (status merge patches): the cluster's code for them is warm when it starts
  await pool(WARM, async (i) => {
    const r = await call('PATCH', `/api/v1/namespaces/warm-up/pods/warm-${i}/status`, JSON.stringify({ status: { message: `warm ${i}` } }), 'application/merge-patch+json');
    if (r.status !== 200) throw new Error(`PATCH warm-${i}/status: ${r.status} ${r.body.toString().slice(0, 300)}`);
  });
  await pagedList(call, '/api/v1/namespaces/warm-up/pods');
  await call('DELETE', '/api/v1/namespaces/warm-up/pods');
  const rss0 = procMemory(sandbox.pid!).rssMiB;
  let t = performance.now();
  await create(call, '/api/v1/namespaces', (i) => (i < NAMESPACES ? { apiVersion: 'v1', kind: 'Namespace', metadata: { name: nsName(i) } } : { apiVersion: 'v1', kind: 'Namespace', metadata: { name: OPERATOR_NS } }), NAMESPACES + 1);
  let bytes = await create(call, '/api/v1/nodes', node, NODES);
  bytes += await create(call, '/api/v1/namespaces/{ns}/pods', pod, PODS);
  bytes += await create(call, '/api/v1/namespaces/{ns}/configmaps', configMap, CONFIGMAPS);
  bytes += await create(call, '/api/v1/namespaces/{ns}/secrets', secret, SECRETS);
  const seedS = (performance.now() - t) / 1000;
  const objects = NODES + PODS + CONFIGMAPS + SECRETS;
  console.log(`  seeded ${objects} objects through the API in ${seedS.toFixed(1)} s (${Math.round(objects / seedS)}/s)`);

  // the sandbox: memory per stored object, a paged list of every Pod
  const list = await pagedList(call, '/api/v1/pods');
  if (list.items !== PODS) throw new Error(`the paged list returned ${list.items} Pods of ${PODS}`);
  const plainMs = await plainPages(list.firstPage, list.pages);
  const sandboxRss = procMemory(sandbox.pid!).rssMiB;
  // the stored objects' JSON: what the lists return (with the server's metadata), Pods measured, the rest as sent
  const storedJsonMiB = (list.bytes + (bytes - PODS * JSON.stringify(pod(0)).length)) / 1024 / 1024;
  const perObject = (sandboxRss - rss0) / storedJsonMiB;
  console.log(`  sandbox RSS ${sandboxRss.toFixed(0)} MiB (+${(sandboxRss - rss0).toFixed(0)} for ${storedJsonMiB.toFixed(0)} MiB of objects' JSON: ${perObject.toFixed(2)}x; target <= 1.5x)`);
  console.log(`  paged list of ${list.items} Pods: ${list.pages} pages, ${(list.bytes / 1024 / 1024).toFixed(0)} MiB in ${(list.ms / 1000).toFixed(2)} s; the same bytes from a plain server ${(plainMs / 1000).toFixed(2)} s (${(list.ms / plainMs).toFixed(2)}x; target <= 2x)`);

  // the operator
  // extra node flags of the operator: --operator-node-flags, or BENCH_SCALE_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof'
  const envFlags = process.env.BENCH_SCALE_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const how = operatorCommand({ nodeFlags: [...envFlags, ...OPERATOR_FLAGS, ...(PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROF_DIR}`] : [])] });
  const metricsPort = await freePort();
  t = performance.now();
  const operator = spawn(
    process.execPath,
    [...how.nodeFlags, CLI, 'start', '--kube-config', kubeconfig, '--namespace', OPERATOR_NS, '--modules-dir', set.modulesDir, '--global-hooks-dir', set.globalHooksDir, '--tmp-dir', join(root, 'tmp'), '--log-type', 'json', '--listen-port', String(metricsPort), '--debug-unix-socket', join(root, 'debug.socket')],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...how.env, BENCH_SCALE_SEEN: out } },
  );
  procs.push(operator);
  const stderr: string[] = [];
  operator.stderr!.on('data', (c: Buffer) => stderr.push(c.toString()));
  let syncPeak = 0;
  const syncSampler = setInterval(() => (syncPeak = Math.max(syncPeak, procMemory(operator.pid!).rssMiB)), 1000);
  await waitForLine(operator, (l) => l.includes('startup converge done'), 'the first converge', 1_800_000, { logFile: join(root, 'operator.log') })
    .catch((e) => {
      console.error(stderr.join('').slice(-3000));
      throw e;
    })
    .finally(() => clearInterval(syncSampler));
  const syncS = (performance.now() - t) / 1000;
  // the operator settles: its idle collection, 3 s after the converge's last task (src/operator/idle-gc.ts).
  // Its stall is its own figure: a churn started at that moment would wait for it (at full size, seconds)
  const idleGc = await settled(join(root, 'operator.log'), 30_000);
  const rssSynced = procMemory(operator.pid!).rssMiB;
  console.log(`  operator: first converge (every binding synchronized) ${syncS.toFixed(1)} s after its start (target < 30 s); RSS ${rssSynced.toFixed(0)} MiB once idle after it (target < 400 MiB), peak during the sync ${syncPeak.toFixed(0)} MiB`);
  console.log(idleGc ? `  its idle collection after the converge: ${idleGc.ms} ms (RSS ${idleGc.rssBeforeMiB} -> ${idleGc.rssAfterMiB} MiB); events arriving meanwhile wait that long` : '  no idle collection within 30 s of the converge');

  // the churn: Pod status writes at RATE a second, over a set of Pods each written several times
  const churnPods = Math.min(PODS, Math.max(100, Math.round((RATE * SECONDS) / 5)));
  const last = new Map<string, number>();
  let seq = 0;
  let failed = 0;
  let peak = rssSynced;
  // the churn lasts SECONDS whatever the writes reached: on a loaded machine fewer than RATE a second
  // are made (the writes in flight are bounded), and the figures say how many
  let total = RATE * SECONDS;
  // when each write was sent and when the API server answered it (ms since the epoch, by seq)
  const sentAt = new Float64Array(total + 1);
  const answeredAt = new Float64Array(total + 1);
  const t0 = performance.now();
  const churnFrom = process.hrtime.bigint() / 1000n;
  let inflight = 0;
  // the operator's RSS each second of the churn (the sampler stops with the churn, before the processes);
  // at each minute's end its median and the queue lengths, as bench/soak takes them
  const rssSamples: RssSample[] = [];
  const minutes: Sample[] = [];
  const scrapes: Promise<void>[] = [];
  const sample = setInterval(() => {
    const rssMiB = procMemory(operator.pid!).rssMiB;
    peak = Math.max(peak, rssMiB);
    rssSamples.push({ s: Math.round((performance.now() - t0) / 100) / 10, rssMiB });
    if (rssSamples.length % 60) return;
    const mine = rssSamples.slice(-60).map((r) => r.rssMiB);
    const minute = rssSamples.length / 60;
    const scrape = queueLengths(metricsPort).then((queues) => {
      const m: Sample = { minute, rssMiB: median(mine), rssMinMiB: Math.min(...mine), rssMaxMiB: Math.max(...mine), queues, changes: seq, configEdits: 0, load: loadavg()[0]! };
      minutes.push(m);
      const busy = Object.entries(queues).filter(([, n]) => n > 0);
      console.log(`  churn minute ${minute}: RSS median ${m.rssMiB.toFixed(1)} MiB [${m.rssMinMiB.toFixed(1)}-${m.rssMaxMiB.toFixed(1)}]; ${seq} writes so far; queues not empty: ${busy.length ? busy.map(([q, n]) => `${q} ${n}`).join(', ') : 'none'}; load ${m.load.toFixed(1)}`);
    });
    scrapes.push(scrape);
  }, 1000);
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const elapsedS = (performance.now() - t0) / 1000;
      if (elapsedS >= SECONDS) total = Math.min(total, seq);
      const due = Math.min(total, Math.floor(elapsedS * RATE));
      while (seq < due && inflight < CONCURRENCY * 4) {
        const s = ++seq;
        const i = Math.floor(Math.random() * churnPods);
        const name = podName(i);
        last.set(name, s);
        inflight++;
        const sent = Date.now();
        sentAt[s] = sent;
        const body = JSON.stringify({ status: { message: `${s} ${sent} ${name}` } });
        void call('PATCH', `/api/v1/namespaces/${podNs(i)}/pods/${name}/status`, body, 'application/merge-patch+json')
          .then(
            (r) => {
              answeredAt[s] = Date.now();
              if (r.status !== 200) failed++;
            },
            () => void failed++,
          )
          .finally(() => inflight--);
      }
      if (seq >= total && inflight === 0) {
        clearInterval(tick);
        resolve();
      }
    }, 10);
  });
  clearInterval(sample);
  // a minute's scrape still reading the operator's metrics (4 MiB of them at full size) ends before the
  // operator is stopped
  await Promise.all(scrapes);
  const churnS = (performance.now() - t0) / 1000;
  const rate = total / churnS;
  // the profile's timestamps are the monotonic clock's microseconds, as process.hrtime's
  if (PROF_DIR) console.log(`  churn window for the profile (monotonic µs): ${churnFrom} ${process.hrtime.bigint() / 1000n}`);
  // every Pod's last status seen by the watcher (or a minute)
  const seen = new Map<string, number>();
  const latencies: number[] = [];
  const seqs: number[] = [];
  const readSeen = () => {
    seen.clear();
    latencies.length = 0;
    seqs.length = 0;
    for (const line of readFileSync(out, 'utf8').split('\n')) {
      const [name, s, ms] = line.split(' ');
      if (!name) continue;
      seen.set(name, Math.max(seen.get(name) ?? 0, Number(s)));
      latencies.push(Number(ms));
      seqs.push(Number(s));
    }
    let lost = 0;
    for (const [name, s] of last) if ((seen.get(name) ?? 0) < s) lost++;
    return lost;
  };
  let lost = readSeen();
  for (const end = Date.now() + 60_000; lost > 0 && Date.now() < end; lost = readSeen()) await new Promise((r) => setTimeout(r, 500));
  const rssEnd = procMemory(operator.pid!).rssMiB;
  peak = Math.max(peak, rssEnd);
  // what the Pod watchers' snapshots retain per Pod (kube_snapshot_bytes), against their filter results' JSON
  const metrics = await new Promise<string>((resolve, reject) => {
    httpRequest(`http://127.0.0.1:${metricsPort}/metrics`, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
  const podSnapshots = (metric: string) => {
    let sum = 0;
    for (const m of metrics.matchAll(new RegExp(`^addon_operator_${metric}\\{[^}]*hook="hooks/pods\\.hook\\.mjs"[^}]*\\} (\\S+)$`, 'gm'))) sum += Number(m[1]);
    return sum;
  };
  const perPod = podSnapshots('kube_snapshot_bytes') / podSnapshots('kube_snapshot_objects');
  // the filter results: {phase, m} with the last status message of a churned Pod, null for the others
  let resultBytes = (PODS - last.size) * JSON.stringify({ phase: null, m: null }).length;
  for (const [name, s] of last) resultBytes += JSON.stringify({ phase: null, m: `${s} ${Date.now()} ${name}` }).length;
  const resultPerPod = resultBytes / PODS;
  console.log(`  retained per watched Pod (kube_snapshot_bytes of the Pod watchers): ${perPod.toFixed(0)} B for ${resultPerPod.toFixed(0)} B of filter result (target <= 2x + 300 B = ${(2 * resultPerPod + 300).toFixed(0)} B)`);
  // where the time goes: from the write to the API server's answer (the bench's client and the
  // server), and from that answer to the hook's start (mostly the operator: the server sends the watch
  // event as it answers)
  const answers: number[] = [];
  const afterAnswer: number[] = [];
  seqs.forEach((s, n) => {
    if (!answeredAt[s]) return;
    answers.push(answeredAt[s]! - sentAt[s]!);
    afterAnswer.push(sentAt[s]! + latencies[n]! - answeredAt[s]!);
  });
  if (keepIdx > 0) writeFileSync(join(root, 'writes.txt'), Array.from({ length: total }, (_, n) => `${n + 1} ${sentAt[n + 1]} ${answeredAt[n + 1]}`).join('\n') + '\n');
  answers.sort((a, b) => a - b);
  afterAnswer.sort((a, b) => a - b);
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  console.log(`  churn: ${total} Pod status writes in ${churnS.toFixed(1)} s (${rate.toFixed(0)}/s, ${failed} failed) over ${churnPods} Pods; the watcher saw ${latencies.length} statuses`);
  console.log(`  event -> hook start: p50 ${p50} ms, p99 ${p99} ms (target p99 < 100 ms); Pods whose last status was not seen: ${lost} (target 0)`);
  console.log(`    of which write -> the API server's answer p50 ${percentile(answers, 50)} ms, p99 ${percentile(answers, 99)} ms; that answer -> hook start p50 ${percentile(afterAnswer, 50)} ms, p99 ${percentile(afterAnswer, 99)} ms`);
  console.log(`  operator RSS at the end of the churn ${rssEnd.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB (target < 450 MiB); load ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end`);
  // growth over a long churn (15 minutes and more), judged as bench/soak judges it
  const soak = judge(rssSamples, minutes, Math.floor(churnS / 60));
  if (soak.growth !== undefined) {
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
    console.log(`  RSS growth over the churn: ${pct(soak.growth)} (median of minutes ${soak.last!.from}-${soak.last!.to} ${soak.last!.medianMiB.toFixed(1)} MiB against ${soak.first!.from}-${soak.first!.to} ${soak.first!.medianMiB.toFixed(1)} MiB; target < 5 %); trend ${soak.slopeMiBPerMin?.toFixed(2) ?? '-'} MiB/min; queues still growing: ${soak.growing.join(', ') || 'none'}`);
  }
  const figures: Figure[] = [
    { name: 'operator RSS after the sync', value: rssSynced, unit: 'MiB', target: { max: 400 }, note: `once idle after it; peak during the sync ${syncPeak.toFixed(0)} MiB` },
    { name: 'operator RSS at the end of the churn', value: rssEnd, unit: 'MiB', target: { max: 450 } },
    { name: 'sync of every binding (start to first converge done)', value: syncS, unit: 's', target: { max: 30 } },
    { name: 'event to hook start p99', value: p99, unit: 'ms', target: { max: 100 }, note: `p50 ${p50} ms, ${rate.toFixed(0)} writes/s` },
    { name: 'the API server\'s answer -> hook start p99', value: percentile(afterAnswer, 99), unit: 'ms', note: `write -> answer p99 ${percentile(answers, 99)} ms: the bench's client and the sandbox` },
    ...(idleGc ? [{ name: 'idle collection after the converge (the operator stalled)', value: idleGc.ms, unit: 'ms' }] : []),
    { name: 'Pods whose last status no hook saw', value: lost, unit: 'Pods', target: { max: 0 } },
    ...(soak.growth === undefined ? [] : [{ name: 'operator RSS growth over the churn (median of the last 5 minutes against minutes 5-10)', value: soak.growth * 100, unit: '%', target: { max: 5 } }]),
    { name: 'retained per watched Pod (kube_snapshot_bytes)', value: perPod, unit: 'B', target: { max: 2 * resultPerPod + 300 }, note: `filter result ${resultPerPod.toFixed(0)} B` },
    { name: 'sandbox RSS per stored JSON byte', value: perObject, unit: '×', target: { max: 1.5 } },
    { name: 'paged list of every Pod', value: list.ms, unit: 'ms', baseline: { what: 'the same bytes from a plain HTTP server', value: plainMs, unit: 'ms' }, target: { max: 2, of: 'ratio' } },
  ];
  emitFigures(figures);
} finally {
  for (const p of procs.reverse()) await stopChild(p).catch(() => undefined);
  if (keepIdx < 0) rmSync(root, { recursive: true, force: true });
}
