/**
 * bench/hooks: 1,000 runs of a small bash hook that reads $VALUES_PATH (200 KB of values) and writes a
 * one-op patch, through the hook engine, against spawning the same script 1,000 times directly with
 * the same files prepared once and the same environment (the operator's, as hooks inherit it). Target
 * (issue 38; 1.25× in issue 5): engine ≤ 1.05× the direct spawns. The same work as
 * an in-process hook: target at least 50× faster than the shell path.
 * Run: node --import tsx bench/hooks.ts [runs]
 */
import { mkdtempSync, rmSync, writeFileSync, chmodSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadHooks } from '../src/hooks/hook.js';
import { lifecycleContext } from '../src/hooks/binding-context.js';
import type { JsonObject } from '../src/util/json.js';
import { ScopeValues, ValuesStore } from '../src/values/index.js';
import { emitFigures } from './figures.js';
import { preparedHookEnv, spawnOnce } from './processes.js';

const RUNS = Number(process.argv[2] ?? 1000);

const SCRIPT = `#!/usr/bin/env bash
if [[ "\${1:-}" == "--config" ]]; then echo '{"configVersion":"v1","beforeHelm":1}'; exit 0; fi
n=$(jq '.bench.items | length' "$VALUES_PATH")
echo "[{\\"op\\":\\"add\\",\\"path\\":\\"/bench/count\\",\\"value\\":$n}]" > "$VALUES_JSON_PATCH_PATH"
`;

/** The same work as a module SDK-style batch executable: `hook list`, `hook config`, `hook run 0`. */
const BATCH = `#!/usr/bin/env bash
case "\${1:-} \${2:-}" in
  "hook list") printf 'Found 1 items:\\n0 - count\\n'; exit 0 ;;
  "hook config") echo '{"version":"v1","hooks":[{"configVersion":"v1","metadata":{"name":"count"},"beforeHelm":1}]}'; exit 0 ;;
  "hook run") ;;
  *) echo "unknown command: $*" >&2; exit 2 ;;
esac
n=$(jq '.bench.items | length' "$VALUES_PATH")
echo "[{\\"op\\":\\"add\\",\\"path\\":\\"/bench/count\\",\\"value\\":$n}]" > "$VALUES_JSON_PATCH_PATH"
`;

const IN_PROCESS = `export const config = { configVersion: 'v1', beforeHelm: 1 };
export function run(ctx) {
  ctx.patchValues([{ op: 'add', path: '/bench/count', value: ctx.values.bench.items.length }]);
}
`;

function values200k(): JsonObject {
  const items = [];
  for (let i = 0; items.length < 2000; i++) items.push({ name: `item-${i}`, image: `registry.example.com/team/app-${i}:v1.${i}`, replicas: i % 5, labels: { app: `a${i}`, tier: 'web' } });
  return { global: { clusterName: 'bench', enabledModules: ['bench'] }, bench: { items } };
}

