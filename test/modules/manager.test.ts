import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { ModuleManager } from '../../src/modules/manager.js';
import { lifecycleContext, onStartupContext } from '../../src/hooks/binding-context.js';
import { parseConfigData } from '../../src/config/configmap.js';
import { isValidValuesKey } from '../../src/modules/names.js';

const cfg = (data: Record<string, string>) => parseConfigData(data, 'ConfigMap', isValidValuesKey);

function tree(extra: Record<string, string> = {}) {
  return makeTree({
    'modules/values.yaml': 'global:\n  domain: example.com\nalphaEnabled: true\nbetaEnabled: true\n',
    'modules/001-alpha/values.yaml': 'alpha:\n  replicas: 1\n',
    'modules/001-alpha/hooks/before.sh':
      '#!/bin/bash\nif [ "$1" = --config ]; then echo "configVersion: v1\nbeforeHelm: 1"; exit 0; fi\n' +
      'jq -c ".global.enabledModules" "$VALUES_PATH" > "$(dirname "$0")/../seen-modules"\n' +
      'echo \'[{"op":"add","path":"/alpha/ready","value":true}]\' > "$VALUES_JSON_PATCH_PATH"\n',
    'modules/002-beta/Chart.yaml': 'name: beta\n',
    'global-hooks/hooks/switch.sh':
      '#!/bin/bash\nif [ "$1" = --config ]; then echo \'{"configVersion":"v1","onStartup":1}\'; exit 0; fi\n' +
      'echo \'[{"op":"add","path":"/betaEnabled","value":false},{"op":"add","path":"/global/switched","value":true}]\' > "$VALUES_JSON_PATCH_PATH"\n',
    ...extra,
  });
}

async function manager(root: string) {
  return ModuleManager.load({ modulesDir: join(root, 'modules'), globalHooksDir: join(root, 'global-hooks'), tmpDir: join(root, 'tmp'), hookTimeoutMs: 10_000 });
}

test('discovery gives the enabled list and the diff; a global hook flag disables a module on the next discovery', async () => {
  const root = tree();
  const mm = await manager(root);
  assert.deepEqual(mm.globalHooks.map((h) => h.name), ['hooks/switch.sh']);
  mm.applyConfig(cfg({}));
  const first = await mm.discover();
  assert.deepEqual(first.enabled, ['alpha', 'beta']);
  assert.deepEqual(first.toEnable, ['alpha', 'beta']);
  assert.deepEqual(first.toDisable, []);

  const run = await mm.runGlobalHook(mm.globalHooks[0]!, [onStartupContext()]);
  assert.equal(run.enabledFlagsChanged, true);
  assert.equal(run.valuesChanged, true);
  assert.deepEqual(mm.store.global.effective(), { domain: 'example.com', switched: true });
  assert.equal('betaEnabled' in mm.store.global.effective(), false, 'flags never reach the values');

  const second = await mm.discover();
  assert.deepEqual(second.enabled, ['alpha']);
  assert.deepEqual(second.toEnable, []);
  assert.deepEqual(second.toDisable, ['beta']);
  assert.deepEqual(second.decisions.find((d) => d.name === 'beta')!.reason, { kind: 'global-hook', hook: 'hooks/switch.sh' });
});

test('a module hook sees global.enabledModules and changes only its module', async () => {
  const root = tree();
  const mm = await manager(root);
  mm.applyConfig(cfg({}));
  await mm.discover();
  const [hook] = await mm.moduleHooks('alpha');
  const before = mm.store.global.checksum();
  const run = await mm.runModuleHook('alpha', hook!, [lifecycleContext(hook!.config, 'beforeHelm')]);
  assert.equal(run.valuesChanged, true);
  assert.deepEqual(mm.module('alpha').values.effective(), { replicas: 1, ready: true });
  assert.equal(mm.store.global.checksum(), before);
  assert.equal((await import('node:fs')).readFileSync(join(root, 'modules/001-alpha/seen-modules'), 'utf8').trim(), '["alpha","beta"]');
  assert.deepEqual(mm.store.helmValues('alpha'), { global: { domain: 'example.com' }, alpha: { replicas: 1, ready: true } });
});

test('config changes are classified: global section, Enabled flags, module sections', async () => {
  const mm = await manager(tree());
  mm.applyConfig(cfg({ global: 'a: 1\n', alpha: 'replicas: 2\n' }));
  assert.deepEqual(mm.applyConfig(cfg({ global: 'a: 1\n', alpha: 'replicas: 2\n' })), { globalChanged: false, enabledFlagsChanged: false, modulesChanged: [], maintenanceChanged: [] });
  assert.deepEqual(mm.applyConfig(cfg({ global: 'a: 2\n', alpha: 'replicas: 2\n' })), { globalChanged: true, enabledFlagsChanged: false, modulesChanged: [], maintenanceChanged: [] });
  assert.deepEqual(mm.applyConfig(cfg({ global: 'a: 2\n', alpha: 'replicas: 3\n', betaEnabled: 'false' })), { globalChanged: false, enabledFlagsChanged: true, modulesChanged: ['alpha'], maintenanceChanged: [] });
  assert.deepEqual(mm.applyConfig(cfg({ global: 'a: 2\n', betaEnabled: 'false' })), { globalChanged: false, enabledFlagsChanged: false, modulesChanged: ['alpha'], maintenanceChanged: [] });
});

