import { goJsonStringify } from '../../src/util/json.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bindingContextsToJson,
  bindingContextsToObjects,
  bindingNameOf,
  combineBindingContexts,
  compactGroupedContexts,
  compareSnapshotItems,
  eventContext,
  lifecycleContext,
  makeSnapshotItem,
  onStartupContext,
  scheduleContext,
  synchronizationContext,
  type BindingContext,
  type CombinableTask,
  type SnapshotItem,
  type SnapshotSource,
} from '../../src/hooks/binding-context.js';
import { parseHookConfigSync } from '../../src/hooks/config.js';
import type { HookConfig, KubernetesBinding, ScheduleBinding } from '../../src/hooks/config-types.js';


function cfg(obj: unknown, kind: 'global' | 'module' = 'module'): HookConfig {
  return parseHookConfigSync(obj, { hookPath: 'hooks/test.sh', kind });
}

function kb(c: HookConfig, name: string): KubernetesBinding {
  const b = c.kubernetes.find((k) => k.name === name);
  assert.ok(b, name);
  return b;
}

function sb(c: HookConfig, name: string): ScheduleBinding {
  const b = c.schedule.find((k) => k.name === name);
  assert.ok(b, name);
  return b;
}

const POD_A = { kind: 'Pod', apiVersion: 'v1', metadata: { namespace: 'default', name: 'pod-a', labels: { app: 'a' } } };
const POD_B = { metadata: { name: 'pod-b', namespace: 'default', labels: { app: 'b' } }, apiVersion: 'v1', kind: 'Pod' };

const v1 = { version: 'v1' as const };

void test('onStartup: only binding, no type', () => {
  assert.equal(bindingContextsToJson([onStartupContext()], v1), '[{"binding":"onStartup"}]\n');
  assert.equal(bindingContextsToJson([onStartupContext()], { version: 'v0' }), '[{"binding":"onStartup"}]\n');
});

void test('lifecycle contexts always carry snapshots; {} without kubernetes bindings', () => {
  const noKube = cfg({ configVersion: 'v1', beforeHelm: 1 });
  assert.equal(bindingContextsToJson([lifecycleContext(noKube, 'beforeHelm')], v1), '[{"binding":"beforeHelm","snapshots":{}}]\n');
  const g = cfg({ configVersion: 'v1', beforeAll: 10, kubernetes: [{ name: 'monitor-pods', apiVersion: 'v1', kind: 'Pod', jqFilter: '.metadata.labels' }, { name: 'nodes', kind: 'Node' }] }, 'global');
  const pods = kb(g, 'monitor-pods');
  const source: SnapshotSource = (name) => (name === 'monitor-pods' ? [makeSnapshotItem(pods, POD_A, [POD_A.metadata.labels])] : []);
  assert.equal(
    bindingContextsToJson([lifecycleContext(g, 'beforeAll')], { version: 'v1', snapshots: source }),
    '[{"binding":"beforeAll","snapshots":{"monitor-pods":[{"filterResult":{"app":"a"},"object":{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"a"},"name":"pod-a","namespace":"default"}}}],"nodes":[]}}]\n',
  );
});

void test('v0 lifecycle contexts carry only the binding (MapV0), no snapshots', () => {
  const v0 = cfg({ beforeAll: 10, onKubernetesEvent: [{ name: 'pods', kind: 'Pod' }] }, 'global');
  const source: SnapshotSource = () => [makeSnapshotItem(kb(v0, 'pods'), POD_A)];
  for (const binding of ['beforeAll', 'afterAll'] as const) {
    assert.equal(bindingContextsToJson([lifecycleContext(v0, binding)], { version: 'v0', snapshots: source }), `[{"binding":"${binding}"}]\n`);
  }
  const m = cfg({ beforeHelm: 1, afterHelm: 1, afterDeleteHelm: 1, onKubernetesEvent: [{ name: 'pods', kind: 'Pod' }] });
  for (const binding of ['beforeHelm', 'afterHelm', 'afterDeleteHelm'] as const) {
    assert.equal(bindingContextsToJson([lifecycleContext(m, binding)], { version: 'v0', snapshots: source }), `[{"binding":"${binding}"}]\n`);
  }
});

