/**
 * The operator over the real Kubernetes port (REST mapper, monitors, object patcher, ConfigMap source)
 * talking HTTP to the sandbox API server; only Helm is in memory here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { sandboxPorts } from '../helpers/sandbox-ports.js';
import { scenario, settle, traceHook } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

test('kubernetes events, object operations and config writes go through the real API', async (t) => {
  const sandbox = await startSandbox({
    seedObjects: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'addons' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: 'addons' }, data: { alphaEnabled: 'true', alpha: 'replicas: 2\n' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first', namespace: 'default', labels: { app: 'demo' } } },
    ],
  });
  t.after(() => sandbox.stop());
  const { kc, kube, config } = sandboxPorts(sandbox.kubeconfigPath, 'addons');

  const createOp = JSON.stringify({ operation: 'CreateIfNotExists', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'made-by-hook', namespace: 'default' }, data: { from: 'hook' } } });
  const s = await scenario({
    files: (tr) => ({
      'modules/values.yaml': 'alphaEnabled: false\n',
      'modules/001-alpha/Chart.yaml': 'name: alpha\nversion: 0.1.0\n',
      'modules/001-alpha/templates/cm.yaml': 'kind: ConfigMap\n',
      'global-hooks/hooks/watch': traceHook(
        tr,
        'g-watch',
        { configVersion: 'v1', kubernetes: [{ name: 'demo', kind: 'ConfigMap', labelSelector: { matchLabels: { app: 'demo' } }, namespace: { nameSelector: { matchNames: ['default'] } }, jqFilter: '.metadata.name' }] },
        `jq -r '.[] | (.objects // [.]) | map(.filterResult) | join(",")' "$BINDING_CONTEXT_PATH" >> '${tr.path}'
echo '${createOp}' > "$KUBERNETES_PATCH_PATH"`,
      ),
      'modules/001-alpha/hooks/save': traceHook(tr, 'alpha-save', { configVersion: 'v1', beforeHelm: 1 }, `echo '[{"op":"add","path":"/alpha/saved","value":true}]' > "$CONFIG_VALUES_JSON_PATCH_PATH"`),
    }),
    operator: { kube, config, namespace: 'addons' },
  });
  t.after(() => s.op.stop());
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  // the ConfigMap enables the module (its values.yaml says false) and gives its values
  assert.deepEqual(s.op.manager.enabledModules, ['alpha']);
  assert.deepEqual(s.helm.releases.get('alpha')?.values.alpha, { replicas: 2, saved: true });
  assert.deepEqual(s.trace.lines().slice(0, 2), ['g-watch demo:Synchronization', 'first']);

  // the hook's Kubernetes operation created an object
  const made = await requestJson<{ data: Record<string, string> }>(kc, 'GET', '/api/v1/namespaces/default/configmaps/made-by-hook');
  assert.deepEqual(made.data, { from: 'hook' });
  // the config patch was written to the ConfigMap, and did not make the module run again
  const cm = await requestJson<{ data: Record<string, string> }>(kc, 'GET', '/api/v1/namespaces/addons/configmaps/addon-operator');
  assert.equal(cm.data.alpha, 'replicas: 2\nsaved: true\n');
  assert.equal(s.trace.lines().filter((l) => l.startsWith('alpha-save')).length, 1);

  // an object created through the API reaches the hook as an Event; an unlabelled one does not
  await requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'second', namespace: 'default', labels: { app: 'demo' } } });
  await requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: 'default' } });
  await waitFor(() => s.trace.lines().includes('g-watch demo:Event:Added'), 'the event run');
  await settle(s.op);
  assert.deepEqual(s.trace.lines().slice(-2), ['g-watch demo:Event:Added', 'second']);

  // a ConfigMap edit that disables the module uninstalls it
  await requestJson(kc, 'PATCH', '/api/v1/namespaces/addons/configmaps/addon-operator', {}, { data: { alphaEnabled: 'false' } }, 'application/merge-patch+json');
  await waitFor(() => !s.helm.releases.has('alpha'), 'the release to go');
  assert.deepEqual(s.op.manager.enabledModules, []);
});
