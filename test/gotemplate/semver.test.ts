// Sprig's semver/semverCompare (and Helm's kubeVersion checks, which use the same semverCompare) behave
// as Masterminds/semver 3.4.0, the version Helm 3.19 links (src/gotemplate/README.md, "Library
// versions"). The corpus was made with Debian's semver 3.2.0; these cases pin where 3.4.0 differs,
// with results derived from 3.4.0's constraints.go/version.go (NewConstraint, Constraints.Check,
// NewVersion with CoerceNewVersion) and its changelog (#266, #267, #269; 3.2.1 #199; 3.3.0 #213, #238).
// Rules 3.2.0 shares were checked against the Go reference (Debian's 3.2.0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderString } from '../../src/gotemplate/index.js';
import { semverCompare } from '../../src/gotemplate/funcs/semver.js';

const cmp = (c: string, v: string): string => renderString(`{{ semverCompare ${JSON.stringify(c)} ${JSON.stringify(v)} }}`, {});

function table(rows: [constraint: string, version: string, want: boolean][]): void {
  for (const [c, v, want] of rows) {
    assert.equal(cmp(c, v), String(want), `semverCompare ${JSON.stringify(c)} ${JSON.stringify(v)}`);
    assert.equal(semverCompare(c, v), want);
  }
}

function execError(tpl: string, message: string): void {
  assert.throws(() => renderString(tpl, {}), (e: Error) => {
    assert.ok(e.message.endsWith(message), `${tpl}: ${JSON.stringify(e.message)} should end with ${JSON.stringify(message)}`);
    return true;
  });
}

test('semver 3.4.0: one constraint with a prerelease lets prereleases through its whole AND group (3.2: each constraint needed one)', () => {
  table([
    ['>=1.20.0-0 <1.30', '1.25.0-gke.1', true], // 3.2.0: false (<1.30 has no prerelease)
    ['>=1.20.0 <1.30.0-0', '1.25.0-gke.1', true], // 3.2.0: false
    ['>=1.20.0-0 <1.30', '1.30.0-gke.1', true], // a prerelease of 1.30.0 is below 1.30.0
    ['>=1.20.0-0 <1.30', '1.31.0-gke.1', false],
    ['>=1.20.0-0', '1.25.0-gke.1', true],
    ['>=1.20.0', '1.25.0-gke.1', false], // no prerelease in the group: unchanged
    ['>=1.20.0 <1.30', '1.25.0', true],
    ['>1.0.0-beta.1 < 2', '1.0.0-beta.2', true], // the changelog's example; 3.2.0: false
    ['>= 1.2.3 < 2.0.0-beta || > 3', '1.5.0-rc.1', true], // PR #267's example; 3.2.0: false
    ['>= 1.2.3 < 2.0.0-beta || > 3', '3.1.0-rc.1', false], // not across OR groups: `> 3` still skips prereleases
    ['<2 || >=3.0.0-0', '1.5.0-rc.1', false],
    ['>=1.0.0-0 || <2', '1.5.0-rc.1', true],
    ['1.0.0-alpha.1 - 1.1.0', '1.0.0-alpha.2', true], // a range is one AND group; 3.2.0: false
  ]);
});

test('semver 3.4.0: ^, ~, x ranges and * with a prerelease elsewhere in the group', () => {
  table([
    ['^1.2.0', '1.5.0-rc.1', false],
    ['^1.2.0-0', '1.5.0-rc.1', true],
    ['^1.2.0 <1.9.0-0', '1.5.0-rc.1', true], // 3.2.0: false
    ['^1.2.0 <1.9.0-0', '2.0.0-rc.1', false],
    ['~1.2.0', '1.2.5-rc.1', false],
    ['~1.2.0 >=0.0.0-0', '1.2.5-rc.1', true], // 3.2.0: false
    ['~1.2.0 >=0.0.0-0', '1.3.0-rc.1', false],
    ['1.2.x >=1.0.0-0', '1.2.9-rc.1', true], // 3.2.0: false
    ['<=1.2.x >=1.0.0-0', '1.2.9-rc.1', true], // 3.2.0: false
    ['=1.2.3 >=1.0.0-0', '1.2.3-rc.1', false],
    ['*', '1.2.3-beta', false],
    ['* >=0.0.0-0', '1.2.3-beta', true], // 3.2.0: false
  ]);
});

