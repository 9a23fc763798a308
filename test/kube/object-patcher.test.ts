import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { RestMapper } from '../../src/kube/mapper.js';
import { ObjectOperationError, ObjectPatcher } from '../../src/kube/object-patcher.js';
import { toKubeOperation } from '../../src/hooks/outputs/kubernetes.js';
import { waitFor as until } from '../helpers/wait.js';
import { rejection } from '../helpers/wait.js';
import { crd } from '../helpers/crd.js';

const HOOK = 'hooks/test.sh';

async function setup(t: { after: (fn: () => Promise<void>) => void }, opts: { foregroundDeleteTimeoutMs?: number } = {}) {
  const sandbox = await startSandbox({ logRequestBodies: true });
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  const patcher = new ObjectPatcher({ kc, mapper: new RestMapper(kc, { minRefreshIntervalMs: 50 }), ...opts });
  /** Runs operation specs as a hook writes them (validated by the hook output parser). */
  const run = (specs: unknown[], hookFailed = false) =>
    patcher.applyOperations(
      specs.map((s, i) => toKubeOperation(s, `operation ${i + 1}`)),
      { hook: HOOK, hookFailed },
    );
  const cmOf = (name: string, ns = 'default') => sandbox.getObject('v1', 'ConfigMap', ns, name);
  return { sandbox, kc, run, cmOf };
}

function cm(name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', ...extra }, data };
}

const WIDGET_CRD = crd('Widget', { shortNames: ['wd'] });

const widget = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { size: 1 } });

function deleteBodies(sandbox: Sandbox): Record<string, unknown>[] {
  return sandbox.requests.filter((r) => r.method === 'DELETE').map((r) => ({ path: r.path, ...JSON.parse(r.body ?? '{}') }));
}