void test('schedule: type Schedule, snapshots when includeSnapshotsFrom is set', () => {
  const c = cfg({ configVersion: 'v1', schedule: [{ name: 'every-5m', crontab: '*/5 * * * *' }, { name: 'with-snap', crontab: '@hourly', includeSnapshotsFrom: ['pods'] }], kubernetes: [{ name: 'pods', kind: 'Pod', keepFullObjectsInMemory: false, jqFilter: '.metadata.name' }] });
  assert.equal(bindingContextsToJson([scheduleContext(sb(c, 'every-5m'))], v1), '[{"binding":"every-5m","type":"Schedule"}]\n');
  const pods = kb(c, 'pods');
  const source: SnapshotSource = () => [makeSnapshotItem(pods, POD_A, ['pod-a']), makeSnapshotItem(pods, POD_B, [])];
  assert.equal(
    bindingContextsToJson([scheduleContext(sb(c, 'with-snap'))], { version: 'v1', snapshots: source }),
    '[{"binding":"with-snap","snapshots":{"pods":[{"filterResult":"pod-a"},{"filterResult":null}]},"type":"Schedule"}]\n',
  );
  assert.equal(bindingContextsToJson([scheduleContext(sb(c, 'every-5m'))], { version: 'v0' }), '[{"binding":"every-5m"}]\n');
});

void test('Synchronization: objects ([] when empty), filterResult only with a jqFilter', () => {
  const c = cfg({ configVersion: 'v1', kubernetes: [{ name: 'pods', kind: 'Pod' }, { name: 'labels', kind: 'Pod', jqFilter: '.metadata.labels' }] });
  assert.equal(bindingContextsToJson([synchronizationContext(kb(c, 'pods'))], v1), '[{"binding":"pods","objects":[],"type":"Synchronization"}]\n');
  const pods = kb(c, 'pods');
  assert.equal(
    bindingContextsToJson([synchronizationContext(pods, [makeSnapshotItem(pods, POD_B)])], v1),
    '[{"binding":"pods","objects":[{"object":{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"b"},"name":"pod-b","namespace":"default"}}}],"type":"Synchronization"}]\n',
  );
  // objects read from the snapshot source at render time when not captured
  const labels = kb(c, 'labels');
  const source: SnapshotSource = (n) => (n === 'labels' ? [makeSnapshotItem(labels, POD_A, [{ app: 'a' }])] : []);
  assert.equal(
    bindingContextsToJson([synchronizationContext(labels)], { version: 'v1', snapshots: source }),
    '[{"binding":"labels","objects":[{"filterResult":{"app":"a"},"object":{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"a"},"name":"pod-a","namespace":"default"}}}],"type":"Synchronization"}]\n',
  );
});

void test('Event: watchEvent, object and filterResult at top level', () => {
  const c = cfg({ configVersion: 'v1', kubernetes: [{ name: 'pods', kind: 'Pod' }, { name: 'f', kind: 'Pod', jqFilter: '.metadata.name' }, { name: 'slim', kind: 'Pod', jqFilter: '.metadata.name', keepFullObjectsInMemory: false }, { name: 'bare', kind: 'Pod', keepFullObjectsInMemory: false }] });
  const pods = kb(c, 'pods');
  assert.equal(
    bindingContextsToJson([eventContext(pods, 'Added', makeSnapshotItem(pods, { kind: 'Pod', metadata: { name: 'pod-qwe', namespace: 'default' } }))], v1),
    '[{"binding":"pods","object":{"kind":"Pod","metadata":{"name":"pod-qwe","namespace":"default"}},"type":"Event","watchEvent":"Added"}]\n',
  );
  const f = kb(c, 'f');
  assert.equal(
    bindingContextsToJson([eventContext(f, 'Modified', makeSnapshotItem(f, { kind: 'Pod' }, ['x', 'y']))], v1),
    '[{"binding":"f","filterResult":["x","y"],"object":{"kind":"Pod"},"type":"Event","watchEvent":"Modified"}]\n',
  );
  const slim = kb(c, 'slim');
  assert.equal(
    bindingContextsToJson([eventContext(slim, 'Deleted', makeSnapshotItem(slim, POD_A, ['pod-a']))], v1),
    '[{"binding":"slim","filterResult":"pod-a","type":"Event","watchEvent":"Deleted"}]\n',
  );
  const bare = kb(c, 'bare');
  assert.equal(bindingContextsToJson([eventContext(bare, 'Added', makeSnapshotItem(bare, POD_A))], v1), '[{"binding":"bare","type":"Event","watchEvent":"Added"}]\n');
  // synthetic event without object
  assert.equal(bindingContextsToJson([eventContext(f, 'Added', null)], v1), '[{"binding":"f","filterResult":"","object":null,"type":"Event","watchEvent":"Added"}]\n');
  assert.equal(bindingContextsToJson([eventContext(pods, 'Added', null)], v1), '[{"binding":"pods","object":null,"type":"Event","watchEvent":"Added"}]\n');
});

