import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { ScopeValues, ValuesStore, loadScopeSchemas, ValuesValidationError, ScopeSchemas } from '../../src/values/index.js';
import { applyDefaults, closeObjects } from '../../src/values/schema.js';

function scopeWith(schemas: Record<string, string>, key = 'someModule'): ScopeValues {
  const root = makeTree(Object.fromEntries(Object.entries(schemas).map(([f, c]) => [`openapi/${f}`, c])));
  return new ScopeValues(key, `module ${key}`, loadScopeSchemas(join(root, 'openapi')));
}

test('layers merge deeply: maps merge, lists and scalars replace, later layers win', () => {
  const s = new ScopeValues('m', 'module m');
  s.setStatic([
    { source: { kind: 'file', file: 'modules/values.yaml' }, values: { a: { x: 1, y: 2 }, list: [1, 2], keep: 'k' } },
    { source: { kind: 'file', file: 'modules/001-m/values.yaml' }, values: { a: { y: 3 }, list: [9] } },
  ]);
  s.setConfig({ a: { z: 4 }, keep: null });
  assert.deepEqual(s.effective(), { a: { x: 1, y: 3, z: 4 }, list: [9], keep: null });
  s.applyValuesPatch([{ op: 'add', path: '/m/a/x', value: 'patched' }], 'hooks/one');
  s.applyValuesPatch([{ op: 'remove', path: '/m/list' }], 'hooks/two');
  assert.deepEqual(s.effective(), { a: { x: 'patched', y: 3, z: 4 }, keep: null });
  // volatile patches survive a config change and are replayed in order
  s.setConfig({ a: { z: 5 } });
  assert.deepEqual(s.effective(), { a: { x: 'patched', y: 3, z: 5 }, keep: 'k' });
});

test('config values are the raw section; effective values add static values, defaults and patches', () => {
  const s = scopeWith({ 'config-values.yaml': 'type: object\nproperties:\n  replicas: {type: integer, default: 1}\n  name: {type: string}\n' });
  s.setStatic([{ source: { kind: 'file', file: 'v.yaml' }, values: { name: 'static' } }]);
  s.setConfig({ name: 'from-config' });
  assert.deepEqual(s.configValues, { name: 'from-config' });
  assert.deepEqual(s.effective(), { name: 'from-config', replicas: 1 });
});

test('defaults: nested ones are applied, present nulls are kept, config defaults merge under user values', () => {
  const schema = {
    type: 'object',
    properties: {
      https: { type: 'object', default: {}, properties: { mode: { type: 'string', default: 'Disabled' }, port: { type: 'integer', default: 443 } } },
      list: { type: 'array', items: { type: 'object', properties: { ttl: { type: 'string', default: '24h' } } } },
      nullable: { type: 'string', nullable: true, default: 'x' },
    },
  };
  const v: any = { https: { port: 8443 }, list: [{}, { ttl: '1h' }], nullable: null };
  applyDefaults(schema as any, v);
  assert.deepEqual(v, { https: { port: 8443, mode: 'Disabled' }, list: [{ ttl: '24h' }, { ttl: '1h' }], nullable: null });
  const empty: any = {};
  applyDefaults(schema as any, empty);
  assert.deepEqual(empty.https, { mode: 'Disabled', port: 443 });
});

test('additionalProperties: false is set wherever a schema leaves it unset', () => {
  const closed = closeObjects({
    type: 'object',
    properties: {
      a: { type: 'object', properties: { b: { type: 'string' } } },
      open: { type: 'object', additionalProperties: true, properties: { c: { type: 'object', properties: { d: { type: 'string' } } } } },
      list: { type: 'array', items: { type: 'object', properties: { e: { type: 'string' } } } },
      freeForm: { type: 'object' },
    },
  } as any);
  assert.equal(closed.additionalProperties, false);
  assert.equal((closed.properties as any).a.additionalProperties, false);
  assert.equal((closed.properties as any).open.additionalProperties, true);
  assert.equal((closed.properties as any).open.properties.c.additionalProperties, undefined, 'an explicit additionalProperties stops the recursion');
  assert.equal((closed.properties as any).list.items.additionalProperties, false);
  assert.equal((closed.properties as any).freeForm.additionalProperties, undefined, 'an object with no declared keys stays open');
  const s = scopeWith({ 'config-values.yaml': 'type: object\nproperties:\n  discovery: {type: object}\n  https:\n    type: object\n    properties:\n      mode: {type: string}\n' });
  assert.throws(() => s.setConfig({ other: 1 }), /someModule\.other: is not allowed/);
  assert.throws(() => s.setConfig({ https: { mode: 'x', port: 1 } }), /someModule\.https\.port: is not allowed/);
  s.setConfig({ discovery: { anything: { goes: 1 } } });
});

