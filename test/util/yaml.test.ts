import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseYaml, parseYamlDocuments, parseYamlFully, lineOfPath } from '../../src/util/yaml.js';

test('YAML 1.1 scalars are read as Go reads them', () => {
  assert.deepEqual(parseYaml('a: on\nb: off\nc: yes\nd: no\ne: 0777\nf: 0o777\ng: 12:30\nh: 1_000\ni: 2024-01-01\nj: ~\n', 'f'), {
    a: true,
    b: false,
    c: true,
    d: false,
    e: 511,
    f: 511,
    g: '12:30',
    h: 1000,
    i: '2024-01-01',
    j: null,
  });
  assert.deepEqual(parseYaml('base: &b {x: 1}\nderived:\n  <<: *b\n  z: 2\n', 'f'), { base: { x: 1 }, derived: { x: 1, z: 2 } });
  // Go's yaml.v2 quirk: the plain key `y` is the boolean true
  assert.deepEqual(parseYaml('y: 1\n"n": 2\n', 'f'), { true: 1, n: 2 });
});

/**
 * Plain scalars as yaml.v2's resolve.go reads them, through sigs.k8s.io/yaml (to JSON): the expected
 * values were printed by Go 1.19 with sigs.k8s.io/yaml 1.3.0 over yaml.v2 2.4.0 (Debian bookworm),
 * reading `v: <scalar>`: 0o/0x/0b prefixes in any case with a sign, a leading 0 for octal (08 is the
 * float 8), underscores anywhere after the first character, int64/uint64 range then float, floats out
 * of range and base-60 numbers kept as strings.
 */
const GO_SCALARS: [string, unknown][] = [
  ["0", 0], ["-0", 0], ["+0", 0], ["00", 0], ["07", 7], ["0777", 511], ["08", 8], ["0999", 999],
  ["0o777", 511], ["0O17", 15], ["0o", "0o"], ["0o8", "0o8"], ["-0o10", -8], ["+0o10", 8], ["0x1F", 31],
  ["0X1f", 31], ["0x", "0x"], ["0xg", "0xg"], ["0x_ff", 255], ["-0x10", -16], ["+0x10", 16], ["0b101", 5],
  ["0B11", 3], ["0b", "0b"], ["0b2", "0b2"], ["-0b101", -5], ["+0b101", 5], ["0b-1", -1], ["0b+1", 1],
  ["-0b-1", "-0b-1"], ["1_000", 1000], ["1__0", 10], ["_1", "_1"], ["1_", 1], ["0_7", 7], ["12", 12],
  ["+12", 12], ["-12", -12], ["+", "+"], ["1e3", 1000], ["1E3", 1000], ["1e+3", 1000], ["1.5e-3", 0.0015],
  ["1e400", "1e400"], ["-1e400", "-1e400"], ["1e-400", 0], ["1e3_0", 1e+30], ["0e1", 0], [".5", 0.5],
  ["-.5", -0.5], ["+.5", 0.5], [".5e3", 500], [".5_0", 0.5], [".", "."], ["5.", 5], ["1.", 1], ["1.5", 1.5],
  ["0.1_5", 0.15], ["1_000.5", 1000.5], ["0777.5", 777.5], ["1.2.3", "1.2.3"], ["0.0.1", "0.0.1"],
  ["12:30", "12:30"], ["1:2:3", "1:2:3"], ["190:20:30", "190:20:30"], ["2024-01-01", "2024-01-01"],
  ["2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"], ["1234-5", "1234-5"],
  ["9223372036854775807", 9223372036854776000], ["9223372036854775808", 9223372036854776000],
  ["-9223372036854775808", -9223372036854776000], ["-9223372036854775809", -9223372036854776000],
  ["18446744073709551615", 18446744073709552000], ["18446744073709551616", 18446744073709552000],
  ["99999999999999999999", 100000000000000000000], ["0xFFFFFFFFFFFFFFFF", 18446744073709552000],
  ["0x1FFFFFFFFFFFFFFFF", "0x1FFFFFFFFFFFFFFFF"], ["-0xFFFFFFFFFFFFFFFF", "-0xFFFFFFFFFFFFFFFF"],
  [".iNf", ".iNf"], ["-.nan", "-.nan"], ["inf", "inf"], ["-inf", "-inf"], ["NaN", "NaN"], ["y", true],
  ["Y", true], ["yes", true], ["yES", "yES"], ["on", true], ["Off", false], ["n", false], ["~", null],
  ["null", null], ["Null", null], ["nULL", "nULL"], ["0x1p3", "0x1p3"], ["1e", "1e"], ["e3", "e3"],
  ["0.", 0], ["-0.0", -0], ["1 2", "1 2"], [".5__0", ".5__0"], ["._5", "._5"], [".5e1_0", 5000000000], [".5_", ".5_"],
  [".5e_1", ".5e_1"], [".5_e1", ".5_e1"],
];

