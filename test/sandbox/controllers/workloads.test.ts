// The simulated StatefulSet, DaemonSet, volume, Service and EndpointSlice controllers, through kubectl
// and @kubernetes/client-node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { waitFor } from '../../helpers/wait.js';
import { cluster, deployment, noKubectl } from './helpers.js';

test('a StatefulSet creates db-0, db-1, db-2 in order, each with its Bound claim; rollout status finishes', { skip: noKubectl }, async () => {
  const c = await cluster();
  const order: string[] = [];
  const w = await new k8s.Watch(c.kc).watch('/api/v1/namespaces/default/pods', {}, (type, obj: any) => {
    if (type === 'ADDED') order.push(obj.metadata.name);
  }, () => undefined);
  try {
    await c.apply(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  serviceName: db
  replicas: 3
  updateStrategy: {type: RollingUpdate}
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: main, image: postgres}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 2Gi}}}
`);
    const r = await c.kubectl(['rollout', 'status', 'statefulset/db', '--timeout=60s']);
    assert.equal(r.code, 0, r.stderr);
  } finally {
    w.abort();
  }
  assert.deepEqual(order, ['db-0', 'db-1', 'db-2']);
  const sts = await c.apps.readNamespacedStatefulSet({ name: 'db', namespace: 'default' });
  assert.equal(sts.status?.readyReplicas, 3);
  assert.ok(sts.status?.updateRevision?.startsWith('db-'));
  assert.equal(sts.status?.currentRevision, sts.status?.updateRevision);
  const pod = await c.core.readNamespacedPod({ name: 'db-1', namespace: 'default' });
  assert.equal(pod.spec?.hostname, 'db-1');
  assert.equal(pod.spec?.subdomain, 'db');
  assert.equal(pod.spec?.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName, 'data-db-1');
  const pvcs = (await c.core.listNamespacedPersistentVolumeClaim({ namespace: 'default' })).items;
  assert.deepEqual(pvcs.map((p) => p.metadata?.name).sort(), ['data-db-0', 'data-db-1', 'data-db-2']);
  for (const p of pvcs) {
    assert.equal(p.status?.phase, 'Bound');
    assert.equal(p.status?.capacity?.storage, '2Gi');
    const pv = await c.core.readPersistentVolume({ name: p.spec!.volumeName! });
    assert.equal(pv.status?.phase, 'Bound');
    assert.equal(pv.spec?.claimRef?.name, p.metadata?.name);
  }
  const table = await c.kubectl(['get', 'pvc,pv']);
  assert.match(table.stdout, /data-db-0\s+Bound\s+pvc-\S+\s+2Gi\s+RWO/);
  assert.match(table.stdout, /pvc-\S+\s+2Gi\s+RWO\s+Delete\s+Bound\s+default\/data-db-0/);
  // a template change rolls the Pods to the new revision
  const s = await c.kubectl(['set', 'image', 'statefulset/db', 'main=postgres:17']);
  assert.equal(s.code, 0, s.stderr);
  const r2 = await c.kubectl(['rollout', 'status', 'statefulset/db', '--timeout=60s']);
  assert.equal(r2.code, 0, r2.stderr);
  const pods = (await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=db' })).items;
  assert.equal(pods.length, 3);
  assert.ok(pods.every((p) => p.spec?.containers[0].image === 'postgres:17'));
});

test('a DaemonSet has a Pod on each matching Node; a new Node gets one; rollout status finishes', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply(`apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers: [{name: main, image: agent}]
`);
  assert.equal((await c.kubectl(['rollout', 'status', 'daemonset/agent', '--timeout=60s'])).code, 0);
  await c.apply(`apiVersion: v1
kind: Node
metadata:
  name: worker-2
  labels: {kubernetes.io/os: linux, kubernetes.io/hostname: worker-2}
---
apiVersion: v1
kind: Node
metadata:
  name: windows-1
  labels: {kubernetes.io/os: windows}
