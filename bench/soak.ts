/**
 * bench/soak (issue 16; a script, not a report suite): the operator under steady work for N minutes:
 * object changes at a steady rate on the objects its `kubernetes` bindings watch, and an edit of the
 * config ConfigMap (one module's values, in turn) every so often, which reruns that module. The
 * operator's resident memory every `--sample-every` seconds (10), and every minute the length of each
 * of its task queues.
 * Targets: resident memory grows less than 5 % after the warm-up (5 minutes): the median of the RSS
 * samples of the last `--window` minutes (5) against the median of those of the first window after
 * the warm-up. V8's collections make the RSS a saw-tooth, so a single reading (or a mean of three)
 * lands anywhere on a tooth; the median of 30 samples does not. Beside it, the trend: the Theil-Sen
 * slope (the median of the slopes between every two minutes) of the per-minute medians after the
 * warm-up, in MiB a minute and as a growth over the judged span. No queue keeps growing (a queue longer
 * at each of the last three minutes than at the one before, and not empty).
 * The module set and the processes are bench/memory's (bench/cluster.ts), smaller by default; the
 * operator runs as it ships (the bin's shebang line: its environment and flags).
 *
 *   node --import tsx bench/soak.ts [--minutes 30] [--modules 100] [--bindings 40] [--objects 2000]
 *     [--rate 20] (object changes a second) [--config-every 30] (seconds) [--sample-every 10] (seconds)
 *     [--window 5] (minutes) [--out FILE] (samples as JSON)
 *     [--operator-node-flags '--trace-gc ...'] [--operator-log FILE] (the operator's stdout after its first
 *       converge: with --trace-gc, the live heap after each full collection, to tell a leak from the heap's layout)
 * Needs dist/ (npm run build). Exit status 1 when a target is missed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../src/kube/http.js';
import { closeConnections } from '../src/kube/connections.js';
import { objectName, procMemory, queueLengths, describeCommand, operatorCommand, shipped, startCluster, writeModuleSet, type Cluster } from './cluster.js';

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
const SAMPLE_EVERY = arg('--sample-every', 10);
const WINDOW = arg('--window', 5);
const outIdx = process.argv.indexOf('--out');
const OUT = outIdx > 0 ? resolve(process.argv[outIdx + 1]!) : undefined;
const flagIdx = process.argv.indexOf('--operator-node-flags');
const OPERATOR_FLAGS = flagIdx > 0 ? process.argv[flagIdx + 1]!.split(' ').filter(Boolean) : [];
const logIdx = process.argv.indexOf('--operator-log');
const OPERATOR_LOG = logIdx > 0 ? resolve(process.argv[logIdx + 1]!) : undefined;
const WARM_MINUTES = 5;

/** One reading of the operator's resident memory, `s` seconds after the soak began. */
export interface RssSample {
  s: number;
  rssMiB: number;
}

/** One minute: the median, lowest and highest of its RSS samples, and the queue lengths at its end. */
export interface Sample {
  minute: number;
  rssMiB: number;
  rssMinMiB: number;
  rssMaxMiB: number;
  queues: Record<string, number>;
  changes: number;
  configEdits: number;
  load: number;
}

export function median(xs: number[]): number {
  const v = [...xs].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

/** The Theil-Sen slope of points (x, y): the median of the slopes between every two points; robust to a few outliers. */
export function theilSen(points: { x: number; y: number }[]): number | undefined {
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++) for (let j = i + 1; j < points.length; j++) if (points[j]!.x !== points[i]!.x) slopes.push((points[j]!.y - points[i]!.y) / (points[j]!.x - points[i]!.x));
  return slopes.length ? median(slopes) : undefined;
}

export interface Verdict {
  /** The median RSS of the last window against that of the first window after the warm-up, minus 1. */
  growth?: number;
  first?: { from: number; to: number; medianMiB: number; samples: number };
  last?: { from: number; to: number; medianMiB: number; samples: number };
  /** The Theil-Sen slope of the per-minute medians after the warm-up. */
  slopeMiBPerMin?: number;
  /** That slope over the span from the first window's middle to the last's, against the first window's median. */
  trend?: number;
  growing: string[];
}

/**
 * The verdict on a soak: `rss` the dense RSS samples, `minutes` the per-minute samples (queues), the
 * run `totalMinutes` long. Growth is not judged when the last window would overlap the first one.
 */
