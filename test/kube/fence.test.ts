import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox } from '../../src/sandbox/index.js';
import { closeConnections } from '../../src/kube/connections.js';
import { fenceRequests, requestJson, watchStream } from '../../src/kube/http.js';

// fenceRequests is for the whole process: this file holds nothing else
test('after fenceRequests no request of any client leaves the process: requests and watches fail with the reason', async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  t.after(() => closeConnections(kc));
  await requestJson(kc, 'GET', '/api/v1/namespaces');
  sandbox.clearRequestLog();
  fenceRequests('this instance is no longer the leader (test)');
  await assert.rejects(requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }), {
    message: 'this instance is no longer the leader (test)',
  });
  await assert.rejects(requestJson(kc, 'GET', '/api/v1/namespaces'), /no longer the leader/);
  await assert.rejects(watchStream(kc, '/api/v1/namespaces', { timeoutSeconds: 10 }, () => undefined, new AbortController().signal), /no longer the leader/);
  assert.equal(sandbox.requests.length, 0, 'nothing reached the API server');
  assert.equal(sandbox.getObject('v1', 'ConfigMap', 'default', 'x'), undefined);
});
