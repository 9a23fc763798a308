import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { ScopeValues, ValuesStore } from '../../src/values/index.js';

const MAIN = join(import.meta.dirname, '../../src/cli/main.ts');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], { encoding: 'utf8', env: { ...process.env, ADDON_OPERATOR_TMP_DIR: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function renderValues(root: string, extra: string[] = []) {
  return cli(['render', '--values', '--modules-dir', join(root, 'modules'), '--global-hooks-dir', join(root, 'global-hooks'), ...extra]);
}

test('VALUES.md example: values.yaml files overridden by the ConfigMap', () => {
  const root = makeTree({
    'modules/values.yaml': 'global:\n  param1: 100\n  param2: "Yes"\nsomeModuleEnabled: true\n',
    'modules/01-some-module/values.yaml': 'someModule:\n  param1: "String"\n',
    'global-hooks/.keep': '',
    'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: addon-operator\ndata:\n  global: |\n    param1: 200\n  someModule: |\n    param1: "Long string"\n    param2: "FOO"\n',
  });
  const r = renderValues(root, ['--config', join(root, 'cm.yaml')]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    global: { param1: 200, param2: 'Yes' },
    enabledModules: ['some-module'],
    modules: { someModule: { param1: 'Long string', param2: 'FOO' } },
  });
});

test('VALUES.md example: a config patch lands in the config values and in the merged values', () => {
  const global = new ScopeValues('global', 'global');
  global.setStatic([{ source: { kind: 'file', file: 'modules/values.yaml' }, values: { param1: 100, param2: 'Yes' } }]);
  const store = new ValuesStore(global);
  const m = new ScopeValues('someModule', 'module some-module');
  m.setStatic([{ source: { kind: 'file', file: 'modules/01-some-module/values.yaml' }, values: { param1: 'String' } }]);
  store.addModule(m);
  store.applyConfig({ global: { param1: 200 }, modules: new Map([['someModule', { values: { param1: 'Long string', param2: 'FOO' } }]]) });
  const saved = m.applyConfigPatch([{ op: 'add', path: '/someModule/param3', value: 'newValue' }], 'hook.sh');
  assert.deepEqual(saved, { param1: 'Long string', param2: 'FOO', param3: 'newValue' });
  assert.deepEqual(store.moduleHookConfigValues('someModule'), { global: { param1: 200 }, someModule: { param1: 'Long string', param2: 'FOO', param3: 'newValue' } });
  assert.deepEqual(store.helmValues('someModule'), { global: { param1: 200, param2: 'Yes' }, someModule: { param1: 'Long string', param2: 'FOO', param3: 'newValue' } });
});

test('MODULES.md example: values.yaml, ConfigMap and a dot-path replace patch give the documented Helm values', () => {
  const root = makeTree({
    'modules/values.yaml': 'simpleOneModuleEnabled: true\n',
    'modules/001-simple-one-module/values.yaml': 'simpleOneModule:\n  param1: value_1\n  param2: value_2\n',
    'global-hooks/.keep': '',
    'cm.yaml': 'global: |\n  globParam1: globalValue1\nsimpleOneModule: |\n  param3: value_3\n  param2: newValue_1\n',
  });
  const r = renderValues(root, ['--config', join(root, 'cm.yaml')]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  // what the beforeHelm hook gets in $VALUES_PATH (module section)
  assert.deepEqual(out.modules.simpleOneModule, { param1: 'value_1', param2: 'newValue_1', param3: 'value_3' });
  const store = new ValuesStore(new ScopeValues('global', 'global'));
  const m = new ScopeValues('simpleOneModule', 'module simple-one-module');
  m.setStatic([{ source: { kind: 'file', file: 'values.yaml' }, values: { param1: 'value_1', param2: 'value_2' } }]);
  store.addModule(m);
  store.applyConfig({ global: { globParam1: 'globalValue1' }, modules: new Map([['simpleOneModule', { values: { param3: 'value_3', param2: 'newValue_1' } }]]) });
  m.applyValuesPatch([{ op: 'replace', path: '/simpleOneModule/param2', value: 'patchedValue_2' }], 'module-hooks.sh');
  assert.deepEqual(store.helmValues('simpleOneModule'), {
    global: { globParam1: 'globalValue1' },
    simpleOneModule: { param1: 'value_1', param2: 'patchedValue_2', param3: 'value_3' },
  });
});

test('render prints only enabled modules, with schema defaults, and limits output to named modules', () => {
  const root = makeTree({
    'modules/values.yaml': 'aEnabled: true\nbEnabled: true\n',
    'modules/001-a/openapi/values.yaml': 'type: object\nproperties:\n  port: {type: integer, default: 80}\n',
    'modules/002-b/values.yaml': 'b:\n  x: 1\n',
    'modules/003-c/values.yaml': 'c:\n  y: 1\n',
    'global-hooks/openapi/config-values.yaml': 'type: object\nproperties:\n  domain: {type: string, default: example.com}\n',
  });
  const all = JSON.parse(renderValues(root).stdout);
  assert.deepEqual(all, { global: { domain: 'example.com' }, enabledModules: ['a', 'b'], modules: { a: { port: 80 }, b: { x: 1 } } });
  const one = JSON.parse(renderValues(root, ['b']).stdout);
  assert.deepEqual(Object.keys(one.modules), ['b']);
  const unknown = renderValues(root, ['zzz']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no module named "zzz"/);
});

test('bad input: each error names its source, exits 1 and prints no stack trace', () => {
  const cases: { files: Record<string, string>; config?: string; expect: RegExp }[] = [
    { files: { 'modules/values.yaml': 'global:\n  a: [1\n' }, expect: /invalid YAML in .*modules\/values\.yaml:\d+:\d+/ },
    { files: { 'modules/001-m/values.yaml': 'm:\n  a: 1\nother: 2\n' }, expect: /001-m\/values\.yaml:3: unexpected root key "other"/ },
    { files: { 'modules/001-m/openapi/config-values.yaml': 'type: object\nproperties:\n  a: {type: string, minLength: x}\n' }, expect: /001-m\/openapi\/config-values\.yaml: properties\.a\.minLength: must be an integer, got string "x"/ },
    {
      files: { 'modules/001-m/values.yaml': 'm: {}\n', 'modules/001-m/openapi/config-values.yaml': 'type: object\nproperties:\n  replicas: {type: integer}\n' },
      config: 'mEnabled: "true"\nm: |\n  replicas: many\n',
      expect: /module m: config values do not match .*001-m\/openapi\/config-values\.yaml:\n {2}- m\.replicas: must be integer, got string "many" \(from ConfigMap key "m" in .*cm\.yaml\)/,
    },
    {
      files: { 'global-hooks/openapi/config-values.yaml': 'type: object\nrequired: [project]\nproperties:\n  project: {type: string}\n', 'modules/.keep': '' },
      config: 'global: |\n  project: 5\n',
      expect: /global: config values do not match .*config-values\.yaml:\n {2}- global\.project: must be string, got number 5 \(from ConfigMap key "global" in .*cm\.yaml\)/,
    },
    { files: { 'modules/001-dup/Chart.yaml': '', 'modules/002-dup/Chart.yaml': '' }, expect: /module "dup" is defined twice: .*001-dup and .*002-dup/ },
    { files: { 'modules/001-m/values.yaml': 'm: {}\n' }, config: 'mEnabled: perhaps\n', expect: /a ConfigMap value must be a string|must be "true" or "false"/ },
  ];
  for (const c of cases) {
    const root = makeTree({ 'global-hooks/.keep': '', ...c.files, ...(c.config ? { 'cm.yaml': c.config } : {}) });
    const r = renderValues(root, c.config ? ['--config', join(root, 'cm.yaml')] : []);
    assert.equal(r.code, 1, `expected failure for ${JSON.stringify(c.files)}; got ${r.stdout}`);
    assert.match(r.stderr, c.expect);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace without --debug');
    assert.equal(r.stdout, '');
  }
});

test('an unreadable values file is reported with its path; --debug adds the stack', () => {
  const root = makeTree({ 'global-hooks/.keep': '', 'modules/001-m/values.yaml': 'm: {}\n' });
  chmodSync(join(root, 'modules/001-m/values.yaml'), 0o000);
  const r = renderValues(root);
  if (process.getuid?.() === 0) {
    // root reads any file: the permission cannot make it unreadable here, so check a directory instead
    const dirRoot = makeTree({ 'global-hooks/.keep': '', 'modules/001-m/values.yaml/x': '' });
    const d = renderValues(dirRoot);
    assert.equal(d.code, 1);
    assert.match(d.stderr, /cannot read .*001-m\/values\.yaml: EISDIR/);
    const dbg = renderValues(dirRoot, ['--debug']);
    assert.match(dbg.stderr, /\n\s+at /);
  } else {
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot read .*001-m\/values\.yaml: EACCES/);
  }
});

test('render prints the manifests of each enabled module\'s release as helm template does; --help works on every command', () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'global:\n  domain: example.com\naEnabled: true\nbEnabled: false\ncEnabled: true\n',
    'modules/001-a/values.yaml': 'a:\n  replicas: 2\n',
    'modules/001-a/templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}-{{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\ndata:\n  replicas: {{ .Values.a.replicas | quote }}\n  domain: {{ .Values.global.domain }}\n',
    'modules/001-a/templates/NOTES.txt': 'not printed',
    'modules/002-b/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n',
    'modules/003-c/Chart.yaml': 'apiVersion: v2\nname: c-chart\nversion: 1.2.3\n',
    'modules/003-c/templates/svc.yaml': 'apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Chart.Name }}\n',
    'modules/003-c/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Version }}\n',
  });
  const args = ['render', '--modules-dir', join(root, 'modules'), '--global-hooks-dir', join(root, 'global-hooks')];
  const r = cli([...args, '--namespace', 'd8-system']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    '---\n# Source: a/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a-a\n  namespace: d8-system\ndata:\n  replicas: "2"\n  domain: example.com\n' +
      // a chart of its own (Chart.yaml) keeps its name; ConfigMaps before Services (Helm's install order)
      '---\n# Source: c-chart/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 1.2.3\n---\n# Source: c-chart/templates/svc.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: c-chart\n',
  );
  const only = cli([...args, 'c']);
  assert.equal(only.code, 0, only.stderr);
  assert.match(only.stdout, /^---\n# Source: c-chart\/templates\/cm.yaml\n/);
  assert.doesNotMatch(only.stdout, /a\/templates/);
  // a template error names the module and Helm's message
  writeFileSync(join(root, 'modules/001-a/templates/bad.yaml'), '{{ required "a.host is required" .Values.a.host }}\n');
  const bad = cli(args);
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'Error: module a: execution error at (a/templates/bad.yaml:1:3): a.host is required\n');
  for (const help of [['--help'], ['render', '--help'], ['version', '--help']]) {
    const h = cli(help);
    assert.equal(h.code, 0);
    assert.match(h.stdout, /Usage: addon-operator/);
  }
});

