import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { requestJson } from '../../src/kube/http.js';
import { ReleaseStore } from '../../src/helm/release-secrets.js';
import { goTime, type Release } from '../../src/helm/release-record.js';
import { cluster, releaseSecrets, secretPayload } from './helpers.js';

function record(version: number, status: Release['info']['status'], extra: Partial<Release> = {}): Release {
  return {
    name: 'demo',
    namespace: 'apps',
    version,
    info: { first_deployed: '2024-05-01T10:00:00Z', last_deployed: goTime(new Date(Date.UTC(2024, 4, 1, 10, version, 0, 120))), deleted: '', description: 'Install complete', status },
    chart: {
      metadata: { name: 'demo', version: '0.2.0', apiVersion: 'v1' },
      lock: null,
      templates: [{ name: 'templates/cm.yaml', data: Buffer.from('kind: ConfigMap').toString('base64') }],
      values: { demo: { a: 1 } },
      schema: null,
      files: [],
    },
    config: { global: { x: '<&>' }, demo: { a: 2 } },
    manifest: '---\n# Source: demo/templates/cm.yaml\nkind: ConfigMap\n',
    labels: { moduleChecksum: 'abc' },
    ...extra,
  };
}

test("a stored release is Helm's: Secret name, type, labels, and the gzip'd JSON with Helm's field names", async (t) => {
  const { kc } = await cluster(t, ['apps']);
  const store = new ReleaseStore(kc, { now: () => new Date(1714557600000) });
  await store.create(record(1, 'deployed'));
  const [secret] = await releaseSecrets(kc, 'apps');
  assert.equal(secret.metadata.name, 'sh.helm.release.v1.demo.v1');
  assert.equal(secret.type, 'helm.sh/release.v1');
  assert.deepEqual(secret.metadata.labels, { name: 'demo', owner: 'helm', status: 'deployed', version: '1', createdAt: '1714557600', moduleChecksum: 'abc' });
  const { json, release } = secretPayload(secret);
  assert.deepEqual(Object.keys(release), ['name', 'info', 'chart', 'config', 'manifest', 'version', 'namespace']);
  assert.deepEqual(Object.keys(release.info), ['first_deployed', 'last_deployed', 'deleted', 'description', 'status']);
  assert.deepEqual(Object.keys(release.chart), ['metadata', 'lock', 'templates', 'values', 'schema', 'files']);
  assert.equal(release.info.last_deployed, '2024-05-01T10:01:00.12Z', 'Go trims trailing zeros of the fraction');
  assert.equal(release.info.deleted, '', "Helm's zero time");
  assert.deepEqual(release.chart.metadata, { name: 'demo', version: '0.2.0', apiVersion: 'v1' });
  assert.ok(json.includes('"x":"\\u003c\\u0026\\u003e"'), 'HTML characters escaped as Go does');
  assert.equal(release.version, 1);

  // read back: labels other than Helm's own come back as the release's labels
  const [back] = await store.history('demo', 'apps');
  assert.deepEqual(back!.labels, { moduleChecksum: 'abc' });
  assert.deepEqual(back!.config, { global: { x: '<&>' }, demo: { a: 2 } });
  assert.equal(back!.info.status, 'deployed');
});

test('reads records Helm wrote, compressed or not (older Helm stored plain JSON)', async (t) => {
  const { kc } = await cluster(t, ['apps']);
  const helmJson = JSON.stringify({
    name: 'legacy',
    info: { first_deployed: '2023-01-02T03:04:05.123456789+03:00', last_deployed: '2023-01-02T03:04:05.123456789+03:00', deleted: '', description: 'Install complete', status: 'deployed' },
    chart: { metadata: { name: 'legacy', version: '0.2.0' }, lock: null, templates: null, values: null, schema: null, files: null },
    config: { legacy: { _addonOperatorModuleChecksum: 'old' } },
    manifest: '---\n# Source: legacy/templates/cm.yaml\nkind: ConfigMap\n',
    version: 3,
    namespace: 'apps',
  });
  const put = (version: number, payload: Buffer) =>
    requestJson(kc, 'POST', '/api/v1/namespaces/apps/secrets', {}, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `sh.helm.release.v1.legacy.v${version}`, labels: { name: 'legacy', owner: 'helm', status: 'deployed', version: String(version), modifiedAt: '1' } },
      type: 'helm.sh/release.v1',
      data: { release: Buffer.from(payload.toString('base64')).toString('base64') },
    });
  await put(3, gzipSync(helmJson));
  await put(2, Buffer.from(helmJson.replace('"version":3', '"version":2')));
  const store = new ReleaseStore(kc);
  const history = await store.history('legacy', 'apps');
  assert.deepEqual(history.map((r) => r.version), [2, 3]);
  assert.equal(history[1]!.info.first_deployed, '2023-01-02T03:04:05.123456789+03:00');
  assert.deepEqual(history[1]!.labels, {});
  assert.deepEqual(await store.names('apps'), ['legacy']);
});

test("Helm 4's apply_method: written last as Helm 4's struct has it, read with or without it, the rest as Helm 3 reads it", async (t) => {
  const { kc } = await cluster(t, ['apps']);
  const store = new ReleaseStore(kc);
  await store.create(record(1, 'deployed', { apply_method: 'ssa' }));
  await store.create(record(2, 'deployed'));
  const [first, second] = (await releaseSecrets(kc, 'apps')).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  // Helm 4 (pkg/release/v1 Release): ApplyMethod string `json:"apply_method,omitempty"`, after Namespace
  const helm4 = secretPayload(first).release;
  assert.deepEqual(Object.keys(helm4), ['name', 'info', 'chart', 'config', 'manifest', 'version', 'namespace', 'apply_method']);
  assert.equal(helm4.apply_method, 'ssa');
  assert.match(secretPayload(first).json, /"namespace":"apps","apply_method":"ssa"\}$/);
  // a record without it (Helm 3's, or Helm 4's client-side one) has no key: Helm 4 reads "" as client-side
  assert.equal('apply_method' in secretPayload(second).release, false);
  const [one, two] = await store.history('demo', 'apps');
  assert.equal(one!.apply_method, 'ssa');
  assert.equal(two!.apply_method, undefined);
  assert.equal(one!.info.status, 'deployed');
});

test('history limit: the oldest revisions go, never the last deployed one', async (t) => {
  const { kc } = await cluster(t, ['apps']);
  const store = new ReleaseStore(kc);
  const statuses: Release['info']['status'][] = ['superseded', 'deployed', 'failed', 'failed', 'failed'];
  for (const [i, s] of statuses.entries()) await store.create(record(i + 1, s));
  assert.deepEqual(await store.prune('demo', 'apps', 3), [1, 3]);
  assert.deepEqual((await store.history('demo', 'apps')).map((r) => `${r.version}:${r.info.status}`), ['2:deployed', '4:failed', '5:failed']);
  assert.deepEqual(await store.prune('demo', 'apps', 5), []);
  assert.equal(await store.delete('demo', 'apps', 9), false);
});