test('Create, CreateIfNotExists and CreateOrUpdate (a full update, not a merge)', async (t) => {
  const { run, cmOf } = await setup(t);
  await run([{ operation: 'Create', object: cm('a', { x: '1' }) }]);
  assert.deepEqual(cmOf('a')?.data, { x: '1' });

  const e = await rejection(run([{ operation: 'Create', object: cm('a', { x: '2' }) }]));
  assert.ok(e instanceof ObjectOperationError);
  assert.equal(e.index, 1);
  assert.equal(
    e.message,
    'hook hooks/test.sh: Kubernetes operation 1 (Create ConfigMap default/a) failed: POST /api/v1/namespaces/default/configmaps: 409 configmaps "a" already exists',
  );

  await run([{ operation: 'CreateIfNotExists', object: cm('a', { x: '3' }) }]);
  assert.deepEqual(cmOf('a')?.data, { x: '1' });
  await run([{ operation: 'CreateIfNotExists', object: cm('b', { y: '1' }) }]);
  assert.deepEqual(cmOf('b')?.data, { y: '1' });

  await run([{ operation: 'CreateOrUpdate', object: cm('a', { z: '4' }) }]);
  assert.deepEqual(cmOf('a')?.data, { z: '4' });
  // the object may be a YAML string, as hooks write it
  await run([{ operation: 'CreateOrUpdate', object: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {k: v}\n' }]);
  assert.deepEqual(cmOf('c')?.data, { k: 'v' });
});

test('cluster-scoped kinds ignore the namespace; namespaced ones need it', async (t) => {
  const { sandbox, run } = await setup(t);
  await run([
    { operation: 'Create', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader', namespace: 'default' }, rules: [] } },
    { operation: 'MergePatch', kind: 'Namespace', namespace: 'somewhere', name: 'default', mergePatch: { metadata: { labels: { team: 'a' } } } },
  ]);
  const role = sandbox.getObject('rbac.authorization.k8s.io/v1', 'ClusterRole', '', 'reader');
  assert.equal(role?.metadata.name, 'reader');
  assert.equal(role?.metadata.namespace, undefined);
  assert.equal(sandbox.getObject('v1', 'Namespace', '', 'default')?.metadata.labels.team, 'a');

  const noNs = await rejection(run([{ operation: 'Create', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } }]));
  assert.equal(noNs.message, 'hook hooks/test.sh: Kubernetes operation 1 (Create ConfigMap x) failed: ConfigMap is namespaced: the object needs metadata.namespace');
  const noNs2 = await rejection(run([{ operation: 'Delete', kind: 'ConfigMap', name: 'x' }]));
  assert.match(noNs2.message, /operation 1 \(Delete ConfigMap x\) failed: ConfigMap "x": the kind is namespaced, so a namespace is needed$/);
});

test('Delete, DeleteInBackground and DeleteNonCascading: propagation policies and dependents', async (t) => {
  const { sandbox, kc, run, cmOf } = await setup(t);
  const path = '/api/v1/namespaces/default/configmaps';
  for (const owner of ['fg', 'bg', 'orphan']) {
    const o = await requestJson<{ metadata: { uid: string } }>(kc, 'POST', path, {}, cm(owner, {}));
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid: o.metadata.uid }];
    await requestJson(kc, 'POST', path, {}, cm(`${owner}-dep`, {}, { ownerReferences }));
  }
  sandbox.clearRequestLog();
  await run([
    { operation: 'Delete', kind: 'ConfigMap', namespace: 'default', name: 'fg' },
    { operation: 'DeleteInBackground', kind: 'cm', namespace: 'default', name: 'bg' },
    { operation: 'DeleteNonCascading', apiVersion: 'v1', kind: 'configmaps', namespace: 'default', name: 'orphan' },
    { operation: 'Delete', kind: 'ConfigMap', namespace: 'default', name: 'never-existed' },
  ]);
  assert.deepEqual(
    deleteBodies(sandbox).map((b) => `${String(b.path).split('/').pop()} ${String(b.propagationPolicy)}`),
    ['fg Foreground', 'bg Background', 'orphan Orphan', 'never-existed Foreground'],
  );
  for (const owner of ['fg', 'bg', 'orphan']) assert.equal(cmOf(owner), undefined, owner);
  await until(() => !cmOf('fg-dep') && !cmOf('bg-dep'), 'the garbage collector');
  assert.ok(cmOf('orphan-dep'), 'the dependent of a non-cascading delete stays');
});

test('Delete (foreground) waits until the object is gone, and fails when it stays', async (t) => {
  const { sandbox, run, cmOf } = await setup(t, { foregroundDeleteTimeoutMs: 5000 });
  sandbox.load([cm('held', { a: '1' }, { finalizers: ['example.com/hold'] })]);
  let settled = false;
  const deleting = run([{ operation: 'Delete', kind: 'ConfigMap', namespace: 'default', name: 'held' }]).finally(() => {
    settled = true;
  });
  await until(() => Boolean(cmOf('held')?.metadata.deletionTimestamp), 'the deletion to start');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(settled, false, 'still waiting while the finalizer holds the object');
  sandbox.load([cm('held', { a: '1' }, { finalizers: [] })]);
  await deleting;
  assert.equal(cmOf('held'), undefined);

  const quick = await setup(t, { foregroundDeleteTimeoutMs: 300 });
  quick.sandbox.load([cm('stuck', {}, { finalizers: ['example.com/hold'] })]);
  const e = await rejection(quick.run([{ operation: 'Delete', kind: 'ConfigMap', namespace: 'default', name: 'stuck' }]));
  assert.equal(
    e.message,
    'hook hooks/test.sh: Kubernetes operation 1 (Delete ConfigMap default/stuck) failed: the object still exists 0.3s after its foreground deletion (finalizers: example.com/hold)',
  );
});

test('JQPatch: filters the whole object and updates it; no update when nothing changes; missing objects', async (t) => {
  const { sandbox, run, cmOf } = await setup(t);
  sandbox.load([cm('j', { n: '1' })]);
  await run([{ operation: 'JQPatch', kind: 'ConfigMap', namespace: 'default', name: 'j', jqFilter: '.data.n = "2" | .data.m = (.metadata.name)' }]);
  assert.deepEqual(cmOf('j')?.data, { n: '2', m: 'j' });

  sandbox.clearRequestLog();
  await run([{ operation: 'JQPatch', kind: 'ConfigMap', namespace: 'default', name: 'j', jqFilter: '.' }]);
  assert.deepEqual(sandbox.requests.map((r) => r.method), ['GET'], 'an unchanged object is not written');

  const missing = await rejection(run([{ operation: 'JQPatch', kind: 'ConfigMap', namespace: 'default', name: 'nope', jqFilter: '.' }]));
  assert.equal(
    missing.message,
    'hook hooks/test.sh: Kubernetes operation 1 (JQPatch ConfigMap default/nope) failed: GET /api/v1/namespaces/default/configmaps/nope: 404 configmaps "nope" not found',
  );
  await run([{ operation: 'JQPatch', kind: 'ConfigMap', namespace: 'default', name: 'nope', jqFilter: '.', ignoreMissingObject: true }]);

  const notObject = await rejection(run([{ operation: 'JQPatch', kind: 'ConfigMap', namespace: 'default', name: 'j', jqFilter: '.data.n' }]));
  assert.match(notObject.message, /operation 1 \(JQPatch ConfigMap default\/j\) failed: the jq filter must produce one object, it produced "2"$/);
  const bad = await rejection(run([{ operation: 'JQPatch', kind: 'ConfigMap', namespace: 'default', name: 'j', jqFilter: '.data |||' }]));
  assert.match(bad.message, /operation 1 \(JQPatch ConfigMap default\/j\) failed: invalid jq filter '\.data \|\|\|': /);
});

test('JQPatch retries on a conflict: a concurrent write between its read and its update is kept', async (t) => {
  const { sandbox, run, cmOf } = await setup(t);
  sandbox.load([cm('race', { a: '1' })]);
  await run([{ operation: 'MergePatch', kind: 'ConfigMap', namespace: 'default', name: 'race', mergePatch: { data: { warm: 'up' } } }]); // discovery cached
  sandbox.clearRequestLog();
  sandbox.setLatency(150);
  const patching = run([{ operation: 'JQPatch', kind: 'ConfigMap', namespace: 'default', name: 'race', jqFilter: '.data.fromJq = "yes"' }]);
  // the update is on its way (the read was served): change the object under it
  await until(() => sandbox.requests.some((r) => r.method === 'PUT'), 'the first update');
  sandbox.load([cm('race', { a: '1', warm: 'up', concurrent: 'yes' })]);
  await patching;
  sandbox.setLatency(0);
  assert.deepEqual(cmOf('race')?.data, { a: '1', warm: 'up', concurrent: 'yes', fromJq: 'yes' });
  assert.deepEqual(
    sandbox.requests.map((r) => `${r.method} ${r.status}`),
    ['GET 200', 'PUT 409', 'GET 200', 'PUT 200'],
  );
});

test('CreateOrUpdate retries on a conflict too', async (t) => {
  const { sandbox, run, cmOf } = await setup(t);
  sandbox.load([cm('cu', { a: '1' })]);
  await run([{ operation: 'CreateIfNotExists', object: cm('cu', {}) }]); // discovery cached
  sandbox.clearRequestLog();
  sandbox.setLatency(150);
  const updating = run([{ operation: 'CreateOrUpdate', object: cm('cu', { b: '2' }) }]);
  await until(() => sandbox.requests.some((r) => r.method === 'PUT'), 'the first update');
  sandbox.load([cm('cu', { a: 'changed' })]);
  await updating;
  sandbox.setLatency(0);
  assert.deepEqual(cmOf('cu')?.data, { b: '2' });
  assert.deepEqual(
    sandbox.requests.map((r) => `${r.method} ${r.status}`),
    ['POST 409', 'GET 200', 'PUT 409', 'GET 200', 'PUT 200'],
  );
});

test('MergePatch and JSONPatch, with and without ignoreMissingObject; kinds by short name and plural', async (t) => {
  const { sandbox, run, cmOf } = await setup(t);
  sandbox.load([cm('p', { a: '1', b: '2' })]);
  await run([
    { operation: 'MergePatch', kind: 'cm', namespace: 'default', name: 'p', mergePatch: { data: { a: null, c: '3' } } },
    { operation: 'JSONPatch', apiVersion: 'v1', kind: 'configmaps', namespace: 'default', name: 'p', jsonPatch: [{ op: 'replace', path: '/data/b', value: '20' }] },
    { operation: 'MergePatch', kind: 'ConfigMap', namespace: 'default', name: 'gone', mergePatch: { data: { a: '1' } }, ignoreMissingObject: true },
    { operation: 'JSONPatch', kind: 'ConfigMap', namespace: 'default', name: 'gone', jsonPatch: [{ op: 'add', path: '/data/a', value: '1' }], ignoreMissingObject: true },
  ]);
  assert.deepEqual(cmOf('p')?.data, { b: '20', c: '3' });
  const merge = await rejection(run([{ operation: 'MergePatch', kind: 'ConfigMap', namespace: 'default', name: 'gone', mergePatch: { data: { a: '1' } } }]));
  assert.equal(
    merge.message,
    'hook hooks/test.sh: Kubernetes operation 1 (MergePatch ConfigMap default/gone) failed: PATCH /api/v1/namespaces/default/configmaps/gone: 404 configmaps "gone" not found',
  );
  const json = await rejection(run([{ operation: 'JSONPatch', kind: 'ConfigMap', namespace: 'default', name: 'gone', jsonPatch: [{ op: 'add', path: '/data/a', value: '1' }] }]));
  assert.match(json.message, /\(JSONPatch ConfigMap default\/gone\) failed: PATCH .*: 404 configmaps "gone" not found$/);
  const failedTest = await rejection(run([{ operation: 'JSONPatch', kind: 'ConfigMap', namespace: 'default', name: 'p', jsonPatch: [{ op: 'test', path: '/data/b', value: 'other' }] }]));
  assert.match(failedTest.message, /\(JSONPatch ConfigMap default\/p\) failed: PATCH \/api\/v1\/namespaces\/default\/configmaps\/p: 422 /);
});

test('a CRD and its custom resources in one batch; the status subresource', async (t) => {
  const { sandbox, run } = await setup(t);
  await run([
    { operation: 'Create', object: WIDGET_CRD },
    { operation: 'Create', object: widget('w1') },
    { operation: 'MergePatch', kind: 'Widget', namespace: 'default', name: 'w1', subresource: '/status', mergePatch: { status: { phase: 'Ready' }, spec: { size: 9 } } },
    { operation: 'JQPatch', apiVersion: 'example.com/v1', kind: 'wd', namespace: 'default', name: 'w1', subresource: 'status', jqFilter: '.status.count = 1' },
  ]);
  const w = sandbox.getObject('example.com/v1', 'Widget', 'default', 'w1');
  assert.deepEqual(w?.status, { phase: 'Ready', count: 1 });
  assert.deepEqual(w?.spec, { size: 1 }, 'a status write leaves the spec alone');
  assert.ok(sandbox.requests.some((r) => r.method === 'PATCH' && r.path === '/apis/example.com/v1/namespaces/default/widgets/w1/status'));

  const unknown = await rejection(run([{ operation: 'MergePatch', apiVersion: 'example.com/v1', kind: 'Gizmo', namespace: 'default', name: 'g', mergePatch: { a: 1 } }]));
  assert.equal(
    unknown.message,
    'hook hooks/test.sh: Kubernetes operation 1 (MergePatch Gizmo default/g) failed: kind "Gizmo" (apiVersion example.com/v1) is not served by the API server',
  );
  const badSub = await rejection(run([{ operation: 'MergePatch', kind: 'Widget', namespace: 'default', name: 'w1', subresource: '/scale', mergePatch: { a: 1 }, ignoreMissingObject: true }]));
  assert.match(badSub.message, /failed: Widget \(example.com\/v1\) has no subresource "scale": it has status$/);
});

test('after a failed hook only status patches marked ignoreHookError run', async (t) => {
  const { sandbox, run, cmOf } = await setup(t);
  await run([{ operation: 'Create', object: WIDGET_CRD }, { operation: 'Create', object: widget('w') }]);
  sandbox.load([cm('c', { v: 'old' })]);
  const specs = [
    { operation: 'MergePatch', kind: 'ConfigMap', namespace: 'default', name: 'c', mergePatch: { data: { v: 'plain' } } },
    { operation: 'MergePatch', kind: 'ConfigMap', namespace: 'default', name: 'c', mergePatch: { data: { v: 'not-status' } }, ignoreHookError: true },
    { operation: 'Create', object: cm('created', {}), ignoreHookError: true },
    { operation: 'MergePatch', kind: 'Widget', namespace: 'default', name: 'w', subresource: '/status', mergePatch: { status: { failed: true } }, ignoreHookError: true },
    { operation: 'JQPatch', kind: 'Widget', namespace: 'default', name: 'w', subresource: 'status', jqFilter: '.status.reason = "hook failed"', ignoreHookError: true },
    { operation: 'MergePatch', kind: 'Widget', namespace: 'default', name: 'w', subresource: '/status', mergePatch: { status: { unmarked: true } } },
  ];
  await run(specs, true);
  assert.deepEqual(cmOf('c')?.data, { v: 'old' });
  assert.equal(cmOf('created'), undefined);
  assert.deepEqual(sandbox.getObject('example.com/v1', 'Widget', 'default', 'w')?.status, { failed: true, reason: 'hook failed' });

  await run(specs, false);
  assert.deepEqual(cmOf('c')?.data, { v: 'not-status' });
  assert.ok(cmOf('created'));
  assert.equal(sandbox.getObject('example.com/v1', 'Widget', 'default', 'w')?.status.unmarked, true);
});

test('operations run in order and stop at the first failure', async (t) => {
  const { run, cmOf } = await setup(t);
  const e = await rejection(
    run([
      { operation: 'Create', object: cm('first', {}) },
      { operation: 'MergePatch', kind: 'ConfigMap', namespace: 'default', name: 'first', mergePatch: { data: { step: '2' } } },
      { operation: 'MergePatch', kind: 'ConfigMap', namespace: 'default', name: 'missing', mergePatch: { data: { a: '1' } } },
      { operation: 'Create', object: cm('never', {}) },
    ]),
  );
  assert.ok(e instanceof ObjectOperationError);
  assert.equal(e.index, 3);
  assert.match(e.message, /^hook hooks\/test.sh: Kubernetes operation 3 \(MergePatch ConfigMap default\/missing\) failed: /);
  assert.deepEqual(cmOf('first')?.data, { step: '2' });
  assert.equal(cmOf('never'), undefined);
});
