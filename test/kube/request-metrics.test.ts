import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordRequests, urlTemplate, type RequestLatency, type RequestResult } from '../../src/kube/request-metrics.js';
import { cloneClient, requestJson } from '../../src/kube/http.js';
import { cluster } from '../helm/helpers.js';

test("URL templates as client-go's finalURLTemplate makes them", () => {
  const t = (u: string) => urlTemplate(new URL(u));
  assert.equal(t('https://10.0.0.1:6443/api/v1/namespaces/addons/configmaps/addon-operator'), 'https://10.0.0.1:6443/api/v1/namespaces/%7Bnamespace%7D/configmaps/%7Bname%7D');
  assert.equal(t('https://h/apis/apps/v1/namespaces/prod/deployments/web/scale'), 'https://h/apis/apps/v1/namespaces/%7Bnamespace%7D/deployments/%7Bname%7D/scale');
  assert.equal(t('https://h/api/v1/namespaces/prod/configmaps?labelSelector=a%3Db&limit=500'), 'https://h/api/v1/namespaces/%7Bnamespace%7D/configmaps?labelSelector=%7Bvalue%7D&limit=%7Bvalue%7D');
  assert.equal(t('https://h/api/v1/namespaces/prod'), 'https://h/api/v1/namespaces/%7Bname%7D');
  assert.equal(t('https://h/apis/rbac.authorization.k8s.io/v1/clusterroles/admin'), 'https://h/apis/rbac.authorization.k8s.io/v1/clusterroles/%7Bname%7D');
  assert.equal(t('https://h/api/v1/nodes?watch=true&resourceVersion=5'), 'https://h/api/v1/nodes?resourceVersion=%7Bvalue%7D&watch=%7Bvalue%7D');
  assert.equal(t('https://h/apis'), 'https://h/apis');
  assert.equal(t('https://h/apis/apps/v1'), 'https://h/apis/apps/v1');
  // segments other than a name or a namespace as Go's url package escapes them
  assert.equal(t('https://h/x/a:b@c/d%20e/{f}'), 'https://h/x/a:b@c/d%2520e/%257Bf%257D');
});

test('every request is recorded with its client: latency by URL template, result by status (or <error>)', async (t) => {
  const { kc } = await cluster(t, ['apps']);
  const patcher = cloneClient(kc, { component: 'object_patcher' });
  const latencies: RequestLatency[] = [];
  const results: RequestResult[] = [];
  recordRequests({ latency: (r) => latencies.push(r), result: (r) => results.push(r) });
  t.after(() => recordRequests(undefined));
  await requestJson(kc, 'GET', '/api/v1/namespaces/apps/configmaps');
  await requestJson(patcher, 'GET', '/api/v1/namespaces/apps/configmaps/missing').catch(() => {});
  const host = new URL(kc.getCurrentCluster()!.server).host;
  assert.deepEqual(
    latencies.map(({ component, verb, url }) => [component, verb, url]),
    [
      ['main', 'GET', `https://${host}/api/v1/namespaces/%7Bnamespace%7D/configmaps`],
      ['object_patcher', 'GET', `https://${host}/api/v1/namespaces/%7Bnamespace%7D/configmaps/%7Bname%7D`],
    ],
  );
  assert.deepEqual(results, [
    { component: 'main', code: '200', method: 'GET', host },
    { component: 'object_patcher', code: '404', method: 'GET', host },
  ]);
});
