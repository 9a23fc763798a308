// `addon-operator helm template`: Helm 3.19's own template command tests (cmd/helm/template_test.go,
// charts and golden outputs of its testdata at v3.19.0), strvals as pkg/strvals/parser_test.go
// expects, and the flags, values options and errors of the command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { GoInt } from '../../src/gotemplate/index.js';
import { runHelmTemplate } from '../../src/cli/helm-template.js';
import { parseInto, parseIntoString, parseJSON, parseLiteralInto } from '../../src/helm/strvals.js';
import { makeTree } from '../helpers/tree.js';

const D = join(import.meta.dirname, 'fixtures/helm-3.19');
const SUB = join(D, 'testcharts/subchart');
const MAIN = join(import.meta.dirname, '../../src/cli/main.ts');

function run(args: string[], stdin = '') {
  let out = '';
  let err = '';
  const code = runHelmTemplate(args, { out: (t) => (out += t), err: (t) => (err += t), readStdin: () => Buffer.from(stdin), commandPath: 'helm template', env: {} });
  return { code, out, err };
}

// Helm's tests run with the capabilities of an unreleased build (Kubernetes v1.20.0); a release
// build, like ours, defaults to its client-go's version (v1.34.0), hence --kube-version 1.20.0.
const K120 = ['--kube-version', '1.20.0'];
const GOLDEN: [string, string[]][] = [
  ['template', [SUB, ...K120]],
  ['template-set', [SUB, '--set', 'service.name=apache', ...K120]],
  ['template-values-files', [SUB, '--values', join(SUB, 'charts/subchartA/values.yaml'), ...K120]],
  ['template-name-template', [SUB, '--name-template=foobar-{{ b64enc "abc" | lower }}-baz', ...K120]],
  ['template-no-args', []],
  ['template-lib-chart', [join(D, 'testcharts/lib-chart')]],
  ['template-chart-bad-type', [join(D, 'testcharts/chart-bad-type')]],
  ['template-chart-with-template-lib-dep', [join(D, 'testcharts/chart-with-template-lib-dep'), ...K120]],
  ['template-chart-with-template-lib-archive-dep', [join(D, 'testcharts/chart-with-template-lib-archive-dep'), ...K120]],
  ['template-with-kube-version', ['--kube-version', '1.16.0', SUB]],
  ['template-with-api-version', ['--api-versions', 'helm.k8s.io/test', SUB, ...K120]],
  ['template-with-crds', [SUB, '--include-crds', ...K120]],
  ['template-show-only-one', [SUB, '--show-only', 'templates/service.yaml', ...K120]],
  ['template-show-only-multiple', [SUB, '--show-only', 'templates/service.yaml', '--show-only', 'charts/subcharta/templates/service.yaml', ...K120]],
  ['template-show-only-glob', [SUB, '--show-only', 'templates/subdir/role*', ...K120]],
  ['object-order', [join(D, 'testcharts/object-order'), ...K120]],
  ['template-with-invalid-yaml', [join(D, 'testcharts/chart-with-template-with-invalid-yaml'), ...K120]],
  ['template-with-invalid-yaml-debug', [join(D, 'testcharts/chart-with-template-with-invalid-yaml'), '--debug', ...K120]],
  ['template-skip-tests', [SUB, '--skip-tests', ...K120]],
  ['issue-9027', [join(D, 'testcharts/issue-9027'), ...K120]],
  ['template-subchart-cm', [SUB, '--set', 'configmap.enabled=true', '--set', 'subchartb.enabled=true', ...K120]],
  ['template-subchart-cm-set', [SUB, '--set', 'configmap.enabled=true', '--set', 'subchartb.enabled=true', '--set', 'configmap.value=baz', ...K120]],
  ['template-subchart-cm-set-file', [SUB, '-f', join(SUB, 'extra_values.yaml'), ...K120]],
];

test("Helm 3.19's template command tests: output and errors byte for byte as its golden files", () => {
  assert.equal(readdirSync(join(D, 'output')).length, GOLDEN.length);
  for (const [name, args] of GOLDEN) {
    const r = run(args);
    // Helm's test captures stdout and stderr in one buffer; --debug lines carry a time and are left out
    const got = r.out + r.err.replace(/^.*\[debug\].*\n(\n)?/gm, '');
    assert.equal(got, readFileSync(join(D, 'output', `${name}.txt`), 'utf8'), name);
    assert.equal(r.code, got.includes('Error: ') ? 1 : 0, name);
  }
});