test('numbers, booleans and nulls are resolved as yaml.v2 resolves plain scalars', () => {
  const wrong: string[] = [];
  for (const [text, want] of GO_SCALARS) {
    const got = (parseYaml(`v: ${text}\n`, 'f') as { v: unknown }).v;
    if (!Object.is(got, want)) wrong.push(`${text}: got ${JSON.stringify(got)}, Go reads ${JSON.stringify(want)}`);
  }
  assert.deepEqual(wrong, []);
  // quoted scalars and keys: quotes keep strings; a number-looking key is its number's text
  assert.deepEqual(parseYaml('a: "0o777"\nb: \'0x1F\'\n0o10: c\n0x10: d\n', 'f'), { a: '0o777', b: '0x1F', 8: 'c', 16: 'd' });
  // explicit tags as yaml.v2 takes them: an int is a float too, a float is no int
  assert.deepEqual(parseYaml('a: !!str 0o777\nb: !!float 1\nc: !!int 0x10\nd: !!float 1.5e3\n', 'f'), { a: '0o777', b: 1, c: 16, d: 1500 });
  assert.throws(() => parseYaml('a: !!int 1.5\n', 't.yaml'), /invalid YAML in t\.yaml:1:4: cannot decode !!float `1\.5` as a !!int/);
  assert.throws(() => parseYaml('a: !!float abc\n', 't.yaml'), /cannot decode !!str `abc` as a !!float/);
  // the same rules in every document of a stream
  assert.deepEqual(parseYamlDocuments('a: 0o17\n---\nb: 0B11\n', 'f'), [{ a: 15 }, { b: 3 }]);
  for (const inf of ['.inf', '.Inf', '-.inf', '+.INF', '.nan']) {
    assert.throws(() => parseYaml(`v: ${inf}\n`, 'x.yaml'), /x\.yaml: value at \/v is (-?Infinity|NaN), which JSON cannot hold/);
  }
});

test('YAML errors and values JSON cannot hold name the source and position', () => {
  assert.throws(() => parseYaml('a: 1\na: 2\n', 'dup.yaml'), /invalid YAML in dup\.yaml:2:1: Map keys must be unique/);
  assert.throws(() => parseYaml('a: .inf\n', 'inf.yaml'), /inf\.yaml: value at \/a is Infinity, which JSON cannot hold/);
  assert.deepEqual(parseYamlDocuments('a: 1\n---\n---\nb: 2\n', 'm.yaml'), [{ a: 1 }, { b: 2 }]);
  assert.equal(lineOfPath('a: 1\nb:\n  c: 2\n', ['b', 'c']), 3);
});

test('a YAML error ends on the line it points at and a caret under the column, not on a dangling colon', () => {
  const text = 'replicas: 2\nimage:\n  tag: 1.2\n  name: "web\n';
  const message = (() => {
    try {
      parseYamlDocuments(text, '/m/001-web/values.yaml');
    } catch (e) {
      return (e as Error).message;
    }
    return 'no error';
  })();
  assert.equal(message, 'invalid YAML in /m/001-web/values.yaml:5:1: Missing closing "quote\n  4 |   name: "web\n  5 |\n    | ^');
  // the caret under the column the parser names, tabs kept so that it lines up
  assert.throws(() => parseYaml('a: b: c\n', 'x.yaml'), { message: 'invalid YAML in x.yaml:1:4: Nested mappings are not allowed in compact mappings\n  1 | a: b: c\n    |    ^' });
  assert.throws(() => parseYaml('a:\n\t- 1\n', 't.yaml'), { message: 'invalid YAML in t.yaml:2:1: Tabs are not allowed as indentation\n  1 | a:\n  2 | \t- 1\n    | ^' });
});

test('duplicateKeys: "last" reads a repeated key as sigs.k8s.io/yaml does (the later wins); the default refuses it', () => {
  const text = 'a: 1\nb: {x: 1}\na: 2\nb: {z: 3}\n';
  assert.deepEqual(parseYaml(text, 'schema.yaml', { duplicateKeys: 'last' }), { a: 2, b: { z: 3 } });
  assert.throws(() => parseYaml(text, 'values.yaml'), /invalid YAML in values\.yaml:3:1: Map keys must be unique/);
});

test('parseYamlDocuments: one plain document (a values.yaml) reads as the library reads it; markers, errors and empty streams as before', () => {
  const values = '# defaults\nreplicas: 3\nimage:\n  repository: registry.example.com/app # the image\n  tag: "1.2"\nports:\n- 80\n- 0o17\nenabled: yes\nempty:\nlist: []\n';
  assert.deepEqual(parseYamlDocuments(values, 'values.yaml'), [parseYamlFully(values, 'values.yaml')]);
  assert.deepEqual(parseYamlDocuments(values, 'values.yaml'), [
    { replicas: 3, image: { repository: 'registry.example.com/app', tag: '1.2' }, ports: [80, 15], enabled: true, empty: null, list: [] },
  ]);
  for (const text of ['', '# only a comment\n', '\n\n', '~\n', 'null\n']) assert.deepEqual(parseYamlDocuments(text, 'v.yaml'), [], JSON.stringify(text));
  assert.deepEqual(parseYamlDocuments('just text\n', 'v.yaml'), ['just text']);
  assert.deepEqual(parseYamlDocuments('---\na: 1\n...\n', 'v.yaml'), [{ a: 1 }]);
  assert.deepEqual(parseYamlDocuments('%YAML 1.1\n---\na: 1\n', 'v.yaml'), [{ a: 1 }]);
  assert.throws(() => parseYamlDocuments('a: 1\nb: 2\na: 3\n', 'values.yaml'), /invalid YAML in values\.yaml:3:1: Map keys must be unique/);
  assert.throws(() => parseYamlDocuments('a: [1\n', 'values.yaml'), /invalid YAML in values\.yaml/);
});
