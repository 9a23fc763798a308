/**
 * bench/converge: 200 modules with 3 no-op shell hooks each (onStartup, beforeHelm, afterHelm), through
 * a full first converge with an in-memory Helm port, against spawning the same 600 hook processes one
 * after another directly. Target (issue 6): converge ≤ 1.3× the direct spawns. The same with in-process
 * hooks: engine time per module, target under 2 ms.
 *
 * The hooks' `--config` runs (module hooks are configured when their module is first discovered) are
 * timed apart and not counted in the ratio: the baseline spawns only the runs.
 * Run: node --import tsx bench/converge.ts [modules] [rounds]
 */
import { spawnOnce } from './processes.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { ModuleManager } from '../src/modules/manager.js';
import { Operator } from '../src/operator/operator.js';
// releases in memory: the bench measures the operator, not a release engine
import { MemoryHelm } from '../test/operator/helpers.js';
import { emitFigures } from './figures.js';

const MODULES = Number(process.argv[2] ?? 200);
const BINDINGS = [
  ['startup', { configVersion: 'v1', onStartup: 1 }],
  ['before', { configVersion: 'v1', beforeHelm: 1 }],
  ['after', { configVersion: 'v1', afterHelm: 1 }],
] as const;

const shellHook = (config: object) => `#!/usr/bin/env bash
if [[ "\${1:-}" == "--config" ]]; then echo '${JSON.stringify(config)}'; exit 0; fi
exit 0
`;
const inProcessHook = (config: object) => `export const config = ${JSON.stringify(config)};\nexport function run() {}\n`;

/** `mod-aa`, `mod-ab`...: module names must survive the kebab → camelCase → kebab round trip. */
const moduleName = (i: number) => `mod-${String.fromCharCode(97 + Math.floor(i / 26) % 26)}${String.fromCharCode(97 + (i % 26))}`;
const moduleDir = (root: string, i: number) => join(root, 'modules', `${String(i + 1).padStart(3, '0')}-${moduleName(i)}`);

function writeModules(root: string, kind: 'shell' | 'js'): void {
  const flags: string[] = [];
  for (let i = 0; i < MODULES; i++) {
    const name = moduleName(i);
    const dir = moduleDir(root, i);
    mkdirSync(join(dir, 'hooks'), { recursive: true });
    mkdirSync(join(dir, 'templates'), { recursive: true });
    writeFileSync(join(dir, 'Chart.yaml'), `name: ${name}\nversion: 0.1.0\n`);
    for (const [file, config] of BINDINGS) {
      if (kind === 'shell') writeFileSync(join(dir, 'hooks', file), shellHook(config), { mode: 0o755 });
      else writeFileSync(join(dir, 'hooks', `${file}.hook.mjs`), inProcessHook(config));
    }
    flags.push(`${name.replace(/-(.)/, (_, c: string) => c.toUpperCase())}Enabled: true`);
  }
  writeFileSync(join(root, 'modules', 'values.yaml'), `${flags.join('\n')}\n`);
  mkdirSync(join(root, 'global-hooks', 'hooks'), { recursive: true });
}

/** CPU time (user + system) of this process in the last measured section. */
let lastCpuMs = 0;

/** Loads the modules, configures every module hook, then times the first converge. */
async function converge(root: string): Promise<{ configMs: number; convergeMs: number }> {
  const manager = await ModuleManager.load({
    modulesDir: join(root, 'modules'),
    globalHooksDir: join(root, 'global-hooks'),
    tmpDir: join(root, 'tmp'),
    hookTimeoutMs: 60_000,
  });
  let t = performance.now();
  for (const m of manager.set.modules) await manager.moduleHooks(m.def.name);
  const configMs = performance.now() - t;
  const op = new Operator({ manager, namespace: 'bench', helm: new MemoryHelm(), logger: pino({ level: 'silent' }) });
  t = performance.now();
  const cpu = process.cpuUsage();
  await op.start();
  await op.converge.whenFirstDone();
  const convergeMs = performance.now() - t;
  const used = process.cpuUsage(cpu);
  lastCpuMs = (used.user + used.system) / 1000;
  await op.stop();
  if (manager.enabledModules.length !== MODULES) throw new Error(`expected ${MODULES} enabled modules, got ${manager.enabledModules.length}`);
  return { configMs, convergeMs };
}