/** Values with int64 shown as `int64(N)`, for comparisons. */
const shown = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x) => (x instanceof GoInt ? `${x.type}(${x.v})` : x)));
const set = (s: string, into: Record<string, unknown> = {}) => (parseInto(s, into), shown(into));
const fails = (s: string, parse = parseInto) => assert.throws(() => parse(s, {}), Error, s);

test("strvals: pkg/strvals/parser_test.go's TestParseSet expectations", () => {
  assert.deepEqual(set('name1=null,f=false,t=true'), { name1: null, f: false, t: true });
  assert.deepEqual(set('name1=value1,name2=value2,'), { name1: 'value1', name2: 'value2' });
  assert.deepEqual(set('name1=,name2=value2'), { name1: '', name2: 'value2' });
  assert.deepEqual(set('leading_zeros=00009,zero_int=0,long_int=1234567890,neg=-5,plus=+7,big=9223372036854775808'), {
    leading_zeros: '00009',
    zero_int: 'int64(0)',
    long_int: 'int64(1234567890)',
    neg: 'int64(-5)',
    plus: 'int64(7)',
    big: '9223372036854775808',
  });
  assert.deepEqual(set('name1=one\\,two,name2=three\\=four,name3=one two three'), { name1: 'one,two', name2: 'three=four', name3: 'one two three' });
  assert.deepEqual(set('outer.inner1=value,outer.middle.inner=value'), { outer: { inner1: 'value', middle: { inner: 'value' } } });
  assert.deepEqual(set('name1.name2='), { name1: { name2: '' } });
  assert.deepEqual(set('name1={value1,value2},name2={1021,902}'), { name1: ['value1', 'value2'], name2: ['int64(1021)', 'int64(902)'] });
  assert.deepEqual(set('name1.name2={value1,value2}'), { name1: { name2: ['value1', 'value2'] } });
  assert.deepEqual(set('list[0].foo=bar,list[0].hello=world'), { list: [{ foo: 'bar', hello: 'world' }] });
  assert.deepEqual(set('list[0]=foo,list[3]=bar'), { list: ['foo', null, null, 'bar'] });
  assert.deepEqual(set('noval[0]'), { noval: [] });
  assert.deepEqual(set('noval[0]='), { noval: [''] });
  assert.deepEqual(set('nested[1][1]=1'), { nested: [null, [null, 'int64(1)']] });
  assert.deepEqual(set('name1.name2[1].foo=bar,name1.name2[0].foo=bar'), { name1: { name2: [{ foo: 'bar' }, { foo: 'bar' }] } });
  assert.deepEqual(set('name1.name2[1].foo=bar'), { name1: { name2: [null, { foo: 'bar' }] } });
  assert.deepEqual(set('a\\.b=1'), { 'a.b': 'int64(1)' });
  for (const bad of ['name1=value1,,,,name2=value2,', 'name1,name2=', 'name1,name2=value2', 'name1,name2=value2\\', 'name1,name2', 'name1.name2', 'name1.name2,name1.name3', 'name1.=name2', 'name1.,name2', 'name1={1021,902', 'list[0].foo=bar,list[-30].hello=world', 'list[0]=foo,list[-20]=bar', 'illegal[0]name.foo=bar', ']={}].']) fails(bad);
  // --set-string keeps every value a string
  const s: Record<string, unknown> = {};
  parseIntoString('long_int_string=1234567890,boolean=true,is_null=null,zero=0', s);
  assert.deepEqual(s, { long_int_string: '1234567890', boolean: 'true', is_null: 'null', zero: '0' });
  // a later --set overwrites, and merges into existing maps
  assert.deepEqual(set('outer.b=2', { outer: { a: 1 }, x: 'keep' }), { outer: { a: 1, b: 'int64(2)' }, x: 'keep' });
});

