import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, applyPatchLenient, compactOps, normalizePath, parsePatchText, type PatchOp } from '../../src/values/patch.js';

test('dot paths are read as keys, slash paths as RFC 6901 pointers', () => {
  assert.equal(normalizePath('simpleOneModule.param2'), '/simpleOneModule/param2');
  assert.equal(normalizePath('/a~1b/c'), '/a~1b/c');
  assert.equal(normalizePath('a/b.c'), '/a~1b/c');
});

test('a patch file may hold arrays and single operations, concatenated', () => {
  const ops = parsePatchText('[{"op":"add","path":"/a/x","value":1}]\n{"op":"remove","path":"a.y"}[]', 'VALUES_JSON_PATCH_PATH');
  assert.deepEqual(ops, [
    { op: 'add', path: '/a/x', value: 1 },
    { op: 'remove', path: '/a/y' },
  ]);
  assert.deepEqual(parsePatchText('  \n', 'f'), []);
});

test('invalid patch text is reported with its position', () => {
  assert.throws(() => parsePatchText('[{"op":"add","path":"/a","value":1},\n {"op": }]', 'CONFIG_VALUES_JSON_PATCH_PATH'), /CONFIG_VALUES_JSON_PATCH_PATH: invalid JSON at line 2 column \d+/);
  assert.throws(() => parsePatchText('[{"op":"add"', 'f'), /f: invalid JSON at line 1 column 13: expected "," or "}", found end of input/);
  assert.throws(() => parsePatchText('"text"', 'f'), /expected an array or an object/);
  assert.throws(() => parsePatchText('[{"op":"frobnicate","path":"/a"}]', 'f'), /operation 1 .*unknown op "frobnicate"/);
  assert.throws(() => parsePatchText('[{"op":"add","path":"/a"}]', 'f'), /"add" needs a "value"/);
  assert.throws(() => parsePatchText('[{"op":"move","path":"/a"}]', 'f'), /"move" needs a string "from"/);
});

test('operations follow RFC 6902', () => {
  const doc = { m: { a: 1, list: [1, 2, 3] } };
  assert.deepEqual(applyPatch(doc, [{ op: 'add', path: '/m/b', value: { c: true } }]), { m: { a: 1, b: { c: true }, list: [1, 2, 3] } });
  assert.deepEqual(applyPatch(doc, [{ op: 'add', path: '/m/list/1', value: 9 }]).m.list, [1, 9, 2, 3]);
  assert.deepEqual(applyPatch(doc, [{ op: 'add', path: '/m/list/-', value: 4 }]).m.list, [1, 2, 3, 4]);
  assert.deepEqual(applyPatch(doc, [{ op: 'remove', path: '/m/list/0' }]).m.list, [2, 3]);
  assert.deepEqual(applyPatch(doc, [{ op: 'replace', path: '/m/a', value: 'x' }]).m.a, 'x');
  assert.deepEqual(applyPatch(doc, [{ op: 'move', from: '/m/a', path: '/m/z' }]).m, { list: [1, 2, 3], z: 1 });
  assert.deepEqual((applyPatch(doc, [{ op: 'copy', from: '/m/list', path: '/m/l2' }]).m as Record<string, unknown>).l2, [1, 2, 3]);
  assert.deepEqual(applyPatch(doc, [{ op: 'test', path: '/m/a', value: 1 }]), doc);
});

test('removing a missing path does nothing (DESIGN §4.5)', () => {
  const doc = { m: { a: 1 } };
  assert.deepEqual(applyPatch(doc, [{ op: 'remove', path: '/m/nope' }, { op: 'remove', path: '/x/y/z' }]), doc);
});

test('a failing operation leaves the document untouched and names index, path and reason', () => {
  const doc = { m: { a: 1, list: [1] } };
  const snapshot = JSON.stringify(doc);
  const ops: PatchOp[] = [
    { op: 'add', path: '/m/b', value: 2 },
    { op: 'remove', path: '/m/a' },
    { op: 'add', path: '/m/missing/deep', value: 3 },
  ];
  assert.throws(() => applyPatch(doc, ops, 'values patch of hook hooks/a.sh'), {
    message: 'values patch of hook hooks/a.sh: operation 2 (add /m/missing/deep) failed: /m/missing does not exist',
  });
  assert.equal(JSON.stringify(doc), snapshot);
  assert.throws(() => applyPatch(doc, [{ op: 'replace', path: '/m/nope', value: 1 }]), /operation 0 \(replace \/m\/nope\) failed: \/m\/nope does not exist/);
  assert.throws(() => applyPatch(doc, [{ op: 'add', path: '/m/list/5', value: 1 }]), /index 5 is out of range/);
  assert.throws(() => applyPatch(doc, [{ op: 'add', path: '/m/list/01', value: 1 }]), /"01" is not a valid array index/);
  assert.throws(() => applyPatch(doc, [{ op: 'add', path: '/m/a/x', value: 1 }]), /\/m\/a is not an object or a list/);
  assert.throws(() => applyPatch(doc, [{ op: 'test', path: '/m/a', value: 2 }]), /test failed/);
  assert.equal(JSON.stringify(doc), snapshot);
});

test('lenient replay skips what no longer applies and reports it', () => {
  const { result, skipped } = applyPatchLenient({ m: {} }, [
    { op: 'add', path: '/m/a/b', value: 1 },
    { op: 'add', path: '/m/c', value: 2 },
  ]);
  assert.deepEqual(result, { m: { c: 2 } });
  assert.equal(skipped.length, 1);
  assert.equal(skipped[0]!.index, 0);
});

test('compaction drops only operations that a later one overwrites', () => {
  const ops: PatchOp[] = [
    { op: 'add', path: '/m/a', value: 1 },
    { op: 'add', path: '/m/b/c', value: 1 },
    { op: 'add', path: '/m/a', value: 2 },
    { op: 'add', path: '/m/b', value: { d: 1 } },
    { op: 'add', path: '/m/b/e', value: 3 },
  ];
  const compacted = compactOps(ops);
  assert.deepEqual(compacted, [ops[2], ops[3], ops[4]]);
  const base = { m: { b: {} } };
  assert.deepEqual(applyPatch(base, compacted), applyPatch(base, ops));
  // a copy that reads an overwritten path keeps the earlier write
  const withCopy: PatchOp[] = [
    { op: 'add', path: '/m/a', value: 1 },
    { op: 'copy', from: '/m/a', path: '/m/z' },
    { op: 'add', path: '/m/a', value: 2 },
  ];
  assert.deepEqual(compactOps(withCopy), withCopy);
});
