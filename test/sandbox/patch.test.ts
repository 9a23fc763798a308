import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { failure, raw, withSandbox } from './helpers.js';
import { applyJsonPatch, applyMergePatch, strategicMerge } from '../../src/sandbox/patch.js';

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const smp = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);

function pod(): k8s.V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'main',
              image: 'nginx:1',
              ports: [{ containerPort: 80 }, { containerPort: 443 }],
              env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
            { name: 'side', image: 'busybox' },
          ],
          volumes: [{ name: 'data', emptyDir: {} }],
        },
      },
    },
  };
}

test('merge patch (RFC 7386) and JSON patch (RFC 6902) through typed clients', async () => {
  await withSandbox(async ({ core }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'c', labels: { a: '1' } }, data: { x: '1', y: '2' } } });
    const m = await core.patchNamespacedConfigMap({ name: 'c', namespace: 'default', body: { data: { x: null, z: '3' }, metadata: { labels: { b: '2' } } } }, merge);
    assert.deepEqual(m.data, { y: '2', z: '3' });
    assert.deepEqual(m.metadata!.labels, { a: '1', b: '2' });
    const j = await core.patchNamespacedConfigMap({
      name: 'c',
      namespace: 'default',
      body: [
        { op: 'add', path: '/data/w', value: '4' },
        { op: 'replace', path: '/data/y', value: '20' },
        { op: 'remove', path: '/data/z' },
        { op: 'test', path: '/data/w', value: '4' },
        { op: 'copy', from: '/data/w', path: '/data/v' },
        { op: 'move', from: '/data/v', path: '/data/u' },
      ],
    });
    assert.deepEqual(j.data, { y: '20', w: '4', u: '4' });
    const failed = await failure(core.patchNamespacedConfigMap({ name: 'c', namespace: 'default', body: [{ op: 'test', path: '/data/w', value: 'no' }] }));
    assert.equal(failed.code, 422);
    const missing = await failure(core.patchNamespacedConfigMap({ name: 'nope', namespace: 'default', body: [] }));
    assert.equal(missing.code, 404);
  });
});

test('strategic merge patch merges containers, ports, env, volumes and volumeMounts by key', async () => {
  await withSandbox(async ({ apps }) => {
    await apps.createNamespacedDeployment({ namespace: 'default', body: pod() });
    const patched = await apps.patchNamespacedDeployment(
      {
        name: 'web',
        namespace: 'default',
        body: {
          spec: {
            template: {
              spec: {
                containers: [
                  {
                    name: 'main',
                    image: 'nginx:2',
                    ports: [{ containerPort: 8080 }],
                    env: [{ name: 'B', value: '20' }, { name: 'C', value: '3' }, { name: 'A', $patch: 'delete' }],
                    volumeMounts: [{ mountPath: '/cache', name: 'cache' }],
                  },
                  { name: 'side', $patch: 'delete' },
                  { name: 'new', image: 'alpine' },
                ],
                volumes: [{ name: 'cache', emptyDir: {} }],
              },
            },
          },
        },
      },
      smp,
    );
    const spec = patched.spec!.template.spec!;
    assert.deepEqual(spec.containers.map((c) => c.name), ['main', 'new']);
    const main = spec.containers[0];
    assert.equal(main.image, 'nginx:2');
    assert.deepEqual(main.ports!.map((p) => p.containerPort), [80, 443, 8080]);
    assert.deepEqual(main.env!.map((e) => `${e.name}=${e.value}`), ['B=20', 'C=3']);
    assert.deepEqual(main.volumeMounts!.map((v) => v.mountPath), ['/data', '/cache']);
    assert.deepEqual(spec.volumes!.map((v) => v.name), ['data', 'cache']);
    assert.equal(patched.metadata!.generation, 2);
  });
});

test('strategic merge patch directives and Service ports (unit)', () => {
  const svc = { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }], selector: { a: 'b' } } };
  const out = strategicMerge(svc, { spec: { ports: [{ port: 80, targetPort: 9090 }], selector: { $patch: 'replace', c: 'd' } } });
  assert.deepEqual(out.spec.ports, [{ port: 80, targetPort: 9090 }, { port: 443 }]);
  assert.deepEqual(out.spec.selector, { c: 'd' });
  const ordered = strategicMerge(
    { spec: { containers: [{ name: 'a' }, { name: 'b' }] } },
    { spec: { $setElementOrder: undefined, containers: [{ name: 'c' }], '$setElementOrder/containers': [{ name: 'c' }, { name: 'b' }, { name: 'a' }] } },
  );
  assert.deepEqual(ordered.spec.containers.map((c: any) => c.name), ['c', 'b', 'a']);
  const fin = strategicMerge({ metadata: { finalizers: ['x'] } }, { metadata: { finalizers: ['y'], '$deleteFromPrimitiveList/finalizers': ['x'] } });
  assert.deepEqual(fin.metadata.finalizers, ['y']);
  const retain = strategicMerge({ spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } }, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } });
  assert.deepEqual(retain.spec.strategy, { type: 'Recreate' });
  assert.deepEqual(applyMergePatch({ a: { b: 1, c: 2 } }, { a: { b: null } }), { a: { c: 2 } });
  assert.deepEqual(applyJsonPatch({ a: [1, 2] }, [{ op: 'add', path: '/a/-', value: 3 }]), { a: [1, 2, 3] });
});

