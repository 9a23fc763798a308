// Cases where jq 1.8.2 and gojq (shell-operator's jq) can differ, each beside jq-wasm's answer (jq 1.8.2
// compiled to WebAssembly, the pinned oracle); docs/jq.md ("Which engine each case follows") says which
// one this engine follows and why. gojq's answers are written out where it differs from jq 1.8.2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadJq } from 'jq-wasm';
import { compileJq, JqRuntimeError, toFilterResult } from '../../src/jq/index.js';
import { dump } from '../../src/jq/value.js';
import { goJsonStringify } from '../../src/util/json.js';

const jqWasm = await loadJq();
/** jq 1.8.2's compact output lines for `filter` on null, with its stderr and exit code. */
const oracle = (filter: string) => {
  const r = jqWasm.raw(null, filter, ['-c']);
  return { out: r.stdout.trim().split('\n').filter(Boolean), err: r.stderr.trim(), code: r.exitCode };
};
/** This engine's outputs for `filter` on null, printed as jq -c prints them. */
const ours = (filter: string) => compileJq(filter).run(null).map((v) => dump(v as never));

void test('\\w \\W \\d \\s \\b and \\B are Unicode-aware as Oniguruma\'s (jq 1.8.2 and gojq alike): "héllo" is one word', () => {
  const filters = [
    '"héllo wörld" | [scan("\\\\w+")]',
    '"héllo" | test("^\\\\w+$")',
    '"日本 語" | [match("\\\\W"; "g").offset]',
    '"Ⅻ²_‿ªx-" | [scan("\\\\w")], [scan("[\\\\w]")], [scan("\\\\W")]',
    '"é1٣" | [scan("\\\\d")], [scan("\\\\D")]',
    '"a\\u0085b\\u00a0c\\ufeffd" | [scan("\\\\s") | explode[]], [scan("\\\\S")] | length',
    '"héllo wörld" | [match("\\\\b"; "g").offset], [match("\\\\B."; "g").string]',
    '"a1 bé2" | gsub("\\\\b(?<x>\\\\w)"; "<\\(.x)>")',
  ];
  for (const f of filters) assert.deepEqual(ours(f), oracle(f).out, f);
  assert.deepEqual(ours('"héllo wörld" | [scan("\\\\w+")]'), ['["héllo","wörld"]']);
});

void test('a group that did not participate prints in jq 1.8.2\'s key order: offset, string, length, name', () => {
  for (const f of ['"a" | match("(b)?a")', '"a" | match("(?<n>b)?a") | .captures', '"xa" | [match("(?<n>b)?(a)"; "g")]']) {
    assert.deepEqual(ours(f), oracle(f).out, f);
  }
  assert.deepEqual(ours('"a" | match("(b)?a") | .captures[0]'), ['{"offset":-1,"string":null,"length":0,"name":null}']);
});

void test('halt_error is not caught by try or ?: it ends the program, as in jq 1.8.2 and gojq', () => {
  for (const [f, code] of [['try ("x" | halt_error) catch "caught"', 5], ['("x" | halt_error)?', 5], ['[1, ("y" | halt_error(1))?]', 1], ['("z" | halt_error) // 2', 5]] as const) {
    const o = oracle(f);
    assert.equal(o.code, code, f);
    assert.deepEqual(o.out, [], f);
    assert.throws(() => compileJq(f).run(null), (e: unknown) => e instanceof JqRuntimeError && /^(x|y|z)$/.test(String(e.value)), f);
  }
  // an error is still caught
  assert.deepEqual(ours('(error("e"))?, 3'), oracle('(error("e"))?, 3').out);
});

void test('empty matches step over characters (gojq), not over UTF-8 bytes as jq 1.8.2 does', () => {
  // jq 1.8.2 advances one byte after an empty match, so a 4-byte character is matched four times
  assert.deepEqual(oracle('"a😀b" | [match(""; "g").offset]').out, ['[0,1,2,2,2,2,3]']);
  assert.deepEqual(oracle('"a😀b" | gsub(""; "-")').out, ['"-a-😀----b-"']);
  // gojq (Go's regexp) advances one character: this engine's answer
  assert.deepEqual(ours('"a😀b" | [match(""; "g").offset]'), ['[0,1,2,3]']);
  assert.deepEqual(ours('"a😀b" | gsub(""; "-")'), ['"-a-😀-b-"']);
  assert.deepEqual(ours('"é😀" | [scan("x*")] | length'), ['3']);
});

void test('1e20: tostring, tojson and @json as jq 1.8.2 prints doubles; a jqFilter result encoded as shell-operator encodes it', () => {
  for (const f of ['1e19 * 10 | tostring', '[1e19 * 10] | tojson', '1e19 * 10 | @json', '1e19 * 10']) assert.deepEqual(ours(f), oracle(f).out, f);
  assert.deepEqual(ours('1e19 * 10 | tostring'), ['"1e+20"']);
  // a binding's filterResult goes into the binding context through Go's encoding/json rules, as
  // shell-operator's (gojq's result through encoding/json): 1e20 prints in full, 1e21 and up with an exponent
  const filtered = toFilterResult(compileJq('.spec.size * 10, .spec.size * 100, .spec.tiny').run({ spec: { size: 1e19, tiny: 1e-7 } }));
  assert.equal(goJsonStringify(filtered), '[100000000000000000000,1e+21,1e-7]');
});
