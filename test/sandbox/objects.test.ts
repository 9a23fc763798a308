import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { cm, failure, withSandbox } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

const deployment = (name: string, replicas = 1): k8s.V1Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

test('create sets uid, creationTimestamp, a global resourceVersion and generation; get returns it', async () => {
  await withSandbox(async ({ core, apps }) => {
    const a = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a', { k: 'v' }) });
    assert.match(a.metadata!.uid!, /^[0-9a-f-]{36}$/);
    assert.ok(a.metadata!.creationTimestamp instanceof Date);
    assert.equal(a.metadata!.namespace, 'default');
    const b = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    assert.ok(Number(b.metadata!.resourceVersion) > Number(a.metadata!.resourceVersion), 'global RV grows');
    const d = await apps.createNamespacedDeployment({ namespace: 'default', body: deployment('web') });
    assert.ok(Number(d.metadata!.resourceVersion) > Number(b.metadata!.resourceVersion));
    assert.equal(d.metadata!.generation, 1);
    const got = await core.readNamespacedConfigMap({ name: 'a', namespace: 'default' });
    assert.deepEqual(got.data, { k: 'v' });
    assert.equal(got.metadata!.uid, a.metadata!.uid);
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    assert.ok(Number(list.metadata!.resourceVersion) >= Number(d.metadata!.resourceVersion));
  });
});

test('generation changes with the spec, not with metadata; generateName', async () => {
  await withSandbox(async ({ apps, core }) => {
    const d = await apps.createNamespacedDeployment({ namespace: 'default', body: deployment('web') });
    d.metadata!.labels = { x: 'y' };
    const d2 = await apps.replaceNamespacedDeployment({ name: 'web', namespace: 'default', body: d });
    assert.equal(d2.metadata!.generation, 1);
    d2.spec!.replicas = 3;
    const d3 = await apps.replaceNamespacedDeployment({ name: 'web', namespace: 'default', body: d2 });
    assert.equal(d3.metadata!.generation, 2);
    const g = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { generateName: 'gen-' } } });
    assert.match(g.metadata!.name!, /^gen-[a-z0-9]{5}$/);
  });
});

