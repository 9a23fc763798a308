import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { Informer, type KubeObject, type WatchEventType } from '../../src/kube/informer.js';
import { requestJson } from '../../src/kube/http.js';
import { waitFor as until } from '../helpers/wait.js';
import { taskLabels, withTaskLabels } from '../../src/log/task-labels.js';

async function setup(opts: Parameters<typeof startSandbox>[0] = {}) {
  const sandbox = await startSandbox(opts);
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  return { sandbox, kc };
}

function cm(name: string, value: string) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v: value } };
}

function recorder() {
  const events: string[] = [];
  let synced: KubeObject[] | undefined;
  const errors: string[] = [];
  return {
    events,
    errors,
    get synced() {
      return synced;
    },
    onSync: (objs: KubeObject[]) => {
      synced = objs;
    },
    onEvent: (t: WatchEventType, o: KubeObject) => events.push(`${t} ${o.metadata?.name} ${(o as { data?: { v?: string } }).data?.v ?? ''}`.trim()),
    onError: (e: Error) => errors.push(e.message),
  };
}

const PATH = '/api/v1/namespaces/default/configmaps';

async function create(sb: Sandbox, kc: KubeConfig, name: string, value: string) {
  void sb;
  await requestJson(kc, 'POST', PATH, {}, cm(name, value));
}

test('lists, then delivers every event in order; survives dropped watches without a relist', async (t) => {
  const { sandbox, kc } = await setup();
  t.after(() => sandbox.stop());
  await create(sandbox, kc, 'a', '1');
  const r = recorder();
  const inf = new Informer({ kc, path: PATH, ...r });
  await inf.start();
  t.after(() => inf.stop());
  assert.deepEqual(r.synced!.map((o) => o.metadata?.name), ['a']);
  await create(sandbox, kc, 'b', '1');
  await requestJson(kc, 'PATCH', `${PATH}/a`, {}, { data: { v: '2' } }, 'application/merge-patch+json');
  await until(() => r.events.length === 2, 'two events');
  sandbox.clearRequestLog();
  assert.ok(sandbox.dropWatches() >= 1);
  await requestJson(kc, 'DELETE', `${PATH}/b`);
  await until(() => r.events.length === 3, 'the delete after the dropped watch');
  assert.deepEqual(r.events, ['ADDED b 1', 'MODIFIED a 2', 'DELETED b 1']);
  const lists = sandbox.requests.filter((q) => q.method === 'GET' && q.query.watch !== 'true');
  assert.equal(lists.length, 0, 'resumed from the last resourceVersion, no relist');
  const watch = sandbox.requests.find((q) => q.query.watch === 'true')!;
  assert.equal(watch.query.allowWatchBookmarks, 'true');
  assert.match(watch.query.timeoutSeconds ?? '', /^\d+$/);
  assert.deepEqual(inf.objects().map((o) => o.metadata?.name), ['a']);
});

test('410 Gone: relists and reports what changed meanwhile as events', async (t) => {
  const { sandbox, kc } = await setup();
  t.after(() => sandbox.stop());
  await create(sandbox, kc, 'keep', '1');
  await create(sandbox, kc, 'gone', '1');
  const r = recorder();
  const inf = new Informer({ kc, path: PATH, ...r, backoff: { initialMs: 10, maxMs: 50 } });
  await inf.start();
  t.after(() => inf.stop());
  // change things while the informer is not watching, then make its resourceVersion too old
  sandbox.failNext(1000, 500);
  sandbox.dropWatches();
  await until(() => r.errors.length >= 1, 'a failed watch');
  sandbox.failNext(0);
  sandbox.load([cm('keep', '2'), cm('new', '1')]);
  sandbox.getObject('v1', 'ConfigMap', 'default', 'gone');
  await requestJson(kc, 'DELETE', `${PATH}/gone`).catch(() => undefined);
  sandbox.compactHistory();
  await until(() => r.events.length >= 3, 'relist events');
  assert.deepEqual([...r.events].sort(), ['ADDED new 1', 'DELETED gone 1', 'MODIFIED keep 2']);
  assert.deepEqual(inf.objects().map((o) => o.metadata?.name).sort(), ['keep', 'new']);
});

test('errors are reported with backoff, and it recovers; stop() ends it for good', async (t) => {
  const { sandbox, kc } = await setup();
  t.after(() => sandbox.stop());
  sandbox.failNext(3, 500);
  const r = recorder();
  const inf = new Informer({ kc, path: PATH, ...r, backoff: { initialMs: 10, maxMs: 40 } });
  await inf.start();
  assert.equal(r.errors.length, 3);
  assert.match(r.errors[0]!, /500/);
  assert.deepEqual(r.synced, []);
  await inf.stop();
  await create(sandbox, kc, 'after-stop', '1');
  await new Promise((res) => setTimeout(res, 100));
  assert.deepEqual(r.events, []);
  assert.equal(sandbox.watchCount(), 0);
});