test('a module with a bad hook fails discovery; fixed, the next discovery succeeds', async () => {
  const root = tree({ 'modules/002-beta/hooks/bad.sh': '#!/bin/sh\n[ "$1" = --config ] && echo \'{"configVersion":"v1","afterAll":1}\'\nexit 0\n' });
  const mm = await manager(root);
  mm.applyConfig(cfg({}));
  await assert.rejects(mm.discover(), /cannot load the hooks of module beta in \S+002-beta\/hooks:.*\n?.*beta\/hooks\/bad\.sh: afterAll/);
  writeFileSync(join(root, 'modules/002-beta/hooks/bad.sh'), '#!/bin/sh\n[ "$1" = --config ] && echo \'{"configVersion":"v1","afterHelm":1}\'\nexit 0\n');
  assert.deepEqual((await mm.discover()).enabled, ['alpha', 'beta']);
});

test('a bad global hook makes loading fail with every problem and the hook path', async () => {
  const root = tree({ 'global-hooks/hooks/broken.sh': '#!/bin/sh\n[ "$1" = --config ] && echo \'{"configVersion":"v1","beforeHelm":1,"schedule":[{"crontab":"61 * * * *"}]}\'\nexit 0\n' });
  await assert.rejects(manager(root), (e: Error) => {
    assert.match(e.message, /cannot load the global hooks in /);
    assert.match(e.message, /hooks\/broken\.sh: beforeHelm: /);
    assert.match(e.message, /hooks\/broken\.sh: schedule\[0\]\.crontab: /);
    return true;
  });
});

test('files in hooks dirs that are not hooks are skipped, named: a warning for a missing x bit (as Go), else a debug line', async () => {
  const root = tree({ 'global-hooks/hooks/notes.sh': '#!/bin/sh\necho never run\n', 'modules/001-alpha/hooks/readme.md': '# not a hook\n' });
  chmodSync(join(root, 'global-hooks/hooks/notes.sh'), 0o644);
  const debug: string[] = [];
  const warn: string[] = [];
  const mm = await ModuleManager.load({ modulesDir: join(root, 'modules'), globalHooksDir: join(root, 'global-hooks'), tmpDir: join(root, 'tmp'), hookTimeoutMs: 10_000, debug: (m) => debug.push(m), warn: (m) => warn.push(m) });
  assert.deepEqual(mm.globalHooks.map((h) => h.name), ['hooks/switch.sh']);
  assert.deepEqual((await mm.moduleHooks('alpha')).map((h) => h.name), ['hooks/before.sh']);
  assert.deepEqual(warn, [`${join(root, 'global-hooks/hooks/notes.sh')}: skipped, not executable: chmod +x is required to run this hook`]);
  assert.deepEqual(debug, [`${join(root, 'modules/001-alpha/hooks/readme.md')}: skipped, not a hook (.yaml, .json, .md or .txt)`]);
});

test('a config section is checked only for an enabled module (Go validateNewKubeConfig); a disabled module keeps it unchecked', async () => {
  const root = tree({
    'modules/002-beta/openapi/config-values.yaml': 'type: object\nproperties:\n  size: {type: integer}\n',
    'global-hooks/openapi/config-values.yaml': 'type: object\nrequired: [project]\nproperties:\n  project: {type: string}\n',
  });
  const mm = await manager(root);
  // start-up: nothing is enabled yet, no global key: nothing is checked, everything is stored
  mm.applyConfig(cfg({ beta: 'size: huge\n' }));
  assert.deepEqual(mm.store.module('beta').configValues, { size: 'huge' });
  // the config's own flag enables beta: its section is checked
  assert.throws(() => mm.applyConfig(cfg({ beta: 'size: huge\n', betaEnabled: 'true' })), /module beta: config values do not match .*\n {2}- beta\.size: must be integer, got string "huge" \(from ConfigMap key "beta"\)/);
  mm.applyConfig(cfg({ beta: 'size: 2\n' }));
  await mm.discover();
  // beta is enabled now: an edit is checked, the previous config stays
  assert.throws(() => mm.applyConfig(cfg({ beta: 'size: big\n' })), /beta\.size: must be integer/);
  assert.deepEqual(mm.store.module('beta').configValues, { size: 2 });
  // an empty section is never checked; a global key is
  assert.throws(() => mm.applyConfig(cfg({ global: 'other: 1\n' })), /global\.project: is required \(not set in ConfigMap key "global"\)/);
});
