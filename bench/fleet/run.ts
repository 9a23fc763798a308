/**
 * bench/fleet: the cold converge of a generated fleet (generate.ts; 100 modules × 30 objects × 5
 * hooks by default) with the API server as its own process (`addon-operator sandbox`) and the
 * operator as another (`addon-operator start --kube-config ...`), as on a cluster. Reports the time
 * from the operator's spawn to its 'startup converge done' log line, the operator's CPU (its own and
 * its hooks'), its peak resident memory, and the TLS handshakes it made. Targets (issue 22): under
 * 10 s with --parallel-module-runs 4, under 15 s with the default; under 40 ms of operator CPU per
 * module; under 150 MiB peak; one handshake per pooled socket.
 *
 * Run (builds dist/ first): node --import tsx bench/fleet/run.ts [--modules 100] [--objects 30]
 *   [--parallel N]... [--rounds 1] [--kube-client-qps N] [--operator-node-flags 'FLAGS'] [--v8-defaults] [--cpu-prof DIR] [--heap-snapshot DIR] [--log PREFIX] [--controllers none] [--no-build] [--keep]
 * --log PREFIX writes each run's operator log to PREFIX-<parallel>-<round>.jsonl.
 * --controllers SET: the sandbox's simulated controllers (`all`: Deployments roll out, so the module
 * health follows their status events; default `none`, the operator's cost against a store).
 * With --cpu-prof each run also prints the module health's share of the operator's profile
 * (profile-share.ts; issue 33's target: at most +5 % operator CPU).
 * Each --parallel value is one run (`--parallel 1 --parallel 4` compares both on one machine state).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../../src/kube/http.js';
import { closeConnections } from '../../src/kube/connections.js';
import { procMemory, stopChild, waitForLine } from '../processes.js';
import { describeCommand, operatorCommand } from '../cluster.js';
import { generateFleet, type Fleet, type FleetShape } from './generate.js';
import { isHealthFrame, profileShare } from './profile-share.js';

const REPO = resolve(import.meta.dirname, '../..');
const CLI = join(REPO, 'dist/cli/main.js');
const CLK_TCK = 100;

export interface FleetRun {
  parallel: number;
  /** The operator's process id (its --cpu-prof file is named with it). */
  operatorPid: number;
  convergeMs: number;
  /** From the spawn to the 'modules discovered' line: Node, the operator's code, every hook loaded (--config runs). */
  startMs: number;
  /** CPU of the operator process itself. */
  operatorCpuMs: number;
  /** The part of it until the 'modules discovered' line (start-up, every hook loaded). */
  startCpuMs: number;
  /** The part of it on the main (JavaScript) thread; the rest is V8's workers and libuv's pool. */
  mainThreadCpuMs: number;
  /**
   * CPU of the hook processes: the spawner helper's reaped children (/proc cutime + cstime; the hooks
   * are the operator's grandchildren, so the operator's own cutime does not count them), and of the
   * helper itself.
   */
  hooksCpuMs: number;
  helperCpuMs: number;
  sandboxCpuMs: number;
  peakRssMiB: number;
  handshakes: number;
  sockets: number;
  objects: number;
}

function procCpuMs(pid: number, stat = readFileSync(`/proc/${pid}/stat`, 'utf8')): { self: number; children: number } {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields 14-17 of proc(5), counted from the state field (3)
  const n = (i: number) => Number(f[i - 3]);
  return { self: ((n(14) + n(15)) * 1000) / CLK_TCK, children: ((n(16) + n(17)) * 1000) / CLK_TCK };
}

/**
 * CPU of a process's main (JavaScript) thread, the one whose task id is the process id; the other
 * threads (Node 20 names them all `node`) are V8's workers (concurrent GC, background compilation)
 * and libuv's pool (async fs, zlib).
 */
function mainThreadCpuMs(pid: number): number {
  return procCpuMs(pid, readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')).self;
}

/** CPU of the operator's child processes (the hook spawner helper) and of their reaped children. */
function childrenCpuMs(pid: number): { self: number; children: number } {
  const sum = { self: 0, children: 0 };
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${e}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== pid) continue;
    const c = procCpuMs(Number(e));
    sum.self += c.self;
    sum.children += c.children;
  }
  return sum;
}

