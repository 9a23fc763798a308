import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox } from '../../src/sandbox/index.js';
import { closeConnections } from '../../src/kube/connections.js';
import { requestJson } from '../../src/kube/http.js';
import { Informer, type KubeObject } from '../../src/kube/informer.js';
import { waitFor as until } from '../helpers/wait.js';

const PATH = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v } });

test('keepObjects: false keeps resourceVersions only; a relist after 410 still reports Deleted (as a stub), Added and Modified', async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  t.after(() => closeConnections(kc));
  for (const n of ['gone', 'keep', 'same']) await requestJson(kc, 'POST', PATH, {}, cm(n, '1'));
  let synced: KubeObject[] = [];
  const events: string[] = [];
  const deleted: KubeObject[] = [];
  const errors: string[] = [];
  const inf = new Informer({
    kc,
    path: PATH,
    keepObjects: false,
    backoff: { initialMs: 2000, maxMs: 2000 },
    onError: (e) => errors.push(e.message),
    onSync: (objects) => (synced = objects),
    onEvent: (type, o) => {
      events.push(`${type} ${o.metadata?.name}`);
      if (type === 'DELETED') deleted.push(o);
    },
  });
  await inf.start();
  t.after(() => inf.stop());
  assert.deepEqual(synced.map((o) => (o as { data?: { v?: string } }).data?.v), ['1', '1', '1'], 'the first sync gets whole objects');
  const stub = inf.objects().find((o) => o.metadata?.name === 'keep')!;
  assert.deepEqual(Object.keys(stub.metadata!).sort(), ['name', 'namespace', 'resourceVersion']);
  assert.equal(stub.kind, 'ConfigMap');
  assert.equal('data' in stub, false, 'no data kept');

  // changes while the watch fails, then history compacted: the informer relists and reports the differences
  sandbox.failNext(1000, 500);
  sandbox.dropWatches();
  await until(() => errors.length >= 1, 'a failed watch');
  sandbox.load([cm('keep', '2'), cm('new', '1')]);
  sandbox.compactHistory();
  sandbox.failNext(0);
  // deleted during the informer's backoff (2 s): seen by the relist
  await requestJson(kc, 'DELETE', `${PATH}/gone`);
  await until(() => events.length === 3, 'three events');
  assert.deepEqual([...events].sort(), ['ADDED new', 'DELETED gone', 'MODIFIED keep']);
  const d = deleted[0]!;
  assert.deepEqual(d.metadata?.namespace, 'default');
  assert.equal(d.kind, 'ConfigMap');
  assert.deepEqual(inf.objects().map((o) => o.metadata?.name).sort(), ['keep', 'new', 'same']);
});