test('namespaces: the standard ones exist; objects need an existing namespace; deletion cascades', async () => {
  await withSandbox(async ({ core }) => {
    const names = (await core.listNamespace()).items.map((n) => n.metadata!.name);
    for (const n of ['default', 'kube-system', 'kube-public']) assert.ok(names.includes(n));
    const nf = await failure(core.createNamespacedConfigMap({ namespace: 'nope', body: cm('x') }));
    assert.equal(nf.code, 404);
    assert.equal(nf.status.reason, 'NotFound');
    assert.match(nf.status.message, /namespaces "nope" not found/);

    await core.createNamespace({ body: { metadata: { name: 'team' } } });
    await core.createNamespacedConfigMap({ namespace: 'team', body: cm('one') });
    await core.createNamespacedSecret({ namespace: 'team', body: { metadata: { name: 's' }, stringData: { a: 'b' } } });
    await core.createNamespacedConfigMap({ namespace: 'team', body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    const del = await core.deleteNamespace({ name: 'team' });
    assert.ok(del);
    const ns = await core.readNamespace({ name: 'team' });
    assert.equal(ns.status!.phase, 'Terminating');
    assert.ok(ns.metadata!.deletionTimestamp);
    assert.equal((await core.listNamespacedSecret({ namespace: 'team' })).items.length, 0);
    const held = await core.readNamespacedConfigMap({ name: 'held', namespace: 'team' });
    assert.ok(held.metadata!.deletionTimestamp, 'an object with a finalizer stays, marked for deletion');
    const forbidden = await failure(core.createNamespacedConfigMap({ namespace: 'team', body: cm('late') }));
    assert.equal(forbidden.code, 403);
    // removing the last finalizer lets the object and then the namespace go
    await core.patchNamespacedConfigMap(
      { name: 'held', namespace: 'team', body: [{ op: 'remove', path: '/metadata/finalizers' }] },
    );
    assert.equal((await failure(core.readNamespacedConfigMap({ name: 'held', namespace: 'team' }))).code, 404);
    assert.equal((await failure(core.readNamespace({ name: 'team' }))).code, 404);
  });
});

test('finalizers: delete sets deletionTimestamp, the object goes when the last finalizer is removed', async () => {
  await withSandbox(async ({ core }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'f', finalizers: ['a/b', 'c/d'] } } });
    await core.deleteNamespacedConfigMap({ name: 'f', namespace: 'default' });
    const marked = await core.readNamespacedConfigMap({ name: 'f', namespace: 'default' });
    assert.ok(marked.metadata!.deletionTimestamp);
    assert.deepEqual(marked.metadata!.finalizers, ['a/b', 'c/d']);
    marked.metadata!.finalizers = ['c/d'];
    await core.replaceNamespacedConfigMap({ name: 'f', namespace: 'default', body: marked });
    assert.ok((await core.readNamespacedConfigMap({ name: 'f', namespace: 'default' })).metadata!.deletionTimestamp);
    const again = await core.readNamespacedConfigMap({ name: 'f', namespace: 'default' });
    // no new finalizer once the object is being deleted
    const more = await failure(core.replaceNamespacedConfigMap({ name: 'f', namespace: 'default', body: { ...again, metadata: { ...again.metadata, finalizers: ['c/d', 'e/f'] } } }));
    assert.equal(more.code, 422);
    assert.equal(more.status.details.causes[0].field, 'metadata.finalizers');
    assert.match(more.status.message, /no new finalizers can be added if the object is being deleted, found new finalizers \[\]string\{"e\/f"\}/);
    again.metadata!.finalizers = [];
    await core.replaceNamespacedConfigMap({ name: 'f', namespace: 'default', body: again });
    assert.equal((await failure(core.readNamespacedConfigMap({ name: 'f', namespace: 'default' }))).code, 404);
  });
});

test('status subresource: status updates leave the spec alone and spec updates leave the status alone', async () => {
  await withSandbox(async ({ apps }) => {
    const d = await apps.createNamespacedDeployment({ namespace: 'default', body: { ...deployment('web'), status: { replicas: 9 } } });
    assert.equal(d.status, undefined, 'status is not set on create');
    const withStatus = { ...d, spec: { ...d.spec!, replicas: 7 }, status: { replicas: 1, readyReplicas: 1 } };
    const s = await apps.replaceNamespacedDeploymentStatus({ name: 'web', namespace: 'default', body: withStatus });
    assert.equal(s.status!.readyReplicas, 1);
    assert.equal(s.spec!.replicas, 1, 'spec untouched by a status update');
    assert.equal(s.metadata!.generation, 1);
    const specChange = { ...s, spec: { ...s.spec!, replicas: 4 }, status: { replicas: 0 } };
    const u = await apps.replaceNamespacedDeployment({ name: 'web', namespace: 'default', body: specChange });
    assert.equal(u.spec!.replicas, 4);
    assert.equal(u.status!.readyReplicas, 1, 'status untouched by a spec update');
    const st = await apps.readNamespacedDeploymentStatus({ name: 'web', namespace: 'default' });
    assert.equal(st.status!.replicas, 1);
    const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace: 'default' });
    assert.equal(scale.spec!.replicas, 4);
  });
});

