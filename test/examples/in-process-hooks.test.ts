/**
 * examples/in-process-hooks: TypeScript hooks run in the operator's process; a labelled Namespace
 * gets its ResourceQuota, a newly labelled one too, and the report hook's metric follows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestJson } from '../../src/kube/http.js';
import { eventually, runExample } from './helpers.js';

test('examples/in-process-hooks', async () => {
  const ex = await runExample('in-process-hooks');
  const pods = async (ns: string) => (await ex.get<{ spec: { hard: { pods: string } } }>(`/api/v1/namespaces/${ns}/resourcequotas/pods`)).spec.hard.pods;
  assert.equal(await pods('team-a'), '10');
  assert.equal(await pods('team-b'), '100');
  await assert.rejects(pods('team-c'), /404|not found/i);
  assert.match(ex.output(), /module namespace-quotas hook hooks\/namespaces\.hook\.mjs \(beforeHelm\): namespaces with a quota tier: team-a=small, team-b=large/);
  const metric = async () => /^example_quota_namespaces\{[^}]*\} (\d+)$/m.exec(await (await fetch(`${ex.url}/metrics/hooks`)).text())?.[1];
  assert.equal(await metric(), '2');

  await requestJson(ex.kc, 'PATCH', '/api/v1/namespaces/team-c', {}, { metadata: { labels: { 'quota-tier': 'small' } } }, 'application/merge-patch+json');
  await eventually(async () => assert.equal(await pods('team-c'), '10'), 'the quota in team-c');
  await eventually(async () => assert.equal(await metric(), '3'), 'the metric');
  // no process was started for these hooks: their runs are in-process
  assert.ok(ex.records().some((r) => r.hook === 'hooks/namespaces.hook.mjs'));
  assert.equal(await ex.stop(), 0);
});
