import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { makeTree } from '../helpers/tree.js';
import { loadModuleSet } from '../../src/modules/module-set.js';
import { resolveEnabled, describeReason, parseAppliedExtenders, type EnabledInputs } from '../../src/modules/enabled.js';
import { enabledScriptRunner } from '../../src/modules/enabled-script.js';
import { parseConfigData } from '../../src/config/configmap.js';
import { isValidValuesKey } from '../../src/modules/names.js';

async function decide(files: Record<string, string>, configData: Record<string, string> = {}, timeoutMs = 10_000, dynamic?: EnabledInputs['dynamicFlags']) {
  const root = makeTree(files);
  const set = loadModuleSet({ modulesDirs: [join(root, 'modules')] });
  const config = parseConfigData(configData, 'ConfigMap', isValidValuesKey);
  set.store.applyConfig({ global: config.global, modules: config.modules });
  const configFlags = new Map([...config.modules].filter(([, m]) => m.enabled).map(([k, m]) => [k, m.enabled!]));
  const runner = enabledScriptRunner({ store: set.store, tmpDir: join(tmpdir(), 'ao-test-enabled'), timeoutMs });
  return { root, decisions: await resolveEnabled(set, { configFlags, dynamicFlags: dynamic }, runner) };
}

test('LIFECYCLE.md: nginxIngressEnabled true in modules/values.yaml, false in the module → disabled', async () => {
  const { root, decisions } = await decide({
    'modules/values.yaml': 'nginxIngressEnabled: true\n',
    'modules/001-nginx-ingress/values.yaml': 'nginxIngressEnabled: false\n',
  });
  assert.equal(decisions[0]!.enabled, false);
  assert.deepEqual(decisions[0]!.reason, { kind: 'file', file: join(root, 'modules/001-nginx-ingress/values.yaml'), key: 'nginxIngressEnabled' });
});

test('LIFECYCLE.md: disabled in modules/values.yaml, enabled by the ConfigMap, then the script says false', async () => {
  const { root, decisions } = await decide(
    {
      'modules/values.yaml': 'global:\n  param1: 100\nsomeModuleEnabled: false\n',
      'modules/01-some-module/values.yaml': 'someModule:\n  param1: "String"\n',
      'modules/01-some-module/enabled': '#!/bin/bash\n\necho false > $MODULE_ENABLED_RESULT\n',
    },
    { global: 'param1: 200\n', someModule: 'param1: "Long string"\nparam2: "FOO"\n', someModuleEnabled: 'true' },
  );
  assert.equal(decisions[0]!.enabled, false);
  assert.deepEqual(decisions[0]!.reason, { kind: 'script', file: join(root, 'modules/01-some-module/enabled'), wrote: 'false' });
  assert.match(describeReason(decisions[0]!.reason), /enabled script .* wrote "false"/);
});

test('no flag anywhere means disabled; the ConfigMap flag and global hooks override files', async () => {
  const { decisions } = await decide(
    { 'modules/values.yaml': 'bEnabled: true\ncEnabled: true\n', 'modules/001-a/Chart.yaml': '', 'modules/002-b/Chart.yaml': '', 'modules/003-c/Chart.yaml': '' },
    { bEnabled: 'false' },
    10_000,
    new Map([['c', { value: false, hook: 'global-hooks/hooks/switch.sh' }]]),
  );
  assert.deepEqual(decisions.map((d) => [d.name, d.enabled, d.reason.kind]), [['a', false, 'default'], ['b', false, 'configmap'], ['c', false, 'global-hook']]);
  assert.equal(describeReason(decisions[1]!.reason), 'ConfigMap key "bEnabled"');
});

test('enabled scripts see global.enabledModules of the modules enabled before them, and both value files', async () => {
  const dump = join(tmpdir(), `ao-enabled-dump-${process.pid}-${Date.now()}`);
  const { decisions } = await decide(
    {
      'modules/values.yaml': 'global:\n  param1: 100\n  param2: "Yes"\nfirstEnabled: true\nsecondEnabled: true\nthirdEnabled: true\n',
      'modules/001-first/Chart.yaml': '',
      'modules/002-second/values.yaml': 'second:\n  param1: "String"\n',
      'modules/002-second/enabled': `#!/bin/bash\ncat "$VALUES_PATH" > ${dump}.values\ncat "$CONFIG_VALUES_PATH" > ${dump}.config\necho true > "$MODULE_ENABLED_RESULT"\n`,
      'modules/003-third/enabled': `#!/bin/bash\njq -c .global.enabledModules "$VALUES_PATH" > ${dump}.third\necho true > "$MODULE_ENABLED_RESULT"\n`,
    },
    { global: 'param1: 200\n', second: 'param1: "Long string"\nparam2: "FOO"\n' },
  );
  assert.deepEqual(decisions.map((d) => d.enabled), [true, true, true]);
  assert.deepEqual(JSON.parse(readFileSync(`${dump}.values`, 'utf8')), {
    global: { param1: 200, param2: 'Yes', enabledModules: ['first'] },
    second: { param1: 'Long string', param2: 'FOO' },
  });
  assert.deepEqual(JSON.parse(readFileSync(`${dump}.config`, 'utf8')), { global: { param1: 200 }, second: { param1: 'Long string', param2: 'FOO' } });
  assert.equal(readFileSync(`${dump}.third`, 'utf8').trim(), '["first","second"]');
});

