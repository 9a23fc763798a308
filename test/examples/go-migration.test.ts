/**
 * examples/go-migration: a module in the Go addon-operator's style runs unchanged: its config patch
 * migrates the ConfigMap, its Synchronization and Event paths keep the values, the chart follows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestJson } from '../../src/kube/http.js';
import { eventually, runExample } from './helpers.js';

interface DaemonSet {
  metadata: { annotations: Record<string, string> };
  spec: { template: { spec: { containers: Array<{ args: string[] }> } } };
}

test('examples/go-migration', async () => {
  const ex = await runExample('go-migration');
  const config = await ex.get<{ data: Record<string, string> }>('/api/v1/namespaces/default/configmaps/addon-operator');
  assert.deepEqual(config.data, { nodeProblemDetector: 'logLevel: debug\n' }, 'the deprecated key migrated by the config patch');
  const ds = () => ex.get<DaemonSet>('/apis/apps/v1/namespaces/default/daemonsets/node-problem-detector');
  assert.deepEqual((await ds()).spec.template.spec.containers[0]!.args, ['--v=4']);
  assert.equal((await ds()).metadata.annotations['example.com/worker-nodes'], 'worker-1');

  const label = (value: string | null) =>
    requestJson(ex.kc, 'PATCH', '/api/v1/nodes/master-1', {}, { metadata: { labels: { 'node-role.kubernetes.io/worker': value } } }, 'application/merge-patch+json');
  await label('');
  await eventually(async () => assert.equal((await ds()).metadata.annotations['example.com/worker-nodes'], 'master-1,worker-1'), 'the Added event');
  await requestJson(ex.kc, 'DELETE', '/api/v1/nodes/worker-1');
  await eventually(async () => assert.equal((await ds()).metadata.annotations['example.com/worker-nodes'], 'master-1'), 'the Deleted event');
  assert.equal(await ex.stop(), 0);
});
