// values.schema.json: Helm 3.19's own schema tests (cmd/helm install_test.go's charts and golden
// errors, pkg/chartutil/jsonschema_test.go's cases) and charts of our own: subcharts validated in
// their own scope, aliases, disabled subcharts, nested errors, `render` and the release engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runHelmTemplate } from '../../src/cli/helm-template.js';
import { loadChart } from '../../src/helm/chart.js';
import { renderChart } from '../../src/helm/render.js';
import { SCHEMA_HEADER, schemaErrors } from '../../src/helm/schema.js';
import { HelmReleases } from '../../src/helm/release-engine.js';
import { makeTree } from '../helpers/tree.js';
import { cluster, releaseSecrets, secretPayload } from './helpers.js';

const D = join(import.meta.dirname, 'fixtures/helm-3.19');

function template(args: string[]) {
  let out = '';
  let err = '';
  const code = runHelmTemplate(args, { out: (t) => (out += t), err: (t) => (err += t), readStdin: () => Buffer.from(''), commandPath: 'helm template', env: {} });
  return { code, out, err };
}

// Helm's install tests; `helm install` prefixes "INSTALLATION FAILED: ", `helm template` does not
const INSTALL_GOLDEN: [string, string[]][] = [
  ['schema-negative', [join(D, 'testcharts/chart-with-schema-negative')]],
  ['schema-negative', [join(D, 'testcharts/chart-with-schema'), '-f', join(D, 'testcharts/chart-with-schema/extra-values.yaml')]],
  ['schema-negative-cli', [join(D, 'testcharts/chart-with-schema'), '--set', 'age=-5']],
  ['subchart-schema-negative', [join(D, 'testcharts/chart-with-schema-and-subchart')]],
  ['subchart-schema-cli-negative', [join(D, 'testcharts/chart-with-schema-and-subchart'), '--set', 'lastname=doe', '--set', 'subchart-with-schema.age=-25']],
];

test("Helm 3.19's schema tests of its install command: the errors byte for byte, exit 1", () => {
  for (const [golden, args] of INSTALL_GOLDEN) {
    const r = template(['schema', ...args]);
    const want = readFileSync(join(D, 'output-install', `${golden}.txt`), 'utf8').replace('Error: INSTALLATION FAILED: ', 'Error: ');
    assert.equal(r.code, 1, golden);
    assert.equal(r.out, '', golden);
    assert.equal(r.err, want, golden);
  }
  // the same charts with valid values, and --skip-schema-validation
  assert.equal(template(['schema', join(D, 'testcharts/chart-with-schema')]).code, 0);
  assert.equal(template(['schema', join(D, 'testcharts/chart-with-schema-and-subchart'), '--set', 'lastname=doe', '--set', 'subchart-with-schema.age=25']).code, 0);
  const skipped = template(['schema', join(D, 'testcharts/chart-with-schema-and-subchart'), '--set', 'lastname=doe', '--set', 'subchart-with-schema.age=-25', '--skip-schema-validation']);
  assert.equal(skipped.err, '');
  assert.equal(skipped.code, 0);
});

const subchartSchema = JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', title: 'Values', type: 'object', properties: { age: { description: 'Age', minimum: 0, type: 'integer' } }, required: ['age'] });
const subchartSchema2020 = JSON.stringify({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Values',
  type: 'object',
  properties: { data: { type: 'array', contains: { type: 'string' }, unevaluatedItems: { type: 'number' } } },
  required: ['data'],
});

/** A parent chart without a schema and one subchart `subchart` with the given schema. */
function withSubchart(schema: string) {
  return loadChart(
    makeTree({
      'Chart.yaml': 'apiVersion: v2\nname: chrt\nversion: 0.1.0\n',
      'charts/subchart/Chart.yaml': 'apiVersion: v2\nname: subchart\nversion: 0.1.0\n',
      'charts/subchart/values.schema.json': schema,
    }),
  );
}

test("Helm 3.19's pkg/chartutil jsonschema tests: a subchart's own scope, draft 2020-12 contains with its causes", () => {
  assert.equal(schemaErrors(withSubchart(subchartSchema), { name: 'John', subchart: { age: 25 } }), undefined);
  assert.equal(schemaErrors(withSubchart(subchartSchema), { name: 'John', subchart: {} }), "subchart:\n- at '': missing property 'age'\n");
  assert.equal(schemaErrors(withSubchart(subchartSchema2020), { name: 'John', subchart: { data: ['hello', 12] } }), undefined);
  assert.equal(
    schemaErrors(withSubchart(subchartSchema2020), { name: 'John', subchart: { data: [12] } }),
    "subchart:\n- at '/data': no items match contains schema\n  - at '/data/0': got number, want string\n",
  );
});

