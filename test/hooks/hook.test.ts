import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { loadHooks, type Hook } from '../../src/hooks/hook.js';
import { lifecycleContext, onStartupContext } from '../../src/hooks/binding-context.js';
import { applyValuesOutputs } from '../../src/hooks/apply-values.js';
import { ScopeValues } from '../../src/values/index.js';


// The same hook twice: bash + jq, and in-process. Both read the values, count the items, and write
// a values patch, a config patch, metrics and a Kubernetes operation.
const BASH_HOOK = `#!/usr/bin/env bash
set -euo pipefail
if [[ "\${1:-}" == "--config" ]]; then
  echo '{"configVersion":"v1","beforeHelm":10}'
  exit 0
fi
count=$(jq '.echo.items | length' "$VALUES_PATH")
binding=$(jq -r '.[0].binding' "$BINDING_CONTEXT_PATH")
jq -n --argjson c "$count" --arg b "$binding" '[{"op":"add","path":"/echo/internal","value":{"count":$c,"binding":$b}}]' > "$VALUES_JSON_PATCH_PATH"
echo '[{"op":"add","path":"/echo/generated","value":"secret"}]' > "$CONFIG_VALUES_JSON_PATCH_PATH"
jq -nc --argjson c "$count" '{"name":"echo_items","set":$c,"labels":{"source":"values"}}' > "$METRICS_PATH"
echo '{"name":"echo_runs","action":"add","value":1}' >> "$METRICS_PATH"
jq -nc --argjson c "$count" '{"operation":"CreateOrUpdate","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"echo-count","namespace":"default"},"data":{"count":($c|tostring)}}}' > "$KUBERNETES_PATCH_PATH"
`;

const JS_HOOK = `export const config = { configVersion: 'v1', beforeHelm: 10 };
export function run(ctx) {
  const count = ctx.values.echo.items.length;
  ctx.patchValues([{ op: 'add', path: '/echo/internal', value: { count, binding: ctx.bindingContext[0].binding } }]);
  ctx.patchConfigValues({ op: 'add', path: '/echo/generated', value: 'secret' });
  ctx.metrics.set('echo_items', count, { labels: { source: 'values' } });
  ctx.metrics.add('echo_runs', 1);
  ctx.kubernetes.createOrUpdate({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'echo-count', namespace: 'default' }, data: { count: String(count) } });
}
`;

function runtime(root: string) {
  return { tmpDir: join(root, 'tmp'), timeoutMs: 10_000 };
}

test('the same hook in bash+jq and in-process leads to identical values, metrics and operations', async () => {
  const root = makeTree({ 'sh/hooks/count.sh': BASH_HOOK, 'js/hooks/count.hook.mjs': JS_HOOK });
  const [shell] = await loadHooks(join(root, 'sh/hooks'), { kind: 'module', module: 'echo', timeoutMs: 10_000 });
  const [inproc] = await loadHooks(join(root, 'js/hooks'), { kind: 'module', module: 'echo', timeoutMs: 10_000 });
  assert.equal(shell!.runtime, 'process');
  assert.equal(inproc!.runtime, 'in-process');
  assert.deepEqual({ ...inproc!.config, hookPath: '' }, { ...shell!.config, hookPath: '' });

  const outcome = async (hook: Hook) => {
    const scope = new ScopeValues('echo', 'module echo');
    scope.setStatic([{ source: { kind: 'file', file: 'values.yaml' }, values: { items: ['a', 'b', 'c'] } }]);
    const out = await hook.run(
      { contexts: [lifecycleContext(hook.config, 'beforeHelm')], values: { global: {}, echo: scope.effective() }, configValues: { global: {}, echo: scope.configValues } },
      runtime(root),
    );
    const applied = applyValuesOutputs(scope, out, hook.name, 'module');
    const { usage: _usage, ...outputs } = out;
    return { out: outputs, values: scope.effective(), config: scope.configValues, saved: applied.savedConfig };
  };
  const a = await outcome(shell!);
  const b = await outcome(inproc!);
  assert.deepEqual(a.values, { items: ['a', 'b', 'c'], generated: 'secret', internal: { count: 3, binding: 'beforeHelm' } });
  // metric groups default to the hook's name, which differs by file name only
  const strip = (x: typeof a) => ({ ...x, out: { ...x.out, metrics: x.out.metrics.map((m) => ({ ...m, group: 'hook' })) } });
  assert.deepEqual(strip(b), strip(a));
});

test('hook names, identity and ordering data come from discovery and config', async () => {
  const root = makeTree({
    'global-hooks/hooks/010-first.sh': '#!/bin/sh\n[ "$1" = --config ] && echo "configVersion: v1\nonStartup: 5\nbeforeAll: 1" && exit 0\n',
    'global-hooks/hooks/sub/second.sh': '#!/bin/sh\n[ "$1" = --config ] && echo \'{"onStartup": 3}\' && exit 0\nexit 0\n',
    'global-hooks/hooks/lib/helper.sh': '#!/bin/sh\nexit 1\n',
  });
  // a relative hooks dir (the default `global-hooks` is one) works: hooks run from their dir's parent
  const hooks = await loadHooks(relative(process.cwd(), join(root, 'global-hooks/hooks')), { kind: 'global', timeoutMs: 10_000 });
  assert.deepEqual(hooks.map((h) => [h.name, h.config.version, h.config.onStartup]), [['hooks/010-first.sh', 'v1', 5], ['hooks/sub/second.sh', 'v0', 3]]);
  assert.equal(hooks[0]!.id, `(global):${join(root, 'global-hooks/hooks/010-first.sh')}`);
  const out = await hooks[1]!.run({ contexts: [onStartupContext()], values: { global: {} }, configValues: { global: {} } }, runtime(root));
  const { usage, ...outputs } = out;
  assert.deepEqual(outputs, { valuesPatch: [], configValuesPatch: [], metrics: [], kubernetes: [] });
  // a hook process reports the CPU seconds it used (Linux)
  if (process.platform === 'linux') assert.ok(usage && usage.user >= 0 && usage.sys >= 0, JSON.stringify(usage));
});

