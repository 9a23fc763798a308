// scripts/chart-sweep.sh: every chart under a directory, with its default values and each ci/*.yaml,
// judged by the sweep's rules (docs/helm.md, "Chart sweep").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeTree } from '../helpers/tree.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/chart-sweep.sh', import.meta.url));
const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-{{ .Chart.Name }}\n';

function sweep(args: string[], cwd: string): { code: number | null; lines: string[] } {
  const r = spawnSync(SCRIPT, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.stderr.replace(/npm warn.*\n/g, ''), '');
  return { code: r.status, lines: r.stdout.trimEnd().split('\n') };
}

test('the sweep renders each chart with its defaults and each ci/ file, in parallel, one line each and a total', () => {
  const dir = makeTree({
    'repo/good/Chart.yaml': 'apiVersion: v2\nname: good\nversion: 1.0.0\n',
    'repo/good/templates/cm.yaml': CM + '{{- if .Values.second }}\n---\n' + CM.replace('ConfigMap', 'Secret') + '{{- end }}\n',
    'repo/good/templates/comment.yaml': '# only a comment\n',
    'repo/good/ci/second-values.yaml': 'second: true\n',
    'repo/needs/Chart.yaml': 'apiVersion: v2\nname: needs\nversion: 1.0.0\n',
    'repo/needs/templates/cm.yaml': CM + 'data:\n  url: {{ required "url must be set" .Values.url }}\n',
    'repo/needs/ci/url-values.yaml': 'url: http://x\n',
    'repo/stack/Chart.yaml':
      'apiVersion: v2\nname: stack\nversion: 1.0.0\ndependencies:\n  - name: lib-b\n    version: ~1.2.0\n    repository: https://example.com/charts\n',
    'repo/stack/templates/cm.yaml': CM,
    'repo/libb/Chart.yaml': 'apiVersion: v2\nname: lib-b\nversion: 1.2.3\n',
    'repo/libb/templates/cm.yaml': CM,
    'repo/broken/Chart.yaml': 'apiVersion: v2\nname: broken\nversion: 1.0.0\n',
    'repo/broken/templates/cm.yaml': 'apiVersion: v1\nmetadata:\n  name: {{ .Values.name.first }}\n',
    'repo/broken/ci/named-values.yaml': 'name:\n  first: x\n',
  });
  const r = sweep(['-j', '2', 'repo'], dir);
  assert.deepEqual(r.lines, [
    'FAIL  repo/broken [default values]: broken/templates/cm.yaml:3:18 executing "broken/templates/cm.yaml" at <.Values.name.first>: nil pointer evaluating interface {}.first',
    'FAIL  repo/broken [ci/named-values.yaml]: broken/templates/cm.yaml: a document without kind',
    'ok    repo/good [default values]',
    'ok    repo/good [ci/second-values.yaml]',
    'ok    repo/libb [default values]',
    'ok    repo/needs [default values]: fails as Helm does: execution error at (needs/templates/cm.yaml:6:10): url must be set',
    'ok    repo/needs [ci/url-values.yaml]',
    'ok    repo/stack [default values]: fails as Helm does: An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: lib-b',
    '6 passed, 2 failed',
  ]);
  assert.equal(r.code, 1);

  // --dependency-build: lib-b 1.2.3 (same directory) matches ~1.2.0 and is copied into a copy of stack
  const built = sweep(['--dependency-build', 'repo'], dir);
  assert.deepEqual(
    built.lines.filter((l) => l.includes('stack') || !l.includes('repo/')),
    ['# repo/stack: charts/ given lib-b from the same directory', 'ok    repo/stack [default values]', '6 passed, 2 failed'],
  );
  assert.equal(built.code, 1);
});

test('the sweep refuses bad arguments with its usage', () => {
  const r = spawnSync(SCRIPT, ['--nope'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /chart-sweep: unknown option --nope\nusage: scripts\/chart-sweep.sh/);
  const none = spawnSync(SCRIPT, ['/does/not/exist'], { encoding: 'utf8' });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /chart-sweep: \/does\/not\/exist: not a directory/);
});
