import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { KindNotServedError, RestMapper, type RestMapperOptions } from '../../src/kube/mapper.js';
import { rejection, waitFor } from '../helpers/wait.js';
import { crd } from '../helpers/crd.js';

async function setup(t: { after: (fn: () => Promise<void>) => void }, options?: RestMapperOptions) {
  const sandbox = await startSandbox();
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  return { sandbox, kc, mapper: new RestMapper(kc, options) };
}

const createCrd = (kc: KubeConfig, body: ReturnType<typeof crd>) =>
  requestJson(kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {}, body);

test('resolves a Kind in any case, the plural, the singular and short names, with or without apiVersion', async (t) => {
  const { mapper } = await setup(t);
  for (const [apiVersion, kind] of [
    [undefined, 'Deployment'],
    [undefined, 'deployment'],
    [undefined, 'deployments'],
    [undefined, 'deploy'],
    ['apps/v1', 'DEPLOYMENT'],
    ['apps/v1', 'deploy'],
  ] as const) {
    const info = await mapper.resolve(apiVersion, kind);
    assert.deepEqual(
      { ...info, verbs: info.verbs.includes('list') },
      { apiVersion: 'apps/v1', group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true, verbs: true, subresources: ['status', 'scale'] },
      `${apiVersion ?? '(none)'} ${kind}`,
    );
  }
  const cm = await mapper.resolve(undefined, 'cm');
  assert.equal(cm.kind, 'ConfigMap');
  assert.equal(cm.apiVersion, 'v1');
  assert.equal(cm.group, '');
  assert.deepEqual(cm.subresources, []);
});

test('cluster-scoped kinds and the paths of collections and objects', async (t) => {
  const { mapper } = await setup(t);
  const ns = await mapper.resolve('v1', 'Namespace');
  assert.equal(ns.namespaced, false);
  assert.equal(mapper.collectionPath(ns, 'ignored'), '/api/v1/namespaces');
  assert.equal(mapper.objectPath(ns, 'ignored', 'kube-system', '/status'), '/api/v1/namespaces/kube-system/status');
  const role = await mapper.resolve(undefined, 'clusterroles');
  assert.equal(mapper.objectPath(role, undefined, 'system:admin'), '/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Aadmin');

  const deploy = await mapper.resolve('apps/v1', 'Deployment');
  assert.equal(mapper.collectionPath(deploy), '/apis/apps/v1/deployments');
  assert.equal(mapper.collectionPath(deploy, 'prod'), '/apis/apps/v1/namespaces/prod/deployments');
  assert.equal(mapper.objectPath(deploy, 'prod', 'web', 'status'), '/apis/apps/v1/namespaces/prod/deployments/web/status');
  assert.equal(mapper.objectPath(deploy, 'prod', 'web', '/scale'), '/apis/apps/v1/namespaces/prod/deployments/web/scale');
  const pod = await mapper.resolve('v1', 'Pod');
  assert.equal(mapper.objectPath(pod, 'default', 'p'), '/api/v1/namespaces/default/pods/p');

  assert.throws(() => mapper.objectPath(deploy, undefined, 'web'), /^Error: Deployment "web": the kind is namespaced, so a namespace is needed$/);
  assert.throws(() => mapper.objectPath(deploy, 'prod', 'web', '/stats'), /^Error: Deployment \(apps\/v1\) has no subresource "stats": it has status, scale$/);
  const cm = await mapper.resolve('v1', 'ConfigMap');
  assert.throws(() => mapper.objectPath(cm, 'default', 'c', 'status'), /ConfigMap \(v1\) has no subresource "status": it has none/);
});

test('an unknown kind, or a kind asked for in the wrong group version, is an error naming both', async (t) => {
  const { mapper } = await setup(t, { minRefreshIntervalMs: 50 });
  const e1 = await rejection(mapper.resolve('example.com/v1', 'Foo'));
  assert.ok(e1 instanceof KindNotServedError);
  assert.equal(e1.message, 'kind "Foo" (apiVersion example.com/v1) is not served by the API server');
  const e2 = await rejection(mapper.resolve(undefined, 'Foo'));
  assert.equal(e2.message, 'kind "Foo" (apiVersion any) is not served by the API server');
  const e3 = await rejection(mapper.resolve('apps/v1', 'ConfigMap'));
  assert.equal(e3.message, 'kind "ConfigMap" (apiVersion apps/v1) is not served by the API server');
});