test('LIFECYCLE.md / MODULES.md enabled script examples: stopMePlease disables, stdout answer accepted', async () => {
  const lifecycle = '#!/usr/bin/env bash\n\nparam2=$(jq -r \'.simpleModule.param2\' $VALUES_PATH)\n\nif [[ $param2 == "stopMePlease" ]] ; then\n  echo "false" > $MODULE_ENABLED_RESULT\nelse\n  echo "true" > $MODULE_ENABLED_RESULT\nfi\n';
  const modules = '#!/usr/bin/env bash\n\nparam2=$(jq -r \'.simpleModule.param2\' $VALUES_PATH)\n\nif [[ $param2 == "stopMePlease" ]] ; then\n  echo "false"\nelse\n  echo "true"\nfi \n';
  for (const script of [lifecycle, modules]) {
    const files = { 'modules/values.yaml': 'simpleModuleEnabled: true\n', 'modules/001-simple-module/values.yaml': 'simpleModule:\n  param2: value_2\n', 'modules/001-simple-module/enabled': script };
    assert.equal((await decide(files)).decisions[0]!.enabled, true);
    assert.equal((await decide(files, { simpleModule: 'param2: stopMePlease\n' })).decisions[0]!.enabled, false);
  }
});

test('a failing, hanging or babbling enabled script is an error naming the module and what it did', async () => {
  const base = { 'modules/values.yaml': 'brokenEnabled: true\n' };
  await assert.rejects(decide({ ...base, 'modules/broken/enabled': '#!/bin/sh\necho oops >&2\nexit 3\n' }), /module broken: enabled script .*enabled failed: exit code 3; stderr: oops/);
  await assert.rejects(decide({ ...base, 'modules/broken/enabled': '#!/bin/sh\necho maybe > $MODULE_ENABLED_RESULT\n' }), /module broken: enabled script .* wrote "maybe" to \$MODULE_ENABLED_RESULT; it must write "true" or "false"/);
  await assert.rejects(decide({ ...base, 'modules/broken/enabled': '#!/bin/sh\ntrue\n' }), /wrote nothing to \$MODULE_ENABLED_RESULT/);
  await assert.rejects(decide({ ...base, 'modules/broken/enabled': '#!/bin/sh\nexec sleep 30\n' }, {}, 300), /module broken: enabled script .* timed out after 0\.3s/);
  // a result file beyond 64 KiB is refused unread
  await assert.rejects(
    decide({ ...base, 'modules/broken/enabled': '#!/bin/sh\nhead -c 65537 /dev/zero | tr "\\0" " " > $MODULE_ENABLED_RESULT\n' }),
    /^UserError: module broken: enabled script .*enabled: \$MODULE_ENABLED_RESULT is too large: 65537 bytes, more than its limit of 64 KiB; refused$/,
  );
  // 20 MB of stdout, the answer on the last line: taken (only that line is kept)
  assert.equal((await decide({ ...base, 'modules/broken/enabled': '#!/bin/sh\nhead -c 20000000 /dev/zero | tr "\\0" "x" | fold -w 1000\necho\necho true\n' })).decisions[0]!.enabled, true);
});

test('a script that says false may say why in $MODULE_ENABLED_REASON; the reason shows with the decision', async () => {
  const { decisions } = await decide({
    'modules/values.yaml': 'aEnabled: true\nbEnabled: true\n',
    'modules/001-a/enabled': '#!/bin/bash\necho false > "$MODULE_ENABLED_RESULT"\necho "  needs a cloud provider  " > "$MODULE_ENABLED_REASON"\n',
    'modules/002-b/enabled': '#!/bin/bash\necho false > "$MODULE_ENABLED_RESULT"\n',
  });
  assert.deepEqual(decisions.map((d) => d.enabled), [false, false]);
  assert.match(describeReason(decisions[0]!.reason), /enabled script .*001-a\/enabled wrote "false": needs a cloud provider$/);
  assert.match(describeReason(decisions[1]!.reason), /enabled script .*002-b\/enabled wrote "false"$/);
});

test('APPLIED_MODULE_EXTENDERS: only the listed sources decide; unknown and repeated names are errors', async () => {
  const root = makeTree({
    'modules/values.yaml': 'aEnabled: true\nbEnabled: true\n',
    'modules/001-a/Chart.yaml': '',
    'modules/002-b/enabled': '#!/bin/bash\necho false > "$MODULE_ENABLED_RESULT"\n',
  });
  chmodSync(join(root, 'modules/002-b/enabled'), 0o755);
  const set = loadModuleSet({ modulesDirs: [join(root, 'modules')] });
  const runner = enabledScriptRunner({ store: set.store, tmpDir: join(tmpdir(), 'ao-test-enabled'), timeoutMs: 10_000 });
  const decide = async (list: string) =>
    (await resolveEnabled(set, { configFlags: new Map([['a', { value: false, key: 'aEnabled' }]]), extenders: parseAppliedExtenders(list, '--applied-module-extenders') }, runner)).map((d) => [d.name, d.enabled, d.reason.kind]);
  // every source: the ConfigMap disables a, b's script disables b
  assert.deepEqual(await decide(''), [['a', false, 'configmap'], ['b', false, 'script']]);
  // the values files and the scripts only
  assert.deepEqual(await decide('Static,ScriptEnabled'), [['a', true, 'file'], ['b', false, 'script']]);
  // the values files only: b's script is not run
  assert.deepEqual(await decide('Static'), [['a', true, 'file'], ['b', true, 'file']]);
  assert.throws(() => parseAppliedExtenders('Static,Nope', '--applied-module-extenders'), /--applied-module-extenders: couldn't find Nope extender in the list of available extenders/);
  assert.throws(() => parseAppliedExtenders('Static,Static', '--applied-module-extenders'), /multiple entries for Static extender/);
});
