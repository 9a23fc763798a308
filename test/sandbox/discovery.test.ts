import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { parse } from 'yaml';
import { accepts, raw, withSandbox, failure, start } from './helpers.js';

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
    assert.deepEqual([...ns.verbs].sort(), ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], 'namespaces have no deletecollection');
    assert.deepEqual([...byName.get('configmaps')!.verbs].sort(), ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
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
    // the dotted name kube-openapi answers with: Go's mime parser (kubectl 1.27/1.28) refuses the '@' one
    assert.equal(v2pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  });
});

test('security: every request needs the bearer token (401 Status otherwise), writes and watches included', async () => {
  await withSandbox(async ({ sb }) => {
    const json = { 'content-type': 'application/json' };
    const requests: [string, string, { body?: string; headers?: Record<string, string> }][] = [
      ['GET', '/version', {}],
      ['GET', '/api', {}],
      ['GET', '/apis', {}],
      ['GET', '/api/v1', {}],
      ['GET', '/openapi/v3', {}],
      ['GET', '/api/v1/namespaces', {}],
      ['GET', '/api/v1/namespaces/default', {}],
      ['GET', '/api/v1/namespaces/default/configmaps?watch=true', {}],
      ['POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify({ metadata: { name: 'sneaky' } }), headers: json }],
      ['PUT', '/api/v1/namespaces/default', { body: JSON.stringify({ metadata: { name: 'default', labels: { x: 'y' } } }), headers: json }],
      ['PATCH', '/api/v1/namespaces/default', { body: '{"metadata":{"labels":{"x":"y"}}}', headers: { 'content-type': 'application/merge-patch+json' } }],
      ['DELETE', '/api/v1/namespaces/default/configmaps', {}],
      ['DELETE', '/api/v1/namespaces/kube-public', {}],
    ];
    const rv = sb.resourceVersion();
    for (const [method, path, opts] of requests) {
      for (const token of [null, 'nope', `${sb.token}x`]) {
        const r = await raw(sb, method, path, { ...opts, token });
        assert.equal(r.status, 401, `${method} ${path} with token ${token}`);
        assert.equal(r.json().kind, 'Status');
        assert.equal(r.json().reason, 'Unauthorized');
      }
    }
    // nothing was done
    assert.equal(sb.resourceVersion(), rv);
    assert.equal(sb.getObject('v1', 'ConfigMap', 'default', 'sneaky'), undefined);
    assert.equal(sb.watchCount(), 0);
    const ok = await raw(sb, 'GET', '/version');
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['content-type'], 'application/json');
  });
});

/** Addresses of this machine that are not loopback (connections there reach a 0.0.0.0 listener). */
function outsideAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((l) => l ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
}

test('security: listens on 127.0.0.1 only by default (not on other local addresses)', async () => {
  await withSandbox(async ({ sb }) => {
    assert.match(sb.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(await accepts('127.0.0.1', sb.port), true);
    // all of 127/8 is loopback on Linux: a wildcard listener would accept 127.0.0.2, a 127.0.0.1 one does not
    assert.equal(await accepts('127.0.0.2', sb.port), false, 'not listening on 127.0.0.2');
    for (const a of outsideAddresses()) assert.equal(await accepts(a, sb.port), false, `not listening on ${a}`);
  });
  // the check itself tells the two apart: a wildcard listener does accept them
  await withSandbox(
    async ({ sb }) => {
      assert.equal(await accepts('127.0.0.2', sb.port), true);
    },
    { host: '0.0.0.0' },
  );
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