test('errors: AlreadyExists, Conflict on a stale resourceVersion, Invalid, NotFound, BadRequest', async () => {
  await withSandbox(async ({ core }) => {
    const a = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    const dup = await failure(core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') }));
    assert.equal(dup.code, 409);
    assert.equal(dup.status.reason, 'AlreadyExists');
    assert.equal(dup.status.message, 'configmaps "a" already exists');
    assert.equal(dup.status.details.name, 'a');

    await core.replaceNamespacedConfigMap({ name: 'a', namespace: 'default', body: { ...a, data: { v: '1' } } });
    const stale = await failure(core.replaceNamespacedConfigMap({ name: 'a', namespace: 'default', body: { ...a, data: { v: '2' } } }));
    assert.equal(stale.code, 409);
    assert.equal(stale.status.reason, 'Conflict');
    assert.match(stale.status.message, /the object has been modified/);

    const inv = await failure(core.createNamespacedConfigMap({ namespace: 'default', body: cm('Not_Valid') }));
    assert.equal(inv.code, 422);
    assert.equal(inv.status.reason, 'Invalid');
    assert.equal(inv.status.details.causes[0].field, 'metadata.name');
    const noName = await failure(core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: {} } }));
    assert.equal(noName.code, 422);

    const nf = await failure(core.readNamespacedConfigMap({ name: 'zzz', namespace: 'default' }));
    assert.equal(nf.code, 404);
    assert.equal(nf.status.kind, 'Status');
    assert.equal(nf.status.status, 'Failure');
    assert.equal(nf.status.message, 'configmaps "zzz" not found');

    const wrongNs = await failure(core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'q', namespace: 'kube-system' } } }));
    assert.equal(wrongNs.code, 400);
    assert.equal(wrongNs.status.reason, 'BadRequest');
  });
});

test('list: label selectors with =, ==, !=, in, notin, exists and !; field selectors; cross-namespace', async () => {
  await withSandbox(async ({ core }) => {
    await core.createNamespace({ body: { metadata: { name: 'other' } } });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a', {}, { app: 'web', tier: 'front' }) });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b', {}, { app: 'db', tier: 'back' }) });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('c', {}, { app: 'cache' }) });
    await core.createNamespacedConfigMap({ namespace: 'other', body: cm('d', {}, { app: 'web' }) });
    const names = async (labelSelector?: string, fieldSelector?: string, namespace = 'default'): Promise<string[]> =>
      (await core.listNamespacedConfigMap({ namespace, labelSelector, fieldSelector })).items.map((i) => i.metadata!.name!).sort();
    assert.deepEqual(await names('app=web'), ['a']);
    assert.deepEqual(await names('app==db'), ['b']);
    assert.deepEqual(await names('app!=web'), ['b', 'c']);
    assert.deepEqual(await names('app in (web,db)'), ['a', 'b']);
    assert.deepEqual(await names('app notin (web,db)'), ['c']);
    assert.deepEqual(await names('tier'), ['a', 'b']);
    assert.deepEqual(await names('!tier'), ['c']);
    assert.deepEqual(await names('app in (web, cache),!tier'), ['c']);
    assert.deepEqual(await names(undefined, 'metadata.name=b'), ['b']);
    assert.deepEqual(await names(undefined, 'metadata.name!=b'), ['a', 'c']);
    assert.deepEqual(await names(undefined, 'metadata.namespace=default'), ['a', 'b', 'c']);
    const all = await core.listConfigMapForAllNamespaces({ labelSelector: 'app=web' });
    assert.deepEqual(all.items.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`).sort(), ['default/a', 'other/d']);
    const bad = await failure(core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'a in (' }));
    assert.equal(bad.code, 400);
  });
});

test('list: limit and continue page through a stable order', async () => {
  await withSandbox(async ({ core }) => {
    for (let i = 0; i < 7; i++) await core.createNamespacedConfigMap({ namespace: 'default', body: { ...cm(`p${i}`), metadata: { name: `p${i}`, labels: { odd: String(i % 2) } } } });
    // namespaces whose names sort next to default's keys: none of their objects is in its pages
    for (const ns of ['default0', 'default-a', 'defaul']) {
      await core.createNamespace({ body: { metadata: { name: ns } } });
      await core.createNamespacedConfigMap({ namespace: ns, body: { ...cm('p1'), metadata: { name: 'p1', labels: { odd: '1' } } } });
    }
    const seen: string[] = [];
    const remaining: Array<number | undefined> = [];
    let cont: string | undefined;
    do {
      const page = await core.listNamespacedConfigMap({ namespace: 'default', limit: 3, _continue: cont });
      seen.push(...page.items.map((i) => i.metadata!.name!));
      cont = page.metadata!._continue || undefined;
      remaining.push(page.metadata!.remainingItemCount);
    } while (cont);
    assert.deepEqual(remaining, [4, 1, undefined], 'three pages, the objects left after each');
    assert.deepEqual(seen, ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
    // a label selector across namespaces, one object a page: no remainingItemCount (as the API server)
    const odd: string[] = [];
    do {
      const page = await core.listConfigMapForAllNamespaces({ labelSelector: 'odd=1', limit: 1, _continue: cont });
      odd.push(...page.items.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`));
      cont = page.metadata!._continue || undefined;
      assert.equal(page.metadata!.remainingItemCount, undefined);
    } while (cont);
    assert.deepEqual(odd, ['defaul/p1', 'default-a/p1', 'default/p1', 'default/p3', 'default/p5', 'default0/p1']);
  });
});