/** Signals the operator to write a heap snapshot and waits until the file is complete. */
async function heapSnapshot(pid: number, dir: string): Promise<void> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const file = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    if (!file) continue;
    // the snapshot is written as a stream: done when its size stops growing
    const size = statSync(join(dir, file)).size;
    await new Promise((r) => setTimeout(r, 2000));
    if (statSync(join(dir, file)).size === size && size > 0) return;
  }
}

export interface RunOptions {
  parallel: number;
  /** `--kube-client-qps` of the operator (its default, 5, when absent). */
  kubeClientQps?: number;
  cpuProfDir?: string;
  /** The sandbox's simulated controllers (`--controllers`; default `none`). */
  controllers?: string;
  /** More Node or V8 flags for the operator's process, after those it ships with (`--trace-gc`...). */
  nodeFlags?: string[];
  /** Start the operator without the environment and the flags of the bin's shebang line (Node's and glibc's defaults), not as it ships. */
  v8Defaults?: boolean;
  /** Write a heap snapshot of the operator to this dir when the converge is done (--heapsnapshot-signal). */
  heapSnapshotDir?: string;
  /** Write the operator's log (JSON lines, from its start) to this file. */
  logFile?: string;
  timeoutMs?: number;
  /** Called when the converge is done, before the processes stop: for measures of the running operator. */
  afterConverge?: (op: { pid: number; httpUrl: string; kubeconfig: string }) => Promise<void>;
}

