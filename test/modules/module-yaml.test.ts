import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { makeTree } from '../helpers/tree.js';
import { parseModuleYaml } from '../../src/modules/module-yaml.js';
import { discoverModules } from '../../src/modules/discovery.js';
import { loadModuleSet } from '../../src/modules/module-set.js';
import { resolveEnabled, describeReason } from '../../src/modules/enabled.js';
import { enabledScriptRunner } from '../../src/modules/enabled-script.js';

const MAIN = join(import.meta.dirname, '../../src/cli/main.ts');

test("module.yaml in Deckhouse's format: weight, critical, tags, requirements.modules (with !optional), disable; other keys ignored", () => {
  const def = parseModuleYaml(
    [
      'name: hello-world',
      'weight: 960',
      'critical: true',
      'stage: "Experimental"',
      'namespace: test',
      'tags: ["test", "myTag"]',
      'descriptions: {en: "says hello"}',
      'requirements:',
      '  deckhouse: ">= 1.61"',
      '  kubernetes: ">= 1.27"',
      '  modules:',
      '    ingress-nginx: "> 1.67.0"',
      '    cert-manager: ">= 0.0.0 !optional"',
      'disable:',
      '  confirmation: true',
      '  message: "Disabling deletes everything."',
      '',
    ].join('\n'),
    'm/module.yaml',
  );
  assert.deepEqual(def, {
    file: 'm/module.yaml',
    name: 'hello-world',
    weight: 960,
    critical: true,
    tags: ['test', 'myTag'],
    requires: [
      { module: 'ingress-nginx', optional: false, constraint: '> 1.67.0' },
      { module: 'cert-manager', optional: true, constraint: '>= 0.0.0' },
    ],
    disable: { confirmation: true, message: 'Disabling deletes everything.' },
  });
  // an empty module.yaml, or one without `critical`, makes a functional module (Deckhouse's default)
  assert.equal(parseModuleYaml('', 'e/module.yaml').critical, false);
  assert.equal(parseModuleYaml('weight: 10\n', 'e/module.yaml').critical, false);
  // helmWait (this operator's key): absent unless given, either way
  assert.equal(parseModuleYaml('weight: 10\n', 'e/module.yaml').helmWait, undefined);
  assert.equal(parseModuleYaml('helmWait: true\n', 'e/module.yaml').helmWait, true);
  assert.equal(parseModuleYaml('helmWait: false\n', 'e/module.yaml').helmWait, false);
});

