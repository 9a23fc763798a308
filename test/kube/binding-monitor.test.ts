import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { RestMapper } from '../../src/kube/mapper.js';
import { KubeMonitors, labelSelectorString, fieldSelectorString } from '../../src/kube/binding-monitor.js';
import { parseHookConfigSync } from '../../src/hooks/config.js';
import type { KubernetesBinding } from '../../src/hooks/config-types.js';
import type { SnapshotItem } from '../../src/hooks/binding-context.js';
import type { BindingMonitor } from '../../src/operator/ports.js';
import { bindingContextsToJson, synchronizationContext } from '../../src/hooks/binding-context.js';
import { loadHooks } from '../../src/hooks/hook.js';
import { goJsonStringify } from '../../src/util/json.js';
import { makeTree } from '../helpers/tree.js';
import { waitFor as until } from '../helpers/wait.js';
import { crd } from '../helpers/crd.js';

const LABEL = 'hooks/watch.sh pods';

function binding(spec: Record<string, unknown>): KubernetesBinding {
  const config = parseHookConfigSync({ configVersion: 'v1', kubernetes: [{ name: 'pods', ...spec }] }, { hookPath: 'hooks/watch.sh', kind: 'global' });
  return config.kubernetes[0]!;
}

const meta = (item: SnapshotItem) => (item.object?.metadata ?? {}) as { namespace?: string; name?: string; labels?: Record<string, string> };
const idOf = (item: SnapshotItem) => `${meta(item).namespace ?? ''}/${meta(item).name ?? ''}`;

/** `Added default/a` for items with objects; the filter result is appended when there is one. */
function describe(watchEvent: string, item: SnapshotItem): string {
  const parts = [watchEvent];
  if (item.object) parts.push(idOf(item));
  if ('filterResult' in item) parts.push(JSON.stringify(item.filterResult));
  return parts.join(' ');
}

