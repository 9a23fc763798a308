/**
 * examples/sysctl-tuner: a module with a hook and layered values. The DaemonSet gets the parameters
 * of the module's values.yaml and of the ConfigMap, and the Nodes the hook found; a config edit and a
 * newly labelled Node each upgrade it; a config value its schema rejects changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestJson } from '../../src/kube/http.js';
import { eventually, runExample } from './helpers.js';

interface DaemonSet {
  metadata: { annotations: Record<string, string> };
  spec: { template: { spec: { containers: Array<{ command: string[] }> } } };
}

test('examples/sysctl-tuner', async () => {
  const ex = await runExample('sysctl-tuner');
  const ds = () => ex.get<DaemonSet>('/apis/apps/v1/namespaces/default/daemonsets/sysctl-tuner');
  const script = async () => (await ds()).spec.template.spec.containers[0]!.command[2]!;
  assert.match(await script(), /sysctl -w net\.core\.somaxconn=1024\n\s+sysctl -w vm\.swappiness=10\n\s+sleep 300\n/);
  assert.equal((await ds()).metadata.annotations['sysctl-tuner/nodes'], 'worker-1,worker-2');

  // the ConfigMap edited: the DaemonSet follows
  const cm = '/api/v1/namespaces/default/configmaps/addon-operator';
  await requestJson(ex.kc, 'PATCH', cm, {}, { data: { sysctlTuner: 'params:\n  vm.swappiness: 1\nsleepSeconds: 60\n' } }, 'application/merge-patch+json');
  await eventually(async () => assert.match(await script(), /sysctl -w vm\.swappiness=1\n\s+sleep 60\n/), 'the new parameters');

  // a Node labelled: the hook's kubernetes binding runs, the values change, the release is upgraded
  await requestJson(ex.kc, 'PATCH', '/api/v1/nodes/control-plane', {}, { metadata: { labels: { 'sysctl-tuner/enabled': 'true' } } }, 'application/merge-patch+json');
  await eventually(async () => assert.equal((await ds()).metadata.annotations['sysctl-tuner/nodes'], 'control-plane,worker-1,worker-2'), 'the new Node');

  // a value the schema rejects: named in the log, nothing applied
  await requestJson(ex.kc, 'PATCH', cm, {}, { data: { sysctlTuner: 'params:\n  vm.swappiness: high\n' } }, 'application/merge-patch+json');
  await eventually(async () => assert.ok(ex.output().includes('vm.swappiness') && /WARN|ERROR/.test(ex.output()), ex.output()), 'the rejection on the console');
  assert.match(await script(), /sysctl -w vm\.swappiness=1\n/);
  assert.equal(await ex.stop(), 0);
});
