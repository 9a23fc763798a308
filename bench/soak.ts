/**
 * bench/soak (issue 16; a script, not a report suite): the operator under steady work for N minutes:
 * object changes at a steady rate on the objects its `kubernetes` bindings watch, and an edit of the
 * config ConfigMap (one module's values, in turn) every so often, which reruns that module. Every
 * minute: the operator's resident memory and the length of each of its task queues.
 * Targets: resident memory grows less than 5 % from minutes 5-7 to the last three minutes (means of
 * three samples each); no queue keeps growing (a queue longer at each of the last three samples than
 * at the one before, and not empty). The slope of the second half is printed beside them.
 * The module set and the processes are bench/memory's (bench/cluster.ts), smaller by default.
 *
 *   node --import tsx bench/soak.ts [--minutes 30] [--modules 100] [--bindings 40] [--objects 2000]
 *     [--rate 20] (object changes a second) [--config-every 30] (seconds) [--out FILE] (samples as JSON)
 * Needs dist/ (npm run build). Exit status 1 when a target is missed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../src/kube/http.js';
import { closeConnections } from '../src/kube/connections.js';
import { objectName, procMemory, queueLengths, startCluster, writeModuleSet, type Cluster } from './cluster.js';

const NS = 'soak';
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MINUTES = arg('--minutes', 30);
const MODULES = arg('--modules', 100);
const BINDINGS = Math.min(MODULES, arg('--bindings', 40));
const OBJECTS = arg('--objects', 2000);
const RATE = arg('--rate', 20);
const CONFIG_EVERY = arg('--config-every', 30);
const outIdx = process.argv.indexOf('--out');
const OUT = outIdx > 0 ? resolve(process.argv[outIdx + 1]!) : undefined;
const WARM_MINUTES = 5;

export interface Sample {
  minute: number;
  rssMiB: number;
  queues: Record<string, number>;
  changes: number;
  configEdits: number;
  load: number;
}

/**
 * The verdict on a series of samples: the growth of resident memory from the warm-up's end to the end
 * (the mean of the three samples from minute `warmMinutes` on against the mean of the last three: one
 * sample falls wherever the last garbage collection left the heap), its slope over the second half
 * (least squares, MiB a minute), and the queues that keep growing.
 */