test('x-extend takes properties, required and x- keys of config-values.yaml (VALUES.md example)', () => {
  const s = scopeWith(
    {
      'config-values.yaml': 'type: object\nadditionalProperties: false\nrequired: [project, clusterName]\nproperties:\n  project: {type: string}\n  clusterName: {type: string}\n  clusterHostname: {type: string}\n',
      'values.yaml': 'x-extend:\n  schema: config-values.yaml\ntype: object\nadditionalProperties: false\nrequired: [discovery, param1]\nproperties:\n  discovery: {type: object}\n  param1: {type: string}\n',
    },
    'global',
  );
  const schema = s.schemas.schema('values')!;
  assert.deepEqual(schema.required, ['project', 'clusterName', 'discovery', 'param1']);
  assert.deepEqual(Object.keys(schema.properties as object), ['project', 'clusterName', 'clusterHostname', 'discovery', 'param1']);
  assert.equal('x-extend' in schema, false);
});

test('x-required-for-helm is checked only before rendering (VALUES.md example)', () => {
  const s = scopeWith({ 'values.yaml': 'type: object\nx-required-for-helm: [param1, param2]\nproperties:\n  param1: {type: string}\n  param2: {type: string}\n' });
  s.applyValuesPatch([{ op: 'add', path: '/someModule/param1', value: 'a' }], 'hooks/first');
  s.validateEffective('values');
  assert.throws(() => s.validateEffective('helm'), (e: Error) => {
    assert.ok(e instanceof ValuesValidationError);
    assert.match(e.message, /module someModule: values for Helm do not match .*openapi\/values\.yaml \(with x-required-for-helm\)/);
    assert.match(e.message, /someModule\.param2: is required/);
    return true;
  });
  s.applyValuesPatch([{ op: 'add', path: '/someModule/param2', value: 'b' }], 'hooks/second');
  s.validateEffective('helm');
});

test('a patch that makes values invalid changes nothing and the error names hook, schema, path and layer', () => {
  const s = scopeWith({ 'values.yaml': 'type: object\nproperties:\n  replicas: {type: integer}\n  name: {type: string}\n' });
  s.setStatic([{ source: { kind: 'file', file: '/m/values.yaml' }, values: { replicas: 1 } }]);
  const before = s.checksum();
  assert.throws(
    () => s.applyValuesPatch([{ op: 'add', path: '/someModule/name', value: 'ok' }, { op: 'add', path: '/someModule/replicas', value: 'two' }], 'hooks/bad.sh'),
    /someModule\.replicas: must be integer, got string "two" \(from the values patch of hook hooks\/bad\.sh\)/,
  );
  assert.equal(s.checksum(), before);
  assert.deepEqual(s.effective(), { replicas: 1 });
  assert.deepEqual(s.storedPatches, []);
});

test('validation errors name the layer the bad value came from', () => {
  const s = scopeWith({ 'values.yaml': 'type: object\nproperties:\n  a: {type: integer}\n  b: {type: integer}\n' });
  s.setStatic([{ source: { kind: 'file', file: '/dir/values.yaml' }, values: { a: 'x' } }]);
  s.setConfig({ b: 'y' }, { kind: 'configmap', key: 'someModule' });
  assert.throws(() => s.validateEffective(), (e: Error) => {
    assert.match(e.message, /someModule\.a: must be integer, got string "x" \(from \/dir\/values\.yaml\)/);
    assert.match(e.message, /someModule\.b: must be integer, got string "y" \(from ConfigMap key "someModule"\)/);
    return true;
  });
});