`);
  await waitFor(async () => (await c.apps.readNamespacedDaemonSet({ name: 'agent', namespace: 'default' })).status?.numberReady === 2, 'two Ready Pods');
  const ds = await c.apps.readNamespacedDaemonSet({ name: 'agent', namespace: 'default' });
  assert.equal(ds.status?.desiredNumberScheduled, 2);
  assert.equal(ds.status?.currentNumberScheduled, 2);
  assert.equal(ds.status?.numberAvailable, 2);
  assert.equal(ds.status?.updatedNumberScheduled, 2);
  const pods = (await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=agent' })).items;
  assert.deepEqual(pods.map((p) => p.spec?.nodeName).sort(), ['sandbox-node', 'worker-2']);
  const tables = await c.kubectl(['get', 'nodes,daemonsets']);
  assert.match(tables.stdout, /worker-2\s+Ready\s+<none>/);
  assert.match(tables.stdout, /agent\s+2\s+2\s+2\s+2\s+2\s+kubernetes.io\/os=linux/);
  const node = await c.core.readNode({ name: 'worker-2' });
  assert.equal(node.status?.conditions?.find((x) => x.type === 'Ready')?.status, 'True');
});

test('Services get a ClusterIP (None stays headless), node ports and a load-balancer IP; EndpointSlices and Endpoints list the ready Pods', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply(deployment('web', 2));
  await c.apply(`apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web-headless, namespace: default}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web-lb, namespace: default}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: 443}]