test("strvals: Helm's error texts", () => {
  const message = (s: string, parse = parseInto) => {
    try {
      parse(s, {});
    } catch (e) {
      return (e as Error).message;
    }
    return 'no error';
  };
  assert.equal(message('name1,name2='), 'key "name1" has no value (cannot end with ,)');
  assert.equal(message('name1.name2'), 'key "name2" has no value');
  assert.equal(message('name1.=name2'), 'key map "name1" has no value');
  assert.equal(message('list[-30].hello=world'), 'negative -30 index not allowed');
  assert.equal(message('illegal[0]name.foo=bar'), 'unexpected data at end of array index: "name"');
  assert.equal(message('name1={1021,902'), "list must terminate with '}'");
  assert.equal(message('a=1,a.b=2'), 'unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}');
  assert.equal(message('a=x,a[0]=2'), 'unable to parse key: interface conversion: interface {} is string, not []interface {}');
  assert.equal(message('a[99999999]=1'), 'index of 99999999 is greater than maximum supported index of 65536');
  assert.equal(message('a[x]=1'), 'error parsing index: strconv.Atoi: parsing "x": invalid syntax');
  assert.equal(message(`${'a.'.repeat(31)}b=1`), 'value name nested level is greater than maximum supported nested level of 30');
  assert.equal(message('a.b', parseLiteralInto), 'key "b" has no value');
});

test('strvals: --set-json values are JSON, an empty value is null; --set-literal takes the rest whole', () => {
  const j: Record<string, unknown> = {};
  parseJSON('a={"b":[1,"x",null]} ,c=[1,2],d=,e="s,t",list[1]={"k":true},n=-1.5e3, m=1', j);
  // blanks before the comma are skipped, the ones after it belong to the next key (as in Go)
  assert.deepEqual(j, { a: { b: [1, 'x', null] }, c: [1, 2], d: null, e: 's,t', list: [null, { k: true }], n: -1500, ' m': 1 });
  assert.throws(() => parseJSON('a={"b":', {}));
  assert.throws(() => parseJSON('a=tru', {}));
  const l: Record<string, unknown> = {};
  parseLiteralInto('a.b[1]=x,y={z}\\n', l);
  assert.deepEqual(l, { a: { b: [null, 'x,y={z}\\n'] } });
});

function chart(extra: Record<string, string> = {}): string {
  return makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 1.0.0\n',
    'values.yaml': 'replicas: 1\nlist: [a]\nmap: {a: 1}\n',
    'templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\ndata:\n  values: {{ toJson .Values | quote }}\n  kinds: {{ printf "%T/%T" .Values.replicas .Values.map | quote }}\n  upgrade: {{ .Release.IsUpgrade | quote }}\n',
    'templates/hook.yaml': 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: hook\n  annotations:\n    helm.sh/hook: pre-install\n',
    ...extra,
  });
}
const dataOf = (out: string, key: string) => JSON.parse(out.match(new RegExp(`  ${key}: (".*")`))![1]!);

test('helm template: values from -f (stdin, comma lists), --set, --set-string, --set-file, --set-json in Helm\'s order and types', () => {
  const dir = chart({ 'v1.yaml': 'map: {b: 2}\nfromFile1: x\n', 'v2.yaml': 'map: {c: 3}\n', 'file.txt': 'line1\nline2\n' });
  const r = run(
    [
      'rel', dir, '-f', `${dir}/v1.yaml,${dir}/v2.yaml`, '--values=-', '--set', 'replicas=3,list={x,y}', '--set-string', 'str=007',
      '--set-file', `file=${dir}/file.txt`, '--set-json', 'json={"n":1}', '--set-json', 'replicas=5', '-n', 'ns1', '--is-upgrade',
    ],
    'fromStdin: true\n',
  );
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(dataOf(r.out, 'values')), {
    replicas: 3, // --set comes after --set-json
    list: ['x', 'y'],
    map: { a: 1, b: 2, c: 3 },
    fromFile1: 'x',
    fromStdin: true,
    str: '007',
    file: 'line1\nline2\n',
    json: { n: 1 },
  });
  assert.equal(dataOf(r.out, 'kinds'), 'int64/map[string]interface {}'); // --set integers are int64
  assert.equal(dataOf(r.out, 'upgrade'), 'true');
  assert.match(r.out, /name: rel\n {2}namespace: ns1\n/);
  assert.match(r.out, /---\n# Source: demo\/templates\/hook.yaml\n/);
  assert.ok(!run(['rel', dir, '--no-hooks']).out.includes('hook.yaml'));
});

