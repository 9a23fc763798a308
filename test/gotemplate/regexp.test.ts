// Go's regexp as Helm 3.19 (Go 1.24) runs it, in the template functions: semantics where a
// hand-written engine and Go's differ, pinned from Go's source (regexp/syntax parse.go, compile.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderString } from '../../src/gotemplate/index.js';
import { Re2, RegexpSyntaxError } from '../../src/gotemplate/re2.js';

const render = (t: string) => renderString(t, {});

test('a repeated sub-expression that can match empty prefers the empty match, as Go 1.17+ compiles x* as (x+)? (golang.org/issue/46123)', () => {
  assert.equal(render('{{ regexFind "(|a)*" "aa" | quote }}|{{ regexFind "(|a)+" "aa" | quote }}|{{ regexFind "(a|)*" "aa" | quote }}'), '""|""|"aa"');
  assert.deepEqual(new Re2('(|a)*').exec('aa', 0), [0, 0, 0, 0]);
});

test('\\Q...\\E is literal text of single runes: a repetition after it applies to its last rune', () => {
  assert.equal(render('{{ regexFindAll "\\\\Qa.b\\\\E*" "a.bbb a. ab" -1 }}'), '[a.bbb a.]');
});

test('Go 1.22 named groups (?<name>...) and $name in replacements; nested repeats over 1000 are refused', () => {
  assert.equal(render('{{ regexReplaceAll "(?<v>o)" "foo" "${v}0" }}'), 'fo0o0');
  assert.throws(() => new Re2('(a{500}){3}'), (e: Error) => e instanceof RegexpSyntaxError && e.message === 'error parsing regexp: invalid repeat count: `{3}`');
  assert.throws(() => new Re2('a\\'), (e: Error) => e.message === 'error parsing regexp: trailing backslash at end of expression: ``');
  assert.throws(() => render('{{ mustRegexMatch "x{1001}" "x" }}'), /error parsing regexp: invalid repeat count: `\{1001\}`/);
});

test('Unicode: classes, case folding (the Kelvin sign folds to k), code points beyond the BMP, indexes in JS units', () => {
  assert.equal(render('{{ regexFindAll "(?i)k" "kK\u212a" -1 }}'), '[k K \u212a]');
  assert.equal(render('{{ regexReplaceAll "\\\\p{Greek}+" "a αβγ b" "G" }}'), 'a G b');
  const re = new Re2('.(b)');
  assert.deepEqual(re.exec('😀b', 0), [0, 3, 2, 3]);
  assert.equal(render('{{ regexSplit "\\\\s*,\\\\s*" "a , b,c" -1 }}'), '[a b c]');
});