export function judge(rss: RssSample[], minutes: Sample[], totalMinutes: number, o: { warmMinutes?: number; windowMinutes?: number } = {}): Verdict {
  const warm = o.warmMinutes ?? WARM_MINUTES;
  const window = o.windowMinutes ?? WINDOW;
  const v: Verdict = { growing: [] };
  const inSpan = (from: number, to: number) => rss.filter((r) => r.s >= from * 60 && r.s <= to * 60).map((r) => r.rssMiB);
  if (totalMinutes - window >= warm + window) {
    const a = inSpan(warm, warm + window);
    const b = inSpan(totalMinutes - window, totalMinutes);
    if (a.length >= 3 && b.length >= 3) {
      v.first = { from: warm, to: warm + window, medianMiB: median(a), samples: a.length };
      v.last = { from: totalMinutes - window, to: totalMinutes, medianMiB: median(b), samples: b.length };
      v.growth = v.last.medianMiB / v.first.medianMiB - 1;
    }
  }
  const after = minutes.filter((m) => m.minute > warm).map((m) => ({ x: m.minute, y: m.rssMiB }));
  if (after.length >= 3) {
    v.slopeMiBPerMin = theilSen(after);
    if (v.first && v.last && v.slopeMiBPerMin !== undefined) v.trend = (v.slopeMiBPerMin * (totalMinutes - warm - window)) / v.first.medianMiB;
  }
  const tail = minutes.slice(-4);
  if (tail.length === 4) {
    for (const q of Object.keys(tail[3]!.queues)) {
      const n = tail.map((s) => s.queues[q] ?? 0);
      if (n[3]! > 0 && n[1]! > n[0]! && n[2]! > n[1]! && n[3]! > n[2]!) v.growing.push(q);
    }
  }
  return v;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-soak-'));
  let cluster: Cluster | undefined;
  try {
    const set = writeModuleSet(root, { modules: MODULES, bindings: BINDINGS, objects: OBJECTS, namespace: NS });
    cluster = await startCluster(set, { nodeFlags: OPERATOR_FLAGS, logFile: OPERATOR_LOG });
    const c = cluster;
    const kc = new KubeConfig();
    kc.loadFromFile(c.kubeconfig);
    console.log(`bench/soak: ${MINUTES} min; ${MODULES} modules, ${BINDINGS} kubernetes bindings over ${OBJECTS} ConfigMaps; ${RATE} changes/s, a config edit every ${CONFIG_EVERY} s; RSS every ${SAMPLE_EVERY} s; the operator as it ships: ${describeCommand(shipped())}`);
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
    // RSS every SAMPLE_EVERY seconds; at each minute's end the queues, and the minute's line
    const soakStart = end - MINUTES * 60_000;
    const rss: RssSample[] = [];
    const minutes: Sample[] = [];
    const save = () => {
      if (OUT) writeFileSync(OUT, `${JSON.stringify({ minutes: MINUTES, modules: MODULES, bindings: BINDINGS, objects: OBJECTS, rate: RATE, configEvery: CONFIG_EVERY, sampleEvery: SAMPLE_EVERY, window: WINDOW, command: describeCommand(operatorCommand({ nodeFlags: OPERATOR_FLAGS })), perMinute: minutes, rss }, null, 1)}\n`);
    };
    const perMinute = Math.round(60 / SAMPLE_EVERY);
    for (let k = 1; k <= MINUTES * perMinute; k++) {
      await new Promise((r) => setTimeout(r, Math.max(0, soakStart + (k * 60_000) / perMinute - Date.now())));
      rss.push({ s: Math.round((Date.now() - soakStart) / 100) / 10, rssMiB: procMemory(c.operator.pid!).rssMiB });
      if (k % perMinute) continue;
      const minute = k / perMinute;
      const mine = rss.slice(-perMinute).map((r) => r.rssMiB);
      const s: Sample = { minute, rssMiB: median(mine), rssMinMiB: Math.min(...mine), rssMaxMiB: Math.max(...mine), queues: await queueLengths(c.port), changes, configEdits, load: loadavg()[0]! };
      minutes.push(s);
      const queues = Object.entries(s.queues)
        .map(([q, n]) => `${q} ${n}`)
        .join(', ');
      console.log(`  minute ${String(minute).padStart(2)}: RSS median ${s.rssMiB.toFixed(1)} MiB [${s.rssMinMiB.toFixed(1)}-${s.rssMaxMiB.toFixed(1)}] of ${mine.length} samples; queues: ${queues}; ${changes} changes, ${configEdits} config edits so far; load ${s.load.toFixed(1)}`);
      save();
    }
    await Promise.all([changer, editor]);
    closeConnections(kc);
    const { growth, first, last, slopeMiBPerMin, trend, growing } = judge(rss, minutes, MINUTES);
    const peak = procMemory(c.operator.pid!).hwmMiB;
    const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;
    console.log(
      `  resident memory: ${growth === undefined || !first || !last ? `not judged (runs under ${WARM_MINUTES + 2 * WINDOW} minutes)` : `${pct(growth)}: median ${last.medianMiB.toFixed(1)} MiB of ${last.samples} samples in minutes ${last.from}-${last.to} against ${first.medianMiB.toFixed(1)} MiB of ${first.samples} in minutes ${first.from}-${first.to} (target < 5 %)`}; ` +
        `trend after minute ${WARM_MINUTES} (Theil-Sen on the per-minute medians) ${slopeMiBPerMin === undefined ? '-' : `${slopeMiBPerMin.toFixed(2)} MiB/min${trend === undefined ? '' : `, ${pct(trend)} over the judged span`}`}; peak ${peak.toFixed(1)} MiB; ` +
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
