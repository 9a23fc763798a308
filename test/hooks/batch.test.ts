// Batch hooks (flant/module-sdk's protocol) with a real executable: a bash script that answers
// `hook list`, `hook config`, `hook run ID` and `hook ready` as a module SDK binary does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { loadHooks, type Hook } from '../../src/hooks/hook.js';
import { lifecycleContext } from '../../src/hooks/binding-context.js';
import { UserErrors } from '../../src/util/errors.js';
import { rejection } from '../helpers/wait.js';
import type { GlobalHookConfig, ModuleHookConfig } from '../../src/hooks/config-types.js';

/** A module SDK-like batch executable: `hook list|config|run ID|ready`, its answers given. */
function batchScript(opts: { list?: string; config: string; configExit?: number }): string {
  return `#!/usr/bin/env bash
[ "$1" = hook ] || { echo "usage: $0 hook list|config|run ID|ready" >&2; exit 2; }
case "$2" in
  list) env > "$(dirname "$0")/list.env"; printf '%b' ${JSON.stringify(opts.list ?? 'Found 2 items:\n0 - ensure-crds\n1 - watch-pods\n')} ;;
  config) cat <<'EOF'
${opts.config}
EOF
    exit ${opts.configExit ?? 0} ;;
  run) echo "[{\\"op\\":\\"add\\",\\"path\\":\\"/mod/ran\\",\\"value\\":\\"$3 in $MODULE_NAME\\"}]" > "$VALUES_JSON_PATCH_PATH"
       jq -c '[.[] | .binding]' "$BINDING_CONTEXT_PATH" ;;
  ready) echo '{"name":"mod_ready","set":1}' > "$METRICS_PATH" ;;
  *) exit 3 ;;
esac
`;
}

const V1_CONFIG = JSON.stringify({
  version: 'v1',
  hooks: [
    { configVersion: 'v1', metadata: { name: 'ensure-crds', path: 'hooks/ensure_crds' }, onStartup: 5, beforeHelm: 10, settings: { executionMinInterval: 3_000_000_000, executionBurst: 2 } },
    {
      configVersion: 'v1',
      metadata: { name: 'watch-pods', path: 'hooks/watch_pods' },
      kubernetes: [{ name: 'pods', apiVersion: 'v1', kind: 'Pod', jqFilter: '.metadata.name', executeHookOnEvent: false, namespace: { nameSelector: { matchNames: ['default'] } } }],
      schedule: [{ name: 'every-minute', crontab: '* * * * *', queue: '' }],
    },
  ],
  readiness: { configVersion: 'v1', metadata: { name: 'readiness', path: 'common-hooks/readiness' }, schedule: [{ name: 'readiness', crontab: '*/5 * * * * *' }] },
});

async function loadModuleHooks(script: string): Promise<{ root: string; hooks: Hook[] }> {
  const root = makeTree({ 'mod/hooks/batch': script, 'mod/hooks/plain.sh': '#!/usr/bin/env bash\n[ "$1" = --config ] && echo \'{"configVersion":"v1","afterHelm":1}\'\n' });
  return { root, hooks: await loadHooks(join(root, 'mod/hooks'), { kind: 'module', module: 'mod', timeoutMs: 10_000 }) };
}

test('a batch executable becomes its hooks, named as the Go operator names them, with the SDK configs remapped', async () => {
  const { hooks } = await loadModuleHooks(batchScript({ config: V1_CONFIG }));
  assert.deepEqual(hooks.map((h) => h.name).sort(), ['hooks/batch-readiness', 'hooks/batch:ensure-crds:0', 'hooks/batch:watch-pods:1', 'hooks/plain.sh']);
  const byName = new Map(hooks.map((h) => [h.name, h]));
  const crds = byName.get('hooks/batch:ensure-crds:0')!;
  assert.equal(crds.config.onStartup, 5);
  assert.equal((crds.config as ModuleHookConfig).beforeHelm, 10);
  assert.deepEqual(crds.config.settings, { executionMinIntervalMs: 3000, executionBurst: 2 });
  const pods = byName.get('hooks/batch:watch-pods:1')!;
  const [kube] = pods.config.kubernetes;
  assert.equal(kube!.name, 'pods');
  assert.equal(kube!.group, 'main', 'SDK bindings are grouped');
  assert.deepEqual(kube!.executeHookOnEvent, [], 'executeHookOnEvent: false is no events');
  assert.equal(kube!.keepFullObjectsInMemory, false);
  assert.equal(pods.config.schedule[0]!.group, 'main');
  assert.equal(pods.config.schedule[0]!.queue, 'main', 'an empty queue is the main queue');
  assert.notEqual(crds.id, pods.id, 'hooks of one file have their own identity');
});

