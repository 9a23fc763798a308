// import-values of Chart.yaml dependencies, as Helm 3.19 applies them (chartutil
// processDependencyImportValues with merge): Helm's own TestProcessDependencyImportValues on its
// testdata chart "subpop", and `helm template` on a chart of our own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadChart } from '../../src/helm/chart.js';
import { importDependencyValues } from '../../src/helm/values.js';
import { runHelmTemplate } from '../../src/cli/helm-template.js';
import { makeTree } from '../helpers/tree.js';

const SUBPOP = join(import.meta.dirname, 'fixtures/helm-3.19/chartutil/subpop');

function pathValue(v: Record<string, unknown>, path: string): unknown {
  let cur: unknown = v;
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !(seg in (cur as object))) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

test("Helm's TestProcessDependencyImportValues expectations on its subpop chart", () => {
  const c = loadChart(SUBPOP);
  const warnings: string[] = [];
  importDependencyValues(c, (w) => warnings.push(w));
  const e: Record<string, string> = {
    'imported-chart1.SC1bool': 'true', 'imported-chart1.SC1float': '3.14', 'imported-chart1.SC1int': '100',
    'imported-chart1.SC1string': 'dollywood', 'imported-chart1.SC1extra1': '11', 'imported-chart1.SPextra1': 'helm rocks',
    'imported-chartA.SCAbool': 'false', 'imported-chartA.SCAfloat': '3.1', 'imported-chartA.SCAint': '55',
    'imported-chartA.SCAstring': 'jabba', 'imported-chartA.SPextra3': '1.337', 'imported-chartA.SC1extra2': '1.337',
    'imported-chartA.SCAnested1.SCAnested2': 'true',
    'imported-chartA-B.SCAbool': 'false', 'imported-chartA-B.SCAfloat': '3.1', 'imported-chartA-B.SCAint': '55',
    'imported-chartA-B.SCAstring': 'jabba', 'imported-chartA-B.SCBbool': 'true', 'imported-chartA-B.SCBfloat': '7.77',
    'imported-chartA-B.SCBint': '33', 'imported-chartA-B.SCBstring': 'boba', 'imported-chartA-B.SPextra5': 'k8s',
    'imported-chartA-B.SC1extra5': 'tiller',
    // parent values win over imported ones
    'overridden-chart1.SC1bool': 'false', 'overridden-chart1.SC1float': '3.141592', 'overridden-chart1.SC1int': '99',
    'overridden-chart1.SC1string': 'pollywog', 'overridden-chart1.SPextra2': '42',
    'overridden-chartA.SCAbool': 'true', 'overridden-chartA.SCAfloat': '41.3', 'overridden-chartA.SCAint': '808',
    'overridden-chartA.SCAstring': 'jabberwocky', 'overridden-chartA.SPextra4': 'true',
    'overridden-chartA-B.SCAbool': 'true', 'overridden-chartA-B.SCAfloat': '41.3', 'overridden-chartA-B.SCAint': '808',
    'overridden-chartA-B.SCAstring': 'jabberwocky', 'overridden-chartA-B.SCBbool': 'false', 'overridden-chartA-B.SCBfloat': '1.99',
    'overridden-chartA-B.SCBint': '77', 'overridden-chartA-B.SCBstring': 'jango', 'overridden-chartA-B.SPextra6': '111',
    'overridden-chartA-B.SCAextra1': '23', 'overridden-chartA-B.SCBextra1': '13', 'overridden-chartA-B.SC1extra6': '77',
    // `exports` style
    SCBexported1B: '1965', SC1extra7: 'true', SCBexported2A: 'blaster', 'global.SC1exported2.all.SC1exported3': 'SC1expstr',
  };
  for (const [k, want] of Object.entries(e)) assert.equal(String(pathValue(c.values, k)), want, k);
  // merged, not coalesced: a null stays
  assert.ok('ensurenull' in c.values);
  assert.equal(c.values.ensurenull, null);
  // the dependencies' import-values are rewritten into Helm's {child, parent} form
  assert.deepEqual(c.metadata.dependencies![0]!['import-values']!.slice(-3), [
    { child: 'SCBexported1A', parent: '.' },
    { child: 'exports.SCBexported2', parent: '.' },
    { child: 'exports.SC1exported1', parent: '.' },
  ]);
  assert.deepEqual(warnings, []);
});

test('helm template: both import-values forms, parent values win, a missing table is a warning', () => {
  const dir = makeTree({
    'Chart.yaml':
      'apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n- name: db\n  version: 1.x\n  import-values:\n  - data\n  - child: defaults.conn\n    parent: database\n  - child: nope\n    parent: x\n- name: cache\n  version: 1.x\n  alias: redis\n  import-values:\n  - child: settings\n    parent: cacheSettings\n',
    'values.yaml': 'database:\n  port: 6543\n',
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  v: {{ toJson (pick .Values "myint" "database" "cacheSettings") | quote }}\n',
    'charts/db/Chart.yaml': 'apiVersion: v2\nname: db\nversion: 1.2.0\n',
    'charts/db/values.yaml': 'exports:\n  data:\n    myint: 99\ndefaults:\n  conn:\n    host: db\n    port: 5432\n',
    'charts/cache/Chart.yaml': 'apiVersion: v2\nname: cache\nversion: 1.0.0\n',
    'charts/cache/values.yaml': 'settings:\n  ttl: 60\n',
  });
  let out = '';
  let err = '';
  const code = runHelmTemplate([dir], { out: (t) => (out += t), err: (t) => (err += t), readStdin: () => Buffer.alloc(0) });
  assert.equal(code, 0, err);
  const v = JSON.parse(JSON.parse(out.match(/ v: (".*")/)![1]!));
  assert.deepEqual(v, { myint: 99, database: { host: 'db', port: 6543 }, cacheSettings: { ttl: 60 } });
  assert.equal(err, 'Warning: ImportValues missing table from chart db: "nope" is not a table\n');
});
