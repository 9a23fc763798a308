/**
 * CEL rules (x-deckhouse-validations) as pkg/values/validation/cel evaluates them: the cases of its
 * cel_test.go carried over, plus the operator's moments (a ConfigMap edit breaking a transition rule,
 * a values patch, start-up without an old value).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { ScopeValues, ValuesStore, loadScopeSchemas } from '../../src/values/index.js';
import { celProblems } from '../../src/values/cel.js';
import { decodeSchema } from '../../src/values/openapi.js';
import { parseYaml } from '../../src/util/yaml.js';
import type { JsonObject, JsonValue } from '../../src/util/json.js';

const schema = (yaml: string): JsonObject => decodeSchema(parseYaml(yaml, 's.yaml') as JsonValue, 's.yaml');
const values = (yaml: string): JsonValue => parseYaml(yaml, 'v.yaml') as JsonValue;
const messages = (s: JsonObject, v: JsonValue, old?: JsonValue): string[] => celProblems(s, v, old).map((p) => p.message);

const REPLICAS = 'type: object\nproperties:\n  replicas: {type: integer}\nx-deckhouse-validations:\n  - expression: "self.replicas >= 1"\n    message: "replicas must be >= 1"\n';
const IMMUTABLE = 'type: object\nproperties:\n  clusterDomain: {type: string}\nx-deckhouse-validations:\n  - expression: "self.clusterDomain == oldSelf.clusterDomain"\n    message: "clusterDomain is immutable"\n';

test('cel_test: a plain rule passes and fails with its message', () => {
  assert.deepEqual(messages(schema(REPLICAS), values('replicas: 3')), []);
  assert.deepEqual(messages(schema(REPLICAS), values('replicas: 0')), ['replicas must be >= 1']);
  const range = schema(
    'type: object\nx-deckhouse-validations:\n  - expression: "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas"\n    message: "replicas must be between minReplicas and maxReplicas"\n',
  );
  assert.deepEqual(messages(range, values('minReplicas: 1\nreplicas: 10\nmaxReplicas: 5\n')), ['replicas must be between minReplicas and maxReplicas']);
});

test('cel_test: a transition rule is skipped without an old value, passes and fails with one', () => {
  assert.deepEqual(messages(schema(IMMUTABLE), values('clusterDomain: example.com')), []);
  assert.deepEqual(messages(schema(IMMUTABLE), values('clusterDomain: cluster.local'), values('clusterDomain: cluster.local')), []);
  assert.deepEqual(messages(schema(IMMUTABLE), values('clusterDomain: cluster.local'), values('clusterDomain: example.com')), ['clusterDomain is immutable']);
});

test('cel_test: transition rules work at any depth, and are skipped for a subtree the old value lacks', () => {
  const nested = schema(
    'type: object\nproperties:\n  registry:\n    type: object\n    properties:\n      mode: {type: string}\n    x-deckhouse-validations:\n      - expression: "self.mode == oldSelf.mode"\n        message: "registry.mode is immutable"\n',
  );
  const problems = celProblems(nested, values('registry:\n  mode: Direct\n'), values('registry:\n  mode: Proxy\n'), []);
  assert.deepEqual(problems, [{ segments: ['registry'], message: 'registry.mode is immutable' }]);
  assert.deepEqual(messages(nested, values('registry:\n  mode: Direct\n'), values('{}')), []);
});

test('cel_test: plain and transition rules mixed; oldSelf inside a macro is still a transition rule', () => {
  const mixed = schema(
    'type: object\nx-deckhouse-validations:\n  - expression: "self.replicas >= 1"\n    message: "replicas must be >= 1"\n  - expression: "self.mode == oldSelf.mode"\n    message: "mode is immutable"\n',
  );
  assert.deepEqual(messages(mixed, values('replicas: 0\nmode: b\n'), values('replicas: 1\nmode: a\n')), ['replicas must be >= 1', 'mode is immutable']);
  const appendOnly = schema('type: object\nx-deckhouse-validations:\n  - expression: "self.items.all(x, x in oldSelf.items)"\n    message: "items can only be appended to"\n');
  assert.deepEqual(messages(appendOnly, values('items: [a, c]'), values('items: [a, b]')), ['items can only be appended to']);
  assert.deepEqual(messages(appendOnly, values('items: [a, c]')), []);
});

test('cel_test: a rule list of the wrong shape or without an expression is an error; a missing key skips the rule', () => {
  assert.match(messages(schema('type: object\nx-deckhouse-validations: "not a list"\n'), values('{}'))[0]!, /must be a list/);
  assert.match(messages(schema('type: object\nx-deckhouse-validations:\n  - message: "no expression"\n'), values('{}'))[0]!, /has no expression/);
  assert.match(messages(schema('type: object\nx-deckhouse-validations:\n  - expression: "self.a =="\n    message: m\n'), values('{}'))[0]!, /the rule "self.a ==" does not compile/);
  assert.deepEqual(messages(schema(REPLICAS), values('other: 1')), []);
  assert.match(messages(schema('type: object\nx-deckhouse-validations:\n  - expression: "self.a + 1"\n    message: m\n'), values('a: 1'))[0]!, /must give a boolean|failed/);
});

test('cel_test: a schema without rules gives nothing; a rule without a message is an error', () => {
  assert.deepEqual(messages(schema('type: object\nproperties:\n  a: {type: string}\n'), values('a: x'), values('a: y')), []);
  assert.match(messages(schema('type: object\nx-deckhouse-validations:\n  - expression: "self.a == 1"\n'), values('a: 1'))[0]!, /the rule "self\.a == 1" has no message/);
});

test('rules at several depths see the same values; only present properties are checked, inherited names included', () => {
  const s = schema(
    [
      'type: object',
      'x-deckhouse-validations:',
      '  - expression: "self.a.b.c == 1 && self.a.list == [1.0, 2.0] && self.a.m == {\'q\': 2, \'x\': 1}"',
      '    message: root sees a wrong value',
      '  - expression: "self.a.b == oldSelf.a.b"',
      '    message: root transition',
      'properties:',
      '  constructor:',
      '    type: string',
      '    x-deckhouse-validations: [{expression: "self == \'x\'", message: constructor must be x}]',
      '  a:',
      '    type: object',
      '    x-deckhouse-validations:',
      '      - expression: "self.b.c == 2"',
      '        message: a.b.c must be 2',
      '      - expression: "self.m.size() == 2 && \'x\' in self.m && self.m.all(k, self.m[k] > 0) && self.list[1] == 2 && self.list.exists(x, x == 1)"',
      '        message: map and list operations',
      '    properties:',
      '      b:',
      '        type: object',
      '        x-deckhouse-validations: [{expression: "self.c == oldSelf.c", message: a.b.c is immutable}]',
      '      other: {type: string}',
      '',
    ].join('\n'),
  );
  const now = values('a: {b: {c: 1}, list: [1, 2], m: {x: 1, q: 2}}');
  assert.deepEqual(celProblems(s, now, values('a: {b: {c: 3}}')), [
    { segments: ['a', 'b'], message: 'a.b.c is immutable' },
    { segments: ['a'], message: 'a.b.c must be 2' },
    { segments: [], message: 'root transition' },
  ]);
  assert.deepEqual(celProblems(s, now, undefined), [{ segments: ['a'], message: 'a.b.c must be 2' }]);
  assert.deepEqual(messages(s, values('constructor: y'), undefined), ['constructor must be x']);
});

function moduleWithRules(): ScopeValues {
  const root = makeTree({
    'openapi/config-values.yaml': [
      'type: object',
      'x-deckhouse-validations:',
      '  - expression: "!has(self.https) || self.https.mode != \'CustomCertificate\' || has(self.https.secretName)"',
      '    message: "https.secretName is required with mode CustomCertificate"',
      'properties:',
      '  clusterDomain:',
      '    type: string',
      '    default: cluster.local',
      '    x-deckhouse-validations:',
      '      - expression: "self == oldSelf"',
      '        message: "clusterDomain is immutable"',
      '  https:',
      '    type: object',
      '    properties:',
      '      mode: {type: string, enum: [Disabled, CustomCertificate]}',
      '      secretName: {type: string}',
      '  replicas: {type: integer}',
      '',
    ].join('\n'),
    'openapi/values.yaml': 'x-extend: {schema: config-values.yaml}\ntype: object\nproperties:\n  internal:\n    type: object\n    default: {}\n    properties:\n      token: {type: string}\n    x-deckhouse-validations:\n      - expression: "!has(oldSelf.token) || self.token == oldSelf.token"\n        message: "internal.token may not change once set"\n',
  });
  return new ScopeValues('dns', 'module dns', loadScopeSchemas(join(root, 'openapi')));
}

test('a ConfigMap edit that breaks a transition rule is rejected with the rule message and path; the previous config stays', () => {
  const m = moduleWithRules();
  const store = new ValuesStore(new ScopeValues('global', 'global'));
  store.addModule(m);
  // start-up: no previous config, so the transition rule does not run
  store.applyConfig({ modules: new Map([['dns', { values: { clusterDomain: 'corp.local' } }]]) });
  assert.equal(m.effective().clusterDomain, 'corp.local');
  assert.throws(
    () => store.applyConfig({ modules: new Map([['dns', { values: { clusterDomain: 'other.local', replicas: 2 } }]]) }),
    /module dns: config values do not match .*config-values\.yaml:\n {2}- dns\.clusterDomain: clusterDomain is immutable \(from ConfigMap key "dns"\)/,
  );
  assert.deepEqual(m.configValues, { clusterDomain: 'corp.local' });
  // plain rules run on every check, at the root too
  assert.throws(() => m.setConfig({ clusterDomain: 'corp.local', https: { mode: 'CustomCertificate' } }), /- dns: https\.secretName is required with mode CustomCertificate/);
  m.setConfig({ clusterDomain: 'corp.local', https: { mode: 'CustomCertificate', secretName: 'tls' } });
});

test('a values patch is checked against transition rules with the previous values', () => {
  const m = moduleWithRules();
  m.setConfig({});
  m.applyValuesPatch([{ op: 'add', path: '/dns/internal/token', value: 'abc' }], 'hooks/gen-token');
  assert.throws(
    () => m.applyValuesPatch([{ op: 'replace', path: '/dns/internal/token', value: 'xyz' }], 'hooks/gen-token'),
    /- dns\.internal: internal\.token may not change once set \(from the values patch of hook hooks\/gen-token\)/,
  );
  assert.equal((m.effective().internal as JsonObject).token, 'abc');
});

/** validator_test.go Test_ValidateConfigValues_CEL: each case's config and config schema, and the messages the check must give. */
const VALIDATOR_CEL_CASES: { name: string; values: string; schema: string; want: string[] }[] = [
  { name: 'array length, rule on the root', values: 'arr: [1]', schema: 'type: object\nproperties:\n  arr: {type: array}\nx-deckhouse-validations:\n  - {expression: "self.arr.size() < 1", message: "arr must be greater than 1"}\n', want: ['arr must be greater than 1'] },
  { name: 'self is an array', values: 'arr: [1]', schema: 'type: object\nproperties:\n  arr:\n    type: array\n    x-deckhouse-validations:\n      - {expression: "self.size() < 1", message: "arr must be greater than 1"}\n', want: ['arr must be greater than 1'] },
  { name: 'self is not a map', values: 'replicas: 1', schema: 'type: object\nproperties:\n  replicas:\n    type: integer\n    x-deckhouse-validations:\n      - {expression: "self < 1", message: "replicas must be greater than 1"}\n', want: ['replicas must be greater than 1'] },
  {
    name: 'a rule over a missing field is skipped, the next one still runs',
    values: 'replicas: 1',
    schema: 'type: object\nproperties:\n  replicas: {type: integer}\nx-deckhouse-validations:\n  - {expression: "self.ignoredField == \'Ignored\'", message: "ignore not existing field"}\n  - {expression: "self.replicas < 1", message: "replicas must be greater than 1"}\n',
    want: ['replicas must be greater than 1'],
  },
  { name: 'a nested value read from the root', values: 'a: {b: abd}', schema: 'type: object\nproperties:\n  a:\n    type: object\n    properties:\n      b: {type: string}\nx-deckhouse-validations:\n  - {expression: \'self.a.b == "abc"\', message: "Not equal to abc"}\n', want: ['Not equal to abc'] },
  {
    name: 'two rules of a nested level both fail',
    values: 'a: {b: abd, c: 122}',
    schema: 'type: object\nproperties:\n  a:\n    type: object\n    properties:\n      b: {type: string}\n      c: {type: number}\n    x-deckhouse-validations:\n      - {expression: \'self.b == "abc"\', message: "Not equal to abc"}\n      - {expression: "self.c == 123", message: "Not equal to 123"}\n',
    want: ['Not equal to abc', 'Not equal to 123'],
  },
  {
    name: 'a rule three levels down',
    values: 'a: {b: {c: {d: 122}}}',
    schema: 'type: object\nproperties:\n  a:\n    type: object\n    properties:\n      b:\n        type: object\n        properties:\n          c:\n            type: object\n            properties:\n              d: {type: number}\n            x-deckhouse-validations:\n            - {expression: "self.d == 123", message: "Not equal to 123"}\n',
    want: ['Not equal to 123'],
  },
  {
    name: 'the same field name with other types at other levels',
    values: 'a: {a: ab, c: {a: 21}}',
    schema: 'type: object\nproperties:\n  a:\n    type: object\n    properties:\n      a: {type: string}\n      c:\n        type: object\n        properties:\n          a: {type: number}\n        x-deckhouse-validations:\n        - {expression: "self.a == 25", message: "Not equal to 25"}\n    x-deckhouse-validations:\n      - {expression: \'self.a == "abc"\', message: "Not equal to abc"}\n',
    want: ['Not equal to 25', 'Not equal to abc'],
  },
  { name: 'map values through all()', values: 'mymap: {foo: 1, bar: 0}', schema: 'type: object\nproperties:\n  mymap: {type: object}\nx-deckhouse-validations:\n- {expression: "self.mymap.all(key, self.mymap[key] > 0)", message: "all map values must be greater than 0"}\n', want: ['all map values must be greater than 0'] },
  {
    name: 'additionalProperties map: self.all over its keys',
    values: 'mymap: {foo: 1, bar: 0}',
    schema: 'type: object\nproperties:\n  mymap:\n    type: object\n    additionalProperties: {type: integer}\n    x-deckhouse-validations:\n    - {expression: "self.all(key, self[key] > 0)", message: "all map values must be greater than 0"}\n',
    want: ['all map values must be greater than 0'],
  },
  { name: 'a passing rule gives nothing', values: 'a: {b: abc}', schema: 'type: object\nproperties:\n  a: {type: object, properties: {b: {type: string}}}\nx-deckhouse-validations:\n  - {expression: \'self.a.b == "abc"\', message: "Not equal to abc"}\n', want: [] },
];

test('validator_test: CEL rules on config values (Test_ValidateConfigValues_CEL), through the scope config check', () => {
  for (const c of VALIDATOR_CEL_CASES) {
    const root = makeTree({ 'openapi/config-values.yaml': c.schema });
    const scope = new ScopeValues('moduleName', 'module moduleName', loadScopeSchemas(join(root, 'openapi')));
    const config = values(c.values) as JsonObject;
    let got: string[] = [];
    try {
      scope.setConfig(config);
    } catch (e) {
      got = [...(e as Error).message.matchAll(/^ {2}- [^:]*: (.*?)(?: \(from .*\))?$/gm)].map((m) => m[1]!);
    }
    assert.deepEqual(got, c.want, c.name);
  }
});
