/**
 * bench/kube-events: a hook's `kubernetes` binding over 10,000 ConfigMaps of about 3 KB, with
 * `jqFilter: .metadata.labels` and `keepFullObjectsInMemory: false` (issue 13):
 * - Synchronization: the monitor's start() (list, filter, snapshot) against a bare list and JSON
 *   parse of the same objects in the same run (target ≤ 3×); jq's share: the filter alone;
 * - retained memory per object after the sync (target ≤ 2 × the filter result's JSON size + 300
 *   bytes); jq's share: the filter results alone;
 * - event-to-callback latency at 500 events/s: from the change written in the API server to the
 *   monitor's event (what queues the hook's task), p50 and p99 (target p99 ≤ 100 ms); jq's share: the
 *   filter's time per event.
 * The sandbox runs in a child process, so that its work does not share the measured event loop.
 *
 *   node --expose-gc --import tsx bench/kube-events.ts [--objects N] [--seconds S]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox } from '../src/sandbox/index.js';
import { requestJson } from '../src/kube/http.js';
import { closeConnections } from '../src/kube/connections.js';
import { RestMapper } from '../src/kube/mapper.js';
import { KubeMonitors } from '../src/kube/binding-monitor.js';
import { parseHookConfigSync } from '../src/hooks/config.js';
import { filterObjects } from '../src/hooks/snapshot.js';
import type { KubeObject } from '../src/kube/informer.js';
import { emitFigures } from './figures.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg('--objects', 10_000);
const SECONDS = arg('--seconds', 10);
const RATE = 500;
const NS = 'bench';
const PATH = `/api/v1/namespaces/${NS}/configmaps`;

/** A ConfigMap of about 3 KB with a few labels. */
function configMap(i: number): Record<string, unknown> {
  const data: Record<string, string> = {};
  for (let k = 0; k < 10; k++) data[`key-${k}.yaml`] = `setting-${k}: ${'x'.repeat(240)}-${i}\n`;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: NS, labels: { app: `app-${i % 50}`, tier: i % 2 ? 'backend' : 'frontend', index: String(i) }, annotations: { 'example.com/owner': `team-${i % 7}` } },
    data,
  };
}

async function best<T>(reps: number, fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  let ms = Infinity;
  let value!: T;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    value = await fn();
    ms = Math.min(ms, performance.now() - t0);
  }
  return { ms, value };
}

