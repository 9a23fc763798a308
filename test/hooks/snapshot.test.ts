import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHookConfigSync } from '../../src/hooks/config.js';
import { SharedObjects, filterObject, filterObjects, sameForHook } from '../../src/hooks/snapshot.js';
import { JqRuntimeError } from '../../src/jq/index.js';
import { gcFunction } from '../../src/operator/idle-gc.js';


const cfg = parseHookConfigSync(
  {
    configVersion: 'v1',
    kubernetes: [
      { name: 'full', kind: 'Pod' },
      { name: 'labels', kind: 'Pod', jqFilter: '.metadata.labels', keepFullObjectsInMemory: false },
      { name: 'calc', kind: 'Pod', jqFilter: '.spec.n + 1' },
    ],
  },
  { hookPath: 'hooks/h.sh', kind: 'global' },
);
const [full, labels, calc] = cfg.kubernetes as [typeof cfg.kubernetes[0], typeof cfg.kubernetes[0], typeof cfg.kubernetes[0]];

const pod = (name: string, rv: string, n: unknown = 1) => ({ kind: 'Pod', metadata: { name, resourceVersion: rv, labels: { app: name } }, spec: { n } });

void test('without jqFilter: the item holds the object and the checksum follows every change', () => {
  const a = filterObject(full, pod('a', '1'));
  assert.deepEqual(a.item, { object: pod('a', '1') });
  assert.notEqual(filterObject(full, pod('a', '2')).checksum, a.checksum);
  assert.equal(filterObject(full, pod('a', '1')).checksum, a.checksum);
});

void test('with jqFilter: a change is seen by the filter result only (no checksum kept); object dropped when not kept', () => {
  const a = filterObject(labels, pod('a', '1'));
  assert.deepEqual(a.item, { filterResult: { app: 'a' } });
  assert.equal(a.checksum, undefined);
  assert.ok(sameForHook(a, filterObject(labels, pod('a', '2'))), 'a resourceVersion change is not seen');
  assert.ok(!sameForHook(a, filterObject(labels, pod('b', '1'))));
  // key order of the result does not matter (Go compares checksums of its sorted JSON)
  const keys = (l: Record<string, string>) => ({ kind: 'Pod', metadata: { name: 'k', labels: l } });
  assert.ok(sameForHook(filterObject(labels, keys({ x: '1', y: '2' })), filterObject(labels, keys({ y: '2', x: '1' }))));
  assert.ok(!sameForHook(filterObject(labels, keys({ x: '1', y: '2' })), filterObject(labels, keys({ x: '1', y: '3' }))));
  assert.ok(!sameForHook(filterObject(labels, keys({ x: '1' })), filterObject(labels, keys({ x: '1', y: '2' }))));
  // without a jqFilter the whole object's checksum decides
  assert.ok(!sameForHook(filterObject(full, pod('a', '1')), filterObject(full, pod('a', '2'))));
  assert.ok(sameForHook(filterObject(full, pod('a', '1')), filterObject(full, pod('a', '1'))));
});

void test('filterObjects batches and attributes jq errors to their object', () => {
  const out = filterObjects(calc, [pod('a', '1', 1), pod('b', '1', 'text'), pod('c', '1', 41)]);
  assert.equal(out.length, 3);
  assert.ok(out[0]!.ok && out[2]!.ok);
  if (out[0]!.ok) assert.equal(out[0]!.item.filterResult, 2);
  if (out[2]!.ok) assert.equal(out[2]!.item.filterResult, 42);
  assert.equal(out[1]!.ok, false);
  if (!out[1]!.ok) assert.ok(out[1]!.error instanceof JqRuntimeError);
  assert.throws(() => filterObject(calc, pod('x', '1', 'text')), JqRuntimeError);
  assert.deepEqual(filterObjects(full, [pod('a', '1')]).map((o) => o.ok), [true]);
});