test('formats are checked on strings as go-openapi does (int32 and double are not its formats); OpenAPI nullable; x- keys are ignored', () => {
  const s = scopeWith({
    'config-values.yaml': [
      'type: object',
      'x-doc-anything: true',
      'properties:',
      '  i32: {type: integer, format: int32}',
      '  i64: {type: integer, format: int64}',
      '  d: {type: number, format: double}',
      '  b: {type: string, format: byte}',
      '  t: {type: string, format: date-time}',
      '  nul: {type: string, nullable: true, x-examples: [a]}',
      '',
    ].join('\n'),
  });
  s.setConfig({ i32: 5, i64: 2 ** 40, d: 1.5, b: 'aGVsbG8=', t: '2024-01-02T03:04:05Z', nul: null });
  s.setConfig({ i32: 2 ** 40 }); // Go checks no int32 range: a float64 holding an integer passes
  assert.throws(() => s.setConfig({ i32: 1.5 }), /someModule\.i32: must be integer/);
  assert.throws(() => s.setConfig({ b: 'not base64!' }), /someModule\.b: must be a valid byte/);
  assert.throws(() => s.setConfig({ t: 'yesterday' }), /someModule\.t: must be a valid date-time/);
});

test('a schema that is not valid is reported with its file', () => {
  const root = makeTree({ 'openapi/config-values.yaml': 'type: object\nproperties:\n  a: {type: string, minLength: "5"}\n' });
  assert.throws(() => loadScopeSchemas(join(root, 'openapi')), /openapi\/config-values\.yaml: properties\.a\.minLength: must be an integer, got string "5"/);
  const bad = makeTree({ 'openapi/values.yaml': 'type: object\nproperties:\n  a: {type: [string, 5]}\n' });
  assert.throws(() => loadScopeSchemas(join(bad, 'openapi')), /openapi\/values\.yaml: properties\.a\.type: must be a string or a list of strings/);
  const yaml = makeTree({ 'openapi/values.yaml': 'type: object\nproperties: [\n' });
  assert.throws(() => loadScopeSchemas(join(yaml, 'openapi')), /invalid YAML in .*openapi\/values\.yaml:\d+:\d+/);
});

test('checksums do not depend on key order and change with the values', () => {
  const a = new ScopeValues('m', 'module m');
  a.setStatic([{ source: { kind: 'file', file: 'f' }, values: { x: 1, y: { p: 1, q: 2 } } }]);
  const b = new ScopeValues('m', 'module m');
  b.setStatic([{ source: { kind: 'file', file: 'f' }, values: { y: { q: 2, p: 1 }, x: 1 } }]);
  assert.equal(a.checksum(), b.checksum());
  assert.match(a.checksum(), /^[0-9a-f]{32}$/);
  b.applyValuesPatch([{ op: 'add', path: '/m/x', value: 2 }], 'h');
  assert.notEqual(a.checksum(), b.checksum());
});

test('a hook may only patch its own scope', () => {
  const s = new ScopeValues('someModule', 'module some-module');
  assert.throws(() => s.applyValuesPatch([{ op: 'add', path: '/global/x', value: 1 }], 'hooks/h'), /operation 0 \(add \/global\/x\) is outside "someModule"/);
  assert.throws(() => s.applyValuesPatch([{ op: 'add', path: '/someModuleX/x', value: 1 }], 'hooks/h'), /outside/);
  assert.throws(() => s.applyValuesPatch([{ op: 'remove', path: '/someModule' }], 'hooks/h'), /would remove the whole "someModule" section/);
  assert.equal(s.applyValuesPatch([{ op: 'add', path: '/someModule/a', value: 1 }], 'hooks/h'), true);
  assert.equal(s.applyValuesPatch([{ op: 'add', path: '/someModule/a', value: 1 }], 'hooks/h'), false, 'the same value again changes nothing');
  assert.equal(s.storedPatches.length, 1);
});

test('config patches change the config section atomically and are validated', () => {
  const s = scopeWith({ 'config-values.yaml': 'type: object\nproperties:\n  password: {type: string}\n' });
  const saved = s.applyConfigPatch([{ op: 'add', path: '/someModule/password', value: 'secret' }], 'hooks/gen');
  assert.deepEqual(saved, { password: 'secret' });
  assert.deepEqual(s.configValues, { password: 'secret' });
  assert.equal(s.applyConfigPatch([{ op: 'add', path: '/someModule/password', value: 'secret' }], 'hooks/gen'), undefined);
  assert.throws(() => s.applyConfigPatch([{ op: 'add', path: '/someModule/password', value: 5 }], 'hooks/gen'), /must be string, got number 5 \(from ConfigMap key "someModule" \(as changed by the config patch of hook hooks\/gen\)\)/);
  assert.deepEqual(s.configValues, { password: 'secret' });
});

