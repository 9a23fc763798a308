import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { ConfigMapSource } from '../../src/kube/configmap-source.js';
import type { ConfigMapData } from '../../src/operator/ports.js';
import { waitFor as until } from '../helpers/wait.js';

const NS = 'kube-system';
const PATH = `/api/v1/namespaces/${NS}/configmaps`;

async function setup(t: { after: (fn: () => Promise<void>) => void }) {
  const sandbox = await startSandbox();
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  const source = new ConfigMapSource({ kc, namespace: NS, name: 'addon-operator' });
  t.after(() => source.stop());
  const stored = (name = 'addon-operator') => sandbox.getObject('v1', 'ConfigMap', NS, name);
  const put = (data: Record<string, string>, extra: Record<string, unknown> = {}, name = 'addon-operator') =>
    sandbox.load([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, ...extra }, data }]);
  return { sandbox, kc, source, stored, put };
}

test('read: the data, or null when the ConfigMap does not exist', async (t) => {
  const { source, put } = await setup(t);
  assert.equal(source.description, 'ConfigMap kube-system/addon-operator');
  assert.equal(await source.read(), null);
  put({ global: 'a: 1\n', fooEnabled: 'true' });
  assert.deepEqual(await source.read(), { global: 'a: 1\n', fooEnabled: 'true' });
});

test('read errors name the ConfigMap', async (t) => {
  const { sandbox, source } = await setup(t);
  sandbox.failNext(1, 500);
  await assert.rejects(source.read(), {
    message: 'reading ConfigMap kube-system/addon-operator: GET /api/v1/namespaces/kube-system/configmaps/addon-operator: 500 injected failure (sandbox test control)',
  });
});

test('writeSection creates the ConfigMap, writes YAML as Go does, keeps the other keys, and removes a key for an empty section', async (t) => {
  const { source, stored, put } = await setup(t);
  await source.writeSection('global', { zeta: 'on', alpha: { list: [1, 'two', { k: null }] }, text: 'a\nb' });
  assert.deepEqual(stored()?.data, { global: 'alpha:\n  list:\n  - 1\n  - two\n  - k: null\ntext: |-\n  a\n  b\nzeta: "on"\n' });

  put({ ...stored()!.data, fooEnabled: 'false' });
  await source.writeSection('foo', { replicas: 2 });
  assert.deepEqual(stored()?.data, { global: stored()!.data.global, fooEnabled: 'false', foo: 'replicas: 2\n' });

  await source.writeSection('foo', {});
  assert.deepEqual(Object.keys(stored()!.data).sort(), ['fooEnabled', 'global']);
  await source.writeSection('foo', {}); // removing a missing key is a no-op
  assert.deepEqual(Object.keys(stored()!.data).sort(), ['fooEnabled', 'global']);
});

test('writeSection of an empty section does not create a missing ConfigMap', async (t) => {
  const { source, stored } = await setup(t);
  await source.writeSection('foo', {});
  assert.equal(stored(), undefined);
});

test('writeSection retries on a conflict and keeps the concurrent change', async (t) => {
  const { sandbox, source, stored, put } = await setup(t);
  put({ global: 'a: 1\n' });
  sandbox.clearRequestLog();
  sandbox.setLatency(150);
  const writing = source.writeSection('bar', { x: true });
  await until(() => sandbox.requests.some((r) => r.method === 'PUT'), 'the first update');
  put({ global: 'a: 1\n', barEnabled: 'true' });
  await writing;
  sandbox.setLatency(0);
  assert.deepEqual(stored()?.data, { global: 'a: 1\n', barEnabled: 'true', bar: 'x: true\n' });
  assert.deepEqual(
    sandbox.requests.map((r) => `${r.method} ${r.status}`),
    ['GET 200', 'PUT 409', 'GET 200', 'PUT 200'],
  );
});

test('watch: created, modified, deleted; nothing for an update that keeps the data or for other ConfigMaps', async (t) => {
  const { kc, source, put } = await setup(t);
  assert.equal(await source.read(), null);
  const seen: ConfigMapData[] = [];
  const errors: string[] = [];
  await source.watch(
    (d) => seen.push(d),
    (e) => errors.push(e.message),
  );
  assert.deepEqual(seen, [], 'the state read before is not notified again');

  put({ global: 'a: 1\n' });
  await until(() => seen.length === 1, 'the creation');
  put({ global: 'a: 1\n' }, { labels: { touched: 'yes' } }); // a new resourceVersion, the same data
  put({ other: 'x' }, {}, 'another-configmap');
  put({ global: 'a: 2\n' });
  await until(() => seen.length === 2, 'the modification');
  await requestJson(kc, 'DELETE', `${PATH}/addon-operator`);
  await until(() => seen.length === 3, 'the deletion');
  assert.deepEqual(seen, [{ global: 'a: 1\n' }, { global: 'a: 2\n' }, null]);

  await source.stop();
  put({ global: 'a: 3\n' });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(seen.length, 3, 'nothing after stop()');
  assert.deepEqual(errors, []);
});

test('watch: a change between read and watch is notified; without a read the first state is', async (t) => {
  const { kc, source, put } = await setup(t);
  put({ global: 'a: 1\n' });
  assert.deepEqual(await source.read(), { global: 'a: 1\n' });
  put({ global: 'a: 2\n' });
  const seen: ConfigMapData[] = [];
  await source.watch((d) => seen.push(d));
  assert.deepEqual(seen, [{ global: 'a: 2\n' }]);

  const fresh = new ConfigMapSource({ kc, namespace: NS, name: 'not-there' });
  t.after(() => fresh.stop());
  const first: ConfigMapData[] = [];
  await fresh.watch((d) => first.push(d));
  assert.deepEqual(first, [null]);
  await fresh.writeSection('global', { b: 1 });
  await until(() => first.length === 2, 'the write');
  assert.deepEqual(first, [null, { global: 'b: 1\n' }]);
});

test('watch: survives a dropped watch without repeating notifications', async (t) => {
  const { sandbox, source, put } = await setup(t);
  put({ global: 'a: 1\n' });
  await source.read();
  const seen: ConfigMapData[] = [];
  await source.watch((d) => seen.push(d));
  await until(() => sandbox.watchCount() === 1, 'the watch');
  sandbox.dropWatches();
  put({ global: 'a: 5\n' });
  await until(() => seen.length === 1, 'the change after the dropped watch');
  assert.deepEqual(seen, [{ global: 'a: 5\n' }]);
});
