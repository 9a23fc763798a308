// Sandbox benchmark: 10,000 writes of ~3 KB objects, a list of all of them, 20 concurrent watchers.
// Then the simulated controllers' workload figures (bench/sandbox-workloads.ts).
// Run: node --import tsx bench/sandbox.ts [--objects N] [--watchers N] [--no-controllers] [--deployments N]
// The API server runs in a child process so that its resident memory is measured on its own; it runs the
// simulated controllers (as the sandbox command does) unless --no-controllers.
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { emitFigures } from './figures.js';
import { runWorkloads } from './sandbox-workloads.js';
import { caller, forkWithMessages } from './child-server.js';

const argv = process.argv.slice(2);
const arg = (name: string, def: number): number => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const N = arg('--objects', 10000);
const WATCHERS = arg('--watchers', 20);
const CONCURRENCY = arg('--concurrency', 16);
const NS = 'bench';
const WARMUP = arg('--warmup', 2000);
const PLAIN = argv.includes('--http');
const CONTROLLERS = !argv.includes('--no-controllers');
const DEPLOYMENTS = arg('--deployments', 1000);

interface Mem {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

async function serverMain(): Promise<void> {
  const { startSandbox } = await import('../src/sandbox/index.js');
  const gc = (globalThis as any).gc as (() => void) | undefined;
  const settle = async (): Promise<Mem> => {
    for (let i = 0; i < 4; i++) {
      gc?.();
      await new Promise((r) => setTimeout(r, 50));
    }
    const m = process.memoryUsage();
    return { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
  };
  const sb = await startSandbox({ historyLimit: N + 100, tls: !process.argv.includes('--http'), controllers: !process.argv.includes('--no-controllers') });
  sb.load([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }]);
  process.send!({ type: 'ready', url: sb.url, token: sb.token, ca: sb.caCert });
  process.on('message', (m: any) => {
    if (m.type === 'cpu') {
      const u = process.cpuUsage();
      process.send!({ type: 'cpu', ms: (u.user + u.system) / 1000 });
    } else if (m.type === 'mem') {
      if (m.compact) sb.compactHistory();
      void settle().then((mem) => process.send!({ type: 'mem', mem }));
    } else if (m.type === 'load') {
      // storage without network traffic: N more objects through the library API
      void settle().then(async (before) => {
        for (let i = 0; i < N; i += 500) {
          sb.load(Array.from({ length: Math.min(500, N - i) }, (_, k) => ({ ...payload(i + k), metadata: { ...(payload(i + k).metadata as object), name: `direct-${i + k}`, namespace: NS } })));
        }
        const after = await settle();
        process.send!({ type: 'load', before, after });
      });
    } else if (m.type === 'stop') {
      void sb.stop().then(() => process.exit(0));
    }
  });
}

function payload(i: number): Record<string, unknown> {
  const data: Record<string, string> = {};
  for (let k = 0; k < 10; k++) data[`key-${k}`] = `value ${i} ${k} `.repeat(20).slice(0, 230);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `obj-${String(i).padStart(5, '0')}`,
      labels: { app: 'bench', shard: String(i % 10) },
      annotations: { 'bench/sent': '' },
    },
    data,
  };
}

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function parentMain(): Promise<void> {
  const { child, next } = forkWithMessages(
    fileURLToPath(import.meta.url),
    ['--server', ...(PLAIN ? ['--http'] : []), ...(CONTROLLERS ? [] : ['--no-controllers'])],
    ['--import', 'tsx', '--expose-gc', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
  );
  const ready = await next();
  const { url, token, ca } = ready as { url: string; token: string; ca: string };
  const Agent = (PLAIN ? HttpAgent : HttpsAgent) as typeof HttpsAgent;
  const request = (PLAIN ? httpRequest : httpsRequest) as typeof httpsRequest;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: [ca] });
  const headers = { authorization: `Bearer ${token}` };
  const call = caller(request, agent, url, token);

  // ---- warm-up, so that the memory baseline includes the steady-state runtime (JIT, buffers, young
  // generation) and the figure below is the marginal memory of stored objects
  {
    let k = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (k < WARMUP) {
          const o = payload(k++) as any;
          o.metadata.name = `warm-${k}`;
          o.metadata.annotations['bench/sent'] = '0';
          await call('POST', `/api/v1/namespaces/${NS}/configmaps`, JSON.stringify(o));
        }
      }),
    );
    await call('GET', `/api/v1/namespaces/${NS}/configmaps`);
    await call('DELETE', `/api/v1/namespaces/${NS}/configmaps`);
  }
  child.send({ type: 'mem', compact: true });
  const baseline = ((await next()) as { mem: Mem }).mem;

  // ---- watchers
  const startRv = JSON.parse((await call('GET', `/api/v1/namespaces/${NS}/configmaps`)).body.toString()).metadata.resourceVersion;
  const latencies: number[] = [];
  const watchers = Array.from({ length: WATCHERS }, () => ({ count: 0, lastRv: 0, inOrder: true, done: false }));
  let allDone!: () => void;
  const allReceived = new Promise<void>((r) => (allDone = r));
  let finished = 0;
  const watchAgent = new Agent({ keepAlive: false, ca: [ca] });
  const watchReqs = watchers.map(
    (w) =>
      new Promise<import('node:http').ClientRequest>((resolve) => {
        const req = request(new URL(`/api/v1/namespaces/${NS}/configmaps?watch=true&resourceVersion=${startRv}`, url), { agent: watchAgent, headers }, (res) => {
          resolve(req);
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buf += chunk;
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              const ev = JSON.parse(line);
              const rv = Number(ev.object.metadata.resourceVersion);
              if (ev.type !== 'ADDED' || rv <= w.lastRv) w.inOrder = false;
              w.lastRv = rv;
              w.count++;
              latencies.push(performance.now() - Number(ev.object.metadata.annotations['bench/sent']));
              if (w.count === N && !w.done) {
                w.done = true;
                if (++finished === WATCHERS) allDone();
              }
            }
          });
        });
        req.on('error', () => undefined);
        req.end();
      }),
  );
  const openWatches = await Promise.all(watchReqs);

  // ---- writes
  child.send({ type: 'cpu' });
  const serverCpu0 = ((await next()) as { ms: number }).ms;
  const clientCpu0 = process.cpuUsage();
  const objects = Array.from({ length: N }, (_, i) => payload(i));
  let nextIndex = 0;
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (nextIndex < N) {
        const o = objects[nextIndex++] as any;
        o.metadata.annotations['bench/sent'] = String(performance.now());
        const r = await call('POST', `/api/v1/namespaces/${NS}/configmaps`, JSON.stringify(o));
        if (r.status !== 201) failures++;
      }
    }),
  );
  const writeMs = performance.now() - t0;
  const timeout = setTimeout(() => allDone(), 120000);
  await allReceived;
  clearTimeout(timeout);
  child.send({ type: 'cpu' });
  const serverCpuMs = ((await next()) as { ms: number }).ms - serverCpu0;
  const cu = process.cpuUsage(clientCpu0);
  const clientCpuMs = (cu.user + cu.system) / 1000;
  const deliveredAll = watchers.every((w) => w.count === N);
  const inOrder = watchers.every((w) => w.inOrder);
  for (const req of openWatches) req.destroy();

  // ---- memory of the server process
  child.send({ type: 'mem' });
  const mem = ((await next()) as { mem: Mem }).mem;
  child.send({ type: 'mem', compact: true });
  const memCompacted = ((await next()) as { mem: Mem }).mem;
  // ---- list vs JSON.stringify of the same objects, interleaved so that both see the same load
  // with the CPU time of each side: the wall time of a list is two processes (the server's serialization
  // and TLS writes, the client's TLS reads and buffering) sharing the machine's cores, which a loaded
  // machine makes several times the sum of the two (docs/sandbox.md, "Performance")
  let listMs = Infinity;
  let stringifyMs = Infinity;
  let listServerCpuMs = Infinity;
  let listClientCpuMs = Infinity;
  let stringifyCpuMs = Infinity;
  let jsonBytes = 0;
  let items: unknown[] = [];
  for (let i = 0; i < 5; i++) {
    child.send({ type: 'cpu' });
    const s0 = ((await next()) as { ms: number }).ms;
    const c0 = process.cpuUsage();
    const t = performance.now();
    const r = await call('GET', `/api/v1/namespaces/${NS}/configmaps`);
    listMs = Math.min(listMs, performance.now() - t);
    const cu = process.cpuUsage(c0);
    listClientCpuMs = Math.min(listClientCpuMs, (cu.user + cu.system) / 1000);
    child.send({ type: 'cpu' });
    listServerCpuMs = Math.min(listServerCpuMs, ((await next()) as { ms: number }).ms - s0);
    items = JSON.parse(r.body.toString('utf8')).items as unknown[];
    const t2 = performance.now();
    const sc0 = process.cpuUsage();
    const s = JSON.stringify(items);
    stringifyMs = Math.min(stringifyMs, performance.now() - t2);
    const sc = process.cpuUsage(sc0);
    stringifyCpuMs = Math.min(stringifyCpuMs, (sc.user + sc.system) / 1000);
    jsonBytes = Buffer.byteLength(s);
  }
  const perObjectJson = jsonBytes / items.length;

  child.send({ type: 'mem' });
  const memAfterLists = ((await next()) as { mem: Mem }).mem;
  child.send({ type: 'load' });
  const direct = (await next()) as { before: Mem; after: Mem };
  child.send({ type: 'stop' });
  agent.destroy();
  watchAgent.destroy();

  latencies.sort((a, b) => a - b);
  const rssPer = (mem.rss - baseline.rss) / N;
  const heapPer = (mem.heapUsed - baseline.heapUsed) / N;
  const rssPerCompacted = (memCompacted.rss - baseline.rss) / N;
  const ok = (b: boolean): string => (b ? 'OK' : 'MISSED');
  const f = (n: number, d = 1): string => n.toFixed(d);
  console.log(`sandbox bench: ${N} objects (~${f(perObjectJson / 1024, 2)} KB JSON each as stored), ${WATCHERS} watchers, ${CONCURRENCY} concurrent writers, ${PLAIN ? 'HTTP' : 'HTTPS'}, controllers ${CONTROLLERS ? 'on' : 'off'}`);
  console.log(`writes:           ${f(N / (writeMs / 1000), 0)} writes/s (${f(writeMs, 0)} ms, ${failures} failed); CPU during writes+delivery: server ${f(serverCpuMs, 0)} ms (${f((serverCpuMs * 1000) / N / (1 + WATCHERS), 0)} us per write+fan-out share), clients ${f(clientCpuMs, 0)} ms`);
  console.log(`list all:         ${f(listMs)} ms; JSON.stringify of the same ${items.length} objects: ${f(stringifyMs)} ms; ratio ${f(listMs / stringifyMs, 2)}x (target <= 3x: ${ok(listMs / stringifyMs <= 3)})`);
  console.log(`                  CPU of a list: server ${f(listServerCpuMs)} ms (${f(listServerCpuMs / stringifyCpuMs, 2)}x the CPU of JSON.stringify, ${f(stringifyCpuMs)} ms), client ${f(listClientCpuMs)} ms (best of 5 each)`);
  console.log(`event delivery:   p50 ${f(quantile(latencies, 0.5))} ms, p99 ${f(quantile(latencies, 0.99))} ms over ${latencies.length} deliveries (write sent -> event parsed by the watcher)`);
  console.log(`watchers:         every event delivered: ${deliveredAll ? 'yes' : 'NO'} (${watchers.map((w) => w.count).join(',')}); in order: ${inOrder ? 'yes' : 'NO'} (target: ${ok(deliveredAll && inOrder)})`);
  console.log(`memory (server):  RSS +${f((mem.rss - baseline.rss) / 1048576)} MiB = ${f(rssPer, 0)} B/object = ${f(rssPer / perObjectJson, 2)}x JSON size (target <= 3x: ${ok(rssPer / perObjectJson <= 3)}); heap ${f(heapPer, 0)} B/object = ${f(heapPer / perObjectJson, 2)}x`);
  console.log(`                  deltas: heapTotal ${f((mem.heapTotal - baseline.heapTotal) / 1048576)} MiB, heapUsed ${f((mem.heapUsed - baseline.heapUsed) / 1048576)} MiB, external ${f((mem.external - baseline.external) / 1048576)} MiB`);
  const directPer = (direct.after.rss - direct.before.rss) / N;
  console.log(`                  after the five 30 MB list responses: RSS ${f((memAfterLists.rss - baseline.rss) / N / perObjectJson, 2)}x JSON size (allocator high-water mark of the responses)`);
  console.log(`                  storage alone (${N} more objects loaded in-process, no network): RSS ${f(directPer, 0)} B/object = ${f(directPer / perObjectJson, 2)}x JSON size`);
  console.log(`                  with the watch history compacted: RSS ${f(rssPerCompacted / perObjectJson, 2)}x JSON size`);
  emitFigures([
    { name: 'writes', value: N / (writeMs / 1000), unit: 'writes/s', better: 'higher' },
    { name: `list of ${N} objects`, value: listMs, unit: 'ms', baseline: { what: 'JSON.stringify', value: stringifyMs, unit: 'ms' }, target: { max: 3, of: 'ratio' } },
    { name: 'server CPU of the list', value: listServerCpuMs, unit: 'ms', baseline: { what: 'CPU of JSON.stringify', value: stringifyCpuMs, unit: 'ms' }, target: { max: 3, of: 'ratio' } },
    { name: 'client CPU of the list', value: listClientCpuMs, unit: 'ms', baseline: { what: 'CPU of JSON.stringify', value: stringifyCpuMs, unit: 'ms' } },
    { name: 'event delivery p99', value: quantile(latencies, 0.99), unit: 'ms' },
    { name: 'watchers missing or reordering events', value: watchers.filter((w) => w.count !== N || !w.inOrder).length, unit: `of ${WATCHERS}`, target: { max: 0 } },
    { name: 'server RSS per stored object', value: rssPer, unit: 'B', baseline: { what: 'its JSON', value: perObjectJson, unit: 'B' }, target: { max: 3, of: 'ratio' } },
  ]);
  if (DEPLOYMENTS > 0) {
    const w = await runWorkloads(DEPLOYMENTS);
    for (const line of w.lines) console.log(line);
    emitFigures(w.figures);
  }
}

if (process.argv.includes('--server')) await serverMain();
else await parentMain();
