// Kubernetes Status errors: the code, reason, message and details the real API server sends, as
// client-node surfaces them (ApiException with the Status as its body).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { cm, collectWatch, failure, raw, withSandbox } from './helpers.js';

/** The parts of a Status a client looks at. */
function status(f: { code: number; status: any }): { code: number; kind: string; status: string; reason: string; message: string } {
  return { code: f.code, kind: f.status.kind, status: f.status.status, reason: f.status.reason, message: f.status.message };
}

const failed = (code: number, reason: string, message: string): { code: number; kind: string; status: string; reason: string; message: string } => ({
  code,
  kind: 'Status',
  status: 'Failure',
  reason,
  message,
});

test('NotFound (404): a missing object, a missing namespace, an unknown resource', async () => {
  await withSandbox(async ({ core, apps, sb }) => {
    const f = await failure(core.readNamespacedConfigMap({ name: 'zzz', namespace: 'default' }));
    assert.deepEqual(status(f), failed(404, 'NotFound', 'configmaps "zzz" not found'));
    assert.deepEqual(f.status.details, { name: 'zzz', kind: 'configmaps' });
    const d = await failure(apps.deleteNamespacedDeployment({ name: 'web', namespace: 'default' }));
    assert.deepEqual(status(d), failed(404, 'NotFound', 'deployments.apps "web" not found'));
    assert.deepEqual(d.status.details, { name: 'web', group: 'apps', kind: 'deployments' });
    const ns = await failure(core.createNamespacedConfigMap({ namespace: 'nope', body: cm('x') }));
    assert.deepEqual(status(ns), failed(404, 'NotFound', 'namespaces "nope" not found'));
    const path = await raw(sb, 'GET', '/apis/example.com/v1/widgets');
    assert.equal(path.status, 404);
    assert.equal(path.json().reason, 'NotFound');
    assert.equal(path.json().message, 'the server could not find the requested resource');
  });
});

test('AlreadyExists (409) on create', async () => {
  await withSandbox(async ({ core, apps }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    const f = await failure(core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') }));
    assert.deepEqual(status(f), failed(409, 'AlreadyExists', 'configmaps "a" already exists'));
    assert.deepEqual(f.status.details, { name: 'a', kind: 'configmaps' });
    const dep = { metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } } };
    await apps.createNamespacedDeployment({ namespace: 'default', body: dep });
    const g = await failure(apps.createNamespacedDeployment({ namespace: 'default', body: dep }));
    assert.deepEqual(status(g), failed(409, 'AlreadyExists', 'deployments.apps "d" already exists'));
  });
});

