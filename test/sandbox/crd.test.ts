import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { collectWatch, failure, raw, withSandbox } from './helpers.js';

const crd = (scope: 'Namespaced' | 'Cluster' = 'Namespaced'): k8s.V1CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope,
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
      },
      { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } } },
      { name: 'v1alpha1', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } } },
    ],
  },
});

/** The widgets CRD with its v1 version only, whose `spec` has this schema. */
function crdWithSpec(spec: k8s.V1JSONSchemaProps): k8s.V1CustomResourceDefinition {
  const def = crd();
  def.spec.versions = [{ ...def.spec.versions[0], schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', ...spec } } } } }];
  return def;
}

test('a CRD serves its resources in all its versions, with its scope and status subresource', async () => {
  await withSandbox(async ({ kc, custom, objects, sb }) => {
    const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
    const created = await ext.createCustomResourceDefinition({ body: crd() });
    const established = created.status!.conditions!.find((c) => c.type === 'Established')!;
    assert.equal(established.status, 'True');
    assert.equal(created.status!.acceptedNames!.kind, 'Widget');
    assert.deepEqual(created.status!.storedVersions, ['v1']);

    const res = await raw(sb, 'GET', '/apis/example.com/v1');
    const widgets = res.json().resources.find((r: any) => r.name === 'widgets');
    assert.deepEqual(
      { namespaced: widgets.namespaced, kind: widgets.kind, singularName: widgets.singularName, shortNames: widgets.shortNames },
      { namespaced: true, kind: 'Widget', singularName: 'widget', shortNames: ['wd'] },
    );
    assert.ok(res.json().resources.some((r: any) => r.name === 'widgets/status'));
    assert.equal((await raw(sb, 'GET', '/apis/example.com/v1beta1')).status, 200);
    assert.equal((await raw(sb, 'GET', '/apis/example.com/v1alpha1')).status, 404, 'a version with served: false is not served');
    const group = (await kc.makeApiClient(k8s.ApisApi).getAPIVersions()).groups.find((g) => g.name === 'example.com')!;
    assert.equal(group.preferredVersion!.version, 'v1');

    const w = await custom.createNamespacedCustomObject({
      group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 }, status: { ready: true } },
    });
    assert.equal(w.metadata.generation, 1);
    assert.equal(w.status, undefined, 'status is ignored on create when the status subresource is on');
    // served in the other version too
    const beta = await custom.getNamespacedCustomObject({ group: 'example.com', version: 'v1beta1', namespace: 'default', plural: 'widgets', name: 'w1' });
    assert.equal(beta.apiVersion, 'example.com/v1beta1');
    assert.equal(beta.spec.size, 3);
    // status subresource
    const st = await custom.patchNamespacedCustomObjectStatus(
      { group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', name: 'w1', body: { status: { ready: true }, spec: { size: 99 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.equal(st.status.ready, true);
    assert.equal(st.spec.size, 3);
    // spec change bumps the generation, ignores status
    const upd = await custom.replaceNamespacedCustomObject({
      group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', name: 'w1',
      body: { ...st, spec: { size: 4 }, status: { ready: false } },
    });
    assert.equal(upd.metadata.generation, 2);
    assert.equal(upd.status.ready, true);
    // update without resourceVersion is refused for custom resources
    const noRv = await failure(custom.replaceNamespacedCustomObject({
      group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', name: 'w1',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 5 } },
    }));
    assert.equal(noRv.code, 422);
    // KubernetesObjectApi discovers the kind
    const list = await objects.list('example.com/v1', 'Widget', 'default');
    assert.deepEqual(list.items.map((i) => i.metadata!.name), ['w1']);
    // a version added to the CRD is served at once, with the objects
    const current = await ext.readCustomResourceDefinition({ name: 'widgets.example.com' });
    current.spec.versions.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } } });
    await ext.replaceCustomResourceDefinition({ name: 'widgets.example.com', body: current });
    const v2 = await custom.getNamespacedCustomObject({ group: 'example.com', version: 'v2', namespace: 'default', plural: 'widgets', name: 'w1' });
    assert.equal(v2.apiVersion, 'example.com/v2');
    assert.equal(v2.spec.size, 4);
  });
});

test('cluster-scoped custom resources', async () => {
  await withSandbox(async ({ kc, custom }) => {
    await kc.makeApiClient(k8s.ApiextensionsV1Api).createCustomResourceDefinition({ body: crd('Cluster') });
    const w = await custom.createClusterCustomObject({
      group: 'example.com', version: 'v1', plural: 'widgets',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'global' }, spec: {} },
    });
    assert.equal(w.metadata.namespace, undefined);
    const items = (await custom.listClusterCustomObject({ group: 'example.com', version: 'v1', plural: 'widgets' })).items;
    assert.equal(items.length, 1);
    const nsPath = await failure(custom.listNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' }));
    assert.equal(nsPath.code, 404, 'a cluster-scoped resource has no namespaced path');
  });
});

