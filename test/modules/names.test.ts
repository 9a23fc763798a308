import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isValidModuleName, isValidValuesKey, moduleNameOfKey, moduleValuesKey } from '../../src/modules/names.js';

test('module names and values keys convert like the Go operator (ettle/strcase vectors)', () => {
  const vectors: [string, string][] = [
    ['module1', 'module1'],
    ['prometheus-operator', 'prometheusOperator'],
    ['cert-manager-crd', 'certManagerCrd'],
    ['l2-load-balancer', 'l2LoadBalancer'],
    ['2-module-name', '2ModuleName'],
    ['module-one01', 'moduleOne01'],
  ];
  for (const [name, key] of vectors) {
    assert.equal(moduleValuesKey(name), key, name);
    assert.equal(moduleNameOfKey(key), name, key);
    assert.ok(isValidModuleName(name), name);
    assert.ok(isValidValuesKey(key), key);
  }
});

test('names that do not round-trip are rejected', () => {
  assert.equal(moduleValuesKey('module_one'), 'moduleOne');
  assert.equal(isValidModuleName('module_one'), false);
  assert.equal(isValidModuleName('Foo'), false);
  assert.equal(isValidModuleName('foo--bar'), false);
  assert.equal(isValidModuleName(''), false);
  assert.equal(isValidValuesKey('some_module'), false);
  assert.equal(isValidValuesKey('SomeModule'), false);
});
