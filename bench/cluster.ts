/**
 * What bench/memory and bench/soak share: a generated module set whose hooks watch ConfigMaps through
 * `kubernetes` bindings, the API server (`addon-operator sandbox`, seeded with the objects) and the
 * operator (`addon-operator start --kube-config ...`) as processes of their own started from dist/,
 * as on a cluster, and what is read from them: resident memory from /proc, queue lengths from /metrics.
 *
 * The objects are ConfigMaps of about 1 KB in 10 shards (label `shard`); the hook of module i < bindings
 * watches shard i % 10 with a jqFilter that keeps the name and one key. Every module has a chart of one
 * ConfigMap and an in-process beforeHelm hook; the watching hooks are in-process too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { procMemory, stopChild, waitForLine } from './processes.js';

export { procMemory };

/** The CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
export function procCpuMs(pid: number): number {
  // the fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const REPO = resolve(import.meta.dirname, '..');
export const CLI = join(REPO, 'dist/cli/main.js');

/**
 * How the operator ships: what its bin's shebang line (`#!/usr/bin/env -S [NAME=VALUE...] node FLAGS`)
 * sets, the environment (glibc's malloc settings) and the Node flags.
 */
export interface Shipped {
  env: Record<string, string>;
  nodeFlags: string[];
}

export function shipped(): Shipped {
  const line = readFileSync(CLI, 'utf8').split('\n', 1)[0]!;
  const m = /^#!\S*env -S((?: [A-Za-z_][A-Za-z0-9_]*=\S*)*) node((?: \S+)*)$/.exec(line);
  if (!m) throw new Error(`${CLI}: unexpected first line ${JSON.stringify(line)}`);
  const env = Object.fromEntries(m[1]!.split(' ').filter(Boolean).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
  return { env, nodeFlags: m[2]!.split(' ').filter(Boolean) };
}

/** The command line of the operator as `how` starts it, for the bench's log: `NAME=VALUE node FLAGS dist/cli/main.js start`. */
export function describeCommand(how: Shipped): string {
  return [...Object.entries(how.env).map(([k, v]) => `${k}=${v}`), 'node', ...how.nodeFlags, 'dist/cli/main.js start'].join(' ');
}

/** As it ships (`shipped()`), or with Node's and glibc's defaults (`bare`); `nodeFlags` after those. */
export function operatorCommand(o: { bare?: boolean; nodeFlags?: string[] }): Shipped {
  const base = o.bare ? { env: {}, nodeFlags: [] } : shipped();
  return { env: base.env, nodeFlags: [...base.nodeFlags, ...(o.nodeFlags ?? [])] };
}

export const SHARDS = 10;

export interface SetShape {
  modules: number;
  bindings: number;
  objects: number;
  namespace: string;
  /** keepFullObjectsInMemory of the bindings (default true, as in shell-operator). */
  fullObjects?: boolean;
}

export interface ModuleSet {
  shape: SetShape;
  root: string;
  modulesDir: string;
  globalHooksDir: string;
  seedFile: string;
  /** The values key of module i. */
  key(i: number): string;
}

const letters = (i: number) => [676, 26, 1].map((d) => String.fromCharCode(97 + (Math.floor(i / d) % 26))).join('');
const moduleName = (i: number) => `mem-${letters(i)}`;
const camel = (name: string) => name.replace(/-(.)/g, (_, c: string) => c.toUpperCase());
export const objectName = (i: number): string => `obj-${String(i).padStart(5, '0')}`;

const watchHook = (ns: string, shard: number, full: boolean) => `export const config = { configVersion: 'v1', kubernetes: [{
  name: 'shard', apiVersion: 'v1', kind: 'ConfigMap', keepFullObjectsInMemory: ${full},
  namespace: { nameSelector: { matchNames: ['${ns}'] } },
  labelSelector: { matchLabels: { shard: '${shard}' } },
  jqFilter: '{name: .metadata.name, version: .data.version}',
}] };
export function run(ctx) {
  let n = 0;
  for (const c of ctx.bindingContext) n += Array.isArray(c.objects) ? c.objects.length : 1;
  ctx.metrics.set('bench_seen', n);
}
`;
const BEFORE_HELM = `export const config = { configVersion: 'v1', beforeHelm: 10 };
export function run(ctx) {}
`;

function configMapYaml(ns: string, i: number): string {
  const data = Array.from({ length: 4 }, (_, k) => `  key-${k}: "${`value ${i} ${k} `.repeat(12).slice(0, 200)}"`).join('\n');
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${objectName(i)}\n  namespace: ${ns}\n  labels:\n    app: bench\n    shard: "${i % SHARDS}"\ndata:\n  version: "0"\n${data}\n`;
}

export function writeModuleSet(root: string, shape: SetShape): ModuleSet {
  const modulesDir = join(root, 'modules');
  const globalHooksDir = join(root, 'global-hooks');
  mkdirSync(join(globalHooksDir, 'hooks'), { recursive: true });
  const flags: string[] = [];
  for (let i = 0; i < shape.modules; i++) {
    const name = moduleName(i);
    const key = camel(name);
    const dir = join(modulesDir, `${String(100 + i)}-${name}`);
    mkdirSync(join(dir, 'hooks'), { recursive: true });
    mkdirSync(join(dir, 'templates'), { recursive: true });
    writeFileSync(join(dir, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`);
    writeFileSync(join(dir, 'values.yaml'), `${key}:\n  replicas: 1\n  settings: {logLevel: info, features: [a, b, c]}\n`);
    writeFileSync(join(dir, 'templates', 'cm.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  replicas: "{{ .Values.${key}.replicas }}"\n`);
    writeFileSync(join(dir, 'hooks', 'before-helm.hook.mjs'), BEFORE_HELM);
    if (i < shape.bindings) writeFileSync(join(dir, 'hooks', 'watch.hook.mjs'), watchHook(shape.namespace, i % SHARDS, shape.fullObjects ?? true));
    flags.push(`${key}Enabled: true`);
  }
  writeFileSync(join(modulesDir, 'values.yaml'), `${flags.join('\n')}\n`);
  const docs = [`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${shape.namespace}\n`];
  for (let i = 0; i < shape.objects; i++) docs.push(configMapYaml(shape.namespace, i));
  const seedFile = join(root, 'seed.yaml');
  writeFileSync(seedFile, docs.join('---\n'));
  return { shape, root, modulesDir, globalHooksDir, seedFile, key: (i) => camel(moduleName(i)) };
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
  });
}