test('a batch hook runs as `hook run ID` with MODULE_NAME and its files; the readiness probe as `hook ready`', async () => {
  const { hooks } = await loadModuleHooks(batchScript({ config: V1_CONFIG }));
  const crds = hooks.find((h) => h.name === 'hooks/batch:ensure-crds:0')!;
  const lines: string[] = [];
  const rt = { tmpDir: join(makeTree({}), 'tmp'), timeoutMs: 10_000, log: (_s: 'stdout' | 'stderr', l: string) => lines.push(l) };
  const out = await crds.run({ contexts: [lifecycleContext(crds.config, 'beforeHelm')], values: { mod: {} }, configValues: { mod: {} } }, rt);
  assert.deepEqual(out.valuesPatch, [{ op: 'add', path: '/mod/ran', value: '0 in mod' }]);
  assert.deepEqual(lines, ['["beforeHelm"]']);
  const ready = hooks.find((h) => h.name === 'hooks/batch-readiness')!;
  const probe = await ready.run({ contexts: [], values: { mod: {} }, configValues: { mod: {} } }, rt);
  assert.deepEqual(probe.metrics.map((m) => ('name' in m ? m.name : m.action)), ['mod_ready']);
});

test('the older `hook config` form, a bare array, numbers the hooks from 0', async () => {
  const config = JSON.stringify([{ configVersion: 'v1', metadata: { name: 'a' }, afterHelm: 1 }, { configVersion: 'v1', metadata: { name: 'b' }, onStartup: 1 }]);
  const { hooks } = await loadModuleHooks(batchScript({ config }));
  assert.deepEqual(hooks.map((h) => h.name).filter((n) => n.includes('batch')).sort(), ['hooks/batch:a:0', 'hooks/batch:b:1']);
});

test('a global batch hook: beforeHelm/afterHelm are beforeAll/afterAll, names joined with dashes', async () => {
  const config = JSON.stringify({ version: 'v1', hooks: [{ configVersion: 'v1', metadata: { name: 'sync' }, beforeHelm: 7 }] });
  const root = makeTree({ 'global-hooks/hooks/batch': batchScript({ list: 'Found 1 items:\n0 - sync\n', config }) });
  const [hook] = await loadHooks(join(root, 'global-hooks/hooks'), { kind: 'global', timeoutMs: 10_000 });
  assert.equal(hook!.name, 'hooks/batch-sync-0');
  assert.equal((hook!.config as GlobalHookConfig).beforeAll, 7);
});

test('a shell hook without an extension is configured by --config and never run otherwise at start; `hook list` gets no environment', async () => {
  const root = makeTree({
    'mod/hooks/legacy': `#!/usr/bin/env bash
if [ "$1" = --config ]; then echo '{"configVersion":"v1","onStartup":1}'; exit 0; fi
echo "ran with: $*" > "$(dirname "$0")/../body-ran"
`,
  });
  const hooks = await loadHooks(join(root, 'mod/hooks'), { kind: 'module', module: 'mod', timeoutMs: 10_000 });
  assert.deepEqual(hooks.map((h) => [h.name, h.config.onStartup]), [['hooks/legacy', 1]]);
  assert.equal(existsSync(join(root, 'mod/body-ran')), false, "the hook's body did not run at start");

  const { root: batchRoot } = await loadModuleHooks(batchScript({ config: V1_CONFIG }));
  assert.doesNotMatch(readFileSync(join(batchRoot, 'mod/hooks/list.env'), 'utf8'), /^HOME=/m, '`hook list` ran with an empty environment, as in Go');
});

test('a shell hook without an extension whose --config fails is reported as such', async () => {
  const root = makeTree({ 'mod/hooks/broken': '#!/usr/bin/env bash\necho "no config here" >&2\nexit 1\n' });
  const e = await rejection(loadHooks(join(root, 'mod/hooks'), { kind: 'module', module: 'mod', timeoutMs: 10_000 }));
  assert.match(e.message, /hook mod\/hooks\/broken: ".*broken --config" failed: exit code 1; stderr: no config here/);
});

test('bad batch hooks stop the load with the file and the ID named', async () => {
  const cases: Array<[string, string, RegExp]> = [
    ['garbage', batchScript({ config: 'not json at all' }), /batch hook mod\/hooks\/batch: "hook config" did not print JSON/],
    ['failing', batchScript({ config: V1_CONFIG, configExit: 4 }), /batch hook mod\/hooks\/batch: ".*batch hook config" failed: exit code 4/],
    ['ID twice', batchScript({ list: 'Found 2 items:\n0 - a\n0 - b\n', config: V1_CONFIG }), /batch hook mod\/hooks\/batch: "hook list" lists ID 0 twice/],
    ['unknown version', batchScript({ config: '{"version":"v9","hooks":[]}' }), /"hook config" has version "v9"/],
    ['bad binding', batchScript({ config: JSON.stringify({ version: 'v1', hooks: [{ configVersion: 'v1', metadata: { name: 'x' }, kubernetes: [{ name: 'no-kind', jqFilter: '.[' }] }] }) }), /mod\/hooks\/batch \(batch hook ID 0\)/],
  ];
  for (const [what, script, message] of cases) {
    const e = await rejection(loadModuleHooks(script)).catch((err: Error) => assert.fail(`${what}: ${err.message}`));
    assert.ok(e instanceof UserErrors, what);
    assert.match([e.message, ...e.problems].join('\n'), message, what);
  }
});
