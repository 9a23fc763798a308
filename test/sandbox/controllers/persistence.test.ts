// The simulated controllers over a data dir: after a restart they pick up the stored objects (their
// ReplicaSets and Pods found again, none duplicated) and go on reconciling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../../src/sandbox/index.js';
import { waitFor } from '../../helpers/wait.js';

const deployment = (replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

test('after a restart on the same data dir the controllers find their objects again and go on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-ctl-data-'));
  try {
    const first = await startSandbox({ dataDir: dir, controllers: true, podStartMs: 0, tls: false });
    first.load([deployment(2)]);
    await waitFor(() => first.getObject('apps/v1', 'Deployment', 'default', 'web')?.status?.availableReplicas === 2, 'two available replicas');
    await first.stop();

    const second = await startSandbox({ dataDir: dir, controllers: true, podStartMs: 0, tls: false });
    try {
      const before = second.getObject('apps/v1', 'Deployment', 'default', 'web')!;
      second.load([deployment(3)]);
      await waitFor(() => second.getObject('apps/v1', 'Deployment', 'default', 'web')?.status?.availableReplicas === 3, 'three available replicas');
      const d = second.getObject('apps/v1', 'Deployment', 'default', 'web')!;
      assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], before.metadata.annotations['deployment.kubernetes.io/revision']);
      const list = async (path: string): Promise<any[]> =>
        ((await (await fetch(`${second.url}${path}`, { headers: { authorization: `Bearer ${second.token}` } })).json()) as { items: any[] }).items;
      assert.equal((await list('/apis/apps/v1/namespaces/default/replicasets')).length, 1);
      const pods = await list('/api/v1/namespaces/default/pods');
      assert.equal(pods.length, 3);
      assert.ok(pods.every((p) => p.status.phase === 'Running'));
      assert.equal((await list('/api/v1/nodes')).length, 1);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
