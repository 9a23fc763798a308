/**
 * bench/memory (issue 16): the operator's resident memory with 100 modules loaded and 10,000 objects
 * watched through 40 `kubernetes` bindings, after the full sync (the first converge done and every
 * queue empty) and after 10,000 more events (each object changed once, every queue empty again).
 * Target: under 150 MB both times (the Go operator in Deckhouse: about 300 MB idle, 1.5-2 GB under load).
 *
 * The API server and the operator are processes of their own, started from dist/ (npm run build), as
 * on a cluster (bench/cluster.ts, which also describes the module set: each object is watched by 4 of
 * the 40 bindings); the resident memory is the operator process's VmRSS (and VmHWM, its peak) from /proc,
 * and its CPU time (user + system) for the sync and for the events, which V8 settings trade against it.
 *
 *   node --import tsx bench/memory.ts [--modules 100] [--bindings 40] [--objects 10000] [--events N]
 *     [--no-full-objects] (keepFullObjectsInMemory: false; default true, as shell-operator's default)
 *     [--settle 40] (seconds idle before the second reading of each phase: the operator collects its garbage
 *       once idle for 3 s, at most every 30 s)
 *     [--heap-snapshot DIR]   (a heap snapshot of the operator after the sync and after the events)
 *     [--operator-node-flags '--trace-gc ...'] [--operator-log FILE]   (the operator's stdout after its first converge)
 *     [--v8-defaults]   (with Node's and glibc's defaults: without the environment and the flags of the bin's
 *       shebang line; by default the operator runs as it ships, with them)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../src/kube/http.js';
import { closeConnections } from '../src/kube/connections.js';
import { emitFigures } from './figures.js';
import { SHARDS, objectName, procCpuMs, procMemory, queueLengths, queuesEmpty, describeCommand, operatorCommand, startCluster, writeModuleSet, type Cluster } from './cluster.js';

const NS = 'memory';
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MODULES = arg('--modules', 100);
const BINDINGS = Math.min(MODULES, arg('--bindings', 40));
const OBJECTS = arg('--objects', 10_000);
const EVENTS = arg('--events', OBJECTS);
const snapIdx = process.argv.indexOf('--heap-snapshot');
const SNAPSHOT_DIR = snapIdx > 0 ? resolve(process.argv[snapIdx + 1]!) : undefined;
const FULL_OBJECTS = !process.argv.includes('--no-full-objects');
const flagIdx = process.argv.indexOf('--operator-node-flags');
const OPERATOR_FLAGS = flagIdx > 0 ? process.argv[flagIdx + 1]!.split(' ').filter(Boolean) : [];
const SETTLE_S = arg('--settle', 40);
const logIdx = process.argv.indexOf('--operator-log');
const OPERATOR_LOG = logIdx > 0 ? resolve(process.argv[logIdx + 1]!) : undefined;
const V8_DEFAULTS = process.argv.includes('--v8-defaults');

async function heapSnapshot(operator: ChildProcess, label: string): Promise<void> {
  if (!SNAPSHOT_DIR) return;
  const before = new Set(readdirSync(SNAPSHOT_DIR));
  operator.kill('SIGUSR2');
  const end = Date.now() + 300_000;
  for (;;) {
    const fresh = readdirSync(SNAPSHOT_DIR).filter((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    // the file is complete when its size stops changing
    if (fresh.length) {
      const f = join(SNAPSHOT_DIR, fresh[0]!);
      const size = () => statSync(f).size;
      const a = size();
      await new Promise((r) => setTimeout(r, 2000));
      if (a > 0 && a === size()) {
        console.log(`  heap snapshot ${label}: ${f}`);
        return;
      }
    }
    if (Date.now() > end) throw new Error('the heap snapshot did not appear');
    await new Promise((r) => setTimeout(r, 500));
  }
}

const parts = (m: { anonMiB: number; fileMiB: number }) => `anonymous ${m.anonMiB.toFixed(1)} MiB, files ${m.fileMiB.toFixed(1)} MiB`;

/** The sum of the operator's task waits in queues (s) and its module hook runs so far, from /metrics. */
async function waits(port: number): Promise<{ waitS: number; runs: number }> {
  const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
  const sum = (re: RegExp) => [...text.matchAll(re)].reduce((a, m) => a + Number(m[1]), 0);
  return { waitS: sum(/^addon_operator_task_wait_in_queue_seconds_total\{[^}]*\} (\S+)$/gm), runs: sum(/^addon_operator_module_hook_run_seconds_count\{[^}]*\} (\S+)$/gm) };
}

/** The RSS after SETTLE_S seconds of nothing to do (the operator collects its garbage when idle: src/operator/idle-gc.ts). */
async function idleRss(pid: number): Promise<number> {
  await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
  const m = procMemory(pid);
  console.log(`  then ${SETTLE_S} s idle: RSS ${m.rssMiB.toFixed(1)} MiB (${parts(m)})`);
  return m.rssMiB;
}