/** Our chart: a parent with a schema, an aliased subchart with its own, and a disabled one. */
function appChart(): string {
  return makeTree({
    'Chart.yaml':
      'apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: db\n  version: 0.1.0\n  alias: database\n- name: cache\n  version: 0.1.0\n  condition: cache.enabled\n',
    'values.yaml': 'replicas: 1\nmode: fast\ncache:\n  enabled: false\n',
    'values.schema.json': JSON.stringify({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        replicas: { type: 'integer', minimum: 1, maximum: 1000000 },
        mode: { enum: ['fast', 'safe'] },
        image: { type: 'object', properties: { tag: { type: 'string', pattern: '^v[0-9]+$' } } },
      },
    }),
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  replicas: {{ .Values.replicas | quote }}\n',
    'charts/db/Chart.yaml': 'apiVersion: v2\nname: db\nversion: 0.1.0\n',
    'charts/db/values.yaml': 'port: 5432\nauth:\n  user: app\n  password: secret-password\n',
    'charts/db/values.schema.json': JSON.stringify({
      type: 'object',
      additionalProperties: false,
      required: ['port', 'auth'],
      properties: {
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        auth: { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string', minLength: 8 } } },
        global: { type: 'object' },
      },
    }),
    'charts/cache/Chart.yaml': 'apiVersion: v2\nname: cache\nversion: 0.1.0\n',
    // the disabled subchart's schema is never checked
    'charts/cache/values.schema.json': '{"required": ["never"]}',
  });
}

test('schemas of our chart: parent and aliased subchart each in its scope, a location with several errors as a group, a disabled subchart skipped', () => {
  const dir = appChart();
  const ok = template(['app', dir]);
  assert.equal(ok.err, '');
  assert.equal(ok.code, 0);

  const r = template(['app', dir, '--set', 'replicas=2000000,mode=slow,image.tag=latest', '--set', 'database.port=x,database.extra=1,database.auth.user=7,database.auth.password=abc']);
  assert.equal(r.code, 1);
  assert.equal(
    r.err,
    `Error: ${SCHEMA_HEADER}app:
- at '/image/tag': 'latest' does not match pattern '^v[0-9]+$'
- at '/mode': value must be one of 'fast', 'safe'
- at '/replicas': maximum: got 2e+06, want 1e+06
database:
- at '/auth': validation failed
  - at '/auth/password': minLength: got 3, want 8
  - at '/auth/user': got number, want string
- at '/port': got string, want integer
- at '': additional properties 'extra' not allowed

`,
  );
  // one location with two errors, alone at the root: its errors are listed (validator.go opens a root group)
  const one = template(['app', dir, '--set', 'database.auth.user=7,database.auth.password=abc']);
  assert.equal(one.err, `Error: ${SCHEMA_HEADER}database:\n- at '/auth/password': minLength: got 3, want 8\n- at '/auth/user': got number, want string\n\n`);
});

test('render and the release engine check the schemas too: the module fails with Helm error, nothing is applied', async (t) => {
  const dir = appChart();
  assert.throws(() => renderChart(loadChart(dir), { replicas: 0 }, { releaseName: 'app', namespace: 'd' }), {
    message: `${SCHEMA_HEADER}app:\n- at '/replicas': minimum: got 0, want 1\n`,
  });
  const { kc, mapper } = await cluster(t, ['apps']);
  const helm = new HelmReleases({ kc, mapper });
  await assert.rejects(helm.upgradeInstall({ release: 'app', namespace: 'apps', chartDir: dir, values: { replicas: 0 } }), {
    message: `${SCHEMA_HEADER}app:\n- at '/replicas': minimum: got 0, want 1\n`,
  });
  assert.deepEqual(await releaseSecrets(kc, 'apps', 'app'), [], 'no revision was recorded');
  assert.equal(await helm.upgradeInstall({ release: 'app', namespace: 'apps', chartDir: dir, values: { replicas: 3 } }), 'installed');
  assert.equal(secretPayload((await releaseSecrets(kc, 'apps', 'app'))[0]).release.info.status, 'deployed');
});
