/**
 * examples/kube-bindings: two kubernetes bindings in a group; a change to either object runs the hook
 * once with a Group binding context and both snapshots, and the chart follows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestJson } from '../../src/kube/http.js';
import { eventually, runExample } from './helpers.js';

test('examples/kube-bindings', async () => {
  const ex = await runExample('kube-bindings');
  const inventory = async () => (await ex.get<{ data?: Record<string, string> }>('/api/v1/namespaces/default/configmaps/app-inventory')).data;
  assert.deepEqual(await inventory(), { shop: 'team-shop' });

  await requestJson(ex.kc, 'POST', '/apis/apps/v1/namespaces/apps/deployments', {}, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'cart', labels: { 'app.example.com/name': 'cart' } },
    spec: { selector: { matchLabels: { app: 'cart' } }, template: { metadata: { labels: { app: 'cart' } }, spec: { containers: [{ name: 'cart', image: 'cart:1' }] } } },
  });
  await eventually(async () => assert.deepEqual(await inventory(), { cart: 'nobody', shop: 'team-shop' }), 'the new Deployment');
  assert.match(ex.output(), /hooks\/inventory\.sh \(apps\): binding context: type Group, binding apps, snapshots apps,owners/);

  await requestJson(ex.kc, 'PATCH', '/api/v1/namespaces/apps/configmaps/app-owner', {}, { data: { app: 'cart', owner: 'team-cart' } }, 'application/merge-patch+json');
  await eventually(async () => assert.deepEqual(await inventory(), { cart: 'team-cart', shop: 'nobody' }), 'the owner changed');
  assert.equal(await ex.stop(), 0);
});