const root = mkdtempSync(join(tmpdir(), 'bench-hooks-'));
try {
  const hookFile = join(root, 'sh/hooks/count.sh');
  const jsFile = join(root, 'js/hooks/count.hook.mjs');
  const batchFile = join(root, 'batch/hooks/count');
  for (const [f, body] of [[hookFile, SCRIPT], [jsFile, IN_PROCESS], [batchFile, BATCH]] as const) {
    const dir = f.slice(0, f.lastIndexOf('/'));
    await import('node:fs').then((fs) => fs.mkdirSync(dir, { recursive: true }));
    writeFileSync(f, body);
  }
  chmodSync(hookFile, 0o755);
  chmodSync(batchFile, 0o755);
  const values = values200k();
  const valuesJson = JSON.stringify(values);
  console.log(`bench/hooks: ${RUNS} runs, values ${(valuesJson.length / 1024).toFixed(0)} KB`);

  // direct: the same files prepared once
  const env = preparedHookEnv(join(root, 'pre'), '[{"binding":"beforeHelm","snapshots":{}}]', valuesJson);

  const [shell] = await loadHooks(join(root, 'sh/hooks'), { kind: 'module', module: 'bench', timeoutMs: 60_000 });
  const [inproc] = await loadHooks(join(root, 'js/hooks'), { kind: 'module', module: 'bench', timeoutMs: 60_000 });
  const [batch] = await loadHooks(join(root, 'batch/hooks'), { kind: 'module', module: 'bench', timeoutMs: 60_000 });
  if (batch?.name !== 'hooks/count:count:0') throw new Error(`the batch executable was not loaded as a batch hook: ${batch?.name}`);
  // the values as the operator hands them to a module hook: from its values store
  const store = new ValuesStore(new ScopeValues('global', 'global'));
  store.global.setStatic([{ source: { kind: 'file', file: 'values.yaml' }, values: values.global as JsonObject }]);
  const scope = new ScopeValues('bench', 'module bench');
  scope.setStatic([{ source: { kind: 'file', file: 'bench/values.yaml' }, values: { items: (values.bench as JsonObject).items! } }]);
  store.addModule(scope);
  const req = { contexts: [lifecycleContext(shell!.config, 'beforeHelm')], values: store.moduleHookValues('bench', ['bench']), configValues: { global: {}, bench: {} } };
  if (JSON.stringify(req.values) !== valuesJson) throw new Error('the store does not give the values the direct spawns read');
  const rt = { tmpDir: join(root, 'tmp'), timeoutMs: 60_000 };

  // warm-up, and a check that both paths do the work
  await spawnOnce(hookFile, env);
  const direct1 = readFileSync(env.VALUES_JSON_PATCH_PATH!, 'utf8');
  const viaEngine = await shell!.run(req, rt);
  const viaInProcess = await inproc!.run(req, rt);
  const viaBatch = await batch.run(req, rt);
  if (!direct1.includes('"value":2000') || JSON.stringify(viaEngine.valuesPatch) !== JSON.stringify(viaInProcess.valuesPatch) || JSON.stringify(viaBatch.valuesPatch) !== JSON.stringify(viaEngine.valuesPatch)) throw new Error('the hook did not do its work');

  // interleave in blocks so that machine noise hits both sides alike
  let directMs = 0;
  let engineMs = 0;
  let batchMs = 0;
  const block = 50;
  for (let done = 0; done < RUNS; done += block) {
    const n = Math.min(block, RUNS - done);
    let t = performance.now();
    for (let i = 0; i < n; i++) await spawnOnce(hookFile, env);
    directMs += performance.now() - t;
    t = performance.now();
    for (let i = 0; i < n; i++) await shell!.run(req, rt);
    engineMs += performance.now() - t;
    t = performance.now();
    for (let i = 0; i < n; i++) await batch.run(req, rt);
    batchMs += performance.now() - t;
  }
  let inprocMs = 0;
  const t = performance.now();
  for (let i = 0; i < RUNS; i++) await inproc!.run(req, rt);
  inprocMs = performance.now() - t;

  console.log(`  direct spawns:   ${(directMs / RUNS).toFixed(2)} ms per run`);
  console.log(`  through engine:  ${(engineMs / RUNS).toFixed(2)} ms per run`);
  console.log(`  ratio engine/direct: ${(engineMs / directMs).toFixed(3)}x (target <= 1.05x)`);
  console.log(`  batch hook:      ${(batchMs / RUNS).toFixed(2)} ms per run, ${(batchMs / engineMs).toFixed(3)}x the shell hook (target <= 1.1x)`);
  console.log(`  in-process hook: ${((inprocMs / RUNS) * 1000).toFixed(1)} µs per run`);
  console.log(`  in-process speed-up over the shell path: ${(engineMs / inprocMs).toFixed(0)}x (target >= 50x)`);
  emitFigures([
    { name: 'shell hook run through the engine', value: engineMs / RUNS, unit: 'ms', baseline: { what: 'direct spawn', value: directMs / RUNS, unit: 'ms' }, target: { max: 1.05, of: 'ratio' } },
    { name: 'batch hook run through the engine', value: batchMs / RUNS, unit: 'ms', baseline: { what: 'the same script as a shell hook', value: engineMs / RUNS, unit: 'ms' }, target: { max: 1.1, of: 'ratio' } },
    { name: 'in-process hook run', value: (inprocMs / RUNS) * 1000, unit: 'µs' },
    { name: 'in-process speed-up over the shell path', value: engineMs / inprocMs, unit: '×', better: 'higher', target: { min: 50 } },
  ]);
} finally {
  rmSync(root, { recursive: true, force: true });
}
