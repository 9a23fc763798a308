// The causes the chart sweep (scripts/chart-sweep.sh over prometheus-community, grafana and argo-helm;
// docs/helm.md) found, each on a chart written here in the same style as the public chart that showed it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import bcryptjs from 'bcryptjs';
import { makeTree } from '../helpers/tree.js';
import { checkInstallable, loadChart, missingDependencies } from '../../src/helm/chart.js';
import { renderChart } from '../../src/helm/render.js';
import { parseYaml } from '../../src/util/yaml.js';

const OPTS = { releaseName: 'release-name', namespace: 'default' };

test('tpl of a config that tpl-s an empty snippet renders (promtail-style config, Bitnami-style secret names)', () => {
  const dir = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: shipper\nversion: 1.0.0\n',
    'values.yaml': [
      'auth:',
      '  existingSecret: ""',
      'config:',
      '  port: 3101',
      '  snippets:',
      '    extraScrapeConfigs: ""',
      '    extraRelabelConfigs: "  "',
      '  file: |',
      '    server:',
      '      http_listen_port: {{ .Values.config.port }}',
      '    scrape_configs:',
      '      - job_name: pods',
      '        relabel_configs: [{{ tpl .Values.config.snippets.extraRelabelConfigs . }}]',
      '    {{- tpl .Values.config.snippets.extraScrapeConfigs . | nindent 2 }}',
      '    auth: {{ include "shipper.secretName" . }}',
      '',
    ].join('\n'),
    'templates/_helpers.tpl':
      '{{- define "shipper.secretName" -}}\n{{- if .Values.auth.existingSecret -}}\n{{- tpl .Values.auth.existingSecret $ -}}\n{{- else -}}\n{{ .Release.Name }}-auth\n{{- end -}}\n{{- end -}}\n' +
      '{{- define "shipper.plainSecretName" -}}{{ tpl .Values.auth.existingSecret $ | default "fallback" }}{{- end -}}\n',
    'templates/secret.yaml':
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}\n  annotations:\n    plain: {{ tpl "{{ include \\"shipper.plainSecretName\\" . }}" . }}\nstringData:\n  config.yaml: |\n    {{- tpl .Values.config.file . | nindent 4 }}\n',
  });
  const r = renderChart(loadChart(dir), {}, OPTS);
  assert.equal(
    r.manifests[0]!.content,
    [
      'apiVersion: v1',
      'kind: Secret',
      'metadata:',
      '  name: release-name',
      '  annotations:',
      '    plain: fallback',
      'stringData:',
      '  config.yaml: |',
      '    server:',
      '      http_listen_port: 3101',
      '    scrape_configs:',
      '      - job_name: pods',
      '        relabel_configs: [  ]',
      '      ',
      '    auth: release-name-auth', // (each document trimmed, as Helm's SplitManifests does)
    ].join('\n'),
  );
});

test('htpasswd takes a username and a password (Sprig 3.3.0, as in pushgateway/loki gateway basic auth)', () => {
  const dir = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: gate\nversion: 0.1.0\n',
    'values.yaml': 'basicAuth:\n  username: ""\n  password: ""\n',
    'templates/secret.yaml':
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: gate\ndata:\n  auth: {{ htpasswd (required "basicAuth.username is required" .Values.basicAuth.username) .Values.basicAuth.password | b64enc }}\n  bad: {{ htpasswd "a:b" "x" | quote }}\n',
  });
  const r = renderChart(loadChart(dir), { basicAuth: { username: 'admin', password: 's3cret' } }, OPTS);
  const doc = parseYaml(r.manifests[0]!.content, 'secret') as { data: { auth: string; bad: string } };
  const line = Buffer.from(doc.data.auth, 'base64').toString('utf8');
  assert.match(line, /^admin:\$2a\$10\$[./A-Za-z0-9]{53}$/);
  assert.ok(bcryptjs.compareSync('s3cret', line.slice('admin:'.length)));
  assert.equal(doc.data.bad, 'invalid username: a:b');
  // the three-argument form of Sprig's master branch is not Helm 3.19's
  const three = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: three\nversion: 0.1.0\n',
    'templates/s.yaml': 'x: {{ htpasswd "u" "p" "sha" }}\n',
  });
  assert.throws(() => renderChart(loadChart(three), {}, OPTS), /wrong number of args for htpasswd: want 2 got 3/);
});

test("Helm's checks before rendering: dependencies missing from charts/, library charts", () => {
  const chartYaml =
    'apiVersion: v2\nname: stack\nversion: 1.0.0\ndependencies:\n' +
    '  - name: store\n    version: "~2.1.0"\n    repository: https://charts.example.com\n    condition: store.enabled\n' +
    '  - name: cache\n    version: 1.x\n    repository: file://../cache\n    alias: fastcache\n' +
    '  - name: queue\n    version: 3.0.0\n    repository: https://charts.example.com\n';
  const missing = makeTree({
    'Chart.yaml': chartYaml,
    'values.yaml': 'store:\n  enabled: false\n',
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
    'charts/cache/Chart.yaml': 'apiVersion: v2\nname: cache\nversion: 1.4.0\n',
  });
  const chart = loadChart(missing);
  // by chart name (not alias), disabled or not, in Chart.yaml's order
  assert.deepEqual(missingDependencies(chart), ['store', 'queue']);
  assert.throws(
    () => checkInstallable(chart),
    (e: Error) =>
      e.message ===
      'An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: store, queue',
  );
  const library = makeTree({ 'Chart.yaml': 'apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n', 'templates/_h.tpl': '' });
  assert.throws(() => checkInstallable(loadChart(library)), (e: Error) => e.message === 'library charts are not installable');
  const app = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: app\nversion: 1.0.0\ntype: application\ndependencies:\n  - name: cache\n    version: 1.x\n',
    'charts/cache/Chart.yaml': 'apiVersion: v2\nname: cache\nversion: 1.4.0\n',
  });
  checkInstallable(loadChart(app));
});