test('render and render --values check the values for Helm (x-required-for-helm) as the operator does before Helm', () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'webEnabled: true\nnochartEnabled: true\n',
    'modules/001-web/values.yaml': 'web:\n  replicas: 1\n',
    'modules/001-web/openapi/values.yaml': 'type: object\nx-required-for-helm: [host]\nproperties:\n  replicas: {type: integer}\n  host: {type: string}\n',
    'modules/001-web/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n',
    // a module without a chart is not checked: it goes to no Helm
    'modules/002-nochart/values.yaml': 'nochart: {}\n',
    'modules/002-nochart/openapi/values.yaml': 'type: object\nx-required-for-helm: [host]\nproperties:\n  host: {type: string}\n',
  });
  for (const extra of [['--values'], []]) {
    const r = cli(['render', ...extra, '--modules-dir', join(root, 'modules'), '--global-hooks-dir', join(root, 'global-hooks')]);
    assert.equal(r.code, 1, extra.join(' '));
    assert.match(r.stderr, /^Error: module web: values for Helm do not match .*001-web\/openapi\/values\.yaml \(with x-required-for-helm\):\n {2}- web\.host: is required/);
    assert.equal(r.stdout, '');
  }
  const ok = cli(['render', '--values', '--modules-dir', join(root, 'modules'), '--global-hooks-dir', join(root, 'global-hooks'), 'nochart']);
  assert.equal(ok.code, 0, ok.stderr); // only the printed modules are checked
  assert.deepEqual(JSON.parse(ok.stdout).modules, { nochart: {} });
});

