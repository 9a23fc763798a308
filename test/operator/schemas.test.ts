/**
 * When the operator checks each schema (Go's module_manager and helm.go): x-required-for-helm only
 * before Helm, the values schema after hook patches, a bad ConfigMap edit rejected with the last
 * valid config kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scenario, settle, traceHook, type Trace } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

const CHART = { 'modules/001-alpha/Chart.yaml': 'name: alpha\nversion: 0.1.0\n', 'modules/001-alpha/templates/cm.yaml': 'kind: ConfigMap\n' };
const VALUES_SCHEMA = 'type: object\nx-required-for-helm: [ready]\nproperties:\n  ready: {type: boolean}\n  replicas: {type: integer, default: 1}\n';

function files(t: Trace, patchReady: boolean): Record<string, string> {
  const body = patchReady ? `echo '[{"op":"add","path":"/alpha/ready","value":true}]' > "$VALUES_JSON_PATCH_PATH"` : '';
  return {
    'modules/values.yaml': 'alphaEnabled: true\n',
    ...CHART,
    'modules/001-alpha/openapi/values.yaml': VALUES_SCHEMA,
    'modules/001-alpha/hooks/prepare': traceHook(t, 'alpha', { configVersion: 'v1', beforeHelm: 1 }, body),
  };
}

test('x-required-for-helm is checked before Helm, not before: a module whose hooks fill it in is installed', async () => {
  const s = await scenario({ files: (t) => files(t, true) });
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  assert.deepEqual(s.trace.lines(), ['alpha beforeHelm', 'helm upgrade alpha']);
  assert.deepEqual(s.helm.releases.get('alpha')?.values.alpha, { ready: true, replicas: 1 });
  await s.op.stop();
});

test('x-required-for-helm not filled in: the module run fails before Helm, naming the key and the schema', async () => {
  const s = await scenario({ files: (t) => files(t, false) });
  await s.op.start();
  await waitFor(() => s.logs.some((l) => l.includes('values for Helm do not match')), 'the helm values check to fail');
  await s.op.stop();
  const line = s.logs.find((l) => l.includes('values for Helm do not match'))!;
  assert.match(line, /module alpha: values for Helm do not match .*001-alpha\/openapi\/values\.yaml \(with x-required-for-helm\):\\n {2}- alpha\.ready: is required/);
  assert.equal(s.helm.releases.has('alpha'), false);
  assert.equal(s.trace.lines().includes('helm upgrade alpha'), false);
});
