import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { raw, withSandbox, failure, start } from './helpers.js';

test('discovery: /version, /api, /apis, /api/v1 and group versions through client-node', async () => {
  await withSandbox(async ({ kc, sb }) => {
    const version = await kc.makeApiClient(k8s.VersionApi).getCode();
    assert.equal(version.major, '1');
    assert.match(version.gitVersion, /^v1\.32\./);
    const api = await kc.makeApiClient(k8s.CoreApi).getAPIVersions();
    assert.deepEqual(api.versions, ['v1']);
    const apis = await kc.makeApiClient(k8s.ApisApi).getAPIVersions();
    const names = apis.groups.map((g) => g.name);
    for (const g of [
      'apps', 'batch', 'rbac.authorization.k8s.io', 'coordination.k8s.io', 'apiextensions.k8s.io', 'networking.k8s.io',
      'policy', 'admissionregistration.k8s.io', 'storage.k8s.io', 'scheduling.k8s.io', 'autoscaling',
    ]) {
      assert.ok(names.includes(g), `group ${g} served`);
    }
    assert.equal(apis.groups.find((g) => g.name === 'autoscaling')!.preferredVersion!.groupVersion, 'autoscaling/v2');

    const core = await kc.makeApiClient(k8s.CoreV1Api).getAPIResources();
    const byName = new Map(core.resources.map((r) => [r.name, r]));
    for (const r of ['namespaces', 'configmaps', 'secrets', 'services', 'serviceaccounts', 'pods', 'nodes', 'events', 'endpoints', 'persistentvolumeclaims']) {
      assert.ok(byName.has(r), `core resource ${r}`);
    }
    const ns = byName.get('namespaces')!;
    assert.equal(ns.namespaced, false);
    assert.equal(ns.kind, 'Namespace');
    assert.equal(ns.singularName, 'namespace');
    assert.deepEqual(ns.shortNames, ['ns']);
    assert.deepEqual([...ns.verbs].sort(), ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    assert.ok(byName.has('pods/status'), 'status subresource listed');

    const apps = await kc.makeApiClient(k8s.AppsV1Api).getAPIResources();
    const deploy = apps.resources.find((r) => r.name === 'deployments')!;
    assert.equal(deploy.namespaced, true);
    assert.deepEqual(deploy.shortNames, ['deploy']);
    assert.ok(apps.resources.some((r) => r.name === 'deployments/status'));
    assert.ok(apps.resources.some((r) => r.name === 'deployments/scale'));

    const rbac = await kc.makeApiClient(k8s.RbacAuthorizationV1Api).getAPIResources();
    assert.deepEqual(rbac.resources.filter((r) => !r.name.includes('/')).map((r) => r.name).sort(), ['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles']);

    const missing = await raw(sb, 'GET', '/apis/nope.example.com/v1');
    assert.equal(missing.status, 404);
    assert.equal(missing.json().kind, 'Status');
    assert.equal(missing.json().reason, 'NotFound');
    const group = await raw(sb, 'GET', '/apis/apps');
    assert.equal(group.json().kind, 'APIGroup');
  });
});

test('discovery: OpenAPI documents kubectl downloads are served', async () => {
  await withSandbox(async ({ sb }) => {
    const idx = await raw(sb, 'GET', '/openapi/v3');
    assert.equal(idx.status, 200);
    const paths = idx.json().paths;
    assert.ok(paths['api/v1']);
    assert.ok(paths['apis/apps/v1']);
    const doc = await raw(sb, 'GET', paths['apis/apps/v1'].serverRelativeURL);
    assert.equal(doc.status, 200);
    const patchOp = doc.json().paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    assert.deepEqual(patchOp['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
    assert.ok(patchOp.parameters.some((p: any) => p.name === 'fieldValidation'));
    const v2 = await raw(sb, 'GET', '/openapi/v2');
    assert.equal(v2.json().swagger, '2.0');
    const v2pb = await raw(sb, 'GET', '/openapi/v2', { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    assert.match(String(v2pb.headers['content-type']), /protobuf/);
  });
});

test('security: every request needs the bearer token (401 Status otherwise)', async () => {
  await withSandbox(async ({ sb }) => {
    for (const path of ['/version', '/api/v1/namespaces', '/apis']) {
      const none = await raw(sb, 'GET', path, { token: null });
      assert.equal(none.status, 401);
      assert.equal(none.json().reason, 'Unauthorized');
      const wrong = await raw(sb, 'GET', path, { token: 'nope' });
      assert.equal(wrong.status, 401);
    }
    const ok = await raw(sb, 'GET', '/version');
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['content-type'], 'application/json');
  });
});

test('security: HTTPS with a self-signed CA in the kubeconfig, verified by the client; 127.0.0.1 by default', async () => {
  await withSandbox(async ({ sb, core }) => {
    assert.match(sb.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const kubeconfig = parse(readFileSync(sb.kubeconfigPath, 'utf8'));
    const cluster = kubeconfig.clusters[0].cluster;
    assert.equal(cluster.server, sb.url);
    assert.ok(cluster['certificate-authority-data']);
    assert.equal(cluster['insecure-skip-tls-verify'], undefined);
    assert.equal(kubeconfig.users[0].user.token, sb.token);
    assert.equal(Buffer.from(cluster['certificate-authority-data'], 'base64').toString(), sb.caCert);
    // client-node verifies the certificate against the CA: this call succeeds...
    const list = await core.listNamespace();
    assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
    // ...and a client that does not trust the CA is refused.
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: sb.url, skipTLSVerify: false }],
      users: [{ name: 'u', token: sb.token }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    await assert.rejects(kc.makeApiClient(k8s.CoreV1Api).listNamespace(), /self[- ]signed|certificate/i);
  });
});

test('plain HTTP when asked, on a chosen port', async () => {
  const probe = await start({ tls: false });
  const port = probe.sb.port;
  await probe.sb.stop();
  await withSandbox(
    async ({ sb, core }) => {
      assert.equal(sb.url, `http://127.0.0.1:${port}`);
      const kubeconfig = parse(readFileSync(sb.kubeconfigPath, 'utf8'));
      assert.equal(kubeconfig.clusters[0].cluster['insecure-skip-tls-verify'], true);
      const list = await core.listNamespace();
      assert.ok(list.items.length >= 3);
    },
    { tls: false, port },
  );
});

test('request bodies over the limit get 413', async () => {
  await withSandbox(
    async ({ sb, core }) => {
      const big = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { x: 'y'.repeat(5000) } };
      const r = await raw(sb, 'POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify(big), headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 413);
      assert.equal(r.json().code, 413);
      const f = await failure(core.createNamespacedConfigMap({ namespace: 'default', body: big }));
      assert.equal(f.code, 413);
      // small bodies still pass
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'small' }, data: { a: 'b' } } });
    },
    { maxBodyBytes: 4096 },
  );
});

test('unknown paths and verbs: 404 and 405 Status objects', async () => {
  await withSandbox(async ({ sb }) => {
    const r = await raw(sb, 'GET', '/api/v1/nothings');
    assert.equal(r.status, 404);
    assert.equal(r.json().kind, 'Status');
    const m = await raw(sb, 'POST', '/api/v1/namespaces/default/configmaps/x', { body: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(m.status, 405);
    assert.equal(m.json().reason, 'MethodNotAllowed');
    const bad = await raw(sb, 'POST', '/api/v1/namespaces/default/configmaps', { body: '{not json', headers: { 'content-type': 'application/json' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json().reason, 'BadRequest');
  });
});