test('schemas are checked when Go checks them: values schemas not on static values alone, config only for a global key and enabled modules', () => {
  const root = makeTree({
    'global-hooks/openapi/config-values.yaml': 'type: object\nrequired: [project]\nproperties:\n  project: {type: string}\n',
    'modules/values.yaml': 'aEnabled: true\nbEnabled: false\n',
    // a values schema hooks fill in: static values alone do not satisfy it, and need not
    'modules/001-a/values.yaml': 'a:\n  replicas: many\n',
    'modules/001-a/openapi/values.yaml': 'type: object\nrequired: [internal]\nproperties:\n  replicas: {type: integer}\n  internal: {type: object}\n',
    'modules/002-b/values.yaml': 'b: {}\n',
    'modules/002-b/openapi/config-values.yaml': 'type: object\nproperties:\n  size: {type: integer}\n',
    'cm.yaml': 'b: |\n  size: huge\n',
  });
  // no global key: the global config schema (with its required key) is not checked; b is disabled: its config is stored unchecked
  const r = renderValues(root, ['--config', join(root, 'cm.yaml')]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).enabledModules, ['a']);
  // a global key is checked, and a missing required key is not blamed on the ConfigMap's values
  writeFileSync(join(root, 'cm.yaml'), 'global: |\n  other: 1\n');
  const g = renderValues(root, ['--config', join(root, 'cm.yaml')]);
  assert.equal(g.code, 1);
  assert.match(g.stderr, /global\.project: is required \(not set in ConfigMap key "global" in .*cm\.yaml\)/);
});

