import { test } from 'node:test';
import assert from 'node:assert/strict';
import { markShared, valuesDocumentJson } from '../../src/values/document-json.js';
import { ScopeValues, ValuesStore } from '../../src/values/index.js';
import type { JsonObject } from '../../src/util/json.js';

test('a values document serializes exactly as JSON.stringify does', () => {
  const shared = markShared({ b: [1, 'x', null, { c: true }], a: { 'k"ey': 'v\n' } });
  const docs: JsonObject[] = [{}, { global: shared }, { global: { enabledModules: ['m'] }, m: shared, n: null, s: 'str', i: 3.5 }];
  for (const doc of docs) {
    assert.equal(valuesDocumentJson(doc).toString(), JSON.stringify(doc));
  }
});

test("a shared section's text is made once and reused", () => {
  const section = markShared({ items: [1, 2, 3] });
  assert.equal(valuesDocumentJson({ m: section }).toString(), '{"m":{"items":[1,2,3]}}');
  // shared objects are never changed; changing one anyway shows the text was kept
  (section.items as number[]).push(4);
  assert.equal(valuesDocumentJson({ m: section }).toString(), '{"m":{"items":[1,2,3]}}');
  const unshared = { items: [1] };
  assert.equal(valuesDocumentJson({ m: unshared }).toString(), '{"m":{"items":[1]}}');
  unshared.items.push(2);
  assert.equal(valuesDocumentJson({ m: unshared }).toString(), '{"m":{"items":[1,2]}}');
});

test("a module hook's values file follows the store's changes: config, patches, enabled modules", () => {
  const store = new ValuesStore(new ScopeValues('global', 'global'));
  const scope = new ScopeValues('someModule', 'module some-module');
  store.addModule(scope);
  store.applyConfig({ global: { p: 1 }, modules: new Map([['someModule', { values: { a: 1 } }]]) });
  const text = (enabled: string[]) => valuesDocumentJson(store.moduleHookValues('someModule', enabled)).toString();
  assert.equal(text(['some-module']), '{"global":{"p":1,"enabledModules":["some-module"]},"someModule":{"a":1}}');
  assert.equal(text(['x', 'some-module']), '{"global":{"p":1,"enabledModules":["x","some-module"]},"someModule":{"a":1}}');
  scope.applyValuesPatch([{ op: 'add', path: '/someModule/b', value: 2 }], 'hooks/h');
  assert.equal(text(['some-module']), '{"global":{"p":1,"enabledModules":["some-module"]},"someModule":{"a":1,"b":2}}');
  store.applyConfig({ global: { p: 2 }, modules: new Map([['someModule', { values: { a: 5 } }]]) });
  assert.equal(text(['some-module']), '{"global":{"p":2,"enabledModules":["some-module"]},"someModule":{"a":5,"b":2}}');
  assert.equal(valuesDocumentJson(store.globalHookValues()).toString(), '{"global":{"p":2}}');
});
