import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseYaml, parseYamlDocuments, lineOfPath } from '../../src/util/yaml.js';

test('YAML 1.1 scalars are read as Go reads them', () => {
  assert.deepEqual(parseYaml('a: on\nb: off\nc: yes\nd: no\ne: 0777\nf: 0o777\ng: 12:30\nh: 1_000\ni: 2024-01-01\nj: ~\n', 'f'), {
    a: true,
    b: false,
    c: true,
    d: false,
    e: 511,
    f: '0o777',
    g: '12:30',
    h: 1000,
    i: '2024-01-01',
    j: null,
  });
  assert.deepEqual(parseYaml('base: &b {x: 1}\nderived:\n  <<: *b\n  z: 2\n', 'f'), { base: { x: 1 }, derived: { x: 1, z: 2 } });
  // Go's yaml.v2 quirk: the plain key `y` is the boolean true
  assert.deepEqual(parseYaml('y: 1\n"n": 2\n', 'f'), { true: 1, n: 2 });
});

test('YAML errors and values JSON cannot hold name the source and position', () => {
  assert.throws(() => parseYaml('a: 1\na: 2\n', 'dup.yaml'), /invalid YAML in dup\.yaml:2:1: Map keys must be unique/);
  assert.throws(() => parseYaml('a: .inf\n', 'inf.yaml'), /inf\.yaml: value at \/a is Infinity, which JSON cannot hold/);
  assert.deepEqual(parseYamlDocuments('a: 1\n---\n---\nb: 2\n', 'm.yaml'), [{ a: 1 }, { b: 2 }]);
  assert.equal(lineOfPath('a: 1\nb:\n  c: 2\n', ['b', 'c']), 3);
});

test('duplicateKeys: "last" reads a repeated key as sigs.k8s.io/yaml does (the later wins); the default refuses it', () => {
  const text = 'a: 1\nb: {x: 1}\na: 2\nb: {z: 3}\n';
  assert.deepEqual(parseYaml(text, 'schema.yaml', { duplicateKeys: 'last' }), { a: 2, b: { z: 3 } });
  assert.throws(() => parseYaml(text, 'values.yaml'), /invalid YAML in values\.yaml:3:1: Map keys must be unique/);
});