test('the config of a module enabled by values.yaml is checked once it is known to be enabled; a disabled one stays unchecked', () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'webEnabled: true\nofflineEnabled: false\n',
    'modules/001-web/openapi/config-values.yaml': 'type: object\nproperties:\n  replicas: {type: integer, minimum: 1}\n',
    'modules/002-offline/openapi/config-values.yaml': 'type: object\nproperties:\n  replicas: {type: integer, minimum: 1}\n',
    'cm.yaml': 'web: |\n  replicas: 0\noffline: |\n  replicas: abc\n',
  });
  const r = renderValues(root, ['--config', join(root, 'cm.yaml')]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^Error: config values are not valid: module web: config values do not match .*001-web\/openapi\/config-values\.yaml:\n {2}- web\.replicas: must be >= 1, got number 0 \(from ConfigMap key "web" in .*cm\.yaml\)\n$/);
  assert.doesNotMatch(r.stderr, /offline/, 'a disabled module\'s config is stored unchecked, as in Go');
  writeFileSync(join(root, 'cm.yaml'), 'web: |\n  replicas: 2\noffline: |\n  replicas: abc\n');
  const ok = renderValues(root, ['--config', join(root, 'cm.yaml')]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout).modules, { web: { replicas: 2 } });
});

test('x-required-for-helm of the global values schema is checked before a module goes to Helm', () => {
  const root = makeTree({
    'global-hooks/openapi/values.yaml': 'type: object\nx-required-for-helm: [domain]\nproperties:\n  domain: {type: string}\n',
    'modules/values.yaml': 'webEnabled: true\n',
    'modules/001-web/values.yaml': 'web: {}\n',
    'modules/001-web/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n',
  });
  const r = renderValues(root);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^Error: global: values for Helm do not match .*global-hooks\/openapi\/values\.yaml \(with x-required-for-helm\):\n {2}- global\.domain: is required/);
  writeFileSync(join(root, 'modules/values.yaml'), 'webEnabled: true\nglobal:\n  domain: example.com\n');
  const ok = renderValues(root);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout).global, { domain: 'example.com' });
});