test('helm template: errors as Helm prints them, exit 1', () => {
  const dir = chart();
  const cases: [string[], string][] = [
    [[dir, '--bogus'], 'Error: unknown flag: --bogus\n'],
    [[dir, '-x'], "Error: unknown shorthand flag: 'x' in -x\n"],
    [[dir, '--set'], 'Error: flag needs an argument: --set\n'],
    [[dir, '-f'], "Error: flag needs an argument: 'f' in -f\n"],
    [[dir, '--include-crds=maybe'], 'Error: invalid argument "maybe" for "--include-crds" flag: strconv.ParseBool: parsing "maybe": invalid syntax\n'],
    [['a', dir, 'c', 'd'], 'Error: expected at most two arguments, unexpected arguments: c, d\n'],
    [['a', dir, '--generate-name'], 'Error: cannot set --generate-name and also specify a name\n'],
    [['Bad_Name', dir], 'Error: release name "Bad_Name": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53\n'],
    [['./nope'], 'Error: path "./nope" not found\n'],
    [['nope'], 'Error: non-absolute URLs should be in form of repo_name/path_to_chart, got: nope\n'],
    [[dir, '-f', '/nonexistent.yaml'], 'Error: open /nonexistent.yaml: no such file or directory\n'],
    [[dir, '--set', 'a.b'], 'Error: failed parsing --set data: key "b" has no value\n'],
    [[dir, '--set-json', 'a={'], 'Error: failed parsing --set-json data a={\n'],
    [[dir, '--kube-version', 'x1'], "Error: invalid kube version 'x1': could not parse \"x1\" as version\n"],
    [[dir, '--show-only', 'templates/none.yaml'], 'Error: could not find template templates/none.yaml in chart\n'],
    [[dir, '--repo', 'https://example.com'], 'Error: flag --repo needs a repository, a registry or a cluster: not supported by addon-operator helm template\n'],
  ];
  for (const [args, want] of cases) {
    const r = run(args);
    assert.equal(r.err, want, args.join(' '));
    assert.equal(r.code, 1, args.join(' '));
  }
  const bad = run([dir, '-f', '-'], 'a: [');
  assert.match(bad.err, /^Error: failed to parse -: error converting YAML to JSON: yaml: /);
});

test('helm template: a dependency missing from charts/ fails with Helm\'s message', () => {
  const dir = chart({ 'Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 1.0.0\ndependencies:\n- name: redis\n  version: 1.x\n- name: pg\n  version: 2.x\n' });
  const r = run([dir]);
  assert.equal(r.code, 1);
  assert.equal(
    r.err,
    'Error: An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: redis, pg\n',
  );
  assert.equal(r.out, '');
});

test('helm template: --generate-name and --name-template, --output-dir with --release-name', () => {
  const dir = chart();
  assert.match(run([dir, '--generate-name']).out, /name: release-name\n/); // as Helm: the default name wins
  assert.match(run([dir, '--name-template', '{{ "abc" | upper | lower }}-x']).out, /name: abc-x\n/);
  const out = makeTree({ 'keep.txt': '' });
  const r = run(['rel', dir, '--output-dir', out, '--release-name']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, `wrote ${out}/rel/demo/templates/cm.yaml\nwrote ${out}/rel/demo/templates/hook.yaml\n\n`);
  assert.match(readFileSync(join(out, 'rel/demo/templates/cm.yaml'), 'utf8'), /^---\n# Source: demo\/templates\/cm.yaml\napiVersion: v1\n/);
  assert.ok(existsSync(join(out, 'rel/demo/templates/hook.yaml')));
});

test('the command line: an unknown command or a stray argument is an error naming it and listing the commands', () => {
  const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], { encoding: 'utf8' });
  const unknown = cli(['frobnicate']);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /^Error: unknown command "frobnicate" \(commands: version, start, render, helm, .*\)\n$/);
  const stray = cli(['version', 'extra']);
  assert.equal(stray.status, 1);
  assert.match(stray.stderr, /^Error: unexpected argument "extra" for "addon-operator version" \(commands: /);
  const tpl = cli(['helm', 'template', 'rel', chart()]);
  assert.equal(tpl.status, 0, tpl.stderr);
  assert.match(tpl.stdout, /^---\n# Source: demo\/templates\/cm.yaml\n/);
});