/** The same hook processes, spawned one after another with files prepared once. */
async function directSpawns(root: string): Promise<number> {
  const pre = mkdtempSync(join(root, 'pre-'));
  const env: Record<string, string> = {};
  for (const k of ['BINDING_CONTEXT_PATH', 'VALUES_PATH', 'CONFIG_VALUES_PATH', 'VALUES_JSON_PATCH_PATH', 'CONFIG_VALUES_JSON_PATCH_PATH', 'METRICS_PATH', 'KUBERNETES_PATCH_PATH']) {
    env[k] = join(pre, k);
    writeFileSync(env[k], k === 'BINDING_CONTEXT_PATH' ? '[{"binding":"beforeHelm","snapshots":{}}]' : k.endsWith('VALUES_PATH') ? '{}' : '');
  }
  const t = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < MODULES; i++) {
    const dir = join(moduleDir(root, i), 'hooks');
    for (const [file] of BINDINGS) await spawnOnce(join(dir, file), env);
  }
  const used = process.cpuUsage(cpu);
  lastCpuMs = (used.user + used.system) / 1000;
  return performance.now() - t;
}

const shellRoot = mkdtempSync(join(tmpdir(), 'bench-converge-sh-'));
const jsRoot = mkdtempSync(join(tmpdir(), 'bench-converge-js-'));
try {
  writeModules(shellRoot, 'shell');
  writeModules(jsRoot, 'js');
  console.log(`bench/converge: ${MODULES} modules × ${BINDINGS.length} hooks`);
  // the machine is shared and fork costs drift: alternate baseline and converge, report medians
  const ROUNDS = Number(process.argv[3] ?? 5);
  const direct: number[] = [];
  const shell: number[] = [];
  const config: number[] = [];
  const js: number[] = [];
  const directCpu: number[] = [];
  const shellCpu: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    direct.push(await directSpawns(shellRoot));
    directCpu.push(lastCpuMs);
    const s = await converge(shellRoot);
    shellCpu.push(lastCpuMs);
    shell.push(s.convergeMs);
    config.push(s.configMs);
    js.push((await converge(jsRoot)).convergeMs);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const f = (ms: number) => `${ms.toFixed(0)} ms`;
  const all = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
  console.log(`  direct spawns (${MODULES * BINDINGS.length} processes):   ${f(median(direct))}  (rounds: ${all(direct)})`);
  console.log(`  converge, shell hooks:                ${f(median(shell))}  (rounds: ${all(shell)})`);
  console.log(`    ratio ${(median(shell) / median(direct)).toFixed(2)}× (target ≤ 1.3×)`);
  const perHook = (ms: number) => (ms / (MODULES * BINDINGS.length)).toFixed(2);
  console.log(`  CPU of this process per hook run: direct ${perHook(median(directCpu))} ms, converge ${perHook(median(shellCpu))} ms (the spawner helper's CPU not counted)`);
  console.log(`  (hook --config runs, not counted:     ${f(median(config))})`);
  console.log(`  converge, in-process hooks:           ${f(median(js))}  ${(median(js) / MODULES).toFixed(2)} ms per module (target < 2 ms)`);
  emitFigures([
    { name: 'converge, shell hooks', value: median(shell), unit: 'ms', baseline: { what: 'the same hooks spawned directly', value: median(direct), unit: 'ms' }, target: { max: 1.3, of: 'ratio' } },
    { name: 'CPU per shell hook run (converge)', value: median(shellCpu) / (MODULES * BINDINGS.length), unit: 'ms' },
    { name: 'converge, in-process hooks, per module', value: median(js) / MODULES, unit: 'ms', target: { max: 2 } },
  ]);
} finally {
  rmSync(shellRoot, { recursive: true, force: true });
  rmSync(jsRoot, { recursive: true, force: true });
}
