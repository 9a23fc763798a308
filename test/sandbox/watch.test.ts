import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { Watch, makeInformer } from '@kubernetes/client-node';
import { cm, collectWatch, raw, withSandbox, within } from './helpers.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { waitFor } from '../helpers/wait.js';

const CM_PATH = '/api/v1/namespaces/default/configmaps';

test('watch from the list resourceVersion gets ADDED, MODIFIED, DELETED in order', async () => {
  await withSandbox(async ({ core, kc }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('before') });
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    const w = collectWatch(kc, CM_PATH, { resourceVersion: list.metadata!.resourceVersion }, (ev) => ev.length >= 3);
    await w.ready;
    const c = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('w', { a: '1' }) });
    await core.replaceNamespacedConfigMap({ name: 'w', namespace: 'default', body: { ...c, data: { a: '2' } } });
    await core.deleteNamespacedConfigMap({ name: 'w', namespace: 'default' });
    const events = await w.done;
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    assert.deepEqual(events.map((e) => e.object.metadata.name), ['w', 'w', 'w']);
    assert.equal(events[1].object.data.a, '2');
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.ok(rvs[0] < rvs[1] && rvs[1] < rvs[2], 'resourceVersions increase');
  });
});

test('watch from "0" (and without a resourceVersion) starts with the current state as ADDED events', async () => {
  await withSandbox(async ({ core, kc }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('one') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('two') });
    for (const rv of ['0', undefined]) {
      const w = collectWatch(kc, CM_PATH, { resourceVersion: rv }, (ev) => ev.length >= 2);
      const events = await w.done;
      assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED one', 'ADDED two']);
    }
  });
});

test('watch from an older resourceVersion replays what happened after it', async () => {
  await withSandbox(async ({ core, kc }) => {
    const a = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    await core.deleteNamespacedConfigMap({ name: 'a', namespace: 'default' });
    const w = collectWatch(kc, CM_PATH, { resourceVersion: a.metadata!.resourceVersion }, (ev) => ev.length >= 2);
    const events = await w.done;
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED b', 'DELETED a']);
  });
});

test('bounded history: too old a resourceVersion gets an ERROR 410 Expired event; a relist can be watched', async () => {
  await withSandbox(
    async ({ core, kc, sb }) => {
      const first = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('c0') });
      for (let i = 1; i < 20; i++) await core.createNamespacedConfigMap({ namespace: 'default', body: cm(`c${i}`) });
      const w = collectWatch(kc, CM_PATH, { resourceVersion: first.metadata!.resourceVersion }, (ev) => ev.some((e) => e.type === 'ERROR'));
      const events = await w.done;
      const err = events.find((e) => e.type === 'ERROR')!;
      assert.equal(err.object.kind, 'Status');
      assert.equal(err.object.code, 410);
      assert.equal(err.object.reason, 'Expired');
      // relist and watch from its resourceVersion: works
      const list = await core.listNamespacedConfigMap({ namespace: 'default' });
      const w2 = collectWatch(kc, CM_PATH, { resourceVersion: list.metadata!.resourceVersion }, (ev) => ev.length >= 1);
      await w2.ready;
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('after') });
      assert.deepEqual((await w2.done).map((e) => e.object.metadata.name), ['after']);
      // compaction (a test control) makes any older resourceVersion expire
      sb.compactHistory();
      const w3 = collectWatch(kc, CM_PATH, { resourceVersion: String(Number(list.metadata!.resourceVersion)) }, (ev) => ev.length >= 1);
      const ev3 = await w3.done;
      assert.equal(ev3[0].type, 'ERROR');
      assert.equal(ev3[0].object.code, 410);
    },
    { historyLimit: 5 },
  );
});

test('allowWatchBookmarks: BOOKMARK events carry the current resourceVersion; sendInitialEvents ends with a marked bookmark', async () => {
  await withSandbox(
    async ({ core, kc, sb }) => {
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('x') });
      const w = collectWatch(kc, CM_PATH, { resourceVersion: sb.resourceVersion(), allowWatchBookmarks: true }, (ev) => ev.some((e) => e.type === 'BOOKMARK'));
      const events = await w.done;
      const bm = events.find((e) => e.type === 'BOOKMARK')!;
      assert.equal(bm.object.kind, 'ConfigMap');
      assert.equal(bm.object.metadata.resourceVersion, sb.resourceVersion());
      const w2 = collectWatch(
        kc,
        CM_PATH,
        { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true },
        (ev) => ev.some((e) => e.type === 'BOOKMARK'),
      );
      const ev2 = await w2.done;
      assert.deepEqual(ev2.map((e) => e.type), ['ADDED', 'BOOKMARK']);
      assert.equal(ev2[1].object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    },
    { bookmarkIntervalMs: 100 },
  );
});

test('without allowWatchBookmarks no BOOKMARK is sent; timeoutSeconds ends the stream', async () => {
  await withSandbox(
    async ({ kc, sb }) => {
      const events: string[] = [];
      let controller: AbortController | undefined;
      const ended = new Promise<unknown>((resolve) => {
        void new Watch(kc)
          .watch(CM_PATH, { resourceVersion: sb.resourceVersion(), timeoutSeconds: 1 }, (type: string) => events.push(type), resolve)
          .then((c) => (controller = c));
      });
      // a watch that ignored timeoutSeconds would never end: the guard fails the test and aborts it
      const err = await within(ended, 'the server to end the watch after timeoutSeconds', () => controller?.abort());
      assert.equal(err, null, 'a clean end of stream');
      assert.deepEqual(events, []);
    },
    { bookmarkIntervalMs: 50 },
  );
});