export function judge(samples: Sample[], warmMinutes = WARM_MINUTES): { growth?: number; slopeMiBPerMin?: number; growing: string[] } {
  const mean = (xs: Sample[]) => xs.reduce((a, s) => a + s.rssMiB, 0) / xs.length;
  const warm = samples.filter((s) => s.minute >= warmMinutes).slice(0, 3);
  const last = samples.slice(-3);
  const growth = warm.length === 3 && last[0]!.minute > warm[2]!.minute ? mean(last) / mean(warm) - 1 : undefined;
  const half = samples.slice(Math.floor(samples.length / 2));
  let slopeMiBPerMin: number | undefined;
  if (half.length >= 3) {
    const mx = half.reduce((a, s) => a + s.minute, 0) / half.length;
    const my = mean(half);
    const num = half.reduce((a, s) => a + (s.minute - mx) * (s.rssMiB - my), 0);
    const den = half.reduce((a, s) => a + (s.minute - mx) ** 2, 0);
    slopeMiBPerMin = num / den;
  }
  const growing: string[] = [];
  const tail = samples.slice(-4);
  if (tail.length === 4) {
    for (const q of Object.keys(tail[3]!.queues)) {
      const n = tail.map((s) => s.queues[q] ?? 0);
      if (n[3]! > 0 && n[1]! > n[0]! && n[2]! > n[1]! && n[3]! > n[2]!) growing.push(q);
    }
  }
  return { growth, slopeMiBPerMin, growing };
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-soak-'));
  let cluster: Cluster | undefined;
  const samples: Sample[] = [];
  try {
    const set = writeModuleSet(root, { modules: MODULES, bindings: BINDINGS, objects: OBJECTS, namespace: NS });
    cluster = await startCluster(set);
    const c = cluster;
    const kc = new KubeConfig();
    kc.loadFromFile(c.kubeconfig);
    console.log(`bench/soak: ${MINUTES} min; ${MODULES} modules, ${BINDINGS} kubernetes bindings over ${OBJECTS} ConfigMaps; ${RATE} changes/s, a config edit every ${CONFIG_EVERY} s`);
    const started = procMemory(c.operator.pid!);
    console.log(`  after the first converge: RSS ${started.rssMiB.toFixed(1)} MiB`);

    let changes = 0;
    let configEdits = 0;
    let failures = 0;
    const end = Date.now() + MINUTES * 60_000;
    // object changes: RATE a second, each object in turn
    const changer = (async () => {
      let i = 0;
      const t0 = Date.now();
      while (Date.now() < end) {
        const due = Math.floor(((Date.now() - t0) / 1000) * RATE);
        const batch: Promise<unknown>[] = [];
        for (; i < due; i++) {
          const n = i;
          batch.push(
            requestJson(kc, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/${objectName(n % OBJECTS)}`, {}, { data: { version: String(n) } }, 'application/merge-patch+json').then(
              () => changes++,
              () => failures++,
            ),
          );
        }
        await Promise.all(batch);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // config edits: module k's replicas in the config ConfigMap, k in turn
    const editor = (async () => {
      let k = 0;
      const path = `/api/v1/namespaces/${NS}/configmaps/addon-operator`;
      while (Date.now() + CONFIG_EVERY * 1000 < end) {
        await new Promise((r) => setTimeout(r, CONFIG_EVERY * 1000));
        const key = set.key(k % MODULES);
        const data = { [key]: `replicas: ${2 + (Math.floor(k / MODULES) % 3)}\n` };
        try {
          await requestJson(kc, 'PATCH', path, {}, { data }, 'application/merge-patch+json');
        } catch {
          await requestJson(kc, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: NS }, data });
        }
        configEdits++;
        k++;
      }
    })();
    for (let minute = 1; minute <= MINUTES; minute++) {
      await new Promise((r) => setTimeout(r, Math.max(0, end - (MINUTES - minute) * 60_000 - Date.now())));
      const s: Sample = { minute, rssMiB: procMemory(c.operator.pid!).rssMiB, queues: await queueLengths(c.port), changes, configEdits, load: loadavg()[0]! };
      samples.push(s);
      const queues = Object.entries(s.queues)
        .map(([q, n]) => `${q} ${n}`)
        .join(', ');
      console.log(`  minute ${String(minute).padStart(2)}: RSS ${s.rssMiB.toFixed(1)} MiB; queues: ${queues}; ${changes} changes, ${configEdits} config edits so far; load ${s.load.toFixed(1)}`);
      if (OUT) writeFileSync(OUT, `${JSON.stringify({ minutes: MINUTES, modules: MODULES, bindings: BINDINGS, objects: OBJECTS, rate: RATE, configEvery: CONFIG_EVERY, samples }, null, 1)}\n`);
    }
    await Promise.all([changer, editor]);
    closeConnections(kc);
    const { growth, slopeMiBPerMin, growing } = judge(samples);
    const peak = procMemory(c.operator.pid!).hwmMiB;
    console.log(
      `  resident memory: ${growth === undefined ? `not judged (runs under ${WARM_MINUTES + 5} minutes)` : `${(growth * 100).toFixed(1)} % from minutes ${WARM_MINUTES}-${WARM_MINUTES + 2} to the last three (target < 5 %)`}; ` +
        `slope over the second half ${slopeMiBPerMin === undefined ? '-' : `${slopeMiBPerMin.toFixed(2)} MiB/min`}; peak ${peak.toFixed(1)} MiB; ` +
        `queues that keep growing: ${growing.length ? growing.join(', ') : 'none'}; ${failures} change requests failed`,
    );
    if ((growth !== undefined && growth >= 0.05) || growing.length || failures) process.exitCode = 1;
  } catch (e) {
    if (cluster) console.error(cluster.stderr());
    throw e;
  } finally {
    await cluster?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
