// The simulated Deployment, ReplicaSet, scheduler and kubelet: kubectl rollout status finishes, Pods
// become Ready on the Node, rolling updates keep within maxSurge, history is pruned, garbage collection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startSandbox } from '../../../src/sandbox/index.js';
import { waitFor } from '../../helpers/wait.js';
import { cluster, deployment, noKubectl } from './helpers.js';

test('a Deployment rolls out: ReplicaSet with pod-template-hash, Pods Running and Ready on the Node, status and conditions', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply(deployment('web', 3));
  const r = await c.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /deployment "web" successfully rolled out/);

  const d = await c.apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
  assert.equal(d.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
  assert.equal(d.status?.observedGeneration, 1);
  assert.equal(d.status?.replicas, 3);
  assert.equal(d.status?.readyReplicas, 3);
  assert.equal(d.status?.availableReplicas, 3);
  assert.equal(d.status?.updatedReplicas, 3);
  const conds = Object.fromEntries((d.status?.conditions ?? []).map((x) => [x.type, x]));
  assert.equal(conds.Available.status, 'True');
  assert.equal(conds.Available.reason, 'MinimumReplicasAvailable');
  assert.equal(conds.Progressing.status, 'True');
  assert.equal(conds.Progressing.reason, 'NewReplicaSetAvailable');

  const rss = await c.apps.listNamespacedReplicaSet({ namespace: 'default' });
  assert.equal(rss.items.length, 1);
  const rs = rss.items[0];
  const hash = rs.metadata?.labels?.['pod-template-hash'];
  assert.ok(hash);
  assert.equal(rs.metadata?.name, `web-${hash}`);
  assert.equal(rs.spec?.selector.matchLabels?.['pod-template-hash'], hash);
  assert.equal(rs.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
  assert.equal(rs.metadata?.ownerReferences?.[0].uid, d.metadata?.uid);
  assert.equal(rs.status?.readyReplicas, 3);

  const pods = await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' });
  assert.equal(pods.items.length, 3);
  for (const p of pods.items) {
    assert.equal(p.spec?.nodeName, 'sandbox-node');
    assert.equal(p.status?.phase, 'Running');
    assert.match(p.status?.podIP ?? '', /^10\.244\./);
    assert.ok(p.status?.hostIP);
    assert.ok(p.status?.startTime);
    const types = (p.status?.conditions ?? []).filter((x) => x.status === 'True').map((x) => x.type).sort();
    for (const t of ['ContainersReady', 'Initialized', 'PodScheduled', 'Ready']) assert.ok(types.includes(t), `${t} in ${types}`);
    assert.equal(p.status?.containerStatuses?.[0].ready, true);
    assert.ok(p.status?.containerStatuses?.[0].state?.running);
    assert.equal(p.metadata?.ownerReferences?.[0].name, rs.metadata?.name);
  }
  const nodes = await c.core.listNode();
  assert.deepEqual(nodes.items.map((n) => n.metadata?.name), ['sandbox-node']);
  assert.equal(nodes.items[0].status?.conditions?.find((x) => x.type === 'Ready')?.status, 'True');

  const w1 = await c.kubectl(['wait', '--for=condition=ready', 'pod', '-l', 'app=web', '--timeout=60s']);
  assert.equal(w1.code, 0, w1.stderr);
  const w2 = await c.kubectl(['wait', '--for=condition=available', 'deployment/web', '--timeout=60s']);
  assert.equal(w2.code, 0, w2.stderr);
});

test('a template change rolls a new ReplicaSet within maxSurge, scales the old one down, and history is pruned', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply(deployment('api', 4, 'app:1', '  revisionHistoryLimit: 1\n  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n'));
  assert.equal((await c.kubectl(['rollout', 'status', 'deployment/api', '--timeout=60s'])).code, 0);
  // every Pod of the Deployment seen at once, through a watch
  const live = new Set<string>();
  let most = 0;
  const w = await new k8s.Watch(c.kc).watch('/api/v1/namespaces/default/pods', { labelSelector: 'app=api' }, (type, obj: any) => {
    if (type === 'DELETED') live.delete(obj.metadata.name);
    else live.add(obj.metadata.name);
    most = Math.max(most, live.size);
  }, () => undefined);
  try {
    for (const image of ['app:2', 'app:3']) {
      const r = await c.kubectl(['set', 'image', 'deployment/api', `main=${image}`]);
      assert.equal(r.code, 0, r.stderr);
      const s = await c.kubectl(['rollout', 'status', 'deployment/api', '--timeout=60s']);
      assert.equal(s.code, 0, s.stderr);
    }
  } finally {
    w.abort();
  }
  assert.ok(most <= 5, `at most replicas + maxSurge Pods at once, saw ${most}`);
  assert.ok(most >= 5, `the surge was used, saw at most ${most}`);
  const rss = (await c.apps.listNamespacedReplicaSet({ namespace: 'default' })).items;
  // the current one and revisionHistoryLimit (1) old one
  assert.equal(rss.length, 2);
  const byRev = Object.fromEntries(rss.map((rs) => [rs.metadata?.annotations?.['deployment.kubernetes.io/revision'], rs]));
  assert.equal(byRev['3']?.spec?.replicas, 4);
  assert.equal(byRev['3']?.spec?.template?.spec?.containers[0].image, 'app:3');
  assert.equal(byRev['2']?.spec?.replicas, 0);
  const pods = (await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=api' })).items;
  assert.equal(pods.length, 4);
  assert.ok(pods.every((p) => p.spec?.containers[0].image === 'app:3'));
  const d = await c.apps.readNamespacedDeployment({ name: 'api', namespace: 'default' });
  assert.equal(d.metadata?.annotations?.['deployment.kubernetes.io/revision'], '3');

  // rolling back to an old template makes its ReplicaSet the newest revision
  const u = await c.kubectl(['rollout', 'undo', 'deployment/api']);
  assert.equal(u.code, 0, u.stderr);
  assert.equal((await c.kubectl(['rollout', 'status', 'deployment/api', '--timeout=60s'])).code, 0);
  const back = (await c.apps.listNamespacedReplicaSet({ namespace: 'default' })).items.find((rs) => rs.spec?.template?.spec?.containers[0].image === 'app:2');
  assert.equal(back?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '4');
  assert.equal(back?.spec?.replicas, 4);
});

