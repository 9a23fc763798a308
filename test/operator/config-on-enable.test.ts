/**
 * A module's config is checked against its config-values.yaml when the module becomes enabled, before
 * its first run (the operator as a process on the sandbox): at start-up an invalid one stops the
 * operator with the key named (VALUES.md); later the module keeps its last valid config. A module that
 * stays disabled keeps its config unchecked, as in Go.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { makeTree } from '../helpers/tree.js';
import { requestJson } from '../../src/kube/http.js';
import { bashHook, logRecords, startOperator, waitFor } from '../helpers/operator-process.js';

const SCHEMA = 'type: object\nproperties:\n  replicas: {type: integer, minimum: 1}\n';
const CHART = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}\ndata:\n  replicas: {{ .Values.NAME.replicas | quote }}\n';
const module = (name: string, replicas: number) => ({
  [`modules/001-${name}/values.yaml`]: `${name}:\n  replicas: ${replicas}\n`,
  [`modules/001-${name}/openapi/config-values.yaml`]: SCHEMA,
  [`modules/001-${name}/templates/cm.yaml`]: CHART.replace('NAME', name),
});
const configMap = (data: Record<string, string>) =>
  `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: addons\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: addon-operator\n  namespace: addons\ndata:\n${Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`).join('')}`;

test('at start-up, a module enabled by values.yaml with an invalid config stops the operator naming the key', async () => {
  const root = makeTree({
    'modules/values.yaml': 'webEnabled: true\n',
    ...module('web', 3),
    'global-hooks/.keep': '',
    'seed.yaml': configMap({ web: 'replicas: 0\n' }),
  });
  const { child, output } = startOperator(root, ['--sandbox-seed', `${root}/seed.yaml`]);
  await waitFor(() => child.exitCode !== null || logRecords(output()).some((r) => r.msg === 'startup converge done'), 'the operator to stop or converge');
  assert.equal(child.exitCode, 1, output());
  assert.match(output(), /Error: config values are not valid: module web: config values do not match .*001-web\/openapi\/config-values\.yaml:\n {2}- web\.replicas: must be >= 1, got number 0 \(from ConfigMap key "web"/);
  assert.ok(!logRecords(output()).some((r) => String(r.msg).startsWith('helm release')), 'the module never ran');
});

test('later, a module enabled with an invalid stored config keeps its last valid config; a disabled one is not checked', async () => {
  const root = makeTree({
    // web is off until a global hook turns it on (when ConfigMap "switch" exists)
    'modules/values.yaml': 'webEnabled: false\nofflineEnabled: false\n',
    ...module('web', 3),
    ...module('offline', 3),
    'global-hooks/hooks/switch': bashHook(
      { configVersion: 'v1', kubernetes: [{ name: 'switch', apiVersion: 'v1', kind: 'ConfigMap', nameSelector: { matchNames: ['switch'] }, namespace: { nameSelector: { matchNames: ['addons'] } } }] },
      `if [ "$(jq '[.[] | .objects // [.object] | .[] | select(. != null)] | length' "$BINDING_CONTEXT_PATH")" -gt 0 ]; then
  echo '[{"op": "add", "path": "/webEnabled", "value": true}]' > "$VALUES_JSON_PATCH_PATH"
fi`,
    ),
    'seed.yaml': configMap({ web: 'replicas: 0\n', offline: 'replicas: abc\n' }),
  });
  const kubeconfig = `${root}/kubeconfig`;
  const { child, output } = startOperator(root, ['--sandbox-seed', `${root}/seed.yaml`, '--sandbox-kubeconfig', kubeconfig]);
  await waitFor(() => logRecords(output()).some((r) => r.msg === 'startup converge done'), 'the first converge');
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  await requestJson(kc, 'POST', '/api/v1/namespaces/addons/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'switch' } });
  const web = async () => (await requestJson<{ data: Record<string, string> }>(kc, 'GET', '/api/v1/namespaces/addons/configmaps/web').catch(() => undefined))?.data;
  await waitFor(async () => (await web()) !== undefined, 'web installed');
  assert.deepEqual(await web(), { replicas: '3' }, 'the invalid replicas: 0 never reached Helm');
  const problem = logRecords(output()).find((r) => r.msg === 'a module being enabled has an invalid config; it keeps its last valid one');
  assert.ok(problem, output());
  assert.match(String(problem.error), /web\.replicas: must be >= 1, got number 0/);
  assert.doesNotMatch(output(), /offline\.replicas/, 'a disabled module\'s config is stored unchecked');
  assert.equal(child.exitCode, null, 'the operator runs on');
});

test('x-required-for-helm of the global values schema is checked before every module\'s Helm run', async () => {
  const root = makeTree({
    'modules/values.yaml': 'webEnabled: true\n',
    ...module('web', 3),
    'global-hooks/openapi/values.yaml': 'type: object\nx-required-for-helm: [domain]\nproperties:\n  domain: {type: string}\n',
    'seed.yaml': configMap({}),
  });
  const kubeconfig = `${root}/kubeconfig`;
  const { output } = startOperator(root, ['--sandbox-seed', `${root}/seed.yaml`, '--sandbox-kubeconfig', kubeconfig]);
  await waitFor(() => /global\.domain: is required/.test(output()), 'the module run to fail on the global values');
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  // the ConfigMap gives the global value: the module installs
  await requestJson(kc, 'PATCH', '/api/v1/namespaces/addons/configmaps/addon-operator', {}, { data: { global: 'domain: example.com\n' } }, 'application/merge-patch+json');
  await waitFor(async () => (await requestJson(kc, 'GET', '/api/v1/namespaces/addons/configmaps/web').catch(() => undefined)) !== undefined, 'web installed once the global value is set');
});