test('cluster-scoped kinds and built-in groups: rbac, nodes, leases, batch, policy, networking, storage, scheduling, autoscaling', async () => {
  await withSandbox(async ({ kc, objects }) => {
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    const cr = await rbac.createClusterRole({ body: { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } });
    assert.equal(cr.metadata!.namespace, undefined);
    await rbac.createClusterRoleBinding({
      body: { metadata: { name: 'rb' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' }, subjects: [] },
    });
    await rbac.createNamespacedRole({ namespace: 'default', body: { metadata: { name: 'r' }, rules: [] } });
    await rbac.createNamespacedRoleBinding({
      namespace: 'default',
      body: { metadata: { name: 'rb' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' } },
    });
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNode({ body: { metadata: { name: 'node-1' } } });
    assert.equal((await core.listNode()).items.length, 1);
    const leases = kc.makeApiClient(k8s.CoordinationV1Api);
    const l = await leases.createNamespacedLease({
      namespace: 'kube-system',
      body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 10, renewTime: new k8s.V1MicroTime() } },
    });
    const renewed = await leases.replaceNamespacedLease({ name: 'leader', namespace: 'kube-system', body: { ...l, spec: { ...l.spec, holderIdentity: 'b' } } });
    assert.equal(renewed.spec!.holderIdentity, 'b');
    assert.equal((await failure(leases.replaceNamespacedLease({ name: 'leader', namespace: 'kube-system', body: l }))).code, 409);
    const made = [
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'default' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'x:1' }], restartPolicy: 'Never' } } } },
      { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj', namespace: 'default' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'x:1' }], restartPolicy: 'OnFailure' } } } } } },
      { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb', namespace: 'default' }, spec: { minAvailable: 1 } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'default' }, spec: {} },
      { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'ing', namespace: 'default' }, spec: {} },
      { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'x' },
      { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 },
      { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'default' }, spec: { maxReplicas: 3, scaleTargetRef: { kind: 'Deployment', name: 'web' } } },
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'vw' }, webhooks: [] },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'ss', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'w' } }, template: { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } }, serviceName: 's' } },
      { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'w' } }, template: { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } } },
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'w' } }, template: { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } } },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'default' } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'default' }, spec: { ports: [{ port: 80 }] } },
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'pvc', namespace: 'default' }, spec: {} },
      { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev', namespace: 'default' }, reason: 'x' },
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ep', namespace: 'default' } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    ];
    for (const o of made) {
      const created = await objects.create(o as k8s.KubernetesObject);
      assert.equal(created.kind, o.kind);
      const read = await objects.read({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata.name, namespace: o.metadata.namespace } });
      assert.equal(read.metadata!.name, o.metadata.name);
    }
    const sc = await objects.read({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' } });
    assert.equal(sc.metadata!.namespace, undefined);
  });
});