void test('SharedObjects: one copy per (uid, resourceVersion, apiVersion, kind), counted; objects without uid or version are not shared', () => {
  const shared = new SharedObjects();
  const v = (rv: string, apiVersion = 'v1') => ({ apiVersion, kind: 'Pod', metadata: { name: 'a', uid: 'u-1', resourceVersion: rv } });
  const first = v('1');
  assert.equal(shared.acquire(first), first);
  assert.equal(shared.acquire(v('1')), first, 'an equal version gives the kept copy');
  const second = v('2');
  assert.equal(shared.acquire(second), second, 'another resourceVersion is another version');
  const other = v('1', 'v2');
  assert.equal(shared.acquire(other), other, 'another apiVersion is another version');
  assert.equal(shared.size, 3);
  shared.release(first);
  assert.equal(shared.acquire(v('1')), first, 'still kept: one reference left');
  shared.release(first);
  shared.release(first);
  const again = v('1');
  assert.equal(shared.acquire(again), again, 'forgotten once every reference is released');
  shared.release(v('9'));
  shared.release(undefined);
  const bare = { kind: 'Pod', metadata: { name: 'b' } };
  assert.equal(shared.acquire(bare), bare);
  assert.notEqual(shared.acquire({ kind: 'Pod', metadata: { name: 'b' } }), bare);
  assert.equal(shared.size, 3);
});

void test('SharedObjects: versions share equal managedFields fieldsV1 trees, which read and serialize as before', () => {
  const shared = new SharedObjects();
  const fields = (keys: string[]) => ({ 'f:data': Object.fromEntries(keys.map((k) => [`f:${k}`, {}])), 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  const cm = (uid: string, keys: string[], manager = 'kubectl') => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: uid, uid, resourceVersion: '1', managedFields: [{ manager, operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: fields(keys) }] },
    data: Object.fromEntries(keys.map((k) => [k, 'v'])),
  });
  const treeOf = (o: ReturnType<typeof cm>) => o.metadata.managedFields[0]!.fieldsV1;
  const a = cm('a', ['x', 'y']);
  const b = cm('b', ['x', 'y'], 'helm');
  const c = cm('c', ['y', 'x']);
  const d = cm('d', ['z']);
  const texts = [a, b, c, d].map((o) => JSON.stringify(o));
  for (const o of [a, b, c, d]) shared.acquire(o);
  assert.equal(treeOf(b), treeOf(a), 'an equal tree is the kept one (whoever the manager)');
  assert.notEqual(treeOf(c), treeOf(a), 'another key order is another tree');
  assert.notEqual(treeOf(d), treeOf(a));
  assert.deepEqual([a, b, c, d].map((o) => JSON.stringify(o)), texts, 'every object serializes as it did');
  const noFields = { kind: 'Pod', metadata: { name: 'p', uid: 'p', resourceVersion: '1', managedFields: [{ manager: 'x' }, 'not an object'] } };
  assert.equal(shared.acquire(noFields), noFields);
});

