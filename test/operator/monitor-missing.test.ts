// shell-operator's #922 metrics with `addon-operator start --sandbox`: a hook that reads the snapshot
// of a kubernetes binding whose monitor never started gets it empty, and binding_monitor_missing_total
// counts it (here: a module whose onStartup fails, so its monitors never start, is disabled; its
// afterDeleteHelm context carries the snapshots). factory_informer_dead_total is announced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../../src/kube/http.js';
import { makeTree } from '../helpers/tree.js';
import { bashHook, waitFor, withOperator } from '../helpers/operator-process.js';

test('binding_monitor_missing_total counts a snapshot read without a running monitor; the hook gets it empty', async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'trace/.keep': '',
    'modules/values.yaml': 'flakyEnabled: true\n',
    'modules/001-flaky/hooks/startup': bashHook({ configVersion: 'v1', onStartup: 1 }, 'echo "not ready" >&2; exit 1'),
  });
  const trace = join(root, 'trace/after-delete');
  const hook = bashHook(
    { configVersion: 'v1', afterDeleteHelm: 1, kubernetes: [{ name: 'cms', apiVersion: 'v1', kind: 'ConfigMap', executeHookOnEvent: [] }] },
    `jq -c '.[0].snapshots' "$BINDING_CONTEXT_PATH" > '${trace}'`,
  );
  writeFileSync(join(root, 'modules/001-flaky/hooks/watch'), hook);
  chmodSync(join(root, 'modules/001-flaky/hooks/watch'), 0o755);
  const kubeconfig = join(root, 'kubeconfig');
  await withOperator(root, ['--sandbox-kubeconfig', kubeconfig], async ({ output }) => {
    await waitFor(() => output().includes('hooks/startup failed') || output().includes('not ready'), 'the failing onStartup', 30_000);
    const address = /"address":"(http:\/\/[^"]+)"/.exec(output())![1]!;
    const metrics = async () => (await fetch(`${address}/metrics`)).text();
    assert.match(await metrics(), /^# TYPE addon_operator_factory_informer_dead_total counter$/m);
    assert.doesNotMatch(await metrics(), /^addon_operator_binding_monitor_missing_total\{/m);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    await requestJson(kc, 'POST', '/api/v1/namespaces/addons/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator' }, data: { flakyEnabled: 'false' } });
    await waitFor(() => {
      try {
        return readFileSync(trace, 'utf8').trim() !== '';
      } catch {
        return false;
      }
    }, 'the afterDeleteHelm run', 30_000);
    assert.equal(readFileSync(trace, 'utf8').trim(), '{"cms":[]}');
    await waitFor(async () => /^addon_operator_binding_monitor_missing_total\{binding="cms"\} 1$/m.test(await metrics()), 'binding_monitor_missing_total');
    assert.match(output(), /no monitor for configured kubernetes binding, snapshot is empty/);
  });
});
