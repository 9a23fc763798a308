import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileJq, JqCompileError, JqRuntimeError, toFilterResult, validateJqFilter } from '../../src/jq/index.js';

void test('validateJqFilter accepts good filters, including defs and trailing comments', () => {
  assert.equal(validateJqFilter('.metadata.labels'), null);
  assert.equal(validateJqFilter('def f: .a; f | {x: .}'), null);
  assert.equal(validateJqFilter('.a # trailing comment'), null);
  assert.equal(validateJqFilter('{"name": .metadata.name, spec: .spec}'), null);
});

void test('validateJqFilter does not run the filter (an endless filter validates instantly)', () => {
  assert.equal(validateJqFilter('repeat(.)'), null);
  assert.equal(validateJqFilter('error("boom")'), null);
});

void test('validateJqFilter reports syntax and undefined-symbol errors with positions relative to the filter', () => {
  const syntax = validateJqFilter('.a |||');
  assert.ok(syntax);
  assert.match(syntax, /syntax error/);
  assert.match(syntax, /line 1, column/);
  const undef = validateJqFilter('.a | foo');
  assert.ok(undef);
  assert.match(undef, /foo\/0 is not defined/);
  assert.equal(validateJqFilter('   '), 'empty filter');
});

void test('compileJq throws a JqCompileError naming the filter and carrying jq message', () => {
  assert.throws(
    () => compileJq('.metadata | nosuchfn'),
    (err: unknown) => {
      assert.ok(err instanceof JqCompileError);
      assert.equal(err.filter, '.metadata | nosuchfn');
      assert.match(err.message, /^invalid jq filter '\.metadata \| nosuchfn': /);
      assert.match(err.message, /nosuchfn\/0 is not defined/);
      return true;
    },
  );
});

void test('apply returns every output; filterResult collapses them like shell-operator', () => {
  const f = compileJq('.items[]');
  assert.deepEqual(f.apply({ items: [1, 'a', { b: true }] }), [1, 'a', { b: true }]);
  assert.deepEqual(f.filterResult({ items: [] }), null);
  assert.deepEqual(f.filterResult({ items: [7] }), 7);
  assert.deepEqual(f.filterResult({ items: [7, 8] }), [7, 8]);
  assert.deepEqual(compileJq('.metadata.labels').filterResult({ metadata: {} }), null);
  assert.deepEqual(compileJq('.a').filterResult(undefined), null);
});

void test('toFilterResult', () => {
  assert.equal(toFilterResult([]), null);
  assert.equal(toFilterResult(['x']), 'x');
  assert.deepEqual(toFilterResult([1, 2]), [1, 2]);
});

void test('apply keeps key order and strings with newlines intact', () => {
  const out = compileJq('{b: .b, a: .a}').apply({ a: 'line1\nline2', b: '<&>' });
  assert.equal(JSON.stringify(out), '[{"b":"<&>","a":"line1\\nline2"}]');
});

void test('apply throws JqRuntimeError on a runtime error', () => {
  const f = compileJq('.a + 1');
  assert.throws(() => f.apply({ a: 'text' }), (err: unknown) => err instanceof JqRuntimeError && /cannot be added/.test(err.message) && /'\.a \+ 1'/.test(err.message));
});

void test('applyMany returns one outcome per input in order, in one batch', () => {
  const f = compileJq('.metadata.name');
  const inputs = Array.from({ length: 2500 }, (_, i) => ({ metadata: { name: `obj-${i}` } }));
  const out = f.applyMany(inputs);
  assert.equal(out.length, 2500);
  assert.deepEqual(out[0], { ok: true, outputs: ['obj-0'] });
  assert.deepEqual(out[2499], { ok: true, outputs: ['obj-2499'] });
});

void test('applyMany attributes a runtime error to its own input and keeps the others', () => {
  const f = compileJq('.a + 1');
  const out = f.applyMany([{ a: 1 }, { a: 'x' }, { a: 3 }, {}]);
  assert.equal(out.length, 4);
  assert.deepEqual(out[0], { ok: true, outputs: [2] });
  assert.equal(out[1]!.ok, false);
  assert.deepEqual(out[2], { ok: true, outputs: [4] });
  assert.deepEqual(out[3], { ok: true, outputs: [1] });
});

void test('applyMany handles filters with zero or several outputs per input', () => {
  const f = compileJq('.xs[]');
  const out = f.applyMany([{ xs: [] }, { xs: [1, 2] }]);
  assert.deepEqual(out, [
    { ok: true, outputs: [] },
    { ok: true, outputs: [1, 2] },
  ]);
  assert.deepEqual(f.applyMany([]), []);
});

void test('halt stops cleanly with no outputs (filterResult null); halt_error is an error', () => {
  assert.deepEqual(compileJq('halt').apply({ a: 1 }), []);
  assert.equal(compileJq('if .a then halt else .b end').filterResult({ a: true }), null);
  const out = compileJq('if .a then halt else .b end').applyMany([{ a: false, b: 1 }, { a: true }, { a: false, b: 2 }]);
  assert.deepEqual(out, [
    { ok: true, outputs: [1] },
    { ok: true, outputs: [] },
    { ok: true, outputs: [2] },
  ]);
  assert.throws(() => compileJq('"bad" | halt_error').apply(null), JqRuntimeError);
});

