import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cm, raw, withSandbox } from './helpers.js';
import { humanDuration } from '../../src/sandbox/table.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

test('Accept as=Table answers lists and single objects with Table objects', async () => {
  await withSandbox(async ({ core, sb }) => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('t1', { a: 'b', c: 'd' }) });
    const r = await raw(sb, 'GET', '/api/v1/namespaces/default/configmaps?limit=500', { headers: { accept: TABLE } });
    const t = r.json();
    assert.equal(t.kind, 'Table');
    assert.equal(t.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(t.columnDefinitions.map((c: any) => c.name), ['Name', 'Data', 'Age']);
    assert.equal(t.rows[0].cells[0], 't1');
    assert.equal(t.rows[0].cells[1], 2);
    assert.equal(t.rows[0].object.kind, 'PartialObjectMetadata');
    assert.equal(t.rows[0].object.metadata.name, 't1');
    const one = (await raw(sb, 'GET', '/api/v1/namespaces/default/configmaps/t1', { headers: { accept: TABLE } })).json();
    assert.equal(one.rows.length, 1);
    const ns = (await raw(sb, 'GET', '/api/v1/namespaces', { headers: { accept: TABLE } })).json();
    assert.deepEqual(ns.columnDefinitions.map((c: any) => c.name), ['Name', 'Status', 'Age']);
    // plain JSON when not asked
    assert.equal((await raw(sb, 'GET', '/api/v1/namespaces/default/configmaps')).json().kind, 'ConfigMapList');
  });
});

test('ages print like kubectl', () => {
  assert.equal(humanDuration(5000), '5s');
  assert.equal(humanDuration(150_000), '2m30s');
  assert.equal(humanDuration(3_600_000 * 5), '5h');
  assert.equal(humanDuration(86_400_000 * 3), '3d');
});