test('a bad module.yaml value is an error naming the file, the line and the key', () => {
  const cases: [string, RegExp][] = [
    ['name: a\nweight: -1\n', /^x\/module\.yaml:2: weight: must be a whole number from 0 to 2147483647, got number -1$/],
    ['weight: 1.5\n', /^x\/module\.yaml:1: weight: must be a whole number .* got number 1\.5$/],
    ['weight: "10"\n', /weight: must be a whole number .* got string "10"$/],
    ['weight: 3000000000\n', /weight: must be a whole number/],
    ['critical: "yes"\n', /^x\/module\.yaml:1: critical: must be true or false, got string "yes"$/],
    ['helmWait: yes please\n', /^x\/module\.yaml:1: helmWait: must be true or false \(wait for the release's readiness before afterHelm hooks, whatever --helm-wait says\), got string "yes please"$/],
    ['tags: [a, 1]\n', /tags\.1: must be a non-empty string, got number 1$/],
    ['tags: a\n', /tags: must be a list of strings/],
    ['requirements:\n  modules:\n    foo: 1\n', /^x\/module\.yaml:3: requirements\.modules\.foo: must be a version constraint string/],
    ['requirements:\n  modules: [foo]\n', /requirements\.modules: must be a map of module name to version constraint, got a list$/],
    ['requirements: yes\n', /requirements: must be a map/],
    ['disable:\n  confirmation: 1\n', /disable\.confirmation: must be true or false/],
    ['- a\n', /^x\/module\.yaml: must be a map of module properties/],
    ['weight: [\n', /invalid YAML in x\/module\.yaml/],
  ];
  for (const [text, re] of cases) assert.throws(() => parseModuleYaml(text, 'x/module.yaml'), (e: Error) => (assert.match(e.message, re), true), text);
});

test("discovery: module.yaml's weight replaces the directory prefix as the order; a module without module.yaml stays critical", () => {
  const root = makeTree({
    'm/001-first/module.yaml': 'weight: 50\ncritical: true\n',
    'm/002-second/Chart.yaml': 'name: second\n',
    'm/003-third/module.yaml': 'name: third\nrequirements:\n  modules:\n    second: ">= 0.0.0"\n',
  });
  const mods = discoverModules({ modulesDirs: [join(root, 'm')] });
  assert.deepEqual(
    mods.map((m) => [m.name, m.order, m.critical, m.requires.map((r) => r.module)]),
    [['second', 2], ['third', 3], ['first', 50]].map(([n, o]) => [n, o, n !== 'third', n === 'third' ? ['second'] : []]),
  );
  assert.equal(mods.find((m) => m.name === 'third')!.definitionFile, join(root, 'm/003-third/module.yaml'));
});

test('discovery: an unknown requirement, a cycle, a name that differs from the directory are errors naming the file and key', () => {
  const root = makeTree({
    'm/001-a/module.yaml': 'requirements:\n  modules:\n    b: ">= 0.0.0"\n',
    'm/002-b/module.yaml': 'requirements:\n  modules:\n    c: ">= 0.0.0"\n',
    'm/003-c/module.yaml': 'requirements:\n  modules:\n    a: ">= 0.0.0"\n    absent-optional: ">= 1.0 !optional"\n',
    'm/004-d/module.yaml': 'requirements:\n  modules:\n    nowhere: ">= 0.0.0"\n',
    'm/005-e/module.yaml': 'requirements:\n  modules:\n    e: ">= 0.0.0"\n',
  });
  assert.throws(
    () => discoverModules({ modulesDirs: [join(root, 'm')] }),
    (e: Error) => {
      assert.ok(e.message.includes(`${join(root, 'm/004-d/module.yaml')}: requirements.modules.nowhere: requires module "nowhere", which is not in the modules dirs`), e.message);
      assert.ok(
        e.message.includes(
          `module requirements form a cycle: a → b → c → a (${join(root, 'm/001-a/module.yaml')} requirements.modules.b, ${join(root, 'm/002-b/module.yaml')} requirements.modules.c, ${join(root, 'm/003-c/module.yaml')} requirements.modules.a)`,
        ),
        e.message,
      );
      assert.ok(e.message.includes(`module requirements form a cycle: e → e (${join(root, 'm/005-e/module.yaml')} requirements.modules.e)`), e.message);
      assert.doesNotMatch(e.message, /absent-optional/);
      return true;
    },
  );
  const named = makeTree({ 'm/001-a/module.yaml': 'name: other\n', 'm/002-b/module.yaml': 'weight: x\n' });
  assert.throws(
    () => discoverModules({ modulesDirs: [join(named, 'm')] }),
    (e: Error) => {
      assert.ok(e.message.includes(`${join(named, 'm/001-a/module.yaml')}: name: "other" differs from the module's directory name "a"`), e.message);
      assert.ok(e.message.includes(`${join(named, 'm/002-b/module.yaml')}:1: weight: must be a whole number`), e.message);
      return true;
    },
  );
});

test('a module whose required module is disabled is disabled, naming the requirement; an !optional one does not disable', async () => {
  const root = makeTree({
    'modules/values.yaml': 'baseEnabled: false\nmidEnabled: true\ntopEnabled: true\nlooseEnabled: true\nearlyEnabled: true\n',
    // early runs first by weight but requires mid, which is disabled only after the pass through top
    'modules/001-early/module.yaml': 'requirements:\n  modules:\n    top: ">= 0.0.0"\n',
    'modules/010-base/Chart.yaml': 'name: base\n',
    'modules/020-mid/module.yaml': 'requirements:\n  modules:\n    base: ">= 0.0.0"\n',
    'modules/030-top/module.yaml': 'requirements:\n  modules:\n    mid: ">= 0.0.0"\n',
    'modules/040-loose/module.yaml': 'requirements:\n  modules:\n    base: ">= 0.0.0 !optional"\n',
  });
  const set = loadModuleSet({ modulesDirs: [join(root, 'modules')] });
  const runner = enabledScriptRunner({ store: set.store, tmpDir: join(tmpdir(), 'ao-test-enabled'), timeoutMs: 10_000 });
  const decisions = await resolveEnabled(set, { configFlags: new Map() }, runner);
  assert.deepEqual(
    decisions.map((d) => [d.name, d.enabled]),
    [['early', false], ['base', false], ['mid', false], ['top', false], ['loose', true]],
  );
  assert.equal(describeReason(decisions[2]!.reason), `requires module "base" (requirements.modules.base in ${join(root, 'modules/020-mid/module.yaml')}), which is disabled`);
  assert.deepEqual(decisions[0]!.reason, { kind: 'requirement', file: join(root, 'modules/001-early/module.yaml'), module: 'top' });
});

test('render: a module.yaml cycle stops the command with the files and keys, no stack trace', () => {
  const root = makeTree({
    'modules/001-a/module.yaml': 'requirements:\n  modules:\n    b: ">= 0.0.0"\n',
    'modules/002-b/module.yaml': 'requirements:\n  modules:\n    a: ">= 0.0.0"\n',
  });
  const r = spawnSync(process.execPath, ['--import', 'tsx', MAIN, 'render', '--modules-dir', join(root, 'modules')], { encoding: 'utf8' });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /module requirements form a cycle: a → b → a \(.*001-a\/module\.yaml requirements\.modules\.b, .*002-b\/module\.yaml requirements\.modules\.a\)/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});
