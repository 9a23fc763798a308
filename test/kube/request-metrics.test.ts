import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordRequests, urlTemplate, type RequestLatency, type RequestResult } from '../../src/kube/request-metrics.js';
import { cloneClient, requestJson } from '../../src/kube/http.js';
import { cluster } from '../helm/helpers.js';
import { OperatorMetrics } from '../../src/metrics/operator-metrics.js';

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

test('objects by the hundred make no new request latency series: the url label is the template, not the object', async (t) => {
  const { kc } = await cluster(t, ['a', 'b']);
  const metrics = new OperatorMetrics();
  recordRequests({ latency: (r) => metrics.kubeRequestLatency(r), result: (r) => metrics.kubeRequestResult(r) });
  t.after(() => {
    recordRequests(undefined);
    metrics.stop();
  });
  const series = async () => (await metrics.render()).split('\n').filter((l) => l.startsWith('addon_operator_kubernetes_client_request_latency_seconds_count{'));
  // what a module does with each of its objects: create, read, patch, list by label, delete
  const objectWork = async (ns: string, name: string) => {
    await requestJson(kc, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: name } } });
    await requestJson(kc, 'GET', `/api/v1/namespaces/${ns}/configmaps/${name}`);
    await requestJson(kc, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/${name}`, { fieldManager: `m-${name}`, force: 'true' }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } }, 'application/apply-patch+yaml');
    await requestJson(kc, 'GET', `/api/v1/namespaces/${ns}/configmaps`, { labelSelector: `app=${name}` });
    await requestJson(kc, 'DELETE', `/api/v1/namespaces/${ns}/configmaps/${name}`);
  };
  await objectWork('a', 'first');
  const one = await series();
  assert.equal(one.length, 5, one.join('\n'));
  for (let i = 0; i < 100; i++) await objectWork(i % 2 ? 'a' : 'b', `object-${i}`);
  const many = await series();
  assert.deepEqual(many.map((l) => l.replace(/ \d+$/, '')), one.map((l) => l.replace(/ \d+$/, '')), 'the same series');
  assert.ok(many.every((l) => l.endsWith(' 101')), many.join('\n'));
  assert.doesNotMatch(many.join('\n'), /object-|first/);
});