void test('Group: type Group and groupName, no objects; snapshots of the group', () => {
  const c = cfg({
    configVersion: 'v1',
    schedule: [{ name: 'sched', crontab: '@daily', group: 'pods' }, { name: 'lonely', crontab: '@daily', group: 'nothing' }],
    kubernetes: [{ name: 'monitor_pods', kind: 'Pod', group: 'pods', jqFilter: '.metadata.name' }],
  });
  const mp = kb(c, 'monitor_pods');
  const source: SnapshotSource = () => [makeSnapshotItem(mp, POD_A, ['pod-a'])];
  const out = bindingContextsToJson(
    [synchronizationContext(mp), eventContext(mp, 'Added', makeSnapshotItem(mp, POD_A, ['pod-a'])), scheduleContext(sb(c, 'sched')), scheduleContext(sb(c, 'lonely'))],
    { version: 'v1', snapshots: source },
  );
  const snap = '{"monitor_pods":[{"filterResult":"pod-a","object":{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"a"},"name":"pod-a","namespace":"default"}}}]}';
  assert.equal(
    out,
    `[{"binding":"monitor_pods","groupName":"pods","snapshots":${snap},"type":"Group"},` +
      `{"binding":"monitor_pods","groupName":"pods","snapshots":${snap},"type":"Group"},` +
      `{"binding":"sched","groupName":"pods","snapshots":${snap},"type":"Group"},` +
      '{"binding":"lonely","groupName":"nothing","type":"Group"}]\n',
  );
});

void test('snapshots are read once per binding per render', () => {
  const c = cfg({ configVersion: 'v1', afterHelm: 1, schedule: [{ crontab: '@daily', includeSnapshotsFrom: ['pods'] }], kubernetes: [{ name: 'pods', kind: 'Pod' }] });
  const calls: string[] = [];
  const source: SnapshotSource = (n) => {
    calls.push(n);
    return [];
  };
  bindingContextsToJson([lifecycleContext(c, 'afterHelm'), scheduleContext(c.schedule[0]!), synchronizationContext(kb(c, 'pods'))], { version: 'v1', snapshots: source });
  assert.deepEqual(calls, ['pods']);
});

void test('v0 format: resourceEvent and resource fields for kubernetes events', () => {
  const c = cfg({ onKubernetesEvent: [{ kind: 'Pod', event: ['add'] }] });
  const b = kb(c, 'onKubernetesEvent');
  assert.equal(
    bindingContextsToJson([eventContext(b, 'Added', makeSnapshotItem(b, { kind: 'Pod', metadata: { namespace: 'default', name: 'pod-qwe' } }))], { version: 'v0' }),
    '[{"binding":"onKubernetesEvent","resourceEvent":"add","resourceKind":"Pod","resourceName":"pod-qwe","resourceNamespace":"default"}]\n',
  );
  assert.equal(
    bindingContextsToJson([eventContext(b, 'Modified', makeSnapshotItem(b, { kind: 'Node', metadata: { name: 'n1' } })), eventContext(b, 'Deleted', null)], { version: 'v0' }),
    '[{"binding":"onKubernetesEvent","resourceEvent":"update","resourceKind":"Node","resourceName":"n1","resourceNamespace":""},{"binding":"onKubernetesEvent","resourceEvent":"delete"}]\n',
  );
});

void test('JSON is written like Go: sorted keys at every level, HTML characters escaped', () => {
  assert.equal(goJsonStringify({ b: 1, a: { d: [{ z: 1, y: 2 }], c: '<a href="x">&</a>' }, '10': 1, '9': 2 }), '{"10":1,"9":2,"a":{"c":"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e","d":[{"y":2,"z":1}]},"b":1}');
  assert.equal(goJsonStringify({ s: 'line\u2028sep', n: null, u: undefined, arr: [undefined] }), '{"arr":[null],"n":null,"s":"line\\u2028sep"}');
  assert.equal(JSON.parse(goJsonStringify({ x: '<&>' })).x, '<&>');
});

void test('bindingContextsToObjects gives the same data as the JSON file', () => {
  const c = cfg({ configVersion: 'v1', kubernetes: [{ name: 'pods', kind: 'Pod', jqFilter: '.metadata.name' }] });
  const b = kb(c, 'pods');
  const ctxs: BindingContext[] = [eventContext(b, 'Added', makeSnapshotItem(b, POD_A, ['pod-a'])), synchronizationContext(b, [])];
  assert.deepEqual(bindingContextsToObjects(ctxs, v1), JSON.parse(bindingContextsToJson(ctxs, v1)));
  assert.deepEqual(ctxs.map(bindingNameOf), ['pods', 'pods']);
  assert.equal(bindingNameOf(onStartupContext()), 'onStartup');
});