test('bad hook configs: every problem of every hook is listed with the hook path', async () => {
  const root = makeTree({
    'hooks/a.sh': '#!/bin/sh\n[ "$1" = --config ] && echo \'{"configVersion":"v1","beforeAll":1,"kubernetes":[{"apiVersion":"v1"}]}\' && exit 0\n',
    'hooks/b.sh': '#!/bin/sh\necho "no config for you" >&2\nexit 2\n',
    'hooks/c.hook.mjs': 'export const config = { configVersion: "v1", schedule: [{ crontab: "not a crontab" }] };\nexport function run() {}\n',
    'hooks/d.hook.mjs': 'export const settings = 1;\n',
  });
  await assert.rejects(loadHooks(join(root, 'hooks'), { kind: 'module', module: 'mod', timeoutMs: 10_000 }), (e: Error) => {
    assert.match(e.message, /cannot load the hooks of module mod/);
    assert.match(e.message, /mod\/hooks\/a\.sh: beforeAll: .*global/);
    assert.match(e.message, /mod\/hooks\/a\.sh: kubernetes\[0\]\.kind: /);
    assert.match(e.message, /hook mod\/hooks\/b\.sh: ".*b\.sh --config" failed: exit code 2; stderr: no config for you/);
    assert.match(e.message, /mod\/hooks\/c\.hook\.mjs: schedule\[0\]\.crontab: /);
    assert.match(e.message, /hook mod\/hooks\/d\.hook\.mjs: it must export "config", an object; it must export "run\(ctx\)", a function/);
    return true;
  });
});

test('in-process hooks: a thrown error or bad output fails the run, a run past its timeout fails', async () => {
  const root = makeTree({
    'hooks/throws.hook.mjs': 'export const config = { configVersion: "v1", beforeHelm: 1 };\nexport function run() { throw new Error("boom"); }\n',
    'hooks/badop.hook.mjs': 'export const config = { configVersion: "v1", beforeHelm: 1 };\nexport function run(ctx) { ctx.patchValues({ op: "frob", path: "/m/a" }); }\n',
    'hooks/slow.hook.mjs': `import { defineHook } from 'addon-operator/hooks';\nexport const { config, run } = defineHook({ config: { configVersion: 'v1', beforeHelm: 1 }, run: (ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)) });\n`,
  });
  const hooks = await loadHooks(join(root, 'hooks'), { kind: 'module', module: 'm', timeoutMs: 10_000 });
  const byName = new Map(hooks.map((h) => [h.name, h]));
  const req = { contexts: [], values: { global: {}, m: {} }, configValues: { global: {}, m: {} } };
  await assert.rejects(byName.get('hooks/throws.hook.mjs')!.run(req, runtime(root)), /hook hooks\/throws\.hook\.mjs failed: boom/);
  await assert.rejects(byName.get('hooks/badop.hook.mjs')!.run(req, runtime(root)), /values patch of hook hooks\/badop\.hook\.mjs, operation 1: unknown op "frob"/);
  await assert.rejects(byName.get('hooks/slow.hook.mjs')!.run(req, { ...runtime(root), timeoutMs: 100 }), /hook hooks\/slow\.hook\.mjs failed: timed out after 0\.1s/);
});

test('in-process hooks: ctx.signal, made when first read, is aborted at the timeout also when first read after it, and is an own property', async () => {
  const root = makeTree({
    'hooks/late.hook.mjs': `export const config = { configVersion: 'v1', beforeHelm: 1 };
export function run(ctx) {
  globalThis.__lateHook = { keys: Object.keys(ctx) };
  return new Promise((resolve) => setTimeout(() => {
    Object.assign(globalThis.__lateHook, { aborted: ctx.signal.aborted, same: { ...ctx }.signal === ctx.signal });
    resolve();
  }, 300));
}
`,
  });
  const [hook] = await loadHooks(join(root, 'hooks'), { kind: 'module', module: 'm', timeoutMs: 10_000 });
  const req = { contexts: [], values: { global: {}, m: {} }, configValues: { global: {}, m: {} } };
  await assert.rejects(hook!.run(req, { ...runtime(root), timeoutMs: 50 }), /timed out after 0\.05s/);
  const g = globalThis as { __lateHook?: { keys: string[]; aborted?: boolean; same?: boolean } };
  for (let i = 0; i < 100 && g.__lateHook?.aborted === undefined; i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(g.__lateHook?.keys.includes('signal'), 'signal is an enumerable own property of ctx');
  assert.equal(g.__lateHook?.aborted, true);
  assert.equal(g.__lateHook?.same, true, 'one signal per run, copied by a spread of ctx');
  delete g.__lateHook;

  // a hook that never reads ctx.signal costs no AbortController (each left about 0.7 KB of old-generation garbage)
  const quietRoot = makeTree({ 'hooks/quiet.hook.mjs': "export const config = { configVersion: 'v1', beforeHelm: 1 };\nexport function run(ctx) { ctx.values; }\n" });
  const [quiet] = await loadHooks(join(quietRoot, 'hooks'), { kind: 'module', module: 'm', timeoutMs: 10_000 });
  const Original = globalThis.AbortController;
  let made = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made++;
    }
  };
  try {
    await quiet!.run(req, runtime(quietRoot));
  } finally {
    globalThis.AbortController = Original;
  }
  assert.equal(made, 0);
});