test('delete and deletecollection', async () => {
  await withSandbox(async ({ core }) => {
    for (const n of ['x1', 'x2', 'y1']) await core.createNamespacedConfigMap({ namespace: 'default', body: cm(n, {}, { group: n[0] }) });
    await core.deleteCollectionNamespacedConfigMap({ namespace: 'default', labelSelector: 'group=x' });
    const left = (await core.listNamespacedConfigMap({ namespace: 'default' })).items.map((i) => i.metadata!.name);
    assert.deepEqual(left.filter((n) => n !== 'kube-root-ca.crt'), ['y1']);
    await core.deleteNamespacedConfigMap({ name: 'y1', namespace: 'default' });
    assert.equal((await failure(core.deleteNamespacedConfigMap({ name: 'y1', namespace: 'default' }))).code, 404);
    // preconditions
    const z = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('z') });
    const pre = await failure(core.deleteNamespacedConfigMap({ name: 'z', namespace: 'default', body: { preconditions: { uid: 'other' } } }));
    assert.equal(pre.code, 409);
    await core.deleteNamespacedConfigMap({ name: 'z', namespace: 'default', body: { preconditions: { uid: z.metadata!.uid } } });
  });
});

test('dry run does not store anything', async () => {
  await withSandbox(async ({ core }) => {
    const rv = (await core.listNamespacedConfigMap({ namespace: 'default' })).metadata!.resourceVersion;
    const r = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('dry'), dryRun: 'All' });
    assert.equal(r.metadata!.name, 'dry');
    assert.equal((await failure(core.readNamespacedConfigMap({ name: 'dry', namespace: 'default' }))).code, 404);
    assert.equal((await core.listNamespacedConfigMap({ namespace: 'default' })).metadata!.resourceVersion, rv);
  });
});

test('garbage collection: dependents go when their owner goes, unless orphaned', async () => {
  await withSandbox(async ({ core }) => {
    const owner = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('owner') });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! };
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'dep', ownerReferences: [ref] } } });
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'free' } } });
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: 'default' });
    await waitFor(async () => (await core.listNamespacedSecret({ namespace: 'default' })).items.every((s) => s.metadata!.name !== 'dep'), 'the dependent to be collected');
    await core.readNamespacedConfigMap({ name: 'free', namespace: 'default' });

    const owner2 = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('owner2') });
    await core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 'kept', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner2', uid: owner2.metadata!.uid! }] } },
    });
    await core.deleteNamespacedConfigMap({ name: 'owner2', namespace: 'default', propagationPolicy: 'Orphan' });
    await new Promise((r) => setImmediate(r));
    await core.readNamespacedSecret({ name: 'kept', namespace: 'default' });
  });
});

test('large lists (streamed in batches) arrive whole and in order', async () => {
  await withSandbox(async ({ sb, core }) => {
    const objs = Array.from({ length: 700 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${String(i).padStart(4, '0')}`, namespace: 'default' }, data: { i: String(i) } }));
    sb.load(objs);
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    const names = list.items.map((i) => i.metadata!.name!).filter((n) => n.startsWith('big-'));
    assert.equal(names.length, 700);
    assert.deepEqual(names, [...names].sort());
    assert.equal(list.kind, 'ConfigMapList');
    assert.equal(list.metadata!.resourceVersion, sb.resourceVersion());
  });
});

test('immutable fields: immutable ConfigMaps, Deployment selectors', async () => {
  await withSandbox(async ({ core, apps }) => {
    const c = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'frozen' }, data: { a: '1' }, immutable: true } });
    const f = await failure(core.replaceNamespacedConfigMap({ name: 'frozen', namespace: 'default', body: { ...c, data: { a: '2' } } }));
    assert.equal(f.code, 422);
    assert.match(f.status.message, /immutable/);
    // labels may still change
    await core.replaceNamespacedConfigMap({ name: 'frozen', namespace: 'default', body: { ...c, metadata: { ...c.metadata, labels: { x: 'y' } } } });
    const d = await apps.createNamespacedDeployment({ namespace: 'default', body: deployment('sel') });
    const g = await failure(
      apps.replaceNamespacedDeployment({
        name: 'sel',
        namespace: 'default',
        body: { ...d, spec: { ...d.spec!, selector: { matchLabels: { app: 'other' } }, template: { ...d.spec!.template, metadata: { labels: { app: 'other' } } } } },
      }),
    );
    assert.equal(g.code, 422);
    assert.equal(g.status.details.causes[0].field, 'spec.selector');
  });
});