async function main(): Promise<void> {
  if (SNAPSHOT_DIR) mkdirSync(SNAPSHOT_DIR, { recursive: true });
  const root = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  let cluster: Cluster | undefined;
  try {
    const set = writeModuleSet(root, { modules: MODULES, bindings: BINDINGS, objects: OBJECTS, namespace: NS, fullObjects: FULL_OBJECTS });
    const t0 = performance.now();
    cluster = await startCluster(set, { v8Defaults: V8_DEFAULTS, nodeFlags: [...OPERATOR_FLAGS, ...(SNAPSHOT_DIR ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${SNAPSHOT_DIR}`] : [])], logFile: OPERATOR_LOG });
    const { operator, port } = cluster;
    await queuesEmpty(port, 900_000);
    const syncMs = performance.now() - t0;
    const afterSync = procMemory(operator.pid!);
    const syncCpuMs = procCpuMs(operator.pid!);
    console.log(`bench/memory: ${MODULES} modules, ${BINDINGS} kubernetes bindings over ${OBJECTS} ConfigMaps (${SHARDS} shards, each watched by ${BINDINGS / SHARDS} bindings), keepFullObjectsInMemory ${FULL_OBJECTS}; load ${loadavg()[0]!.toFixed(1)}`);
    const how = describeCommand(operatorCommand({ bare: V8_DEFAULTS, nodeFlags: OPERATOR_FLAGS }));
    console.log(`  the operator started ${V8_DEFAULTS ? "with Node's and glibc's defaults (--v8-defaults), not as it ships" : "as it ships (the bin's shebang line)"}: ${how}`);
    console.log(`  after the full sync (${(syncMs / 1000).toFixed(1)} s from spawn, operator CPU ${(syncCpuMs / 1000).toFixed(2)} s): RSS ${afterSync.rssMiB.toFixed(1)} MiB (target < 150 MB; ${parts(afterSync)})`);
    const syncIdle = await idleRss(operator.pid!);
    await heapSnapshot(operator, 'after the sync');

    // EVENTS changes: each object's data.version, 16 requests at a time
    const kc = new KubeConfig();
    kc.loadFromFile(cluster.kubeconfig);
    let next = 0;
    // the longest the task queues get while the events come (a backlog keeps binding contexts alive)
    let maxQueued = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const total = Object.values(await queueLengths(port)).reduce((a, n) => a + n, 0);
        maxQueued = Math.max(maxQueued, total);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const waitsBefore = await waits(port);
    const t1 = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < EVENTS) {
          const i = next++;
          await requestJson(kc, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/${objectName(i % OBJECTS)}`, {}, { data: { version: String(1 + Math.floor(i / OBJECTS)) } }, 'application/merge-patch+json');
        }
      }),
    );
    closeConnections(kc);
    await queuesEmpty(port, 900_000);
    sampling = false;
    await sampler;
    const eventsMs = performance.now() - t1;
    const waitsAfter = await waits(port);
    const meanWaitMs = ((waitsAfter.waitS - waitsBefore.waitS) / Math.max(1, waitsAfter.runs - waitsBefore.runs)) * 1000;
    const afterEvents = procMemory(operator.pid!);
    const eventsCpuMs = procCpuMs(operator.pid!) - syncCpuMs;
    console.log(`  after ${EVENTS} more events (${(eventsMs / 1000).toFixed(1)} s until every queue was empty, operator CPU ${(eventsCpuMs / 1000).toFixed(2)} s): RSS ${afterEvents.rssMiB.toFixed(1)} MiB, peak ${afterEvents.hwmMiB.toFixed(1)} MiB (target < 150 MB; ${parts(afterEvents)}); at most ${maxQueued} tasks queued at a scrape; ${waitsAfter.runs - waitsBefore.runs} hook runs waited ${meanWaitMs.toFixed(1)} ms in their queue on average`);
    await heapSnapshot(operator, 'after the events');
    const eventsIdle = await idleRss(operator.pid!);
    const MB = 1e6 / 1048576;
    emitFigures([
      { name: 'operator RSS after the full sync', value: afterSync.rssMiB, unit: 'MiB', target: { max: 150 * MB }, note: `${MODULES} modules, ${BINDINGS} bindings, ${OBJECTS} objects${FULL_OBJECTS ? '' : ', keepFullObjectsInMemory false'}, ${V8_DEFAULTS ? "V8's defaults" : 'node flags as shipped'}` },
      { name: 'operator RSS after the events', value: afterEvents.rssMiB, unit: 'MiB', target: { max: 150 * MB }, note: `${EVENTS} events` },
      { name: `operator RSS after the sync, then ${SETTLE_S} s idle`, value: syncIdle, unit: 'MiB', target: { max: 150 * MB } },
      { name: `operator RSS after the events, then ${SETTLE_S} s idle`, value: eventsIdle, unit: 'MiB', target: { max: 150 * MB } },
      { name: 'operator peak RSS', value: afterEvents.hwmMiB, unit: 'MiB' },
      { name: 'operator CPU from spawn to the end of the sync', value: syncCpuMs, unit: 'ms' },
      { name: 'operator CPU for the events', value: eventsCpuMs, unit: 'ms' },
    ]);
  } catch (e) {
    if (cluster) console.error(cluster.stderr());
    throw e;
  } finally {
    await cluster?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