export interface Cluster {
  kubeconfig: string;
  /** The operator's HTTP port (/metrics). */
  port: number;
  sandbox: ChildProcess;
  operator: ChildProcess;
  /** The operator's stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Starts the sandbox and the operator, and resolves when the first converge is done. The operator runs
 * as it ships: with the environment and the Node flags of the bin's shebang line (`shipped()`), unless
 * `v8Defaults` (Node's and glibc's defaults); `nodeFlags`: more Node flags for it; `logFile`: where its stdout goes after that (else it is dropped).
 */
export async function startCluster(set: ModuleSet, o: { nodeFlags?: string[]; v8Defaults?: boolean; timeoutMs?: number; logFile?: string } = {}): Promise<Cluster> {
  if (!existsSync(CLI)) throw new Error('dist/ is not built: npm run build');
  const kubeconfig = join(set.root, 'kubeconfig');
  // a store, as the recorded figures were taken (bench/fleet/run.ts says why)
  const sandbox = spawn(process.execPath, [CLI, 'sandbox', '--kubeconfig', kubeconfig, '--seed', set.seedFile, '--controllers', 'none'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let operator: ChildProcess | undefined;
  const stderr: string[] = [];
  const stop = async () => {
    if (operator) await stopChild(operator);
    await stopChild(sandbox);
  };
  try {
    await waitForLine(sandbox, (l) => l.includes(kubeconfig), 'the sandbox to start', 600_000);
    const port = await freePort();
    // a port and a socket path of this run's own: several benches may run at once
    const args = ['start', '--kube-config', kubeconfig, '--namespace', set.shape.namespace, '--modules-dir', set.modulesDir, '--global-hooks-dir', set.globalHooksDir];
    args.push('--tmp-dir', join(set.root, 'tmp'), '--log-type', 'json', '--listen-port', String(port), '--debug-unix-socket', join(set.root, 'debug.socket'));
    const how = operatorCommand({ bare: o.v8Defaults, nodeFlags: o.nodeFlags });
    operator = spawn(process.execPath, [...how.nodeFlags, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...how.env } });
    operator.stderr!.on('data', (c: Buffer) => stderr.push(c.toString()));
    await waitForLine(operator, (l) => l.includes('startup converge done'), 'the first converge', o.timeoutMs ?? 900_000, { logFile: o.logFile });
    return { kubeconfig, port, sandbox, operator, stderr: () => stderr.join('').slice(-4000), stop };
  } catch (e) {
    if (stderr.length) console.error(stderr.join('').slice(-4000));
    await stop();
    throw e;
  }
}

/** The length of every task queue, from the operator's /metrics. */
export async function queueLengths(port: number): Promise<Record<string, number>> {
  const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^addon_operator_tasks_queue_length\{[^}]*queue="([^"]*)"[^}]*\} (\S+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

/** Waits until every task queue of the operator is empty on three scrapes in a row. */
export async function queuesEmpty(port: number, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  let quiet = 0;
  while (Date.now() < end) {
    const lengths = Object.values(await queueLengths(port));
    quiet = lengths.length && lengths.every((n) => n === 0) ? quiet + 1 : 0;
    if (quiet >= 3) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the operator's queues were not empty after ${timeoutMs} ms`);
}