test('deleting a CRD removes its resources and its objects (DELETED events, then 404)', async () => {
  await withSandbox(async ({ kc, custom, sb }) => {
    const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
    await ext.createCustomResourceDefinition({ body: crd() });
    for (const name of ['a', 'b']) {
      await custom.createNamespacedCustomObject({
        group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets',
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name } },
      });
    }
    const w = collectWatch(kc, '/apis/example.com/v1/widgets', { resourceVersion: sb.resourceVersion() }, (ev) => ev.length >= 2);
    await w.ready;
    await ext.deleteCustomResourceDefinition({ name: 'widgets.example.com' });
    const events = await w.done;
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['DELETED a', 'DELETED b']);
    assert.equal((await raw(sb, 'GET', '/apis/example.com/v1')).status, 404);
    const groups = (await kc.makeApiClient(k8s.ApisApi).getAPIVersions()).groups.map((g) => g.name);
    assert.ok(!groups.includes('example.com'), 'the group is gone from /apis');
    assert.equal((await raw(sb, 'GET', '/apis/example.com/v1/namespaces/default/widgets')).status, 404);
    // recreate: empty
    await ext.createCustomResourceDefinition({ body: crd() });
    const items = (await custom.listNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' })).items;
    assert.equal(items.length, 0);
  });
});

test('invalid CRDs are refused with 422', async () => {
  await withSandbox(async ({ kc }) => {
    const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
    const bad = crd();
    bad.metadata!.name = 'wrong.example.com';
    const f = await failure(ext.createCustomResourceDefinition({ body: bad }));
    assert.equal(f.code, 422);
    assert.equal(f.status.reason, 'Invalid');
  });
});

test('server-side apply of custom resources uses x-kubernetes-list-map-keys from the schema', async () => {
  await withSandbox(async ({ kc, objects }) => {
    const def = crdWithSpec({
      properties: {
        items: {
          type: 'array',
          x_kubernetes_list_type: 'map',
          x_kubernetes_list_map_keys: ['id'],
          items: { type: 'object', properties: { id: { type: 'string' }, v: { type: 'string' } } },
        },
      },
    });
    await kc.makeApiClient(k8s.ApiextensionsV1Api).createCustomResourceDefinition({ body: def });
    const base = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'm', namespace: 'default' } };
    await objects.patch({ ...base, spec: { items: [{ id: 'a', v: '1' }] } } as k8s.KubernetesObject, undefined, undefined, 'one', false, k8s.PatchStrategy.ServerSideApply);
    const r = await objects.patch({ ...base, spec: { items: [{ id: 'b', v: '2' }] } } as k8s.KubernetesObject, undefined, undefined, 'two', false, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual((r as any).spec.items, [{ id: 'a', v: '1' }, { id: 'b', v: '2' }]);
  });
});

test('custom resources get the defaults of their schema', async () => {
  await withSandbox(async ({ kc, custom }) => {
    const def = crdWithSpec({
      properties: {
        size: { type: 'integer', _default: 1 },
        mode: { type: 'string', _default: 'fast' },
        items: { type: 'array', items: { type: 'object', properties: { weight: { type: 'integer', default: 10 } } } },
      },
    });
    await kc.makeApiClient(k8s.ApiextensionsV1Api).createCustomResourceDefinition({ body: def });
    const w = await custom.createNamespacedCustomObject({
      group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'd' }, spec: { mode: 'slow', items: [{}, { weight: 2 }] } },
    });
    assert.deepEqual(w.spec, { mode: 'slow', items: [{ weight: 10 }, { weight: 2 }], size: 1 });
  });
});

test('custom resources are validated against their schema (422 Invalid)', async () => {
  await withSandbox(async ({ kc, custom }) => {
    const def = crdWithSpec({
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1 },
        mode: { type: 'string', _enum: ['fast', 'slow'] },
        port: { x_kubernetes_int_or_string: true },
      },
    });
    await kc.makeApiClient(k8s.ApiextensionsV1Api).createCustomResourceDefinition({ body: def });
    const make = (spec: unknown): Promise<unknown> =>
      custom.createNamespacedCustomObject({
        group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets',
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { generateName: 'v-' }, spec },
      });
    await make({ size: 2, mode: 'fast', port: 'http' });
    await make({ size: 2, port: 80 });
    const wrongType = await failure(make({ size: 'big' }));
    assert.equal(wrongType.code, 422);
    assert.equal(wrongType.status.reason, 'Invalid');
    assert.equal(wrongType.status.details.causes[0].field, 'spec.size');
    assert.match(wrongType.status.message, /spec\.size in body must be of type integer/);
    const missing = await failure(make({ mode: 'fast' }));
    assert.equal(missing.status.details.causes[0].field, 'spec.size');
    assert.equal(missing.status.details.causes[0].type, 'FieldValueRequired');
    const badEnum = await failure(make({ size: 1, mode: 'medium' }));
    assert.match(badEnum.status.message, /Unsupported value: "medium"/);
    const tooSmall = await failure(make({ size: 0 }));
    assert.equal(tooSmall.code, 422);
  });
});