void test('modules: only with libraryPaths; imports shadow in order; data imports bind $name and $name::name', () => {
  const lib = new URL('./modules', import.meta.url).pathname;
  assert.throws(() => compileJq('import "a" as foo; foo::a'), (e: unknown) => e instanceof JqCompileError && e.jqMessage === 'module not found: a');
  assert.deepEqual(compileJq('import "a" as foo; import "b" as foo; [foo::a, foo::b]', { libraryPaths: [lib] }).run(null), [['b', 'c']]);
  assert.deepEqual(compileJq('import "data" as $d; [$d[0].this, $d::d[0].that]', { libraryPaths: [lib] }).run(null), [['is a test', 'is too']]);
  assert.deepEqual(compileJq('include "a"; def a: "mine"; a', { libraryPaths: [lib] }).run(null), ['mine']);
  assert.deepEqual(compileJq('get_search_list', { libraryPaths: [lib] }).run(null), [[lib.replace(/\/$/, '')]]);
  assert.throws(() => compileJq('import "../a" as foo; .', { libraryPaths: [lib] }), /Relative paths to modules may not traverse to parent directories \(\.\.\/a\)/);
  assert.throws(() => compileJq('import "a/a" as foo; .', { libraryPaths: [lib] }), /module names must not have equal consecutive components: a\/a/);
  assert.throws(() => compileJq('import "a" as foo {search: 1 + 1}; .', { libraryPaths: [lib] }), /Module metadata must be constant/);
  assert.throws(() => compileJq('"x" | modulemeta').run(null), /module not found: x/);
});

void test('depth limits as jq 1.8: values 10000 deep work, deeper ones give jq\'s errors, not a stack overflow', () => {
  const deep = (n: number): unknown => compileJq(`reduce range(${n}) as $_ ([]; [.])`).run(null)[0];
  const ok = deep(10000);
  const tooDeep = deep(10001);
  assert.deepEqual(compileJq('[(. == .), (. < [.]), contains(.), (tojson | test("skipped"))]').run(ok), [[true, true, true, false]]);
  assert.deepEqual(compileJq('reduce range(9999) as $_ ([]; [.]) | tojson | fromjson | flatten').run(null), [[]]);
  assert.match(compileJq('tojson').run(tooDeep)[0] as string, /^\[{10001}<skipped: too deep>\]{10001}$/);
  assert.deepEqual(compileJq('[., .] | try sort catch .').run(tooDeep), ['Comparison too deep']);
  assert.deepEqual(compileJq('try (. as $x | $x | contains($x)) catch .').run(tooDeep), ['Containment check too deep']);
  assert.deepEqual(compileJq('try (tojson | fromjson | false) catch test("^Exceeds depth limit for parsing")').run(ok), [true]);
  assert.deepEqual(compileJq('try getpath([range(10001) | 0]) catch .').run(null), ['Path too deep']);
  assert.deepEqual(compileJq('setpath([range(10000) | "a"]; 1) | getpath([range(10000) | "a"])').run(null), [1]);
  const objs = compileJq('reduce range(10001) as $_ ({}; {a: .}) as $x | try ($x * $x) catch .').run(null);
  assert.deepEqual(objs, ['Object merge too deep']);
});

void test('numbers print as jq 1.8.2 prints doubles (jvp_dtoa_fmt), checked against jq-wasm', () => {
  const f = compileJq('[1e16, 1e15, 123456789012345680000, 1.5e-5, 0.0001, 1234567890123456789012345678901234, -123456789012345680000, 1e-7, 100, 3.0] | tojson');
  assert.deepEqual(f.run(null), ['[1e+16,1000000000000000,123456789012345680000,1.5e-05,0.0001,1.2345678901234568e+33,-123456789012345680000,1e-07,100,3]']);
  assert.deepEqual(compileJq('have_decnum').run(null), [false]);
});

void test('fromjson reads as jq 1.8.2 reads (nan, jq\'s error messages naming line and column)', () => {
  const f = compileJq('.[] | try (fromjson | if type == "number" and isnan then "nan" else . end) catch .');
  assert.deepEqual(f.run(['NaN', '-nan', '[1,2', "{'a': 1}", '1 2', '', '{"a":1,}', '"\\u12"']), [
    'nan',
    'nan',
    "Unfinished JSON term at EOF at line 1, column 4 (while parsing '[1,2')",
    "Invalid string literal; expected \", but got ' at line 1, column 5 (while parsing '{'a': 1}')",
    "Unexpected extra JSON values (while parsing '1 2')",
    "Expected JSON value (while parsing '')",
    "Expected another key-value pair at line 1, column 8 (while parsing '{\"a\":1,}')",
    "Invalid \\uXXXX escape at line 1, column 6 (while parsing '\"\\u12\"')",
  ]);
});

void test('del and delpaths delete the keys of one container at once, as jq 1.8.2; % truncates to intmax_t as jq', () => {
  assert.deepEqual(compileJq('del(.[1], .[-6], .[2], .[-3:9])').run([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), [[0, 3, 5, 6, 9]]);
  assert.deepEqual(compileJq('delpaths([[0, "a"], [0, "b"], [1]])').run([{ a: 1, b: 2, c: 3 }, 2, 3]), [[{ c: 3 }, 3]]);
  assert.deepEqual(compileJq('try delpaths([1]) catch .').run(null), ['Path must be specified as array, not number']);
  assert.deepEqual(compileJq('[has("a"), has(0)]').run(null), [[false, false]]);
  assert.deepEqual(compileJq('[(infinite, -infinite) % (1, -1, infinite)], [5.7 % -3, -5 % 2.5, 1e300 % 3]').run(null), [[0, 0, 0, 0, 0, -1], [2, -1, 1]]);
});
