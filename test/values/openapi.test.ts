/**
 * OpenAPI schemas read as the Go operator reads them (go-openapi spec/validate, sigs.k8s.io/yaml):
 * schemas in the style of a large real module set (x-doc-* and x-examples keys, misspelt keywords,
 * RE2 named groups, duplicate keys, null defaults).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { makeTree } from '../helpers/tree.js';
import { ScopeValues, loadScopeSchemas } from '../../src/values/index.js';
import { decodeSchema } from '../../src/values/openapi.js';
import { applyDefaults } from '../../src/values/schema.js';
import { parseYaml } from '../../src/util/yaml.js';
import type { JsonObject, JsonValue } from '../../src/util/json.js';

function scopeWith(schemas: Record<string, string>, key = 'someModule'): ScopeValues {
  const root = makeTree(Object.fromEntries(Object.entries(schemas).map(([f, c]) => [`openapi/${f}`, c])));
  return new ScopeValues(key, `module ${key}`, loadScopeSchemas(join(root, 'openapi')));
}

const problemsOf = (s: ScopeValues, config: object): string => {
  try {
    s.setConfig(config as never);
    return '';
  } catch (e) {
    return (e as Error).message;
  }
};

test('a repeated key in a schema file is not an error: the later one wins (sigs.k8s.io/yaml over yaml.v2)', () => {
  const s = scopeWith({
    'config-values.yaml': ['type: object', 'properties:', '  replicas:', '    type: string', '    type: integer', '  replicas:', '    type: integer', '    minimum: 1', ''].join('\n'),
  });
  s.setConfig({ replicas: 2 });
  assert.match(problemsOf(s, { replicas: 0 }), /someModule\.replicas: must be >= 1/);
  assert.match(problemsOf(s, { replicas: 'two' }), /someModule\.replicas: must be integer/);
});

test('unknown keywords are ignored: x-* extensions, documentation keys and misspellings alike', () => {
  const s = scopeWith({
    'config-values.yaml': [
      'type: object',
      'x-doc-search: [a, b]',
      'x-examples: [{logLevel: Debug}]',
      'x-config-version: 2',
      'properties:',
      '  logLevel:',
      '    type: string',
      '    enum: [Debug, Info]',
      '    x-doc-default: Info',
      '    x-doc-d8Revision: ee',
      '    attern: "^[0-9]+$"', // misspelt: ignored, as go-openapi ignores it
      '    mixLength: 100',
      '    examples: [Info]',
      '    deprecated: true',
      '  tag:',
      '    type: string',
      '    MaxLength: 3', // encoding/json matches field names case-insensitively
      '',
    ].join('\n'),
  });
  s.setConfig({ logLevel: 'Debug', tag: 'abc' });
  assert.match(problemsOf(s, { logLevel: 'Trace' }), /someModule\.logLevel: must be one of \["Debug","Info"\]/);
  assert.match(problemsOf(s, { tag: 'abcd' }), /someModule\.tag: must NOT have more than 3 characters/);
});

test('odd shapes mean what go-openapi decodes them to', () => {
  const s = scopeWith({
    'config-values.yaml': [
      'type: object',
      'properties:',
      '  nothing:',
      '    type: object',
      '    properties: null', // no properties: an open object (docs/compatibility.md)
      '  list:',
      '    type: array',
      '    items: string', // not a map or a list: no item schema
      '  loose:',
      '    type: object',
      '    additionalProperties: "no"', // only the literal false forbids
      '    properties: {a: {type: string}}',
      '  anything: null', // a null property schema accepts anything
      '  odd:',
      '    type: str', // a type naming no JSON type: nothing matches, null only with nullable
      '    nullable: true',
      '  typed:',
      '    type: [string, "null"]',
      '  exclusive: {type: number, maximum: 10, exclusiveMaximum: true}',
      '',
    ].join('\n'),
  });
  s.setConfig({ nothing: { x: 1 }, list: [1, 'a', {}], loose: { a: 'x', b: 2 }, anything: [1], odd: null, typed: null, exclusive: 9.5 });
  assert.match(problemsOf(s, { odd: 'x' }), /someModule\.odd: must be of type "str", which no value has, got string "x"/);
  assert.match(problemsOf(s, { exclusive: 10 }), /someModule\.exclusive: must be < 10/);
  assert.match(problemsOf(s, { typed: 1 }), /someModule\.typed: must be string,null/);
});

test('a keyword of the wrong type fails the load as Go decoding fails, naming the file and keyword path', () => {
  assert.throws(() => decodeSchema({ properties: { a: { enum: 'x' } } }, 'f.yaml'), /f\.yaml: properties\.a\.enum: must be a list, got string/);
  assert.throws(() => decodeSchema({ properties: { a: { maxLength: 1.5 } } }, 'f.yaml'), /f\.yaml: properties\.a\.maxLength: must be an integer/);
  assert.throws(() => decodeSchema({ properties: { a: { nullable: 'yes' } } }, 'f.yaml'), /f\.yaml: properties\.a\.nullable: must be a boolean/);
  assert.throws(() => decodeSchema({ allOf: ['x'] }, 'f.yaml'), /f\.yaml: allOf\.0: a schema must be a map, got string/);
  assert.throws(() => decodeSchema([1] as never, 'f.yaml'), /f\.yaml: \(root\): a schema must be a map, got array/);
});

test('patterns are Go regexps (RE2): named groups and escapes JavaScript refuses; an invalid one fails only the values it checks', () => {
  const s = scopeWith({
    'config-values.yaml': [
      'type: object',
      'properties:',
      '  version: {type: string, pattern: "^(?P<major>0|[1-9]\\\\d*)\\\\.(?P<minor>\\\\d+)$"}',
      '  email: {type: string, pattern: "^[a-z]+\\\\@[a-z]+\\\\.[a-z]+$"}',
      '  range: {type: string, pattern: "^\\\\d+\\\\-\\\\d+\\\\:\\\\d+$"}',
      '  flags: {type: string, pattern: "(?i)^on$"}',
      '  lookahead: {type: string, pattern: "^(?=a)a$"}',
      '  labels:',
      '    type: object',
      '    additionalProperties: false',
      '    patternProperties:',
      '      "^(?P<prefix>[a-z]+)\\\\.io$": {type: string}',
      '',
    ].join('\n'),
  });
  s.setConfig({ version: '1.28', email: 'a@b.io', range: '1-2:3', flags: 'ON', labels: { 'x.io': 'y' } });
  assert.match(problemsOf(s, { version: 'v1.28' }), /someModule\.version: must match pattern "\^\(\?P<major>/);
  assert.match(problemsOf(s, { labels: { 'x.com': 'y' } }), /someModule\.labels\.x\.com|someModule\.labels\["x\.com"\]/);
  // Go compiles a pattern when a value is validated: the schema loads, the value fails
  assert.match(problemsOf(s, { lookahead: 'a' }), /someModule\.lookahead: must match pattern "\^\(\?=a\)a\$", but the pattern is not a valid Go regexp: error parsing regexp: invalid or unsupported Perl syntax/);
  // and RE2 runs in linear time: a pattern that makes backtracking engines hang is harmless
  const slow = scopeWith({ 'config-values.yaml': 'type: object\nproperties:\n  s: {type: string, pattern: "^(a+)+$"}\n' });
  assert.match(problemsOf(slow, { s: 'a'.repeat(5000) + 'b' }), /must match pattern/);
});

test('formats go-openapi does not know are skipped; its own are checked on strings only', () => {
  const s = scopeWith({
    'config-values.yaml': [
      'type: object',
      'properties:',
      '  name: {type: string, format: k8s-resource-name}',
      '  size: {type: string, format: int32}',
      '  when: {type: string, format: date-time}',
      '  ip: {type: string, format: ipv4}',
      '  ttl: {type: string, format: duration}',
      '  net: {type: string, format: cidr}',
      '  count: {type: integer, format: ipv4}',
      '',
    ].join('\n'),
  });
  s.setConfig({ name: 'Not_A_Name!', size: 'big', when: '2024-01-02T03:04:05+0300', ip: '10.0.0.1', ttl: '3 days', net: '10.0.0.0/8', count: 3 });
  s.setConfig({ ttl: '1h30m', when: '2024-01-02 03:04:05' });
  assert.match(problemsOf(s, { when: 'yesterday' }), /someModule\.when: must be a valid date-time, got string "yesterday"/);
  assert.match(problemsOf(s, { ip: '10.0.0.256' }), /someModule\.ip: must be a valid ipv4/);
  assert.match(problemsOf(s, { ttl: 'soon' }), /someModule\.ttl: must be a valid duration/);
  assert.match(problemsOf(s, { net: '10.0.0.0/33' }), /someModule\.net: must be a valid cidr/);
});

test('default: null is no default (Go ApplyDefaults skips it); other defaults fill absent keys', () => {
  const s = scopeWith({
    'config-values.yaml': [
      'type: object',
      'properties:',
      '  storageClass: {type: string, default: null}',
      '  replicas: {type: integer, default: 2}',
      '  nodeSelector: {type: object, additionalProperties: {type: string}, default: null}',
      '',
    ].join('\n'),
  });
  s.setConfig({});
  assert.deepEqual(s.effective(), { replicas: 2 });
  assert.deepEqual(s.configWithDefaults(), { replicas: 2 });
});

test('x-extend naming a config-values.yaml that does not exist is not an error', () => {
  const s = scopeWith({ 'values.yaml': 'x-extend:\n  schema: config-values.yaml\ntype: object\nproperties:\n  internal: {type: object, default: {}}\n' });
  assert.equal(s.schemas.has('config'), false);
  assert.deepEqual(s.effective(), { internal: {} });
  s.validateEffective();
  // nor is an x-extend without a name, or with a name Go does not look at
  const t = scopeWith({ 'config-values.yaml': 'type: object\nproperties:\n  a: {type: string}\n', 'values.yaml': 'x-extend: {schema: other.yaml}\ntype: object\nproperties:\n  b: {type: string}\n' });
  assert.deepEqual(Object.keys(t.schemas.schema('values')!.properties as object).sort(), ['a', 'b']);
});

test('$ref to another file is read as Go reads it; siblings of $ref are ignored; an unreadable file fails the load naming it', () => {
  const root = makeTree({
    'openapi/config-values.yaml': [
      'type: object',
      'properties:',
      '  image: {$ref: "defs.yaml#/definitions/image", description: ignored, type: string}',
      '  tolerations: {$ref: "#/definitions/list"}',
      'definitions:',
      '  list: {type: array, items: {type: string}}',
      '',
    ].join('\n'),
    'openapi/defs.yaml': 'definitions:\n  image:\n    type: object\n    properties:\n      tag: {$ref: "#/definitions/tag"}\n  tag: {type: string, pattern: "^v\\\\d+$"}\n',
  });
  const s = new ScopeValues('m', 'module m', loadScopeSchemas(join(root, 'openapi')));
  s.setConfig({ image: { tag: 'v1' }, tolerations: ['a'] });
  assert.throws(() => s.setConfig({ image: { tag: 'latest' } }), /m\.image\.tag: must match pattern/);
  assert.throws(() => s.setConfig({ image: { other: 1 } }), /m\.image\.other: is not allowed/);
  const missing = makeTree({ 'openapi/values.yaml': 'type: object\nproperties:\n  a: {$ref: "nowhere.yaml#/x"}\n' });
  assert.throws(() => loadScopeSchemas(join(missing, 'openapi')), /openapi\/values\.yaml: cannot read the file of \$ref "nowhere\.yaml#\/x" \(.*nowhere\.yaml\): ENOENT/);
  const dangling = makeTree({ 'openapi/values.yaml': 'type: object\nproperties:\n  a: {$ref: "#/definitions/x"}\n' });
  assert.throws(() => loadScopeSchemas(join(dangling, 'openapi')), /\$ref "#\/definitions\/x" points at nothing/);
});

test('$ref to another file is resolved from the working directory first, as go-openapi does', () => {
  const cwdDir = mkdtempSync(join(tmpdir(), 'ref-cwd-'));
  writeFileSync(join(cwdDir, 'shared.yaml'), 'port: {type: integer, maximum: 100}\n');
  const root = makeTree({ 'openapi/config-values.yaml': 'type: object\nproperties:\n  port: {$ref: "shared.yaml#/port"}\n' });
  const was = process.cwd();
  process.chdir(cwdDir);
  try {
    const s = new ScopeValues('m', 'module m', loadScopeSchemas(join(root, 'openapi')));
    assert.throws(() => s.setConfig({ port: 200 }), /m\.port: must be <= 100/);
  } finally {
    process.chdir(was);
  }
});

test('validator_test: multipleOf 0.01 accepts 100 (float division as go-openapi does); forbidden properties deep in arrays', () => {
  const s = scopeWith({
    'config-values.yaml': 'type: object\nadditionalProperties: false\nproperties:\n  sampling: {type: number, minimum: 0.01, maximum: 100.0, multipleOf: 0.01}\n  rate: {type: number, multipleOf: 0.1}\n',
  });
  s.setConfig({ sampling: 100, rate: 0.3 });
  s.setConfig({ sampling: 56.1 });
  assert.match(problemsOf(s, { sampling: 56.105 }), /someModule\.sampling: must be multiple of 0\.01/);
  const deep = scopeWith({
    'config-values.yaml': [
      'type: object',
      'properties:',
      '  param1: {type: string, enum: [val1]}',
      '  paramObj:',
      '    type: object',
      '    properties:',
      '      p1: {type: object, properties: {p11: {type: string}, p12: {type: string}}}',
      '      p2: {type: array, items: {type: string}}',
      '  paramArray:',
      '    type: array',
      '    items:',
      '      type: array',
      '      items: {type: object, properties: {deepParam1: {type: string}, deepParam2: {type: string}, deepParam3: {type: string}}}',
      '',
    ].join('\n'),
  });
  const message = problemsOf(deep, {
    param1: 'val1',
    paramObj: { p1: { p11: 'testvalue1', p12: 'randomvalue', asd: 'qwe' }, p2: ['odin', 'two'] },
    paramArray: [[{ deepParam1: 'a', deepParam2: 'b', deepParam3: 'c' }], [{ deepParam1: 'x', deepParam2: 'y', deepParam3: 'z', aaa: 'zzz' }]],
    paramArrayy: [1, 2],
  });
  assert.equal(message.split('\n').filter((l) => l.includes('is not allowed')).length, 3, message);
});

test('defaulting_test: Test_ApplyDefaults and Test_ApplyDefaults_go_openapi (defaults fill absent keys, then defaults inside them)', () => {
  const schema = decodeSchema(
    parseYaml(
      [
        'type: object',
        'required: [param1]',
        'properties:',
        '  param1: {type: string, enum: [val1]}',
        '  param2: {type: string, default: testvalue1}',
        '  paramObj:',
        '    type: object',
        '    default: {internal: {testvalue1: qweqwe}}',
        '  paramObjDeep:',
        '    type: object',
        '    default: {}',
        '    properties:',
        '      param1: {type: string, default: randomvalue}',
        '  paramObjDeepDeep:',
        '    type: object',
        '    default: {deepParam1: {}}',
        '    properties:',
        '      deepParam1:',
        '        type: object',
        '        properties:',
        '          param1: {type: string, default: randomvalue}',
        '  arrayObjDefaultNoItems: {type: array, default: [abc]}',
        '  arrayKept: {type: array, default: []}',
        '',
      ].join('\n'),
      's.yaml',
    ) as JsonValue,
    's.yaml',
  );
  const values = { param1: 'val1', arrayKept: ['test1'] } as JsonObject;
  applyDefaults(schema, values);
  assert.deepEqual(values, {
    param1: 'val1',
    param2: 'testvalue1',
    paramObj: { internal: { testvalue1: 'qweqwe' } },
    paramObjDeep: { param1: 'randomvalue' },
    paramObjDeepDeep: { deepParam1: { param1: 'randomvalue' } },
    arrayObjDefaultNoItems: ['abc'],
    arrayKept: ['test1'],
  });
  // a default is a copy: filling one scope does not change the schema or another scope
  const other = { param1: 'val1' } as JsonObject;
  applyDefaults(schema, other);
  ((other.paramObj as JsonObject).internal as JsonObject).testvalue1 = 'changed';
  assert.deepEqual(((values.paramObj as JsonObject).internal as JsonObject).testvalue1, 'qweqwe');
  const third = {} as JsonObject;
  applyDefaults(schema, third);
  assert.deepEqual(third.paramObj, { internal: { testvalue1: 'qweqwe' } });
});