test('stop() ends a watch and a list that the server has not answered yet', async (t) => {
  const { sandbox, kc } = await setup();
  t.after(() => sandbox.stop());
  const inf = new Informer({ kc, path: PATH, ...recorder() });
  await inf.start();
  // the next watch is held by the server: stop() must not wait for its answer
  sandbox.setLatency(600_000);
  sandbox.clearRequestLog();
  sandbox.dropWatches();
  await until(() => sandbox.requests.some((r) => r.query.watch === 'true'), 'the held watch request');
  await resolvesBeforeTheAnswer(sandbox, inf.stop(), sandbox.requests.find((r) => r.query.watch === 'true')!, 'stop() during a held watch');
  // a list held the same way
  const listing = new Informer({ kc, path: PATH, ...recorder() });
  const started = listing.start();
  await until(() => sandbox.requests.some((r) => r.query.watch !== 'true'), 'the held list request');
  const held = sandbox.requests.find((r) => r.query.watch !== 'true')!;
  await resolvesBeforeTheAnswer(sandbox, listing.stop().then(() => started), held, 'stop() during a held list');
  sandbox.setLatency(0);
});

/**
 * Proves that `done` resolves while the server still holds `request` (it has sent no answer). Should
 * `done` wait for the answer instead, the held requests are released after 10 s so that the test fails
 * (it never hangs).
 */
async function resolvesBeforeTheAnswer(sandbox: Sandbox, done: Promise<unknown>, request: { status?: number }, what: string): Promise<void> {
  let released = false;
  const bound = setTimeout(() => {
    released = true;
    sandbox.setLatency(0);
  }, 10_000);
  try {
    await done;
  } finally {
    clearTimeout(bound);
  }
  assert.equal(released, false, `${what} waited for the server's answer`);
  assert.equal(request.status, undefined, `${what}: the server had answered already`);
}

test('label and field selectors are passed to list and watch', async (t) => {
  const { sandbox, kc } = await setup();
  t.after(() => sandbox.stop());
  sandbox.load([{ ...cm('x', '1'), metadata: { name: 'x', namespace: 'default', labels: { app: 'yes' } } }, cm('y', '1')]);
  const r = recorder();
  const inf = new Informer({ kc, path: PATH, labelSelector: 'app=yes', ...r });
  await inf.start();
  t.after(() => inf.stop());
  assert.deepEqual(r.synced!.map((o) => o.metadata?.name), ['x']);
  const byName = new Informer({ kc, path: PATH, fieldSelector: 'metadata.name=y', ...recorder() });
  await byName.start();
  t.after(() => byName.stop());
  assert.deepEqual(byName.objects().map((o) => o.metadata?.name), ['y']);
});

test('lists in pages (limit/continue): each page handed on as it comes, the watch from the first page; a relist in pages too', async (t) => {
  const { sandbox, kc } = await setup();
  t.after(() => sandbox.stop());
  sandbox.load(Array.from({ length: 12 }, (_, i) => cm(`cm-${String(i).padStart(2, '0')}`, '1')));
  const pages: string[][] = [];
  const r = recorder();
  sandbox.clearRequestLog();
  const inf = new Informer({ kc, path: PATH, ...r, pageSize: 5, backoff: { initialMs: 10, maxMs: 50 }, onSync: (objs) => pages.push(objs.map((o) => o.metadata!.name!)) });
  await inf.start();
  t.after(() => inf.stop());
  assert.deepEqual(pages.map((p) => p.length), [5, 5, 2]);
  assert.equal(new Set(pages.flat()).size, 12);
  const lists = sandbox.requests.filter((q) => q.method === 'GET' && q.query.watch !== 'true');
  assert.deepEqual(lists.map((q) => q.query.limit), ['5', '5', '5']);
  assert.equal(lists[0]!.query.continue, undefined);
  assert.ok(lists[1]!.query.continue && lists[2]!.query.continue, 'the later pages continue the list');
  await until(() => sandbox.requests.some((q) => q.query.watch === 'true'), 'the watch');
  // a relist after 410 goes page by page too and reports what changed
  sandbox.failNext(1000, 500);
  sandbox.dropWatches();
  await until(() => r.errors.length >= 1, 'a failed watch');
  sandbox.failNext(0);
  sandbox.load([cm('cm-03', '2'), cm('cm-99', '1')]);
  await requestJson(kc, 'DELETE', `${PATH}/cm-07`);
  sandbox.compactHistory();
  await until(() => r.events.length >= 3, 'relist events');
  assert.deepEqual([...r.events].sort(), ['ADDED cm-99 1', 'DELETED cm-07 1', 'MODIFIED cm-03 2']);
  assert.equal(inf.objects().length, 12);
});

test('an empty first list is a sync of nothing', async (t) => {
  const { sandbox, kc } = await setup();
  t.after(() => sandbox.stop());
  const r = recorder();
  const inf = new Informer({ kc, path: PATH, ...r });
  await inf.start();
  t.after(() => inf.stop());
  assert.deepEqual(r.synced, []);
});

test('an informer started within a task delivers its later events without that task\'s log labels', async (t) => {
  const { sandbox, kc } = await setup();
  t.after(() => sandbox.stop());
  const seen: Record<string, string>[] = [];
  const inf = new Informer({ kc, path: PATH, onSync: () => undefined, onEvent: () => void seen.push({ ...taskLabels() }), onError: () => undefined });
  await withTaskLabels({ queue: 'main', 'task.type': 'ModuleRun' }, () => inf.start());
  t.after(() => inf.stop());
  await create(sandbox, kc, 'later', '1');
  await until(() => seen.length === 1, 'the event');
  assert.deepEqual(seen, [{}]);
});
