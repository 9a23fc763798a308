import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestJson } from '../../src/kube/http.js';
import { HelmReleases } from '../../src/helm/release-engine.js';
import { makeTree } from '../helpers/tree.js';
import { cluster } from './helpers.js';

const NS = 'apps';

function chart(): string {
  return makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 0.1.0\n',
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  greeting: {{ .Values.demo.greeting | quote }}\n',
    'templates/secret.yaml': 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: demo\nstringData:\n  password: {{ .Values.demo.password | quote }}\n  same: s\n',
  });
}

test('render --diff: the live objects against a dry-run server-side apply, Secret data masked, nothing applied', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper });
  const chartDir = chart();
  const request = (greeting: string, password: string) => ({ release: 'demo', namespace: NS, chartDir, values: { global: {}, demo: { greeting, password } } });

  // before the install every object is new: the MERGED side has them, the LIVE side is empty
  const before = await helm.diff(request('hello', 'p1'));
  assert.match(before, /^diff -u -N \/\S+\/LIVE-\w+\/v1\.ConfigMap\.apps\.demo \/\S+\/MERGED-\w+\/v1\.ConfigMap\.apps\.demo$/m);
  assert.match(before, /^\+ {2}greeting: hello$/m);
  assert.match(before, /^\+ {2}password: '\*\*\*'$/m, 'a new Secret value is masked');
  assert.doesNotMatch(before, /p1|cDE=/, 'no Secret data, plain or base64');
  assert.doesNotMatch(before, /managedFields/);
  assert.equal((await requestJson<{ items: unknown[] }>(kc, 'GET', `/api/v1/namespaces/${NS}/configmaps`)).items.length, 0, 'the dry run created nothing');

  await helm.upgradeInstall(request('hello', 'p1'));
  assert.equal(await helm.diff(request('hello', 'p1')), 'No diff found');

  // someone changed a field the release manages; new values change the Secret
  await requestJson(kc, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/demo`, { fieldManager: 'someone', force: true }, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'demo' }, data: { greeting: 'edited' } }), 'application/apply-patch+yaml');
  const after = await helm.diff(request('hello', 'p2'));
  assert.match(after, /^- {2}greeting: edited\n\+ {2}greeting: hello$/m);
  assert.match(after, /^- {2}password: '\*\*\* \(before\)'\n\+ {2}password: '\*\*\* \(after\)'$/m, 'a changed Secret value shows that it changed, not what it is');
  assert.match(after, /^ {3}same: '\*\*\*'$/m, 'an unchanged one stays masked on both sides');
  assert.doesNotMatch(after, /p1|p2|cDE=|cDI=/);
  const live = await requestJson<{ data: Record<string, string> }>(kc, 'GET', `/api/v1/namespaces/${NS}/configmaps/demo`);
  assert.equal(live.data.greeting, 'edited', 'the diff applied nothing');
});