test('Conflict (409) on an update with a stale resourceVersion, on a patch carrying one, and on delete preconditions', async () => {
  await withSandbox(async ({ core }) => {
    const a = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    await core.replaceNamespacedConfigMap({ name: 'a', namespace: 'default', body: { ...a, data: { v: '1' } } });
    const msg = 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again';
    const f = await failure(core.replaceNamespacedConfigMap({ name: 'a', namespace: 'default', body: { ...a, data: { v: '2' } } }));
    assert.deepEqual(status(f), failed(409, 'Conflict', msg));
    assert.deepEqual(f.status.details, { name: 'a', kind: 'configmaps' });
    const p = await failure(
      core.patchNamespacedConfigMap(
        { name: 'a', namespace: 'default', body: { metadata: { resourceVersion: a.metadata!.resourceVersion }, data: { v: '3' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      ),
    );
    assert.deepEqual(status(p), failed(409, 'Conflict', msg));
    const pre = await failure(core.deleteNamespacedConfigMap({ name: 'a', namespace: 'default', body: { preconditions: { resourceVersion: a.metadata!.resourceVersion } } }));
    assert.equal(pre.code, 409);
    assert.equal(pre.status.reason, 'Conflict');
    assert.match(pre.status.message, /^Operation cannot be fulfilled on configmaps "a": Precondition failed: ResourceVersion in precondition: \d+, ResourceVersion in meta: \d+$/);
  });
});

test('Invalid (422) with one cause per problem', async () => {
  await withSandbox(async ({ core }) => {
    const f = await failure(core.createNamespacedConfigMap({ namespace: 'default', body: cm('Not_Valid') }));
    assert.deepEqual(
      status(f),
      failed(
        422,
        'Invalid',
        `ConfigMap "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ),
    );
    assert.equal(f.status.details.kind, 'ConfigMap');
    assert.equal(f.status.details.name, 'Not_Valid');
    assert.deepEqual(
      f.status.details.causes.map((c: any) => [c.type, c.field]),
      [['FieldValueInvalid', 'metadata.name']],
    );
    const ns = await failure(core.createNamespace({ body: { metadata: { name: 'a.b' } } }));
    assert.match(ns.status.message, /^Namespace "a\.b" is invalid: metadata\.name: Invalid value: "a\.b": a lowercase RFC 1123 label must consist of/);
    const svc = await failure(core.createNamespacedService({ namespace: 'default', body: { metadata: { name: '1svc' }, spec: { ports: [{ port: 80 }] } } }));
    assert.match(svc.status.message, /^Service "1svc" is invalid: metadata\.name: Invalid value: "1svc": a DNS-1035 label must consist of/);
    const none = await failure(core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: {} } }));
    assert.equal(none.code, 422);
    assert.equal(none.status.details.causes[0].type, 'FieldValueRequired');
    assert.equal(none.status.details.causes[0].field, 'metadata.name');
  });
});

test('BadRequest (400): a body for another namespace, an undecodable body, a bad selector', async () => {
  await withSandbox(async ({ core, sb }) => {
    const ns = await failure(core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'q', namespace: 'kube-system' } } }));
    assert.deepEqual(status(ns), failed(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request'));
    const kind = await failure(core.createNamespacedConfigMap({ namespace: 'default', body: { kind: 'Secret', metadata: { name: 'q' } } as k8s.V1ConfigMap }));
    assert.deepEqual(status(kind), failed(400, 'BadRequest', 'the kind in the data (Secret) does not match the expected kind (ConfigMap)'));
    const sel = await failure(core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'a in (' }));
    assert.equal(sel.code, 400);
    assert.equal(sel.status.reason, 'BadRequest');
    const body = await raw(sb, 'POST', '/api/v1/namespaces/default/configmaps', { body: '{not json', headers: { 'content-type': 'application/json' } });
    assert.equal(body.status, 400);
    assert.equal(body.json().reason, 'BadRequest');
  });
});

test('MethodNotAllowed (405): a verb a resource does not offer', async () => {
  await withSandbox(async ({ objects, sb }) => {
    // access reviews can only be created
    const f = await failure(objects.list('authorization.k8s.io/v1', 'SelfSubjectAccessReview'));
    assert.deepEqual(status(f), failed(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
    // namespaces have no deletecollection: every namespace stays
    const dc = await raw(sb, 'DELETE', '/api/v1/namespaces');
    assert.equal(dc.status, 405);
    assert.equal(dc.json().reason, 'MethodNotAllowed');
    assert.equal((await raw(sb, 'GET', '/api/v1/namespaces/default')).status, 200);
    const post = await raw(sb, 'POST', '/api/v1/namespaces/default/configmaps/x', { body: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(post.status, 405);
    assert.equal(post.json().reason, 'MethodNotAllowed');
  });
});

test('UnsupportedMediaType (415): strategic merge patch of a custom resource, an unknown patch type, an unknown body type', async () => {
  await withSandbox(async ({ kc, objects, sb }) => {
    await kc.makeApiClient(k8s.ApiextensionsV1Api).createCustomResourceDefinition({
      body: {
        metadata: { name: 'things.example.com' },
        spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true }] },
      },
    });
    const thing = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't', namespace: 'default' } };
    await objects.create(thing);
    // KubernetesObjectApi.patch sends a strategic merge patch by default
    const f = await failure(objects.patch({ ...thing, spec: { a: 1 } } as k8s.KubernetesObject));
    assert.deepEqual(
      status(f),
      failed(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml'),
    );
    const cmPatch = await raw(sb, 'PATCH', '/api/v1/namespaces/default/configmaps/x', { body: '{}', headers: { 'content-type': 'text/plain' } });
    assert.equal(cmPatch.status, 415);
    assert.equal(
      cmPatch.json().message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
    const post = await raw(sb, 'POST', '/api/v1/namespaces/default/configmaps', { body: 'x', headers: { 'content-type': 'text/csv' } });
    assert.equal(post.status, 415);
    assert.equal(post.json().reason, 'UnsupportedMediaType');
  });
});

test('Gone (410, reason Expired): a watch from a compacted resourceVersion, an expired continue token', async () => {
  await withSandbox(async ({ core, kc, sb }) => {
    const old = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
    const page = await core.listNamespacedConfigMap({ namespace: 'default', limit: 1 });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('d') });
    sb.compactHistory();
    const w = collectWatch(kc, '/api/v1/namespaces/default/configmaps', { resourceVersion: old.metadata!.resourceVersion }, (ev) => ev.length >= 1);
    const [ev] = await w.done;
    assert.equal(ev.type, 'ERROR');
    assert.deepEqual(
      { kind: ev.object.kind, status: ev.object.status, code: ev.object.code, reason: ev.object.reason, message: ev.object.message },
      { kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message: `too old resource version: ${old.metadata!.resourceVersion} (${sb.resourceVersion()})` },
    );
    const f = await failure(core.listNamespacedConfigMap({ namespace: 'default', limit: 1, _continue: page.metadata!._continue }));
    assert.deepEqual(
      status(f),
      failed(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.'),
    );
  });
});

test('Forbidden (403): content in a terminating namespace; deleting default, kube-system or kube-public', async () => {
  await withSandbox(async ({ core }) => {
    await core.createNamespace({ body: { metadata: { name: 'going' } } });
    await core.createNamespacedConfigMap({ namespace: 'going', body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    await core.deleteNamespace({ name: 'going' });
    const f = await failure(core.createNamespacedConfigMap({ namespace: 'going', body: cm('late') }));
    assert.deepEqual(status(f), failed(403, 'Forbidden', 'configmaps "late" is forbidden: unable to create new content in namespace going because it is being terminated'));
    for (const name of ['default', 'kube-system', 'kube-public']) {
      const d = await failure(core.deleteNamespace({ name }));
      assert.deepEqual(status(d), failed(403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`));
      const ns = await core.readNamespace({ name });
      assert.equal(ns.metadata!.deletionTimestamp, undefined);
      assert.equal(ns.status!.phase, 'Active');
    }
  });
});
