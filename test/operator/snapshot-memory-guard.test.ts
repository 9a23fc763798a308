import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SnapshotMemoryGuard, type BindingBytes } from '../../src/operator/snapshot-memory-guard.js';

test('the snapshot memory guard warns at 80 % of the limit and past it, once each, naming the largest bindings; again after going back under 80 %', () => {
  let rows: BindingBytes[] = [];
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const guard = new SnapshotMemoryGuard({ limitBytes: 1000 * 1024, snapshots: () => rows, warn: (fields, message) => warnings.push({ fields, message }) });
  const at = (pods: number, nodes: number) => {
    rows = [
      { module: 'mon', hook: 'hooks/pods', binding: 'pods', bytes: pods * 1024 },
      { module: '', hook: 'hooks/nodes', binding: 'nodes', bytes: nodes * 1024 },
      { module: 'mon', hook: 'hooks/empty', binding: 'none', bytes: 0 },
    ];
    guard.check();
  };
  at(500, 200);
  assert.equal(warnings.length, 0, 'under 80 %');
  at(600, 220);
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]!.message, "kubernetes bindings' snapshots retain 820 KiB, at 82 % of --kube-snapshot-memory-limit 1000 KiB; largest: mon/hooks/pods pods: 600 KiB, hooks/nodes nodes: 220 KiB");
  assert.deepEqual(warnings[0]!.fields, { retainedBytes: 820 * 1024, limitBytes: 1000 * 1024, largest: ['mon/hooks/pods pods: 600 KiB', 'hooks/nodes nodes: 220 KiB'] });
  at(700, 200);
  assert.equal(warnings.length, 1, 'still between 80 % and the limit: no second warning');
  at(900, 200);
  assert.equal(warnings.length, 2);
  assert.match(warnings[1]!.message, /retain 1\.1 MiB, over --kube-snapshot-memory-limit 1000 KiB; largest: mon\/hooks\/pods pods: 900 KiB/);
  at(950, 200);
  assert.equal(warnings.length, 2, 'over the limit: warned once');
  at(810, 0);
  at(850, 0);
  assert.equal(warnings.length, 2, 'back between 80 % and the limit, then up again: no warning until it has gone under 80 %');
  at(100, 0);
  at(820, 0);
  assert.equal(warnings.length, 3, 'under 80 % re-arms it');
});