test('the three views: global hook, module hook / enabled script (with enabledModules), Helm (without)', () => {
  const global = new ScopeValues('global', 'global');
  global.setStatic([{ source: { kind: 'file', file: 'f' }, values: { param1: 100 } }]);
  const store = new ValuesStore(global);
  const m = new ScopeValues('someModule', 'module some-module');
  store.addModule(m);
  store.applyConfig({ global: { param1: 200 }, modules: new Map([['someModule', { values: { a: 1 } }]]) });
  assert.deepEqual(store.globalHookValues(), { global: { param1: 200 } });
  assert.deepEqual(store.globalHookConfigValues(), { global: { param1: 200 } });
  assert.deepEqual(store.moduleHookValues('someModule', ['a-module', 'some-module']), { global: { param1: 200, enabledModules: ['a-module', 'some-module'] }, someModule: { a: 1 } });
  assert.deepEqual(store.moduleHookConfigValues('someModule'), { global: { param1: 200 }, someModule: { a: 1 } });
  assert.deepEqual(store.helmValues('someModule'), { global: { param1: 200 }, someModule: { a: 1 } });
  assert.equal('enabledModules' in store.global.effective(), false);
});

test('applying config is all or nothing across scopes', () => {
  const root = makeTree({ 'g/openapi/config-values.yaml': 'type: object\nproperties:\n  a: {type: string}\n', 'm/openapi/config-values.yaml': 'type: object\nproperties:\n  b: {type: string}\n' });
  const store = new ValuesStore(new ScopeValues('global', 'global', loadScopeSchemas(join(root, 'g/openapi'))));
  store.addModule(new ScopeValues('mod', 'module mod', loadScopeSchemas(join(root, 'm/openapi'))));
  store.applyConfig({ global: { a: 'old' }, modules: new Map([['mod', { values: { b: 'old' } }]]) });
  assert.throws(
    () => store.applyConfig({ global: { a: 'new' }, modules: new Map([['mod', { values: { b: 7 } }]]) }),
    /config values are not valid: module mod: config values do not match .*config-values\.yaml:\n {2}- mod\.b: must be string/,
  );
  assert.deepEqual(store.global.configValues, { a: 'old' });
  assert.deepEqual(store.module('mod').configValues, { b: 'old' });
  assert.ok(ScopeSchemas.empty());
});

test('VALUES.md "Validation": invalid global config stops start-up; a wrong-typed config patch fails and changes nothing', () => {
  const root = makeTree({
    'global-hooks/openapi/config-values.yaml':
      'type: object\nadditionalProperties: false\nrequired:\n  - project\n  - clusterName\nminProperties: 2\nproperties:\n  project:\n    type: string\n  clusterName:\n    type: string\n  clusterHostname:\n    type: string\n  discovery:\n    type: object\n',
  });
  const global = new ScopeValues('global', 'global', loadScopeSchemas(join(root, 'global-hooks/openapi')));
  const store = new ValuesStore(global);
  assert.throws(
    () => store.applyConfig({ global: { project: 'myProject' }, modules: new Map([['moduleOne', { values: { param1: 'value1' } }]]) }),
    /global\.clusterName: is required/,
  );
  store.applyConfig({ global: { project: 'myProject', clusterName: 'main' }, modules: new Map() });
  assert.throws(() => global.applyConfigPatch([{ op: 'add', path: '/global/clusterHostname', value: {} }], 'global-hooks/hooks/set-host'), /global\.clusterHostname: must be string, got an object/);
  assert.deepEqual(global.configValues, { project: 'myProject', clusterName: 'main' });
});

test('VALUES.md "Defaults": discovery gets {} when no layer sets it', () => {
  const s = scopeWith(
    {
      'config-values.yaml': 'type: object\nproperties:\n  param1: {type: string}\n',
      'values.yaml': 'x-extend:\n  schema: config-values.yaml\ntype: object\nadditionalProperties: false\nrequired:\n  - param1\nproperties:\n  discovery:\n    type: object\n    default:\n      {}\n  param1:\n    type: string\n',
    },
    'global',
  );
  s.setConfig({ param1: 'x' });
  assert.deepEqual(s.effective(), { param1: 'x', discovery: {} });
  s.validateEffective();
  s.applyValuesPatch([{ op: 'add', path: '/global/discovery', value: { found: true } }], 'h');
  assert.deepEqual(s.effective().discovery, { found: true });
});