const gc = (globalThis as { gc?: () => void }).gc;
/** The heap after full collections with turns of the event loop between them (a collection in the same turn keeps freshly freed buffers). */
async function heap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  return process.memoryUsage().heapUsed;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main(): Promise<void> {
  if (!gc) console.log('note: run with --expose-gc for the memory figures');
  const child: ChildProcess = fork(new URL(import.meta.url).pathname, ['--server', '--objects', String(N)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const messages: Array<Record<string, unknown>> = [];
  let wake: (() => void) | undefined;
  child.on('message', (m: Record<string, unknown>) => {
    messages.push(m);
    wake?.();
  });
  const next = async (key: string) => {
    for (;;) {
      const m = messages.find((x) => key in x);
      if (m) return m;
      await new Promise<void>((r) => (wake = r));
    }
  };
  const { kubeconfig } = (await next('kubeconfig')) as { kubeconfig: string };
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const mapper = new RestMapper(kc);
  const monitors = new KubeMonitors({ kc, resolve: (v, k) => mapper.resolve(v, k) });
  const binding = parseHookConfigSync(
    { configVersion: 'v1', kubernetes: [{ name: 'cms', apiVersion: 'v1', kind: 'ConfigMap', namespace: { nameSelector: { matchNames: [NS] } }, jqFilter: '.metadata.labels', keepFullObjectsInMemory: false }] },
    { hookPath: 'bench/hook', kind: 'global' },
  ).kubernetes[0]!;
  await mapper.resolve('v1', 'ConfigMap');

  // the bare list and parse, then the filter alone on its objects
  const list = await best(3, () => requestJson<{ items: KubeObject[] }>(kc, 'GET', PATH));
  const items = list.value.items;
  const bytes = JSON.stringify(list.value).length;
  const filter = await best(3, () => filterObjects(binding, items));
  const resultBytes = filter.value.reduce((s, o) => s + (o.ok ? JSON.stringify(o.item.filterResult).length : 0), 0) / N;

  // jq's share of the memory: the filter results alone
  const jqBytesPerObject = await (async () => {
    const before0 = await heap();
    const kept = filterObjects(binding, items).map((o) => (o.ok ? o.item : undefined));
    const bytes = ((await heap()) - before0) / N;
    // kept is alive until here
    if (kept.length !== items.length) throw new Error('the filter lost objects');
    return bytes;
  })();
  list.value = undefined as never;
  filter.value = undefined as never;
  const itemCount = items.length;
  items.length = 0;

  // Synchronization: a monitor's start(), best of 3 (each stopped before the next)
  const sync = await best(3, async () => {
    const m = monitors.createMonitor(binding, { label: 'bench', onEvent: () => undefined });
    await m.start();
    await m.stop();
  });

  // retained memory of a live monitor
  const before = await heap();
  const latencies: number[] = [];
  const monitor = monitors.createMonitor(binding, {
    label: 'bench',
    onEvent: (e) => {
      const t = Number((e.item.filterResult as Record<string, string> | undefined)?.t);
      if (t) latencies.push(performance.timeOrigin + performance.now() - t);
    },
  });
  await monitor.start();
  const snapshotSize = monitor.snapshot().length;
  const retained = ((await heap()) - before) / N;

  child.send({ mutate: { rate: RATE, seconds: SECONDS } });
  const { mutated } = (await next('mutated')) as { mutated: number };
  const end = Date.now() + 10_000;
  while (latencies.length < mutated && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  await monitor.stop();
  child.send({ stop: true });
  closeConnections(kc);

  const sorted = [...latencies].sort((a, b) => a - b);
  const jqPerEvent = filter.ms / itemCount;
  const f = (n: number, d = 1) => n.toFixed(d);
  console.log(`bench/kube-events: ${itemCount} ConfigMaps, ${f(bytes / itemCount / 1024, 2)} KB each as JSON; jqFilter .metadata.labels, keepFullObjectsInMemory false; machine load ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`Synchronization: ${f(sync.ms)} ms; bare list + JSON parse ${f(list.ms)} ms; ratio ${f(sync.ms / list.ms, 2)}× (target ≤ 3×); jq ${f(filter.ms)} ms of it (${f((100 * filter.ms) / sync.ms)} %); snapshot ${snapshotSize} items`);
  if (gc) {
    const target = 2 * resultBytes + 300;
    console.log(`retained memory: ${f(retained, 0)} B per object; filter result ${f(resultBytes, 0)} B as JSON; target ≤ ${f(target, 0)} B; the filter results alone ${f(jqBytesPerObject, 0)} B (${f((100 * jqBytesPerObject) / retained)} %)`);
  }
  console.log(`event → monitor callback at ${RATE}/s for ${SECONDS} s: ${latencies.length}/${mutated} events, p50 ${f(pct(sorted, 50), 2)} ms, p99 ${f(pct(sorted, 99), 2)} ms, max ${f(sorted[sorted.length - 1] ?? NaN, 2)} ms (target p99 ≤ 100 ms); jq ${f(jqPerEvent * 1000, 1)} µs per event`);
  emitFigures([
    { name: 'Synchronization', value: sync.ms, unit: 'ms', baseline: { what: 'bare list + JSON parse', value: list.ms, unit: 'ms' }, target: { max: 3, of: 'ratio' } },
    ...(gc ? [{ name: 'retained memory per object', value: retained, unit: 'B', target: { max: 2 * resultBytes + 300 }, note: 'target: 2 × the filter result + 300 B' }] : []),
    { name: 'event → callback p99', value: pct(sorted, 99), unit: 'ms', target: { max: 100 } },
    { name: 'events delivered', value: latencies.length, unit: `of ${mutated}`, better: 'higher', target: { min: mutated } },
  ]);
}

// ---- the child: the sandbox, and the changes at RATE a second on request
async function serve(): Promise<void> {
  const sandbox = await startSandbox();
  sandbox.load([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }]);
  for (let i = 0; i < N; i += 500) sandbox.load(Array.from({ length: Math.min(500, N - i) }, (_, j) => configMap(i + j)));
  process.send!({ kubeconfig: sandbox.kubeconfigPath });
  process.on('message', (m: { mutate?: { rate: number; seconds: number }; stop?: boolean }) => {
    if (m.stop) void sandbox.stop().then(() => process.exit(0));
    if (!m.mutate) return;
    const { rate, seconds } = m.mutate;
    // every 10 ms, rate/100 objects get a label with the time of the write
    const perTick = Math.max(1, Math.round(rate / 100));
    let seq = 0;
    const total = rate * seconds;
    const tick = setInterval(() => {
      const objs = [];
      for (let k = 0; k < perTick && seq < total; k++, seq++) {
        const o = configMap(seq % N) as { metadata: { labels: Record<string, string> } };
        o.metadata.labels.t = (performance.timeOrigin + performance.now()).toFixed(3);
        objs.push(o);
      }
      sandbox.load(objs);
      if (seq >= total) {
        clearInterval(tick);
        process.send!({ mutated: seq });
      }
    }, 10);
  });
}


if (process.argv.includes('--server')) await serve();
else await main();