test('semver 3.4.0: != rejects a prerelease too unless its group has one (3.2 only did for x ranges)', () => {
  table([
    ['!=1.2.3', '1.2.4-beta', false], // 3.2.0: true
    ['!=1.2.3', '1.2.3-beta', false], // 3.2.0: true
    ['!=1.2.3', '1.2.4', true],
    ['!=1.2.3 >=0.0.0-0', '1.2.4-beta', true],
    ['!=1.2.3-beta', '1.2.3-beta', false],
    ['!=1.2.x', '1.2.5', false],
    ['!=1.2.x', '1.3.0', true],
    // an x patch compares the prereleases part by part
    ['!=1.2.x >=0.0.0-0', '1.2.5-rc.1', true], // 3.2.0: false
    ['!=1.2.x-0', '1.2.5-0', false],
    ['!=1.2.x-0', '1.2.5-rc.1', true],
    // `!=*` with the same major.minor.patch falls through to Equal
    ['!=*', '0.0.0', false],
    ['!=*', '1.0.0', true],
    ['!=* >=0.0.0-0', '0.0.0-alpha', true], // 3.2.0: false
  ]);
});

test('semver 3.4.0: a - b becomes ">= a, <= b " (3.2.1 #199: the trailing space keeps a following constraint apart)', () => {
  table([
    ['1.0.0 - 2.0.0 <1.5', '1.2.0', true], // 3.2.0: improper constraint: >= 1.0.0, <= 2.0.0<1.5
    ['1.0.0 - 2.0.0 <1.5', '1.7.0', false],
    ['1.0.0 - 2.0.0<1.5', '1.2.0', true],
    ['1 - 2', '2.5.0', true],
    ['1.2.3 - 1.4.5 || 2.0 - 2.1', '2.0.5', true],
  ]);
  execError('{{ semverCompare ">=1.0.0 - 2" "1.0.0" }}', 'error calling semverCompare: improper constraint: >=>= 1.0.0, <= 2 ');
  // `|` is a version character in constraints: `||X-beta.2` joins the range, the rest is an OR group
  execError('{{ semverCompare "0.01 - v*.X.01||X-beta.2 - 0.0.X" "0.0.2" }}', 'improper constraint: X-beta.2 - 0.0.X');
});

test('semver 3.4.0: error messages are lower case (#269)', () => {
  execError('{{ semver "bad" }}', 'error calling semver: invalid semantic version');
  execError('{{ semver "" }}', 'error calling semver: invalid semantic version');
  execError('{{ semver "1.2.3-01" }}', 'error calling semver: version segment starts with 0');
  execError('{{ semverCompare ">=1.x" "nope" }}', 'error calling semverCompare: invalid semantic version');
  execError(
    '{{ semver "99999999999999999999.0.0" }}',
    'error calling semver: error parsing version segment: strconv.ParseUint: parsing "99999999999999999999": value out of range',
  );
  execError(
    '{{ semver "1.18446744073709551616.0" }}',
    'error parsing version segment: strconv.ParseUint: parsing "18446744073709551616": value out of range',
  );
  assert.equal(renderString('{{ semver "1.18446744073709551615.0" }}', {}), '1.18446744073709551615.0');
  // a constraint whose version NewVersion refuses
  execError('{{ semverCompare ">=99999999999999999999" "1.0.0" }}', 'error calling semverCompare: constraint parser error');
  execError('{{ semverCompare ">=1.2.3-01" "1.2.3" }}', 'constraint parser error');
  execError('{{ semverCompare "1.2.x3" "1.2.3" }}', 'constraint parser error');
  execError('{{ semverCompare ">=1|2" "1.0.0" }}', 'constraint parser error');
});