`);
  assert.equal((await c.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s'])).code, 0);
  const disc = c.kc.makeApiClient(k8s.DiscoveryV1Api);
  await waitFor(async () => {
    const s = (await disc.listNamespacedEndpointSlice({ namespace: 'default', labelSelector: 'kubernetes.io/service-name=web' })).items;
    return s.length === 1 && (s[0].endpoints ?? []).filter((e) => e.conditions?.ready).length === 2;
  }, 'an EndpointSlice with two ready endpoints');
  const svc = await c.core.readNamespacedService({ name: 'web', namespace: 'default' });
  assert.match(svc.spec?.clusterIP ?? '', /^10\.(9[6-9]|10[0-9]|11[01])\./);
  const headless = await c.core.readNamespacedService({ name: 'web-headless', namespace: 'default' });
  assert.equal(headless.spec?.clusterIP, 'None');
  await waitFor(async () => !!(await c.core.readNamespacedService({ name: 'web-lb', namespace: 'default' })).status?.loadBalancer?.ingress?.length, 'the load-balancer IP');
  const lb = await c.core.readNamespacedService({ name: 'web-lb', namespace: 'default' });
  assert.ok((lb.spec?.ports?.[0].nodePort ?? 0) >= 30000);
  const slice = (await disc.listNamespacedEndpointSlice({ namespace: 'default', labelSelector: 'kubernetes.io/service-name=web' })).items[0];
  assert.equal(slice.addressType, 'IPv4');
  assert.deepEqual(slice.ports?.map((p) => ({ ...p })), [{ name: 'http', port: 8080, protocol: 'TCP' }]);
  const pods = (await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' })).items;
  assert.deepEqual(slice.endpoints.map((e) => e.addresses[0]).sort(), pods.map((p) => p.status?.podIP).sort());
  assert.equal(slice.metadata?.ownerReferences?.[0].name, 'web');
  const ep = await c.core.readNamespacedEndpoints({ name: 'web', namespace: 'default' });
  assert.equal(ep.subsets?.[0].addresses?.length, 2);
  // kubectl shows the endpoints too
  const r = await c.kubectl(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
  assert.equal(r.code, 0, r.stderr);
  // the Pods go: the endpoints follow
  assert.equal((await c.kubectl(['scale', 'deployment/web', '--replicas=0'])).code, 0);
  await waitFor(async () => ((await disc.listNamespacedEndpointSlice({ namespace: 'default', labelSelector: 'kubernetes.io/service-name=web' })).items[0].endpoints ?? []).length === 0, 'no endpoints left');
});

test('EndpointSlice conditions follow Pod readiness as kube-controller-manager writes them: not ready, publishNotReadyAddresses, headless, none selected', { skip: noKubectl }, async () => {
  const c = await cluster();
  // a Pod that never becomes Ready (the sandbox's fail annotation: CrashLoopBackOff) and one that does
  const pod = (name: string, fail: boolean) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: default
  labels: {app: api}
${fail ? '  annotations: {sandbox.addon-operator.io/fail: "true"}\n' : ''}spec: {hostname: ${name}, subdomain: api-headless, containers: [{name: main, image: nginx}]}
`;
  await c.apply(`${pod('api-a', true)}---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: default}
spec: {selector: {app: api}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: api-published, namespace: default}
spec: {selector: {app: api}, publishNotReadyAddresses: true, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: api-headless, namespace: default}
spec: {clusterIP: None, selector: {app: api}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: nobody, namespace: default}
spec: {selector: {app: nobody}, ports: [{port: 80}]}
`);
  const disc = c.kc.makeApiClient(k8s.DiscoveryV1Api);
  const sliceOf = async (svc: string) => (await disc.listNamespacedEndpointSlice({ namespace: 'default', labelSelector: `kubernetes.io/service-name=${svc}` })).items;
  await waitFor(async () => (await sliceOf('api'))[0]?.endpoints?.length === 1, 'the not-ready Pod as an endpoint of api');
  const conditions = async (svc: string) => ((await sliceOf(svc))[0]!.endpoints ?? []).map((e) => ({ ...e.conditions }));
  assert.deepEqual(await conditions('api'), [{ ready: false, serving: false, terminating: false }]);
  await waitFor(async () => (await sliceOf('api-published'))[0]?.endpoints?.length === 1, 'the endpoint of api-published');
  assert.deepEqual(await conditions('api-published'), [{ ready: true, serving: false, terminating: false }]);
  const published = await c.core.readNamespacedEndpoints({ name: 'api-published', namespace: 'default' });
  assert.equal(published.subsets?.[0].addresses?.length, 1);
  await waitFor(async () => (await sliceOf('api-headless'))[0]?.endpoints?.length === 1, 'the endpoint of api-headless');
  const headless = (await sliceOf('api-headless'))[0]!;
  assert.equal(headless.metadata?.labels?.['service.kubernetes.io/headless'], '');
  assert.equal(headless.endpoints[0]!.hostname, 'api-a');
  assert.equal((await sliceOf('api'))[0]!.endpoints[0]!.hostname, undefined);
  // a Service that selects nothing: one slice, no endpoints
  await waitFor(async () => (await sliceOf('nobody')).length === 1, 'the slice of nobody');
  assert.deepEqual((await sliceOf('nobody'))[0]!.endpoints ?? [], []);
  // a Ready Pod joins as a ready endpoint
  await c.apply(pod('api-b', false));
  await waitFor(async () => JSON.stringify(await conditions('api')) === JSON.stringify([{ ready: false, serving: false, terminating: false }, { ready: true, serving: true, terminating: false }]), 'api-b ready in the slice of api');
});

test('deleting a namespace with running workloads empties it, then it goes', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply('apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n');
  await c.apply(deployment('web', 2).replace('namespace: default', 'namespace: apps'));
  assert.equal((await c.kubectl(['-n', 'apps', 'rollout', 'status', 'deployment/web', '--timeout=60s'])).code, 0);
  const r = await c.kubectl(['delete', 'namespace', 'apps', '--timeout=60s']);
  assert.equal(r.code, 0, r.stderr);
  await waitFor(async () => (await c.core.listNamespace()).items.every((n) => n.metadata?.name !== 'apps'), 'the namespace gone');
  assert.equal((await c.core.listPodForAllNamespaces()).items.filter((p) => p.metadata?.namespace === 'apps').length, 0);
});