async function setup(t: { after: (fn: () => Promise<void>) => void }) {
  const sandbox = await startSandbox();
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  const mapper = new RestMapper(kc, { minRefreshIntervalMs: 0 });
  const monitors = new KubeMonitors({ kc, resolve: (apiVersion, kind) => mapper.resolve(apiVersion, kind), backoff: { initialMs: 10, maxMs: 100 } });
  const api = {
    namespace: (name: string, labels?: Record<string, string>) => requestJson(kc, 'POST', '/api/v1/namespaces', {}, { metadata: { name, labels } }),
    labelNamespace: (name: string, labels: Record<string, string | null>) =>
      requestJson(kc, 'PATCH', `/api/v1/namespaces/${name}`, {}, { metadata: { labels } }, 'application/merge-patch+json'),
    create: (ns: string, name: string, v: string, labels?: Record<string, string>) =>
      requestJson(kc, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {}, { metadata: { name, labels }, data: { v } }),
    patch: (ns: string, name: string, patch: Record<string, unknown>) =>
      requestJson(kc, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/${name}`, {}, patch, 'application/merge-patch+json'),
    remove: (ns: string, name: string) => requestJson(kc, 'DELETE', `/api/v1/namespaces/${ns}/configmaps/${name}`),
  };
  const watch = (b: KubernetesBinding) => {
    const events: string[] = [];
    const items: SnapshotItem[] = [];
    const errors: string[] = [];
    const monitor = monitors.createMonitor(b, {
      label: LABEL,
      onEvent: (ev) => {
        events.push(describe(ev.watchEvent, ev.item));
        items.push(ev.item);
      },
      onError: (e) => errors.push(e.message),
    });
    t.after(() => monitor.stop());
    return { monitor, events, items, errors, ids: () => monitor.snapshot().map(idOf) };
  };
  return { sandbox, kc, api, watch, monitors };
}

const cm = (namespace: string, name: string, v: string, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, ...(labels ? { labels } : {}) },
  data: { v },
});
const ns = (name: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(labels ? { labels } : {}) } });

const listRequests = (sandbox: Sandbox) => sandbox.requests.filter((q) => q.method === 'GET' && q.query.watch !== 'true');
const configMapLists = (sandbox: Sandbox) => listRequests(sandbox).filter((q) => q.path.endsWith('/configmaps')).map((q) => q.path).sort();

test('selector strings are the ones Go formats', () => {
  assert.equal(
    labelSelectorString({
      matchLabels: { tier: 'web', app: 'x' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['stage', 'prod'] },
        { key: 'legacy', operator: 'DoesNotExist' },
        { key: 'zone', operator: 'NotIn', values: ['b'] },
        { key: 'canary', operator: 'Exists' },
      ],
    }),
    'app=x,canary,env in (prod,stage),!legacy,tier=web,zone notin (b)',
  );
  assert.equal(fieldSelectorString({ matchExpressions: [{ field: 'status.phase', operator: '!=', value: 'a,b=c' }] }, 'n'), 'status.phase!=a\\,b\\=c,metadata.name=n');
  assert.equal(fieldSelectorString(undefined), '');
});

test('start() gives the complete sorted snapshot and no events; then Added, Modified, Deleted in order', { timeout: 60_000 }, async (t) => {
  const { sandbox, api, watch } = await setup(t);
  sandbox.load([ns('b-ns'), cm('default', 'z', '1'), cm('default', 'a', '1'), cm('b-ns', 'm', '1')]);
  const w = watch(binding({ apiVersion: 'v1', kind: 'ConfigMap' }));
  await w.monitor.start();
  assert.deepEqual(w.ids(), ['b-ns/m', 'default/a', 'default/z']);
  assert.deepEqual(Object.keys(w.monitor.snapshot()[0]!), ['object'], 'no filterResult without a jqFilter');
  assert.deepEqual(w.events, []);

  await api.create('default', 'c', '1');
  await api.patch('default', 'a', { data: { v: '2' } });
  await api.remove('default', 'z');
  await until(() => w.events.length === 3, 'three events');
  assert.deepEqual(w.events, ['Added default/c', 'Modified default/a', 'Deleted default/z']);
  assert.deepEqual((w.items[1]!.object as { data: unknown }).data, { v: '2' });
  assert.deepEqual((w.items[2]!.object as { data: unknown }).data, { v: '1' }, 'Deleted carries the last known object');
  assert.deepEqual(w.ids(), ['b-ns/m', 'default/a', 'default/c']);
  assert.deepEqual(w.errors, []);
});

test('jqFilter: a Modified event with an unchanged result is not emitted, the snapshot takes the new object; jq errors skip the object', { timeout: 60_000 }, async (t) => {
  const { sandbox, api, watch } = await setup(t);
  sandbox.load([cm('default', 'a', '1'), cm('default', 'bad', 'x')]);
  const w = watch(binding({ kind: 'configmap', jqFilter: '{v: (.data.v | tonumber)}' }));
  await w.monitor.start();
  assert.deepEqual(w.ids(), ['default/a']);
  assert.deepEqual(w.monitor.snapshot()[0]!.filterResult, { v: 1 });
  assert.equal(w.errors.length, 1);
  assert.match(w.errors[0]!, /^hooks\/watch\.sh pods: jqFilter failed on ConfigMap default\/bad, the object is skipped: /);

  await api.patch('default', 'a', { metadata: { labels: { seen: 'yes' } } });
  await api.patch('default', 'bad', { data: { v: 'still bad' } });
  await api.create('default', 'c', '3'); // a later event of the same watch: the two above were handled before it
  await until(() => w.events.length === 1, 'the event of c');
  assert.deepEqual(w.events, ['Added default/c {"v":3}']);
  assert.equal(w.errors.length, 2);
  assert.match(w.errors[1]!, /default\/bad/);
  assert.deepEqual(meta(w.monitor.snapshot()[0]!).labels, { seen: 'yes' }, 'the snapshot holds the new object');

  await api.patch('default', 'a', { data: { v: '2' } });
  await api.patch('default', 'bad', { data: { v: '5' } });
  await api.remove('default', 'c');
  await until(() => w.events.length === 4, 'three more events');
  assert.deepEqual(w.events.slice(1), ['Modified default/a {"v":2}', 'Modified default/bad {"v":5}', 'Deleted default/c {"v":3}']);
  assert.deepEqual(w.ids(), ['default/a', 'default/bad']);
});

test('keepFullObjectsInMemory: false keeps only filter results, still sorted by namespace and name', { timeout: 60_000 }, async (t) => {
  const { sandbox, api, watch } = await setup(t);
  // namespace a before a-b (a namespace that is a prefix of another sorts first, whatever its names)
  sandbox.load([ns('b'), ns('a'), ns('a-b'), cm('b', 'x', '1'), cm('a-b', 'a', '1'), cm('a', 'y', '1'), cm('a', 'x', '1')]);
  const w = watch(binding({ kind: 'ConfigMap', keepFullObjectsInMemory: false, jqFilter: '.metadata.namespace + "/" + .metadata.name' }));
  await w.monitor.start();
  assert.deepEqual(w.monitor.snapshot(), [{ filterResult: 'a/x' }, { filterResult: 'a/y' }, { filterResult: 'a-b/a' }, { filterResult: 'b/x' }]);
  await api.remove('a', 'y');
  await api.create('a', 'w', '1');
  await until(() => w.events.length === 2, 'two events');
  assert.deepEqual(w.events, ['Deleted "a/y"', 'Added "a/w"']);
  assert.deepEqual(w.items[0], { filterResult: 'a/y' });
  assert.deepEqual(w.monitor.snapshot(), [{ filterResult: 'a/w' }, { filterResult: 'a/x' }, { filterResult: 'a-b/a' }, { filterResult: 'b/x' }]);

  const bare = watch(binding({ kind: 'ConfigMap', keepFullObjectsInMemory: false }));
  await bare.monitor.start();
  assert.deepEqual(bare.monitor.snapshot(), [{}, {}, {}, {}]);
});

test('label selector with matchLabels and matchExpressions, objects entering and leaving it', { timeout: 60_000 }, async (t) => {
  const { sandbox, api, watch } = await setup(t);
  const web = { app: 'web', env: 'prod' };
  sandbox.load([
    cm('default', 'match', '1', { ...web, tier: '1' }),
    cm('default', 'no-tier', '1', web),
    cm('default', 'legacy', '1', { ...web, tier: '1', legacy: 'y' }),
    cm('default', 'dev', '1', { ...web, env: 'dev', tier: '1' }),
    cm('default', 'zone-b', '1', { ...web, tier: '1', zone: 'b' }),
  ]);
  const w = watch(
    binding({
      kind: 'ConfigMap',
      labelSelector: {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'env', operator: 'In', values: ['stage', 'prod'] },
          { key: 'legacy', operator: 'DoesNotExist' },
          { key: 'tier', operator: 'Exists' },
          { key: 'zone', operator: 'NotIn', values: ['b'] },
        ],
      },
    }),
  );
  await w.monitor.start();
  assert.deepEqual(w.ids(), ['default/match']);
  assert.equal(listRequests(sandbox).find((q) => q.path === '/api/v1/configmaps')?.query.labelSelector, 'app=web,env in (prod,stage),!legacy,tier,zone notin (b)');

  await api.patch('default', 'no-tier', { metadata: { labels: { tier: '2' } } });
  await api.patch('default', 'match', { metadata: { labels: { legacy: 'now' } } });
  await api.create('default', 'new', '1', { ...web, env: 'stage', tier: '3' });
  await until(() => w.events.length === 3, 'three events');
  assert.deepEqual(w.events, ['Added default/no-tier', 'Deleted default/match', 'Added default/new']);
  assert.deepEqual(w.ids(), ['default/new', 'default/no-tier']);
});

test('nameSelector: one informer per name with a metadata.name field selector, joined to fieldSelector', { timeout: 60_000 }, async (t) => {
  const { sandbox, api, watch } = await setup(t);
  sandbox.load([ns('other'), cm('default', 'a', '1'), cm('default', 'b', '1'), cm('default', 'c', '1'), cm('other', 'a', '1')]);
  const w = watch(
    binding({
      kind: 'ConfigMap',
      nameSelector: { matchNames: ['a', 'c', 'a'] },
      fieldSelector: { matchExpressions: [{ field: 'metadata.namespace', operator: 'Equals', value: 'default' }] },
    }),
  );
  await w.monitor.start();
  assert.deepEqual(w.ids(), ['default/a', 'default/c']);
  const selectors = listRequests(sandbox)
    .filter((q) => q.path === '/api/v1/configmaps')
    .map((q) => `${q.path} ${q.query.fieldSelector}`)
    .sort();
  assert.deepEqual(selectors, [
    '/api/v1/configmaps metadata.namespace=default,metadata.name=a',
    '/api/v1/configmaps metadata.namespace=default,metadata.name=c',
  ]);

  await api.patch('default', 'b', { data: { v: '2' } }); // watched by no informer
  await api.patch('other', 'a', { data: { v: '2' } }); // excluded by the field selector on the server
  await api.patch('default', 'c', { data: { v: '2' } });
  await until(() => w.events.length === 1, 'the event of c');
  assert.deepEqual(w.events, ['Modified default/c']);
});

test('namespace.nameSelector: one informer per listed namespace', { timeout: 60_000 }, async (t) => {
  const { sandbox, api, watch } = await setup(t);
  sandbox.load([ns('ns-a'), ns('ns-b'), ns('ns-c'), cm('ns-a', 'x', '1'), cm('ns-b', 'x', '1'), cm('ns-c', 'x', '1')]);
  const w = watch(binding({ kind: 'ConfigMap', namespace: { nameSelector: { matchNames: ['ns-b', 'ns-a'] } } }));
  await w.monitor.start();
  assert.deepEqual(w.ids(), ['ns-a/x', 'ns-b/x']);
  assert.deepEqual(configMapLists(sandbox), ['/api/v1/namespaces/ns-a/configmaps', '/api/v1/namespaces/ns-b/configmaps']);

  await api.create('ns-a', 'y', '1');
  await until(() => w.events.length === 1, 'the event in ns-a');
  await api.create('ns-b', 'y', '1');
  await until(() => w.events.length === 2, 'the event in ns-b');
  assert.deepEqual(w.events, ['Added ns-a/y', 'Added ns-b/y']);
  assert.deepEqual(w.ids(), ['ns-a/x', 'ns-a/y', 'ns-b/x', 'ns-b/y']);
});

test('namespace.labelSelector: namespaces that start matching add their objects, those that stop matching remove them', { timeout: 60_000 }, async (t) => {
  const { sandbox, api, watch } = await setup(t);
  sandbox.load([ns('team-1', { watch: 'yes' }), ns('other'), cm('team-1', 'one', '1'), cm('other', 'x', '1')]);
  const w = watch(binding({ kind: 'ConfigMap', namespace: { labelSelector: { matchLabels: { watch: 'yes' } }, nameSelector: { matchNames: ['other'] } } }));
  await w.monitor.start();
  assert.deepEqual(w.ids(), ['team-1/one'], 'labelSelector wins over nameSelector');
  assert.equal(listRequests(sandbox).find((q) => q.path === '/api/v1/namespaces')?.query.labelSelector, 'watch=yes');

  // the object is created right after its namespace: reported once, whether the new informer lists or watches it
  await api.namespace('team-2', { watch: 'yes' });
  await api.create('team-2', 'two', '1');
  await until(() => w.events.length === 1, 'the object of the new namespace');
  await api.create('team-2', 'three', '1');
  await until(() => w.events.length === 2, 'a later object of the new namespace');
  assert.deepEqual(w.events, ['Added team-2/two', 'Added team-2/three']);
  assert.deepEqual(w.ids(), ['team-1/one', 'team-2/three', 'team-2/two']);
  assert.equal(w.monitor.snapshotSize(), 3, 'the size counts the objects of every namespace');

  await api.labelNamespace('team-2', { watch: null });
  await until(() => w.events.length === 4, 'the objects of the namespace that stopped matching');
  assert.deepEqual(w.events.slice(2), ['Deleted team-2/three', 'Deleted team-2/two']);
  assert.deepEqual(w.ids(), ['team-1/one']);
  assert.equal(w.monitor.snapshotSize(), 1);
  await until(() => sandbox.watchCount() === 2, 'the informer of team-2 to stop');
  assert.ok(!sandbox.requests.some((q) => q.path.startsWith('/api/v1/namespaces/other/')), 'no informer for a namespace that never matched');

  await api.labelNamespace('team-2', { watch: 'yes' });
  await until(() => w.events.length === 6, 'the namespace matching again');
  assert.deepEqual(w.events.slice(4), ['Added team-2/three', 'Added team-2/two']);
});

test('cluster-scoped kind: one cluster-wide informer, namespace settings ignored', { timeout: 60_000 }, async (t) => {
  const { sandbox, kc, watch } = await setup(t);
  const role = (name: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels: { test: 'yes' } }, rules: [] });
  sandbox.load([role('r1')]);
  const w = watch(binding({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', namespace: { nameSelector: { matchNames: ['default'] } }, jqFilter: '.metadata.name' }));
  await w.monitor.start();
  assert.deepEqual(w.monitor.snapshot().map((i) => i.filterResult), ['r1']);
  assert.deepEqual(listRequests(sandbox).filter((q) => q.path.endsWith('/clusterroles')).map((q) => q.path), ['/apis/rbac.authorization.k8s.io/v1/clusterroles']);
  const path = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
  await requestJson(kc, 'POST', path, {}, role('r0'));
  await requestJson(kc, 'DELETE', `${path}/r1`);
  await until(() => w.events.length === 2, 'two events');
  assert.deepEqual(w.events, ['Added /r0 "r0"', 'Deleted /r1 "r1"']);
  assert.deepEqual(w.monitor.snapshot().map((i) => i.filterResult), ['r0']);
});

test('dropped watches resume and 410 Gone relists: no event lost or repeated', { timeout: 60_000 }, async (t) => {
  const { sandbox, api, watch } = await setup(t);
  sandbox.load([cm('default', 'keep', '1'), cm('default', 'gone', '1'), cm('default', 'same', '1')]);
  const w = watch(binding({ kind: 'ConfigMap' }));
  await w.monitor.start();
  await until(() => sandbox.watchCount() === 1, 'the watch');
  sandbox.dropWatches();
  await api.create('default', 'after-drop', '1');
  await until(() => w.events.length === 1, 'the event after the dropped watch');

  // change things while the watch is failing, then make its resourceVersion too old
  sandbox.failNext(1000, 500);
  sandbox.dropWatches();
  await until(() => w.errors.length >= 1, 'a failed watch');
  assert.match(w.errors[0]!, /^hooks\/watch\.sh pods: ConfigMap informer \/api\/v1\/configmaps: /);
  sandbox.load([cm('default', 'keep', '2'), cm('default', 'new', '1')]);
  sandbox.compactHistory();
  sandbox.clearRequestLog();
  sandbox.failNext(0);
  await api.remove('default', 'gone');
  await until(() => w.events.length === 4, 'the changes made meanwhile');
  await api.create('default', 'z-last', '1');
  await until(() => w.events.length === 5, 'the last event');
  assert.equal(w.events[0], 'Added default/after-drop');
  assert.deepEqual(w.events.slice(1, 4).sort(), ['Added default/new', 'Deleted default/gone', 'Modified default/keep']);
  assert.equal(w.events[4], 'Added default/z-last');
  assert.ok(configMapLists(sandbox).length >= 1, 'relisted after 410');
  assert.deepEqual(w.ids(), ['default/after-drop', 'default/keep', 'default/new', 'default/same', 'default/z-last']);
});

test('start() retries discovery and lists until they succeed, reporting every error', { timeout: 60_000 }, async (t) => {
  const { sandbox, kc, watch } = await setup(t);
  const w = watch(binding({ apiVersion: 'example.com/v1', kind: 'Widget' }));
  const started = w.monitor.start();
  await until(() => w.errors.length >= 2, 'discovery errors');
  assert.match(w.errors[0]!, /^hooks\/watch\.sh pods: cannot get GroupVersionResource info for apiVersion 'example\.com\/v1' kind 'Widget'/);
  await requestJson(kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {}, crd('Widget'));
  sandbox.load([{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { namespace: 'default', name: 'w1' } }]);
  await started;
  assert.deepEqual(w.ids(), ['default/w1']);
  await w.monitor.stop();

  sandbox.failNext(2, 500);
  const w2 = watch(binding({ kind: 'ConfigMap' }));
  await w2.monitor.start();
  assert.ok(w2.errors.length >= 1);
  for (const e of w2.errors) assert.match(e, /: 500 injected failure/);
  assert.deepEqual(w2.ids(), []);
});

test('stop(): ends every watch, no events afterwards; stop() during start() ends start()', { timeout: 60_000 }, async (t) => {
  const { sandbox, kc, api, watch } = await setup(t);
  sandbox.load([ns('team', { watch: 'yes' }), cm('team', 'a', '1')]);
  const w = watch(binding({ kind: 'ConfigMap', namespace: { labelSelector: { matchLabels: { watch: 'yes' } } } }));
  await w.monitor.start();
  await until(() => sandbox.watchCount() === 2, 'both watches');
  await w.monitor.stop();
  await until(() => sandbox.watchCount() === 0, 'the watches to close');
  sandbox.clearRequestLog();
  await api.create('team', 'b', '1');
  await api.namespace('team-2', { watch: 'yes' });
  assert.deepEqual(sandbox.requests.filter((q) => q.method === 'GET').length, 0, 'nothing lists or watches any more');
  assert.deepEqual(w.events, []);

  const pending = watch(binding({ apiVersion: 'example.com/v1', kind: 'Nothing' }));
  const started = pending.monitor.start();
  await until(() => pending.errors.length >= 1, 'a discovery error');
  await pending.monitor.stop();
  await started;

  const hung = new KubeMonitors({ kc, resolve: () => new Promise(() => undefined) }).createMonitor(binding({ kind: 'ConfigMap' }), {
    label: LABEL,
    onEvent: () => assert.fail('no events'),
  });
  const waiting = hung.start();
  await hung.stop();
  await waiting;

  sandbox.failNext(1000, 500);
  const failing: BindingMonitor = watch(binding({ kind: 'ConfigMap' })).monitor;
  const starting = failing.start();
  await failing.stop();
  await starting;
  sandbox.failNext(0);
});

// an in-process hook that changes every object it is given
const MUTATING_HOOK = `export const config = { configVersion: 'v1', kubernetes: [{ name: 'pods', kind: 'ConfigMap' }] };
export function run(ctx) {
  for (const item of ctx.bindingContext[0].objects) {
    item.object.data.v = 'changed by a hook';
    delete item.object.metadata;
    if (item.filterResult) item.filterResult.v = 'changed by a hook';
  }
}
`;

test('bindings watching the same objects keep one copy of each version; contexts are byte for byte the served objects; in-process hooks get copies', { timeout: 60_000 }, async (t) => {
  const { sandbox, kc, api, watch, monitors } = await setup(t);
  sandbox.load([cm('default', 'b', '1'), cm('default', 'a', '1')]);
  const whole = watch(binding({ kind: 'ConfigMap' }));
  const filteredBinding = binding({ kind: 'ConfigMap', jqFilter: '.data' });
  const filtered = watch(filteredBinding);
  const slim = watch(binding({ kind: 'ConfigMap', jqFilter: '.data', keepFullObjectsInMemory: false }));
  await Promise.all([whole, filtered, slim].map((w) => w.monitor.start()));
  const objectsOf = (w: typeof whole) => w.monitor.snapshot().map((i) => i.object);
  assert.equal(monitors.objects.size, 2, 'one kept copy per object');
  assert.deepEqual(whole.ids(), ['default/a', 'default/b']);
  objectsOf(whole).forEach((o, i) => assert.equal(o, objectsOf(filtered)[i], 'the same parsed object'));

  await api.patch('default', 'a', { data: { v: '2' } });
  await until(() => whole.events.length === 1 && filtered.events.length === 1 && slim.events.length === 1, 'the change seen by the three bindings');
  assert.equal(whole.items[0]!.object, filtered.items[0]!.object);
  assert.equal(monitors.objects.size, 2, 'the replaced version is forgotten');

  // what a shell hook is given: the objects exactly as the API server serves them, in Go's JSON
  const get = (name: string) => requestJson<Record<string, unknown>>(kc, 'GET', `/api/v1/namespaces/default/configmaps/${name}`);
  const [a, b] = [await get('a'), await get('b')];
  const json = bindingContextsToJson([synchronizationContext(filteredBinding)], { version: 'v1', snapshots: () => filtered.monitor.snapshot() });
  const item = (o: Record<string, unknown>) => `{"filterResult":${goJsonStringify(o.data)},"object":${goJsonStringify(o)}}`;
  assert.equal(json, `[{"binding":"pods","objects":[${item(a)},${item(b)}],"type":"Synchronization"}]\n`);
  assert.match(json, /"managedFields":\[/);

  // an in-process hook changing what it was given changes its own copy only
  const [hook] = await loadHooks(join(makeTree({ 'hooks/mutate.hook.mjs': MUTATING_HOOK }), 'hooks'), { kind: 'global', timeoutMs: 10_000 });
  const before = goJsonStringify([whole.monitor.snapshot(), filtered.monitor.snapshot()]);
  await hook!.run({ contexts: [synchronizationContext(hook!.config.kubernetes[0]!)], snapshots: () => filtered.monitor.snapshot(), values: {}, configValues: {} }, { tmpDir: join(tmpdir(), 'unused'), timeoutMs: 10_000 });
  assert.equal(goJsonStringify([whole.monitor.snapshot(), filtered.monitor.snapshot()]), before);

  await Promise.all([whole, filtered, slim].map((w) => w.monitor.stop()));
  assert.equal(monitors.objects.size, 0, 'stopped monitors keep nothing');
});

test('monitors keeping full objects with the same path and selectors share one informer; a later one gets its list from it; it stops with the last', { timeout: 60_000 }, async (t) => {
  const { sandbox, api, watch, monitors } = await setup(t);
  sandbox.load([cm('default', 'b', '1', { app: 'x' }), cm('default', 'a', '1')]);
  sandbox.clearRequestLog();
  const lists = () => sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/configmaps' && r.query.watch === undefined && r.query.labelSelector === undefined).length;
  const first = watch(binding({ kind: 'ConfigMap' }));
  await first.monitor.start();
  await api.create('default', 'c', '1');
  await until(() => first.events.length === 1, 'the first monitor sees c');
  const later = watch(binding({ kind: 'ConfigMap', jqFilter: '.data.v' }));
  await later.monitor.start();
  assert.equal(lists(), 1, 'the later monitor lists nothing');
  assert.deepEqual(later.ids(), ['default/a', 'default/b', 'default/c']);
  assert.deepEqual(later.monitor.snapshot().map((i) => i.filterResult), ['1', '1', '1']);
  assert.deepEqual(later.events, [], 'its list is no event');
  const slim = watch(binding({ kind: 'ConfigMap', jqFilter: '.data.v', keepFullObjectsInMemory: false }));
  const labelled = watch(binding({ kind: 'ConfigMap', labelSelector: { matchLabels: { app: 'x' } } }));
  await Promise.all([slim.monitor.start(), labelled.monitor.start()]);
  assert.equal(lists(), 1, 'a binding keeping filter results only joins the informer keeping objects');
  assert.deepEqual(slim.monitor.snapshot().map((i) => i.filterResult), ['1', '1', '1']);
  assert.equal(monitors.sharedInformers, 2, 'other selectors, another informer');
  assert.deepEqual(labelled.ids(), ['default/b']);

  await api.patch('default', 'a', { data: { v: '2' } });
  await until(() => first.events.length === 2 && later.events.length === 1 && slim.events.length === 1, 'the change seen by every monitor');
  assert.deepEqual([first.events[1], later.events[0], slim.events[0]], ['Modified default/a', 'Modified default/a "2"', 'Modified "2"']);

  await first.monitor.stop();
  await api.patch('default', 'a', { data: { v: '3' } });
  await until(() => later.events.length === 2, 'the later monitor still sees changes');
  assert.equal(first.events.length, 2, 'nothing after stop()');
  await Promise.all([later.monitor.stop(), labelled.monitor.stop()]);
  assert.equal(monitors.sharedInformers, 1, 'the slim monitor still holds the informer');
  await until(() => sandbox.watchCount() === 1, 'only the slim monitor still watching');
  await slim.monitor.stop();
  assert.equal(monitors.sharedInformers, 0);
  const again = watch(binding({ kind: 'ConfigMap' }));
  await again.monitor.start();
  assert.equal(lists(), 2, 'a new informer once the last one stopped');
  assert.deepEqual(again.ids(), ['default/a', 'default/b', 'default/c']);
  assert.deepEqual([first, later, slim, labelled, again].flatMap((w) => w.errors), []);
});

test('a list longer than a page: the Synchronization holds every object once, also for a monitor that joins a shared informer during the list', { timeout: 60_000 }, async (t) => {
  const { sandbox, watch } = await setup(t);
  const names = Array.from({ length: 1203 }, (_, i) => `cm-${String(i).padStart(4, '0')}`);
  sandbox.load(names.map((n) => cm('default', n, '1')));
  sandbox.clearRequestLog();
  const first = watch(binding({ kind: 'ConfigMap' }));
  const firstStarted = first.monitor.start();
  // the second joins the first's informer while its pages come
  await until(() => listRequests(sandbox).some((q) => q.path === '/api/v1/configmaps'), 'the first page asked for');
  const second = watch(binding({ kind: 'ConfigMap', jqFilter: '.metadata.name' }));
  const slim = watch(binding({ kind: 'ConfigMap', jqFilter: '.metadata.name', keepFullObjectsInMemory: false }));
  await Promise.all([firstStarted, second.monitor.start(), slim.monitor.start()]);
  const expected = names.map((n) => `default/${n}`);
  assert.deepEqual(first.ids(), expected);
  assert.deepEqual(second.ids(), expected);
  assert.deepEqual(slim.monitor.snapshot().map((i) => i.filterResult), names);
  assert.deepEqual([...first.events, ...second.events, ...slim.events], [], 'a list is no event');
  const pages = listRequests(sandbox).filter((q) => q.path === '/api/v1/configmaps');
  assert.ok(pages.every((q) => q.query.limit === '500'), 'pages of 500');
  assert.equal(pages.length, 3, 'three pages for the shared informer, that the slim one joined too');
});

test('bindings keeping filter results only share one informer keeping resourceVersions: started together, one list; one that starts later lists on its own, and a change during its list is in its snapshot once', { timeout: 60_000 }, async (t) => {
  const { sandbox, api, watch, monitors } = await setup(t);
  const names = Array.from({ length: 1203 }, (_, i) => `cm-${String(i).padStart(4, '0')}`);
  sandbox.load(names.map((n) => cm('default', n, '1')));
  sandbox.clearRequestLog();
  const pages = () => listRequests(sandbox).filter((q) => q.path === '/api/v1/configmaps');
  const slim = (jqFilter: string) => watch(binding({ kind: 'ConfigMap', jqFilter, keepFullObjectsInMemory: false }));
  const values = slim('.data.v');
  const names1 = slim('.metadata.name');
  await Promise.all([values.monitor.start(), names1.monitor.start()]);
  assert.equal(pages().length, 3, 'one list of three pages for both');
  assert.equal(monitors.sharedInformers, 1);
  assert.equal(names1.monitor.snapshot().length, names.length);

  // a later one: its own list, slowed down so that a change comes between its first and last page
  sandbox.setLatency(300);
  const late = slim('.data.v');
  const lateStarted = late.monitor.start();
  await until(() => pages().length === 5, 'the second page of the late monitor asked for');
  sandbox.load([cm('default', 'cm-0000', '2')]);
  await until(() => values.events.length === 1, 'the change seen by the running monitor');
  await lateStarted;
  sandbox.setLatency(0);
  assert.equal(pages().length, 6, 'the late monitor listed three pages of its own');
  assert.equal(monitors.sharedInformers, 1, 'and watches with the others');
  assert.equal(sandbox.watchCount(), 1);
  const lateValues = late.monitor.snapshot().map((i) => i.filterResult);
  assert.equal(lateValues.length, names.length, 'each object once');
  assert.equal(lateValues[0], '2', 'the change after its first page, from the held events');
  assert.deepEqual(lateValues.slice(1), names.slice(1).map(() => '1'));
  assert.deepEqual(late.events, [], 'its list is no event');

  await api.patch('default', 'cm-0001', { data: { v: '3' } });
  await until(() => late.events.length === 1 && values.events.length === 2 && names1.events.length === 0, 'the next change');
  await api.remove('default', 'cm-0002');
  await until(() => late.events.length === 2 && names1.events.length === 1, 'the deletion');
  assert.deepEqual(late.events, ['Modified "3"', 'Deleted "1"']);
  assert.deepEqual(values.events, ['Modified "2"', 'Modified "3"', 'Deleted "1"']);
  assert.deepEqual(names1.events, ['Deleted "cm-0002"']);
  assert.deepEqual([values, names1, late].flatMap((w) => w.errors), []);
});

test('retainedBytes: what each binding keeps, more for full objects than for filter results; it grows with objects and falls back with deletions and stop()', { timeout: 60_000 }, async (t) => {
  const { sandbox, api, watch } = await setup(t);
  sandbox.load(['a', 'b'].map((n) => cm('default', n, 'x'.repeat(1000))));
  const full = watch(binding({ kind: 'ConfigMap' }));
  const filtered = watch(binding({ kind: 'ConfigMap', jqFilter: '.data.v | length', keepFullObjectsInMemory: false }));
  assert.equal(full.monitor.retainedBytes(), 0, 'nothing before the start');
  await Promise.all([full.monitor.start(), filtered.monitor.start()]);
  const two = { full: full.monitor.retainedBytes(), filtered: filtered.monitor.retainedBytes() };
  assert.ok(two.filtered > 0 && two.full > two.filtered + 2 * 1000, `full objects keep their 1,000-character values: ${JSON.stringify(two)}`);
  await api.create('default', 'c', 'y'.repeat(1000));
  await until(() => full.monitor.snapshotSize() === 3 && filtered.monitor.snapshotSize() === 3, 'c in both snapshots');
  assert.ok(full.monitor.retainedBytes() > two.full + 1000, 'one object more');
  assert.ok(filtered.monitor.retainedBytes() > two.filtered, 'one filter result more');
  await api.remove('default', 'c');
  await until(() => full.monitor.snapshotSize() === 2 && filtered.monitor.snapshotSize() === 2, 'c gone from both');
  assert.equal(filtered.monitor.retainedBytes(), two.filtered, 'back to the two filter results');
  assert.equal(full.monitor.retainedBytes(), two.full, 'back to the two objects');
  await full.monitor.stop();
  assert.equal(full.monitor.retainedBytes(), 0, 'nothing after stop()');
});