void test('SharedObjects forgets a fieldsV1 tree once no kept version holds it', async () => {
  const shared = new SharedObjects();
  const gc = gcFunction();
  ((): void => {
    const fieldsV1 = { 'f:data': { 'f:only-here': {} } };
    const o = { kind: 'ConfigMap', metadata: { name: 'x', uid: 'x', resourceVersion: '1', managedFields: [{ manager: 'm', fieldsV1 }] } };
    shared.acquire(o);
    shared.release(o);
  })();
  assert.equal(shared.fieldsV1Trees, 1);
  for (let i = 0; i < 20 && shared.fieldsV1Trees > 0; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(shared.fieldsV1Trees, 0, 'the tree was collected and its entry went with it');
});

void test('filterObjects/filterObject keep shared objects only for keepFullObjectsInMemory and only when the filter succeeded', () => {
  const shared = new SharedObjects();
  const obj = (n: unknown, rv = '1') => ({ kind: 'Pod', metadata: { name: 'a', uid: 'u-a', resourceVersion: rv }, spec: { n } });
  const kept = obj(1);
  const [a] = filterObjects(calc, [kept], shared.acquire);
  assert.ok(a!.ok && a!.item.object === kept);
  const b = filterObject(full, obj(1), shared.acquire);
  assert.equal(b.item.object, kept, 'a second binding gets the kept copy');
  assert.equal(shared.size, 1);
  const failed = filterObjects(calc, [obj('text', '2')], shared.acquire);
  assert.equal(failed[0]!.ok, false);
  assert.throws(() => filterObject(calc, obj('text', '3'), shared.acquire), JqRuntimeError);
  filterObject(labels, obj(1, '4'), shared.acquire);
  assert.equal(shared.size, 1, 'nothing kept for failed filters or bindings without full objects');
});

void test('bindings with the same jqFilter that get one object or one list one after another share the results of one filter run', async () => {
  const two = parseHookConfigSync(
    {
      configVersion: 'v1',
      kubernetes: [
        { name: 'one', kind: 'Pod', jqFilter: '.metadata.labels' },
        { name: 'other', kind: 'Pod', jqFilter: '.metadata.labels' },
        { name: 'third', kind: 'Pod', jqFilter: '.metadata.name' },
      ],
    },
    { hookPath: 'hooks/two.sh', kind: 'global' },
  );
  const [one, other, third] = two.kubernetes as [typeof full, typeof full, typeof full];
  let runs = 0;
  for (const b of [one, other, third]) {
    const program = b.jqProgram!;
    const apply = program.apply.bind(program);
    const applyMany = program.applyMany.bind(program);
    program.apply = (input) => (runs++, apply(input));
    program.applyMany = (inputs) => (runs++, applyMany(inputs));
  }
  const p = pod('a', '1');
  const first = filterObject(one, p);
  const second = filterObject(other, p);
  assert.equal(second.item.filterResult, first.item.filterResult, 'one result for both bindings');
  assert.equal(runs, 1);
  assert.equal(filterObject(third, p).item.filterResult, 'a', 'another filter runs');
  assert.equal(runs, 2);
  filterObject(other, pod('a', '1'));
  assert.equal(runs, 3, 'an equal object that is another parse runs again');
  const list = [pod('a', '1'), pod('b', '1')];
  const [x] = filterObjects(one, list);
  const [y] = filterObjects(other, list);
  assert.ok(x!.ok && y!.ok && x.item.filterResult === y.item.filterResult);
  assert.equal(runs, 4);
  await Promise.resolve();
  filterObjects(other, list);
  assert.equal(runs, 5, 'forgotten once the handlers of the change are done');
});

void test('bindings keeping no objects that share a filter run share its items too; one keeping objects has its own', () => {
  const cfg2 = parseHookConfigSync(
    {
      configVersion: 'v1',
      kubernetes: [
        { name: 'a', kind: 'Pod', jqFilter: '.metadata.labels', keepFullObjectsInMemory: false },
        { name: 'b', kind: 'Pod', jqFilter: '.metadata.labels', keepFullObjectsInMemory: false },
        { name: 'kept', kind: 'Pod', jqFilter: '.metadata.labels' },
      ],
    },
    { hookPath: 'hooks/items.sh', kind: 'global' },
  );
  const [a, b, kept] = cfg2.kubernetes as [typeof full, typeof full, typeof full];
  const p = pod('x', '1');
  const first = filterObject(a, p);
  assert.equal(filterObject(b, p).item, first.item, 'one item for both');
  assert.deepEqual(first.item, { filterResult: { app: 'x' } });
  const own = filterObject(kept, p).item;
  assert.notEqual(own, first.item);
  assert.deepEqual(own, { object: p, filterResult: { app: 'x' } });
  assert.notEqual(filterObject(b, pod('x', '1')).item, first.item, 'another parse of the object: another run, another item');
  const list = [pod('y', '1'), pod('z', '1')];
  const fromA = filterObjects(a, list);
  const fromB = filterObjects(b, list);
  assert.ok(fromA[1]!.ok && fromB[1]!.ok && fromA[1].item === fromB[1].item, 'one item per listed object for both');
  assert.deepEqual(fromA.map((o) => o.ok && o.item), [{ filterResult: { app: 'y' } }, { filterResult: { app: 'z' } }]);
});
