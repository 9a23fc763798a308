import { test } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree, addDir } from '../helpers/tree.js';
import { discoverModules, splitPathList } from '../../src/modules/discovery.js';
import { readValuesFile } from '../../src/modules/static-values.js';
import { loadModuleSet } from '../../src/modules/module-set.js';

test('modules are ordered by numeric prefix (as a number), then by name; unnumbered take the configured order', () => {
  const root = makeTree({
    'mods/010-zeta/Chart.yaml': 'name: zeta\n',
    'mods/2-beta/hooks/.keep': '',
    'mods/002-alpha/values.yaml': 'alpha: {}\n',
    'mods/plain/enabled': '#!/bin/sh\necho true > $MODULE_ENABLED_RESULT\n',
    'mods/values.yaml': 'global: {}\n',
    'mods/.git/config': '',
  });
  const mods = discoverModules({ modulesDirs: [join(root, 'mods')], unnumberedOrder: 5 });
  assert.deepEqual(mods.map((m) => [m.name, m.order]), [['alpha', 2], ['beta', 2], ['plain', 5], ['zeta', 10]]);
  const zeta = mods.find((m) => m.name === 'zeta')!;
  assert.equal(zeta.hasChart, true);
  assert.equal(mods.find((m) => m.name === 'alpha')!.hasChart, false);
  assert.ok(mods.find((m) => m.name === 'beta')!.hooksDir);
  assert.ok(mods.find((m) => m.name === 'plain')!.enabledScript);
  assert.equal(mods.find((m) => m.name === 'alpha')!.valuesFile, join(root, 'mods/002-alpha/values.yaml'));
});

test('several modules dirs, empty parts skipped; symlinked module dirs are followed', () => {
  assert.deepEqual(splitPathList('a::b:'), ['a', 'b']);
  const root = makeTree({ 'a/001-one/Chart.yaml': '', 'elsewhere/two/values.yaml': 'two: {x: 1}\n' });
  addDir(root, 'b');
  symlinkSync(join(root, 'elsewhere/two'), join(root, 'b/003-two'));
  const mods = discoverModules({ modulesDirs: [join(root, 'a'), join(root, 'b')] });
  assert.deepEqual(mods.map((m) => m.name), ['one', 'two']);
  assert.equal(mods[1]!.path, join(root, 'elsewhere/two'));
  assert.equal(mods[1]!.dir, join(root, 'b/003-two'));
});

test('a bad module name, a duplicate module and a missing dir are errors naming the paths', () => {
  const root = makeTree({ 'a/001-module_one/Chart.yaml': '', 'a/002-dup/Chart.yaml': '', 'b/005-dup/Chart.yaml': '' });
  assert.throws(
    () => discoverModules({ modulesDirs: [join(root, 'a'), join(root, 'b'), join(root, 'nope')] }),
    (e: Error) => {
      assert.match(e.message, /001-module_one: module name "module_one" is not kebab-case/);
      assert.ok(e.message.includes(`module "dup" is defined twice: ${join(root, 'a/002-dup')} and ${join(root, 'b/005-dup')}`));
      assert.match(e.message, /modules dir .*nope does not exist/);
      return true;
    },
  );
});

test('a non-executable enabled file is ignored with a warning', () => {
  const root = makeTree({ 'm/one/enabled': 'echo false > $MODULE_ENABLED_RESULT\n' });
  const warnings: string[] = [];
  const [one] = discoverModules({ modulesDirs: [join(root, 'm')], warn: (w) => warnings.push(w) });
  assert.equal(one!.enabledScript, undefined);
  assert.match(warnings[0]!, /enabled: not executable, ignored/);
});

test("a module's values.yaml holds only its key and its Enabled flag", () => {
  const root = makeTree({
    'ok.yaml': 'someModule:\n  a: 1\nsomeModuleEnabled: "true"\n',
    'wrong.yaml': 'someModule:\n  a: 1\nglobal:\n  x: 1\n',
    'flag.yaml': 'someModuleEnabled: sometimes\n',
    'list.yaml': 'someModule: [1, 2]\n',
    'legacy.yaml': 'someModule: "false"\n',
    'broken.yaml': 'someModule:\n  a: [1\n',
  });
  const ok = readValuesFile(join(root, 'ok.yaml'), { valuesKey: 'someModule' });
  assert.deepEqual(ok.sections.get('someModule'), { a: 1 });
  assert.equal(ok.flags.get('someModule')!.value, true);
  assert.throws(() => readValuesFile(join(root, 'wrong.yaml'), { valuesKey: 'someModule' }), /wrong\.yaml:3: unexpected root key "global": a module's values\.yaml may only hold "someModule" and "someModuleEnabled"/);
  assert.throws(() => readValuesFile(join(root, 'flag.yaml'), { valuesKey: 'someModule' }), /flag\.yaml:1: "someModuleEnabled" must be true or false, got "sometimes"/);
  assert.throws(() => readValuesFile(join(root, 'list.yaml'), { valuesKey: 'someModule' }), /"someModule" must be a map/);
  assert.equal(readValuesFile(join(root, 'legacy.yaml'), { valuesKey: 'someModule' }).flags.get('someModule')!.value, false);
  assert.throws(() => readValuesFile(join(root, 'broken.yaml'), { valuesKey: 'someModule' }), /invalid YAML in .*broken\.yaml:\d+:\d+/);
});

test('YAML is read as YAML 1.1, like Go', () => {
  const root = makeTree({ 'v.yaml': 'm:\n  a: on\n  b: yes\n  c: 0777\n  d: "on"\n  e: 2024-01-01\n' });
  assert.deepEqual(readValuesFile(join(root, 'v.yaml')).sections.get('m'), { a: true, b: true, c: 511, d: 'on', e: '2024-01-01' });
});

test('loading a module set: static layers from the modules dir and the module, in that order', () => {
  const root = makeTree({
    'mods/values.yaml': 'global:\n  g: 1\nfoo:\n  a: dir\n  b: dir\nfooEnabled: true\nghostModule:\n  x: 1\n',
    'mods/001-foo/values.yaml': 'foo:\n  b: module\n',
  });
  const warnings: string[] = [];
  const set = loadModuleSet({ modulesDirs: [join(root, 'mods')], warn: (w) => warnings.push(w) });
  assert.deepEqual(set.store.global.effective(), { g: 1 });
  assert.deepEqual(set.byName.get('foo')!.values.effective(), { a: 'dir', b: 'module' });
  assert.match(warnings.join('\n'), /"ghostModule" names no module/);
});