test('semver: constraint syntax (as 3.2.0 and 3.4.0): separators, the failing OR group in the message, Go\'s \\s', () => {
  table([
    ['>=1.0.0,<2.0.0', '1.5.0', true],
    ['>=1.0.0 ,<2.0.0', '1.5.0', true],
    ['>= 1.0 , <2', '1.5.0', true],
    ['>=1.0.0\t<2.0.0', '1.5.0', true],
    ['1.2.3 1.2.3', '1.2.3', true],
  ]);
  execError('{{ semverCompare ">=1.0.0<2.0.0" "1.5.0" }}', 'improper constraint: >=1.0.0<2.0.0');
  execError('{{ semverCompare ">=1.0.0, <2.0.0," "1.5.0" }}', 'improper constraint: >=1.0.0, <2.0.0,');
  execError('{{ semverCompare "foo || 1" "1.0.0" }}', 'improper constraint: foo ');
  execError('{{ semverCompare "1 || foo" "1.0.0" }}', 'improper constraint:  foo');
  execError('{{ semverCompare ">= 1.0.0 || " "1.0.0" }}', 'improper constraint:  ');
  execError('{{ semverCompare "||" "1.0.0" }}', 'error calling semverCompare: improper constraint: ');
  // \v is not whitespace in Go's regexp
  execError('{{ semverCompare ">=1.0.0\\v<2.0.0" "1.5.0" }}', 'improper constraint: >=1.0.0\v<2.0.0');
  // a long run of spaces fails in linear time
  execError(`{{ semverCompare "${'1     '.repeat(2000)}!" "1.0.0" }}`, '!');
});

test('semver 3.4.0: NewVersion coerces leading zeros again (3.3.1 refused them; helmfile#1848)', () => {
  assert.equal(renderString('{{ semver "01.02.03" }}|{{ semverCompare "=1.2.3" "01.02.03" }}', {}), '1.2.3|true');
  assert.equal(renderString('{{ (semver "v1.02").Original }}|{{ semver "v1.02" }}', {}), 'v1.02|1.2.0');
});

test('semver: prerelease parts beyond uint64 compare as strings (ParseUint fails)', () => {
  table([
    ['>=1.0.0-alpha.99999999999999999999', '1.0.0-alpha.100000000000000000000', false],
    ['>=1.0.0-alpha.99', '1.0.0-alpha.100', true],
  ]);
  // a numeric part sorts below a non-numeric one: 2^64 is not numeric, 2^64-1 is
  assert.equal(
    renderString('{{ (semver "1.0.0-a.18446744073709551616").Compare (semver "1.0.0-a.9") }}|{{ (semver "1.0.0-a.18446744073709551615").Compare (semver "1.0.0-a.9") }}', {}),
    '1|1',
  );
  assert.equal(renderString('{{ (semver "1.0.0-a.18446744073709551616").Compare (semver "1.0.0-a.b") }}', {}), '-1');
});

test('semver 3.3.0+ methods: LessThanEqual, GreaterThanEqual; Equal of nil is false, other comparisons of nil panic', () => {
  assert.equal(
    renderString(
      '{{ $a := semver "1.2.3" }}{{ $b := semver "1.2.3+meta" }}{{ $c := semver "1.2.4-rc.1" }}' +
        '{{ $a.LessThanEqual $b }}|{{ $a.GreaterThanEqual $b }}|{{ $c.LessThanEqual $a }}|{{ $c.GreaterThanEqual $a }}|{{ $a.Equal $b }}|{{ $a.Equal nil }}',
      {},
    ),
    'true|true|false|true|true|false',
  );
  execError('{{ (semver "1.2.3").LessThan nil }}', 'error calling LessThan: runtime error: invalid memory address or nil pointer dereference');
  execError('{{ (semver "1.2.3").Compare nil }}', 'error calling Compare: runtime error: invalid memory address or nil pointer dereference');
});