test('unknown patch content types get 415; strategic merge on a custom resource gets 415', async () => {
  await withSandbox(async ({ sb, objects }) => {
    const r = await raw(sb, 'PATCH', '/api/v1/namespaces/default/configmaps/x', { body: '{}', headers: { 'content-type': 'text/plain' } });
    assert.equal(r.status, 415);
    assert.equal(r.json().reason, 'UnsupportedMediaType');
    await objects.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'things', singular: 'thing', kind: 'Thing' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    } as k8s.KubernetesObject);
    await objects.create({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { a: 1 } } as k8s.KubernetesObject);
    const f = await failure(objects.patch({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { a: 2 } } as k8s.KubernetesObject));
    assert.equal(f.code, 415);
    const ok = await objects.patch(
      { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { a: 2 } } as k8s.KubernetesObject,
      undefined,
      undefined,
      undefined,
      undefined,
      k8s.PatchStrategy.MergePatch,
    );
    assert.equal((ok as any).spec.a, 2);
  });
});

test('server-side apply: create, update, managedFields, conflicts between managers, force', async () => {
  await withSandbox(async ({ objects, sb }) => {
    const desired: k8s.KubernetesObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'default', labels: { a: '1' } }, data: { x: '1', y: '2' } } as k8s.KubernetesObject;
    const created = await objects.patch(desired, undefined, undefined, 'mgr-a', undefined, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual((created as any).data, { x: '1', y: '2' });
    const mf = created.metadata!.managedFields!;
    assert.equal(mf.length, 1);
    assert.equal(mf[0].manager, 'mgr-a');
    assert.equal(mf[0].operation, 'Apply');
    assert.deepEqual(mf[0].fieldsV1, { 'f:data': { 'f:x': {}, 'f:y': {} }, 'f:metadata': { 'f:labels': { 'f:a': {} } } });

    // another manager takes a different field without conflict
    await objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'default' }, data: { z: '3' } },
      undefined, undefined, 'mgr-b', undefined, k8s.PatchStrategy.ServerSideApply,
    );
    // ...but changing a field owned by mgr-a conflicts
    const c = await failure(
      objects.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'default' }, data: { x: 'other' } },
        undefined, undefined, 'mgr-b', false, k8s.PatchStrategy.ServerSideApply,
      ),
    );
    assert.equal(c.code, 409);
    assert.equal(c.status.reason, 'Conflict');
    assert.match(c.status.message, /conflict with "mgr-a".*\.data\.x/);
    assert.equal(c.status.details.causes[0].type, 'FieldManagerConflict');
    // same value: shared ownership, no conflict (stored although no value changed)
    const shared = await objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'default' }, data: { z: '3', y: '2' } } as k8s.KubernetesObject,
      undefined, undefined, 'mgr-b', false, k8s.PatchStrategy.ServerSideApply,
    );
    const stored = await objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'default' } });
    assert.equal(stored.metadata!.resourceVersion, shared.metadata!.resourceVersion);
    const owners = (field: string): string[] =>
      stored.metadata!.managedFields!.filter((m) => (m.fieldsV1 as any)['f:data']?.[field]).map((m) => m.manager!).sort();
    assert.deepEqual(owners('f:y'), ['mgr-a', 'mgr-b']);
    // the same apply again changes nothing: no new resourceVersion
    const again = await objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'default' }, data: { z: '3', y: '2' } } as k8s.KubernetesObject,
      undefined, undefined, 'mgr-b', false, k8s.PatchStrategy.ServerSideApply,
    );
    assert.equal(again.metadata!.resourceVersion, shared.metadata!.resourceVersion);
    // force takes ownership
    const forced = await objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'default' }, data: { z: '3', y: '2', x: 'other' } } as k8s.KubernetesObject,
      undefined, undefined, 'mgr-b', true, k8s.PatchStrategy.ServerSideApply,
    );
    assert.equal((forced as any).data.x, 'other');
    const a = forced.metadata!.managedFields!.find((m) => m.manager === 'mgr-a')!;
    assert.deepEqual(Object.keys((a.fieldsV1 as any)['f:data']), ['f:y']);
    // mgr-a stops applying y: it stays (mgr-b co-owns it); it stops applying the label: the label goes
    const after = await objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'default' } } as k8s.KubernetesObject,
      undefined, undefined, 'mgr-a', false, k8s.PatchStrategy.ServerSideApply,
    );
    assert.deepEqual((after as any).data, { x: 'other', y: '2', z: '3' });
    assert.equal(after.metadata!.labels, undefined);
    // fieldManager is required
    const r = await raw(sb, 'PATCH', '/api/v1/namespaces/default/configmaps/ssa', {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n',
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.equal(r.status, 422);
    // YAML bodies work
    const y = await raw(sb, 'PATCH', '/api/v1/namespaces/default/configmaps/ssa?fieldManager=yaml-mgr', {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  q: "9"\n',
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.equal(y.status, 200);
    assert.equal(y.json().data.q, '9');
  });
});

