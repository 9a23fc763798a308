import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTree } from '../helpers/tree.js';
import { loadChart } from '../../src/helm/chart.js';
import { coalesceValues, processDependencies } from '../../src/helm/values.js';

const chart = () =>
  loadChart(
    makeTree({
      'Chart.yaml': 'name: demo\nversion: 1.0.0\ndependencies:\n  - name: sub\n    version: 0.1.0\n    alias: renamed\n    condition: renamed.enabled\n',
      'values.yaml': 'a: 1\nb:\n  c: 2\n  d: 3\ndrop: x\nlist: [1, 2]\nkeep: k\nglobal:\n  g: chart\n',
      'charts/sub/Chart.yaml': 'name: sub\nversion: 0.1.0\n',
      'charts/sub/values.yaml': 'x: 1\nw: 2\nglobal:\n  g: sub\n  own: sub\n',
    }),
  );

test('given values win, maps merge, lists are replaced, null deletes a default', () => {
  const v = coalesceValues(chart(), { b: { c: 20 }, drop: null, list: [9], extra: null });
  assert.equal(v.a, 1);
  assert.deepEqual(v.b, { c: 20, d: 3 });
  assert.deepEqual(v.list, [9]);
  assert.ok(!('drop' in v), 'null removes the chart default');
  assert.ok('extra' in v && v.extra === null, 'a null without a default stays');
  assert.equal(v.keep, 'k');
});

test('subchart values live under its name (alias applied) with the parent globals; nulls reach into subcharts', () => {
  const c = processDependencies(chart(), {});
  assert.deepEqual(c.dependencies.map((d) => d.metadata.name), ['renamed']);
  const v = coalesceValues(c, { renamed: { w: null, z: 3 }, global: { g: 'given', h: 1 } });
  assert.deepEqual(v.global, { g: 'given', h: 1 });
  assert.deepEqual(v.renamed, { x: 1, z: 3, global: { g: 'given', h: 1, own: 'sub' } });
  // the loaded chart is untouched
  assert.equal(chart().dependencies[0]!.metadata.name, 'sub');
});

test('a condition false drops the subchart; a non-bool condition is ignored with a warning', () => {
  assert.deepEqual(processDependencies(chart(), { renamed: { enabled: false } }).dependencies, []);
  const warnings: string[] = [];
  const c = processDependencies(chart(), { renamed: { enabled: 'no' } }, (m) => warnings.push(m));
  assert.equal(c.dependencies.length, 1);
  assert.deepEqual(warnings, ["Warning: Condition path 'renamed.enabled' for chart renamed returned non-bool value"]);
});

test("a subchart's key that is not a map is Helm's type mismatch", () => {
  assert.throws(() => coalesceValues(chart(), { sub: 'x' }), { message: 'type mismatch on sub: %!t(string=x)' });
});