test('scaling a Deployment changes its Pods; deleting it takes its ReplicaSets and Pods (garbage collection)', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply(deployment('scaled', 2));
  assert.equal((await c.kubectl(['rollout', 'status', 'deployment/scaled', '--timeout=60s'])).code, 0);
  assert.equal((await c.kubectl(['scale', 'deployment/scaled', '--replicas=5'])).code, 0);
  assert.equal((await c.kubectl(['rollout', 'status', 'deployment/scaled', '--timeout=60s'])).code, 0);
  assert.equal((await c.core.listNamespacedPod({ namespace: 'default' })).items.length, 5);
  assert.equal((await c.kubectl(['scale', 'deployment/scaled', '--replicas=1'])).code, 0);
  await waitFor(async () => (await c.core.listNamespacedPod({ namespace: 'default' })).items.length === 1, 'the Pods scaled down to 1');
  assert.equal((await c.kubectl(['delete', 'deployment/scaled'])).code, 0);
  await waitFor(
    async () => (await c.apps.listNamespacedReplicaSet({ namespace: 'default' })).items.length === 0 && (await c.core.listNamespacedPod({ namespace: 'default' })).items.length === 0,
    'the ReplicaSets and Pods collected',
  );
});

test('a Deployment whose Pods fail never becomes Available and gets ProgressDeadlineExceeded; rollout status says so', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply(`apiVersion: apps/v1
kind: Deployment
metadata: {name: broken, namespace: default}
spec:
  replicas: 1
  progressDeadlineSeconds: 1
  selector: {matchLabels: {app: broken}}
  template:
    metadata:
      labels: {app: broken}
      annotations: {sandbox.addon-operator.io/fail: "true"}
    spec: {containers: [{name: main, image: x}]}
`);
  await waitFor(async () => {
    const d = await c.apps.readNamespacedDeployment({ name: 'broken', namespace: 'default' });
    return d.status?.conditions?.find((x) => x.type === 'Progressing')?.reason === 'ProgressDeadlineExceeded';
  }, 'ProgressDeadlineExceeded');
  const d = await c.apps.readNamespacedDeployment({ name: 'broken', namespace: 'default' });
  assert.equal(d.status?.conditions?.find((x) => x.type === 'Available')?.status, 'False');
  assert.equal(d.status?.conditions?.find((x) => x.type === 'Progressing')?.status, 'False');
  const p = (await c.core.listNamespacedPod({ namespace: 'default' })).items[0];
  assert.equal(p.status?.containerStatuses?.[0].state?.waiting?.reason, 'CrashLoopBackOff');
  const r = await c.kubectl(['rollout', 'status', 'deployment/broken', '--timeout=60s']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /exceeded its progress deadline/);
});

test('the library starts without controllers unless asked (no Node), with them when asked (the Node is there at once)', async () => {
  const sb = await startSandbox();
  const on = await startSandbox({ controllers: true });
  try {
    assert.equal(sb.getObject('v1', 'Node', '', 'sandbox-node'), undefined);
    assert.equal(on.getObject('v1', 'Node', '', 'sandbox-node')?.metadata.name, 'sandbox-node');
  } finally {
    await sb.stop();
    await on.stop();
  }
});

test('a Deployment whose ReplicaSet cannot be created gets Progressing=False ReplicaSetCreateError; the sandbox goes on', { skip: noKubectl }, async () => {
  const c = await cluster();
  // a valid Deployment name that leaves no room for the ReplicaSet's `-<pod-template-hash>` suffix
  const long = 'd'.repeat(250);
  await c.apply(deployment(long, 1).replaceAll(`app: ${long}`, 'app: long'));
  await waitFor(async () => {
    const d = await c.apps.readNamespacedDeployment({ name: long, namespace: 'default' });
    return d.status?.conditions?.find((x) => x.type === 'Progressing')?.reason === 'ReplicaSetCreateError';
  }, 'ReplicaSetCreateError');
  const d = await c.apps.readNamespacedDeployment({ name: long, namespace: 'default' });
  const p = d.status?.conditions?.find((x) => x.type === 'Progressing');
  assert.equal(p?.status, 'False');
  assert.match(p?.message ?? '', /^Failed to create new replica set "d+-[a-z0-9]+": /);
  assert.equal(d.status?.conditions?.find((x) => x.type === 'Available')?.status, 'False');
  // the controllers still work for everything else
  await c.apply(deployment('fine', 1));
  assert.equal((await c.kubectl(['rollout', 'status', 'deployment/fine', '--timeout=60s'])).code, 0);
});
