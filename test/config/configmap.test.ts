import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { parseConfigData, readConfigFile } from '../../src/config/configmap.js';
import { isValidValuesKey } from '../../src/modules/names.js';

const parse = (data: Record<string, unknown>) => parseConfigData(data, 'ConfigMap addon-operator', isValidValuesKey);

test('ConfigMap data: global, module sections, Enabled flags and the legacy "false" (VALUES.md example)', () => {
  const c = parse({ global: 'param1: newValue\nparam3: valu3\n', simpleModule: 'modParam2: newValue2\n', anotherModule: 'false', thirdModuleEnabled: 'true' });
  assert.deepEqual(c.global, { param1: 'newValue', param3: 'valu3' });
  assert.deepEqual(c.modules.get('simpleModule'), { values: { modParam2: 'newValue2' } });
  assert.deepEqual(c.modules.get('anotherModule'), { enabled: { value: false, key: 'anotherModule' } });
  assert.deepEqual(c.modules.get('thirdModule'), { enabled: { value: true, key: 'thirdModuleEnabled' } });
});

test('an explicit Enabled key wins over the legacy form; empty sections are empty maps', () => {
  const c = parse({ mod: 'false', modEnabled: 'true', other: '' });
  assert.deepEqual(c.modules.get('mod')!.enabled, { value: true, key: 'modEnabled' });
  assert.deepEqual(c.modules.get('other'), { values: {} });
});

test('every bad key is reported, with the key and the YAML position', () => {
  assert.throws(
    () => parse({ global: 'a: [1,\n', bad_name: 'x: 1', someModuleEnabled: 'maybe', list: '- 1\n', num: 5 }),
    (e: Error) => {
      assert.match(e.message, /invalid config in ConfigMap addon-operator:/);
      assert.match(e.message, /invalid YAML in ConfigMap addon-operator, key "global":\d+:\d+/);
      assert.match(e.message, /key "bad_name": bad module name "bad_name"/);
      assert.match(e.message, /key "someModuleEnabled": must be "true" or "false", got "maybe"/);
      assert.match(e.message, /key "list": module config must be a YAML map/);
      assert.match(e.message, /key "num": a ConfigMap value must be a string/);
      return true;
    },
  );
});

test('a config file may be a ConfigMap manifest or a bare data map', () => {
  const root = makeTree({
    'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: addon-operator}\ndata:\n  global: |\n    a: 1\n',
    'bare.yaml': 'global: |\n  a: 2\nfooEnabled: "false"\n',
    'bad.yaml': 'global:\n  a: 3\n',
  });
  assert.deepEqual(readConfigFile(join(root, 'cm.yaml'), isValidValuesKey).global, { a: 1 });
  const bare = readConfigFile(join(root, 'bare.yaml'), isValidValuesKey);
  assert.deepEqual(bare.global, { a: 2 });
  assert.equal(bare.modules.get('foo')!.enabled!.value, false);
  assert.throws(() => readConfigFile(join(root, 'bad.yaml'), isValidValuesKey), /key "global": a ConfigMap value must be a string holding YAML/);
  assert.throws(() => readConfigFile(join(root, 'missing.yaml'), isValidValuesKey), /cannot read config file .*missing\.yaml: ENOENT/);
});

test('<camelName>Maintenance: NoResourceReconciliation (either case) or "" (managed); any other value names the key', () => {
  const c = parse({ aMaintenance: 'NoResourceReconciliation', bMaintenance: 'noresourcereconciliation', cMaintenance: '' });
  assert.deepEqual(c.modules.get('a'), { noResourceReconciliation: true });
  assert.deepEqual(c.modules.get('b'), { noResourceReconciliation: true });
  assert.deepEqual(c.modules.get('c'), { noResourceReconciliation: false });
  assert.throws(
    () => parse({ echoMaintenance: 'Sometimes' }),
    /key "echoMaintenance": module maintenance state can only be "NoResourceReconciliation", "noresourcereconciliation" or "", got "Sometimes"/,
  );
});