test('bad watch parameters get 400 BadRequest before the stream starts', async () => {
  await withSandbox(async ({ sb }) => {
    for (const q of ['resourceVersion=abc', 'resourceVersion=-3', 'timeoutSeconds=abc', 'timeoutSeconds=-1', 'labelSelector=a%20in%20(']) {
      const r = await raw(sb, 'GET', `${CM_PATH}?watch=true&${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.json().reason, 'BadRequest', q);
    }
  });
});

test('label-selector watches see objects enter (ADDED) and leave (DELETED) the selection', async () => {
  await withSandbox(async ({ core, kc, sb }) => {
    const w = collectWatch(kc, CM_PATH, { resourceVersion: sb.resourceVersion(), labelSelector: 'app=web' }, (ev) => ev.length >= 3);
    await w.ready;
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('l', {}, { app: 'db' }) });
    await core.patchNamespacedConfigMap({ name: 'l', namespace: 'default', body: [{ op: 'replace', path: '/metadata/labels/app', value: 'web' }] });
    await core.patchNamespacedConfigMap({ name: 'l', namespace: 'default', body: [{ op: 'add', path: '/data', value: { a: 'b' } }] });
    await core.patchNamespacedConfigMap({ name: 'l', namespace: 'default', body: [{ op: 'replace', path: '/metadata/labels/app', value: 'x' }] });
    const events = await w.done;
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
  });
});

test('field-selector and namespace scoping of watches', async () => {
  await withSandbox(async ({ core, kc, sb }) => {
    await core.createNamespace({ body: { metadata: { name: 'other' } } });
    const w = collectWatch(kc, CM_PATH, { resourceVersion: sb.resourceVersion(), fieldSelector: 'metadata.name=target' }, (ev) => ev.length >= 1);
    const all = collectWatch(kc, '/api/v1/configmaps', { resourceVersion: sb.resourceVersion() }, (ev) => ev.length >= 3);
    await w.ready;
    await all.ready;
    await core.createNamespacedConfigMap({ namespace: 'other', body: cm('target') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('nottarget') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('target') });
    const events = await w.done;
    assert.equal(events[0].object.metadata.namespace, 'default');
    assert.deepEqual((await all.done).map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`), ['other/target', 'default/nottarget', 'default/target']);
  });
});

/** Opens a raw watch and reports headers as soon as they arrive. */
function rawWatch(sb: Sandbox, path: string): Promise<{ res: IncomingMessage; close: () => void }> {
  let req: ReturnType<typeof request> | undefined;
  const opened = new Promise<{ res: IncomingMessage; close: () => void }>((resolve, reject) => {
    req = request(new URL(path, sb.url), { headers: { authorization: `Bearer ${sb.token}` }, ca: [sb.caCert!] }, (res) => {
      resolve({ res, close: () => req!.destroy() });
    });
    req.on('error', (e) => {
      if (!String(e).includes('socket hang up')) reject(e);
    });
    req.end();
  });
  // headers that are not flushed at once never arrive while nothing happens: fail instead of hanging
  return within(opened, `the response headers of ${path}`, () => req?.destroy());
}

test('watch responses flush their headers at once and stream newline-delimited compact JSON', async () => {
  await withSandbox(async ({ core, sb }) => {
    // nothing exists and nothing happens: the headers still arrive
    const { res, close } = await rawWatch(sb, `${CM_PATH}?watch=true&resourceVersion=${sb.resourceVersion()}`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers['transfer-encoding'], 'chunked');
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (buf += c));
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('n1') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('n2') });
    await waitFor(() => buf.split('\n').length >= 3, 'two lines');
    close();
    const lines = buf.split('\n').filter(Boolean);
    for (const line of lines) {
      const ev = JSON.parse(line);
      assert.equal(ev.type, 'ADDED');
      assert.ok(!line.includes('\n'));
    }
    assert.ok(buf.endsWith('\n'));
    await waitFor(() => sb.watchCount() === 0, 'the watch to be released when the client goes');
  });
});

test('legacy /watch/ paths work too', async () => {
  await withSandbox(async ({ core, sb }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('old-style') });
    const { res, close } = await rawWatch(sb, '/api/v1/watch/namespaces/default/configmaps/old-style');
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (buf += c));
    await waitFor(() => buf.includes('\n'), 'the initial event');
    close();
    assert.equal(JSON.parse(buf.split('\n')[0]).object.metadata.name, 'old-style');
  });
});

test('client-node informer: list+watch, survives dropped watches (re-watch) and expired history (relist)', async () => {
  await withSandbox(async ({ core, kc, sb }) => {
    const informer = makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default' }));
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata!.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata!.name}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata!.name}`));
    informer.on('error', () => undefined);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('pre') });
    await informer.start();
    try {
      await waitFor(() => seen.includes('add pre'), 'the initial list');
      await waitFor(() => sb.watchCount() === 1, 'the informer watch');
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('live') });
      await waitFor(() => seen.includes('add live'), 'a live event');
      // the server ends the watch: the informer watches again from its last resourceVersion
      sb.dropWatches();
      await core.patchNamespacedConfigMap({ name: 'live', namespace: 'default', body: [{ op: 'add', path: '/data', value: { a: 'b' } }] });
      await waitFor(() => seen.includes('update live'), 'the update after a dropped watch');
      // history compacted and the watch dropped: the re-watch gets 410 and the informer lists again
      await waitFor(() => sb.watchCount() === 1, 'the informer to watch again');
      sb.compactHistory();
      await core.deleteNamespacedConfigMap({ name: 'pre', namespace: 'default' });
      sb.compactHistory();
      sb.dropWatches();
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('after-relist') });
      await waitFor(() => seen.includes('add after-relist') && seen.includes('delete pre'), `the relist (${seen.join(', ')})`);
    } finally {
      await informer.stop();
    }
  });
});