test('server-side apply merges keyed lists and conflicts with an Update manager', async () => {
  await withSandbox(async ({ objects, apps }) => {
    const d = pod();
    (d.metadata as any).namespace = 'default';
    await objects.patch(d as k8s.KubernetesObject, undefined, undefined, 'deployer', true, k8s.PatchStrategy.ServerSideApply);
    // an ordinary update by another manager takes spec.replicas
    await apps.patchNamespacedDeployment({ name: 'web', namespace: 'default', body: { spec: { replicas: 5 } }, fieldManager: 'scaler' }, merge);
    const conflict = await failure(objects.patch({ ...d, spec: { ...d.spec!, replicas: 2 } } as k8s.KubernetesObject, undefined, undefined, 'deployer', false, k8s.PatchStrategy.ServerSideApply));
    assert.equal(conflict.code, 409);
    assert.match(conflict.status.message, /"scaler".*\.spec\.replicas/);
    // a second applier adds a container by key without touching the others
    const added = await objects.patch(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default' },
        spec: { template: { spec: { containers: [{ name: 'extra', image: 'x' }] } } },
      } as k8s.KubernetesObject,
      undefined, undefined, 'sidecar-injector', false, k8s.PatchStrategy.ServerSideApply,
    );
    assert.deepEqual((added as any).spec.template.spec.containers.map((c: any) => c.name), ['main', 'side', 'extra']);
  });
});

test('server-side apply removes what a manager stops applying, also inside keyed list items, and stores it', async () => {
  await withSandbox(async ({ objects, apps }) => {
    const d = pod();
    (d.metadata as any).namespace = 'default';
    const first = await objects.patch(d as k8s.KubernetesObject, undefined, undefined, 'deployer', false, k8s.PatchStrategy.ServerSideApply);
    // the next configuration drops env B of container main and the whole container side
    const next = pod();
    (next.metadata as any).namespace = 'default';
    const spec = next.spec!.template.spec!;
    spec.containers = [{ ...spec.containers[0], env: [{ name: 'A', value: '1' }] }];
    const applied = await objects.patch(next as k8s.KubernetesObject, undefined, undefined, 'deployer', false, k8s.PatchStrategy.ServerSideApply);
    assert.ok(Number(applied.metadata!.resourceVersion) > Number(first.metadata!.resourceVersion), 'a change was stored');
    const stored = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    const containers = stored.spec!.template.spec!.containers;
    assert.deepEqual(containers.map((c) => c.name), ['main']);
    assert.deepEqual(containers[0].env!.map((e) => `${e.name}=${e.value}`), ['A=1']);
    const owned = JSON.stringify(stored.metadata!.managedFields!.find((m) => m.manager === 'deployer')!.fieldsV1);
    assert.ok(owned.includes('k:{\\"name\\":\\"A\\"}') && !owned.includes('k:{\\"name\\":\\"B\\"}') && !owned.includes('side'), owned);
    // dropping the last env entry removes the list, not leaves it empty
    spec.containers = [{ ...spec.containers[0], env: undefined }];
    await objects.patch(next as k8s.KubernetesObject, undefined, undefined, 'deployer', false, k8s.PatchStrategy.ServerSideApply);
    const noEnv = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    assert.equal(noEnv.spec!.template.spec!.containers[0].env, undefined);
    assert.equal(noEnv.spec!.template.spec!.containers[0].image, 'nginx:1');
  });
});

test('a status subresource write owns the status fields it changed, and leaves the spec fields with their manager', async () => {
  await withSandbox(async ({ sb }) => {
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } };
    const created = await raw(sb, 'POST', '/api/v1/namespaces/default/pods?fieldManager=creator', { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    assert.equal(created.status, 201, created.text);
    const patched = await raw(sb, 'PATCH', '/api/v1/namespaces/default/pods/p/status?fieldManager=kubelet-ish', {
      body: JSON.stringify({ status: { message: 'hello', conditions: [{ type: 'Ready', status: 'True' }] } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patched.status, 200, patched.text);
    const mf = patched.json().metadata.managedFields as { manager: string; operation: string; subresource?: string; fieldsV1: Record<string, any> }[];
    const creator = mf.find((m) => m.manager === 'creator')!;
    assert.ok(creator.fieldsV1['f:spec'], 'the creator keeps its spec fields');
    assert.equal(creator.fieldsV1['f:status'], undefined);
    const status = mf.find((m) => m.manager === 'kubelet-ish')!;
    assert.equal(status.operation, 'Update');
    assert.equal(status.subresource, 'status');
    assert.deepEqual(Object.keys(status.fieldsV1), ['f:status']);
    assert.ok(status.fieldsV1['f:status']['f:message']);
    assert.ok(status.fieldsV1['f:status']['f:conditions']);
  });
});
