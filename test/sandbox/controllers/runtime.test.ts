// The controller runtime: a controller that throws is logged and retried on the next change, the others
// and the API go on; a ReplicaSet whose Pods cannot be created gets ReplicaFailure (FailedCreate).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../../../src/sandbox/registry.js';
import { Store } from '../../../src/sandbox/store.js';
import { Resources } from '../../../src/sandbox/resources.js';
import { Runtime, TKEY, key, type Controller } from '../../../src/sandbox/controllers/runtime.js';
import { waitFor } from '../../helpers/wait.js';
import { cluster } from './helpers.js';

test('a controller that throws is logged and does not stop the other controllers', async () => {
  const resources = new Resources(new Registry(), new Store({ historyLimit: 100 }));
  resources.bootstrap();
  const logged: string[] = [];
  const seen: string[] = [];
  const broken: Controller = {
    name: 'broken',
    watches: { [TKEY.pods]: (ev) => key(ev.ns, ev.name) },
    reconcile() {
      throw new Error('boom');
    },
  };
  const working: Controller = {
    name: 'working',
    watches: { [TKEY.pods]: (ev) => key(ev.ns, ev.name) },
    reconcile: (k) => void seen.push(k),
  };
  const rt = new Runtime(resources, [broken, working], { podStartMs: 0, log: (m) => logged.push(m) });
  try {
    const t = resources.registry.get('', 'pods')!;
    resources.create(t, 'v1', 'default', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } }, { manager: 'test' });
    await waitFor(() => seen.length > 0 && logged.length > 0, 'both controllers ran');
    assert.deepEqual(seen, ['default/p']);
    assert.deepEqual(logged, ['sandbox: controller broken: default/p: boom']);
  } finally {
    rt.stop();
  }
});

test('a ReplicaSet whose Pods cannot be created gets ReplicaFailure with the reason, and the API still answers', async () => {
  const c = await cluster();
  // the Pods' generated names (<name>-xxxxx) would be longer than 253 characters
  const name = 'r'.repeat(250);
  await c.apply(`apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: ${name}, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: r}}
  template:
    metadata: {labels: {app: r}}
    spec: {containers: [{name: main, image: nginx}]}
`);
  await waitFor(async () => !!(await c.apps.readNamespacedReplicaSet({ name, namespace: 'default' })).status?.conditions?.length, 'a condition');
  const rs = await c.apps.readNamespacedReplicaSet({ name, namespace: 'default' });
  const f = rs.status?.conditions?.find((x) => x.type === 'ReplicaFailure');
  assert.equal(f?.status, 'True');
  assert.equal(f?.reason, 'FailedCreate');
  assert.match(f?.message ?? '', /Pod/);
  assert.equal(rs.status?.replicas, 0);
  assert.equal((await c.core.listNamespacedPod({ namespace: 'default' })).items.length, 0);
});