void test('makeSnapshotItem and compareSnapshotItems', () => {
  assert.deepEqual(makeSnapshotItem({ keepFullObjectsInMemory: true }, POD_A), { object: POD_A });
  assert.deepEqual(makeSnapshotItem({ keepFullObjectsInMemory: false }, POD_A), {});
  assert.deepEqual(makeSnapshotItem({ keepFullObjectsInMemory: false, jqFilter: '.x' }, POD_A), { filterResult: null });
  assert.deepEqual(makeSnapshotItem({ keepFullObjectsInMemory: false, jqFilter: '.x' }, POD_A, [1]), { filterResult: 1 });
  const items: SnapshotItem[] = [
    { object: { metadata: { namespace: 'b', name: 'a' } } },
    { object: { metadata: { namespace: 'a', name: 'z' } } },
    { object: { metadata: { name: 'cluster-scoped' } } },
    { object: { metadata: { namespace: 'a', name: 'b' } } },
  ];
  assert.deepEqual(
    [...items].sort(compareSnapshotItems).map((i) => (i.object!.metadata as { name: string }).name),
    ['cluster-scoped', 'b', 'z', 'a'],
  );
});

// ---------------------------------------------------------------------------------------------------
// combining

const c = cfg({
  configVersion: 'v1',
  schedule: [{ name: 'sched', crontab: '@daily' }, { name: 'g-sched', crontab: '@daily', group: 'g' }],
  kubernetes: [{ name: 'pods', kind: 'Pod' }, { name: 'g-pods', kind: 'Pod', group: 'g' }],
});
const pods = kb(c, 'pods');
const gPods = kb(c, 'g-pods');

function task(hookKey: string, contexts: BindingContext[], taskType = 'ModuleHookRun', monitorIds: string[] = []): CombinableTask {
  return { hookKey, taskType, contexts, monitorIds };
}

void test('combine: follows the same hook and task type, stops at another hook or task type', () => {
  const head = task('mod/hooks/a', [eventContext(pods, 'Added', null)], 'ModuleHookRun', ['m1']);
  const t2 = task('mod/hooks/a', [scheduleContext(sb(c, 'sched'))]);
  const t3 = task('mod/hooks/a', [eventContext(pods, 'Deleted', null)], 'ModuleHookRun', ['m2']);
  const other = task('other/hooks/a', [eventContext(pods, 'Added', null)]);
  const t5 = task('mod/hooks/a', [eventContext(pods, 'Modified', null)]);
  const r = combineBindingContexts(head, [t2, t3, other, t5], { hookVersion: 'v1' });
  assert.ok(r);
  assert.deepEqual(r.combined, [t2, t3]);
  assert.deepEqual(r.monitorIds, ['m1', 'm2']);
  assert.deepEqual(
    r.contexts.map((x) => `${bindingNameOf(x)}:${x.type}`),
    ['pods:Event', 'sched:Schedule', 'pods:Event'],
  );
  const differentType = combineBindingContexts(head, [task('mod/hooks/a', [], 'ModuleRun')], { hookVersion: 'v1' });
  assert.equal(differentType, null);
});

void test('combine: nothing for v0 hooks, onStartup heads and ungrouped Synchronization heads', () => {
  const next = [task('h', [eventContext(pods, 'Added', null)])];
  assert.equal(combineBindingContexts(task('h', [eventContext(pods, 'Added', null)]), next, { hookVersion: 'v0' }), null);
  assert.equal(combineBindingContexts(task('h', [onStartupContext()]), next, { hookVersion: 'v1' }), null);
  assert.equal(combineBindingContexts(task('h', [synchronizationContext(pods)]), next, { hookVersion: 'v1' }), null);
  assert.equal(combineBindingContexts(task('h', [eventContext(pods, 'Added', null)]), [], { hookVersion: 'v1' }), null);
  // grouped Synchronization tasks are combined and collapse to one Group context
  const r = combineBindingContexts(task('h', [synchronizationContext(gPods)]), [task('h', [synchronizationContext(gPods)])], { hookVersion: 'v1' });
  assert.ok(r);
  assert.equal(r.contexts.length, 1);
});

void test('compactGroupedContexts collapses adjacent runs of one group to the last context (7 → 5)', () => {
  // [g-sync, g-sync, g-sched, event, g-sched, sched, g-event] as in Test_CombineBindingContext_Group_Type
  const list: BindingContext[] = [
    synchronizationContext(gPods),
    synchronizationContext(gPods),
    scheduleContext(sb(c, 'g-sched')),
    eventContext(pods, 'Added', null),
    scheduleContext(sb(c, 'g-sched')),
    scheduleContext(sb(c, 'sched')),
    eventContext(gPods, 'Added', null),
  ];
  const out = compactGroupedContexts(list);
  assert.equal(out.length, 5);
  assert.deepEqual(out, [list[2], list[3], list[4], list[5], list[6]]);
  assert.equal(
    bindingContextsToJson(out.slice(0, 2), v1),
    '[{"binding":"g-sched","groupName":"g","snapshots":{"g-pods":[]},"type":"Group"},{"binding":"pods","object":null,"type":"Event","watchEvent":"Added"}]\n',
  );
});
