import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runJqCommand } from '../../src/cli/jq.js';

function run(argv: string[], stdin = '', files: Record<string, string> = {}): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = runJqCommand(argv, {
    readStdin: () => stdin,
    readFile: (p) => {
      if (!(p in files)) throw new Error(`${p}: No such file or directory`);
      return files[p]!;
    },
    out: (t) => (out += t),
    err: (t) => (err += t),
  });
  return { code, out, err };
}

const pod = { kind: 'Pod', metadata: { name: 'web-1', namespace: 'prod', labels: { app: 'web' } } };

void test('prints like jq 1.8: indented by default, compact with -c, raw strings with -r', () => {
  assert.deepEqual(run(['.metadata.labels'], JSON.stringify(pod)), { code: 0, out: '{\n  "app": "web"\n}\n', err: '' });
  assert.equal(run(['-c', '.metadata'], JSON.stringify(pod)).out, '{"name":"web-1","namespace":"prod","labels":{"app":"web"}}\n');
  assert.equal(run(['-r', '.metadata.name'], JSON.stringify(pod)).out, 'web-1\n');
  assert.equal(run(['-cr', '.metadata.name, .metadata'], JSON.stringify(pod)).out, 'web-1\n{"name":"web-1","namespace":"prod","labels":{"app":"web"}}\n');
});

void test('several inputs in a stream, -s slurps them, -n ignores them, files are read in order', () => {
  assert.equal(run(['-c', '.a'], '{"a":1} {"a":[2]}\n3').out.split('\n').slice(0, 2).join(','), '1,[2]');
  assert.equal(run(['-c', '-s', 'length'], '1 2 3').out, '3\n');
  assert.equal(run(['-n', '[1,2] | add'], 'not json').out, '3\n');
  assert.equal(run(['-c', '.', 'a.json', 'b.json'], '', { 'a.json': '[1]', 'b.json': '{"x":null}' }).out, '[1]\n{"x":null}\n');
  assert.equal(run(['-c', '[., input]'], '1 2').out, '[1,2]\n');
});

void test('--arg and --argjson bind variables', () => {
  assert.equal(run(['-c', '--arg', 'ns', 'prod', '--argjson', 'n', '{"k":2}', '[$ns, $n.k]'], 'null').out, '["prod",2]\n');
});

void test('errors: compile error exits 3 with jq\'s message, runtime error exits 5 and goes on, bad input exits 5, a bad option 2', () => {
  const c = run(['.a |||'], '{}');
  assert.equal(c.code, 3);
  assert.match(c.err, /^jq: error: syntax error, unexpected '\|'.*line 1, column 5:\n/);
  const r = run(['.a + 1'], '{"a":"x"} {"a":1}');
  assert.equal(r.code, 5);
  assert.equal(r.out, '2\n');
  assert.match(r.err, /string \("x"\) and number \(1\) cannot be added/);
  assert.deepEqual(run(['-c', '.'], '{"a":'), { code: 5, out: '', err: 'jq: parse error: Unfinished JSON term at EOF at line 1, column 5\n' });
  assert.equal(run(['.'], '', {}).code, 0);
  assert.equal(run(['.', 'missing.json']).code, 2);
  assert.equal(run(['--arg', 'x'], '').code, 2);
  assert.equal(run([], '').code, 2);
});

void test('halt_error prints its string and exits with its code', () => {
  const r = run(['"stop\\n" | halt_error(1)'], 'null');
  assert.deepEqual(r, { code: 1, out: '', err: 'stop\n' });
});

void test('-L gives the library path of import/include as jq does; module errors name the module', () => {
  const lib = new URL('../jq/modules', import.meta.url).pathname;
  assert.deepEqual(run(['-c', '-L', lib, 'import "c" as foo; [foo::a, foo::c]'], 'null'), { code: 0, out: '[0,"acmehbah"]\n', err: '' });
  assert.equal(run(['-c', `-L${lib}`, 'include "shadow1"; include "shadow2"; e'], 'null').out, '3\n');
  assert.equal(run(['-c', '-L', lib, '-n', '"c" | modulemeta | .defs'], '').out, '["a/0","c/0"]\n');
  const missing = run(['-L', lib, 'import "nope" as n; .'], 'null');
  assert.deepEqual(missing, { code: 3, out: '', err: 'jq: error: module not found: nope\njq: 1 compile error\n' });
  const cycle = run(['-L', lib, 'import "cycle_a" as a; .'], 'null');
  assert.equal(cycle.code, 3);
  assert.match(cycle.err, /^jq: error: circular import of \/.*\/modules\/cycle_a\.jq\n/);
  const bad = run(['-L', lib, 'import "syntaxerror" as e; .'], 'null');
  assert.equal(bad.code, 3);
  assert.match(bad.err, /^jq: error: syntax error, unexpected ';', expecting end of file at \/.*\/syntaxerror\/syntaxerror\.jq, line 1, column 4\n/);
  assert.match(run(['-L'], 'null').err, /-L takes a parameter/);
});

void test('inputs are read by jq\'s parser: its extensions (nan, Infinity, a byte order mark) and its error messages', () => {
  assert.deepEqual(run(['-c', 'map(isnan)'], '\ufeff[nan, NaN, 1, Infinity]'), { code: 0, out: '[true,true,false,false]\n', err: '' });
  // the values before the error are filtered, then jq's message and exit 5
  assert.deepEqual(run(['-c', '.a'], '{"a":1} {\'a\': 2}'), {
    code: 5,
    out: '1\n',
    err: 'jq: parse error: Invalid string literal; expected ", but got \' at line 1, column 13\n',
  });
  assert.equal(run(['-c', '.'], '[1,]').err, 'jq: parse error: Expected another array element at line 1, column 4\n');
  assert.equal(run(['-c', '.'], '[1 2]').err, 'jq: parse error: Expected separator between values at line 1, column 5\n');
  assert.equal(run(['-c', '.'], 'nan1').err, 'jq: parse error: Invalid numeric literal at EOF at line 1, column 4\n');
  assert.equal(run(['-c', '.'], '"a\tb"').err, 'jq: parse error: Invalid string: control characters from U+0000 through U+001F must be escaped at line 1, column 5\n');
});
