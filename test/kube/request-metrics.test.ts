import { test } from 'node:test';
import assert from 'node:assert/strict';
import { urlTemplate } from '../../src/kube/request-metrics.js';

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
});