test('discovery is cached: a second resolve makes no request', async (t) => {
  const { sandbox, mapper } = await setup(t);
  await mapper.resolve(undefined, 'Secret');
  sandbox.clearRequestLog();
  await mapper.resolve(undefined, 'Secret');
  await mapper.resolve('apps/v1', 'StatefulSet');
  await mapper.resolve('v1', 'svc');
  assert.equal(sandbox.requests.length, 0);
  mapper.invalidate();
  await mapper.resolve('v1', 'svc');
  assert.deepEqual(sandbox.requests.map((r) => `${r.method} ${r.path}`), ['GET /api/v1']);
});

test('a CRD created at run time is found after one refresh, by kind, short name and without apiVersion', async (t) => {
  const { kc, mapper } = await setup(t, { minRefreshIntervalMs: 50 });
  await assert.rejects(mapper.resolve('example.com/v1', 'Widget'), KindNotServedError);
  await createCrd(kc, crd('Widget', { scope: 'Cluster', shortNames: ['wd'] }));
  const w = await mapper.resolve('example.com/v1', 'Widget');
  assert.deepEqual(w, {
    apiVersion: 'example.com/v1', group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets',
    namespaced: false, verbs: w.verbs, subresources: ['status'],
  });
  assert.equal((await mapper.resolve(undefined, 'wd')).resource, 'widgets');
  assert.equal(mapper.objectPath(w, 'ns-ignored', 'w1'), '/apis/example.com/v1/widgets/w1');
});

test('without apiVersion the preferred version wins and the core group comes first', async (t) => {
  const { kc, mapper } = await setup(t);
  await createCrd(kc, crd('Gadget', { versions: ['v2', 'v1beta1'] }));
  // a custom kind named like a core kind must not shadow it
  await createCrd(kc, crd('ConfigMap', { group: 'shadow.example.com' }));
  assert.equal((await mapper.resolve(undefined, 'Gadget')).apiVersion, 'example.com/v2');
  assert.equal((await mapper.resolve('example.com/v1beta1', 'Gadget')).apiVersion, 'example.com/v1beta1');
  assert.equal((await mapper.resolve(undefined, 'ConfigMap')).apiVersion, 'v1');
  assert.equal((await mapper.resolve('shadow.example.com/v1', 'ConfigMap')).group, 'shadow.example.com');
});

test('refreshes after misses are rate-limited and shared by concurrent lookups', async (t) => {
  // a clock of the test's own: the mapper's waits are recorded and end only when the test says so
  let now = 1_000_000;
  const sleeps: { ms: number; wake: () => void }[] = [];
  const { sandbox, kc, mapper } = await setup(t, {
    minRefreshIntervalMs: 400,
    now: () => now,
    sleep: (ms) => new Promise<void>((wake) => sleeps.push({ ms, wake })),
  });
  const groupListFetches = () => sandbox.requests.filter((r) => r.path === '/apis').length;
  // the first load, and the first refresh: nothing refreshed before, so no wait
  await assert.rejects(mapper.resolve(undefined, 'Nope'), KindNotServedError);
  assert.equal(groupListFetches(), 2, 'the first load and one refresh');
  assert.equal(sleeps.length, 0);

  // the CRD appears right after a refresh: the next miss waits for the next refresh slot, then finds it
  await createCrd(kc, crd('Late'));
  now += 100;
  const late = mapper.resolve(undefined, 'Late');
  await waitFor(() => sleeps.length === 1, 'sleeps.length === 1');
  assert.equal(sleeps[0].ms, 300, 'the rest of the interval since the last refresh');
  assert.equal(groupListFetches(), 2, 'no refresh before the slot');
  now += 300;
  sleeps[0].wake();
  assert.equal((await late).kind, 'Late');
  assert.equal(groupListFetches(), 3);

  // three concurrent misses share one wait and one refresh
  const misses = Promise.allSettled([mapper.resolve(undefined, 'A1'), mapper.resolve(undefined, 'A2'), mapper.resolve(undefined, 'A3')]);
  await waitFor(() => sleeps.length === 2, 'sleeps.length === 2');
  assert.equal(sleeps[1].ms, 400);
  sleeps[1].wake();
  assert.ok((await misses).every((m) => m.status === 'rejected'));
  assert.equal(sleeps.length, 2, 'one wait for the three misses');
  assert.equal(groupListFetches(), 4, 'three concurrent misses, one refresh');
});

test('discovery failures are reported and not cached', async (t) => {
  const { sandbox, mapper } = await setup(t);
  sandbox.failNext(1, 500);
  const e = await rejection(mapper.resolve('apps/v1', 'Deployment'));
  assert.match(e.message, /^API discovery of apps\/v1 failed: GET \/apis\/apps\/v1: 500 injected failure/);
  assert.equal((await mapper.resolve('apps/v1', 'Deployment')).resource, 'deployments');
});