/** One cold converge of `fleet` against a fresh sandbox process. */
export async function runFleet(fleet: Fleet, root: string, o: RunOptions): Promise<FleetRun> {
  const kubeconfig = join(root, `kubeconfig-${o.parallel}-${Date.now()}`);
  // the operator's cost against a store, as every recorded fleet figure: with the sandbox's simulated
  // controllers on (its default since issue 31) the converge reads 11.9 s (sandbox CPU 6.8 s) against
  // 9.2 s, the world's own work
  const sandbox = spawn(process.execPath, [CLI, 'sandbox', '--kubeconfig', kubeconfig, '--seed', fleet.seedFile, '--controllers', o.controllers ?? 'none'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stderr: string[] = [];
  let operator: ChildProcess | undefined;
  try {
    await waitForLine(sandbox, (l) => l.includes(kubeconfig), 'the sandbox to start', 30_000);
    sandbox.stdout!.resume();
    const how = operatorCommand({ bare: o.v8Defaults, nodeFlags: o.nodeFlags });
    const args = [
      ...how.nodeFlags,
      ...(o.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', o.cpuProfDir] : []),
      ...(o.heapSnapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${o.heapSnapshotDir}`] : []),
      CLI,
      'start',
      '--kube-config',
      kubeconfig,
      '--namespace',
      fleet.shape.namespace,
      '--modules-dir',
      fleet.modulesDir,
      '--global-hooks-dir',
      fleet.globalHooksDir,
      '--tmp-dir',
      join(root, 'tmp'),
      '--log-type',
      'json',
      '--listen-port',
      '0',
      '--debug-unix-socket',
      join(root, 'debug.socket'),
      // the fleet's webhook hooks start the admission server: on a free port, not 9651, which another
      // operator on the machine (a test's, a second bench's) may hold
      '--admission-server-listen-port',
      '0',
      ...(o.parallel > 1 ? ['--parallel-module-runs', String(o.parallel)] : []),
      ...(o.kubeClientQps !== undefined ? ['--kube-client-qps', String(o.kubeClientQps)] : []),
    ];
    const sandboxCpu0 = procCpuMs(sandbox.pid!).self;
    const t0 = performance.now();
    operator = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...how.env } });
    operator.stderr!.on('data', (c: Buffer) => stderr.push(c.toString()));
    if (o.logFile) operator.stdout!.pipe(createWriteStream(o.logFile));
    let httpUrl = '';
    let startMs = NaN;
    let startCpuMs = NaN;
    const done = (l: string) => {
      if (l.includes('HTTP server listening')) httpUrl = (JSON.parse(l) as { address: string }).address;
      if (l.includes('"modules discovered"')) {
        startMs = performance.now() - t0;
        startCpuMs = procCpuMs(operator!.pid!).self;
      }
      return l.includes('startup converge done');
    };
    const line = await waitForLine(operator, done, 'the first converge', o.timeoutMs ?? 900_000, { fail: (l) => l.includes('task failed') });
    const convergeMs = performance.now() - t0;
    const cpu = procCpuMs(operator.pid!);
    const mainThread = mainThreadCpuMs(operator.pid!);
    const helper = childrenCpuMs(operator.pid!);
    const peak = procMemory(operator.pid!).hwmMiB;
    const sandboxCpuMs = procCpuMs(sandbox.pid!).self - sandboxCpu0;
    operator.stdout!.resume();
    if (o.heapSnapshotDir) await heapSnapshot(operator.pid!, o.heapSnapshotDir);
    const record = JSON.parse(line) as { kubeConnections?: { handshakes: number; sockets: number }[] };
    const conn = record.kubeConnections?.[0] ?? { handshakes: NaN, sockets: NaN };

    // what the converge left in the cluster
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    let objects = 0;
    for (const path of [`/api/v1/namespaces/${fleet.shape.namespace}/configmaps`, `/api/v1/namespaces/${fleet.shape.namespace}/services`, `/apis/apps/v1/namespaces/${fleet.shape.namespace}/deployments`]) {
      objects += (await requestJson<{ items: unknown[] }>(kc, 'GET', path, { labelSelector: 'fleet.example.com/module' })).items.length;
    }
    closeConnections(kc);
    const expected = fleet.shape.modules * fleet.shape.objects;
    if (objects !== expected) throw new Error(`expected ${expected} objects in the cluster, found ${objects}`);
    await o.afterConverge?.({ pid: operator.pid!, httpUrl, kubeconfig });
    return { parallel: o.parallel, operatorPid: operator.pid!, convergeMs, startMs, operatorCpuMs: cpu.self, startCpuMs, mainThreadCpuMs: mainThread, hooksCpuMs: cpu.children + helper.children, helperCpuMs: helper.self, sandboxCpuMs, peakRssMiB: peak, handshakes: conn.handshakes, sockets: conn.sockets, objects };
  } catch (e) {
    if (stderr.length) console.error(stderr.join('').slice(-4000));
    throw e;
  } finally {
    if (operator) await stopChild(operator);
    await stopChild(sandbox);
  }
}

/** The module health's share of the operator's CPU profile (the whole process: start, converge, stop). */
function printHealthShare(dir: string, pid: number): void {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.`));
  if (!file) {
    console.log(`    no CPU profile of process ${pid} in ${dir}`);
    return;
  }
  const { busyMs, matchedMs } = profileShare(join(dir, file), isHealthFrame);
  console.log(
    `    module health in the operator's profile: ${(matchedMs / 1000).toFixed(3)} s of ${(busyMs / 1000).toFixed(2)} s busy; ` +
      `with / without it ${(busyMs / (busyMs - matchedMs)).toFixed(4)} (+${((100 * matchedMs) / (busyMs - matchedMs)).toFixed(2)} %, target at most +5 %) (${file})`,
  );
}

function parseArgs(argv: string[]) {
  const o = { modules: 100, objects: 30, parallel: [] as number[], rounds: 1, cpuProf: undefined as string | undefined, heapSnapshot: undefined as string | undefined, nodeFlags: [] as string[], v8Defaults: false, log: undefined as string | undefined, qps: undefined as number | undefined, build: true, keep: false, controllers: 'none' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--modules') o.modules = Number(next());
    else if (a === '--objects') o.objects = Number(next());
    else if (a === '--parallel') o.parallel.push(Number(next()));
    else if (a === '--rounds') o.rounds = Number(next());
    else if (a === '--cpu-prof') o.cpuProf = resolve(next());
    else if (a === '--heap-snapshot') o.heapSnapshot = resolve(next());
    else if (a === '--log') o.log = resolve(next());
    else if (a === '--v8-defaults') o.v8Defaults = true;
    else if (a === '--operator-node-flags') o.nodeFlags.push(...next().split(/\s+/).filter(Boolean));
    else if (a === '--kube-client-qps') o.qps = Number(next());
    else if (a === '--controllers') o.controllers = next();
    else if (a === '--no-build') o.build = false;
    else if (a === '--keep') o.keep = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!o.parallel.length) o.parallel.push(1);
  return o;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.build) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO, stdio: 'inherit' });
  const root = mkdtempSync(join(tmpdir(), 'bench-fleet-'));
  const shape: Partial<FleetShape> = { modules: args.modules, objects: args.objects };
  const fleet = generateFleet(root, shape);
  console.log(`bench/fleet: ${fleet.shape.modules} modules (orders shared in pairs) × ${fleet.shape.objects} objects × 5 hooks; sandbox and operator as separate processes`);
  console.log(`  the operator runs ${args.v8Defaults ? "with Node's and glibc's defaults (--v8-defaults), not as it ships" : 'as it ships'}: ${describeCommand(operatorCommand({ bare: args.v8Defaults, nodeFlags: args.nodeFlags }))}`);
  // with --kube-client-qps, client-go's token bucket: every list waits for a token (watches do not); the
  // first `burst` go at once, the rest at `qps` a second. Without it the default bucket is dropped, as the
  // sandbox answers with API Priority and Fairness like an API server
  const lists = fleet.shape.modules;
  if (args.qps === undefined) console.log("  the main client's default rate limit is dropped: the sandbox answers as an API server running API Priority and Fairness (--kube-client-qps 5: Go's limit)");
  else if (args.qps > 0 && lists > 10) console.log(`  the main client's limit (--kube-client-qps ${args.qps}, burst 10) spaces the first lists of the ${lists} kubernetes bindings alone over at least ${(Math.max(0, lists - 10) / args.qps).toFixed(1)} s`);
  try {
    for (let r = 0; r < args.rounds; r++) {
      for (const parallel of args.parallel) {
        const run = await runFleet(fleet, root, { parallel, cpuProfDir: args.cpuProf, heapSnapshotDir: args.heapSnapshot, nodeFlags: args.nodeFlags, v8Defaults: args.v8Defaults, kubeClientQps: args.qps, controllers: args.controllers, ...(args.log ? { logFile: `${args.log}-${parallel}-${r}.jsonl` } : {}) });
        const perModule = run.operatorCpuMs / fleet.shape.modules;
        console.log(
          `  --parallel-module-runs ${parallel}: converge ${(run.convergeMs / 1000).toFixed(2)} s (target < ${parallel > 1 ? 10 : 15} s); ` +
            `operator CPU ${(run.operatorCpuMs / 1000).toFixed(2)} s = ${perModule.toFixed(1)} ms/module (target < 40; start-up to 'modules discovered' ${(run.startCpuMs / 1000).toFixed(2)} s; main thread ${(run.mainThreadCpuMs / 1000).toFixed(2)} s, V8 and libuv threads ${((run.operatorCpuMs - run.mainThreadCpuMs) / 1000).toFixed(2)} s); ` +
            `hook processes' CPU ${(run.hooksCpuMs / 1000).toFixed(2)} s (the spawner helper's own ${(run.helperCpuMs / 1000).toFixed(2)} s); ` +
            `sandbox CPU ${(run.sandboxCpuMs / 1000).toFixed(2)} s; peak RSS ${run.peakRssMiB.toFixed(0)} MiB (target < 150); ` +
            `TLS handshakes ${run.handshakes} over ${run.sockets} sockets; ${run.objects} objects`,
        );
        // the processes of the converge share the machine's cores: their CPU over the cores is a floor under the wall time
        const allCpuMs = run.operatorCpuMs + run.hooksCpuMs + run.helperCpuMs + run.sandboxCpuMs;
        console.log(`    CPU of every process of the converge ${(allCpuMs / 1000).toFixed(2)} s: ${(allCpuMs / 1000 / cpus().length).toFixed(2)} s of wall time on ${cpus().length} cores at best`);
        if (args.cpuProf) printHealthShare(args.cpuProf, run.operatorPid);
      }
    }
  } finally {
    if (args.keep) console.log(`  fleet kept in ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
