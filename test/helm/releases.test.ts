import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { requestJson } from '../../src/kube/http.js';
import { HelmReleases } from '../../src/helm/release-engine.js';
import type { JsonObject } from '../../src/util/json.js';
import type { HelmPort } from '../../src/operator/ports.js';
import { parseYaml } from '../../src/util/yaml.js';
import { makeTree } from '../helpers/tree.js';
import { crd } from '../helpers/crd.js';
import { cluster, releaseSecrets, secretPayload, getObject, setReleaseStatus } from './helpers.js';

const NS = 'apps';

/** A module chart: a ConfigMap from values, an optional second one, a Service, and a cluster-scoped ClusterRole. */
function moduleChart(): string {
  return makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 0.1.0\n',
    'values.yaml': 'demo:\n  replicas: 1\n  extra: true\n',
    'templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo-config\n  labels:\n    tier: {{ .Values.demo.tier | default "web" | quote }}\ndata:\n  replicas: {{ .Values.demo.replicas | quote }}\n  region: {{ .Values.global.region | quote }}\n',
    'templates/extra.yaml': '{{- if .Values.demo.extra }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo-extra\ndata:\n  a: b\n{{- end }}\n',
    'templates/svc.yaml': 'apiVersion: v1\nkind: Service\nmetadata:\n  name: demo\nspec:\n  ports:\n  - port: 80\n',
    'templates/role.yaml': 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: demo-reader\n  namespace: ignored-for-cluster-scoped\nrules: []\n',
    'templates/NOTES.txt': 'demo {{ .Release.Revision }}',
  });
}

const cmPath = (name: string) => `/api/v1/namespaces/${NS}/configmaps/${name}`;


/** Stores a copy of release Secret `from` as revision `version` left pending-upgrade (an interrupted upgrade). */
async function addPendingRevision(kc: Parameters<typeof requestJson>[0], from: any, version: number): Promise<void> {
  const pending: Record<string, any> = { ...secretPayload(from).release, version };
  pending.info = { ...pending.info, status: 'pending-upgrade' };
  const name = String(from.metadata.name).replace(/\.v\d+$/, `.v${version}`);
  await requestJson(kc, 'POST', `/api/v1/namespaces/${from.metadata.namespace}/secrets`, {}, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, labels: { ...from.metadata.labels, status: 'pending-upgrade', version: String(version) } },
    type: 'helm.sh/release.v1',
    data: { release: Buffer.from(gzipSync(JSON.stringify(pending)).toString('base64')).toString('base64') },
  });
}

test('install → unchanged → upgrade on new values → upgrade when an object was deleted → prune → failure → uninstall', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm: HelmPort & HelmReleases = new HelmReleases({ kc, mapper, historyMax: 3, extraLabels: { heritage: 'addon-operator' } });
  const chartDir = moduleChart();
  const request = (demo: JsonObject) => ({ release: 'demo', namespace: NS, chartDir, values: { global: { region: 'eu' }, demo } });
  const revisions = async () => (await releaseSecrets(kc, NS, 'demo')).map((s) => `${s.metadata.labels.version}:${s.metadata.labels.status}`);

  // install
  assert.equal(await helm.upgradeInstall(request({ replicas: 2 })), 'installed');
  const cm = await getObject(kc, cmPath('demo-config'));
  assert.deepEqual(cm.data, { replicas: '2', region: 'eu' });
  assert.equal(cm.metadata.labels.heritage, 'addon-operator');
  assert.equal(cm.metadata.labels['app.kubernetes.io/managed-by'], 'Helm');
  assert.equal(cm.metadata.annotations['meta.helm.sh/release-name'], 'demo');
  assert.equal(cm.metadata.annotations['meta.helm.sh/release-namespace'], NS);
  assert.equal(cm.metadata.managedFields?.[0]?.manager, 'addon-operator');
  assert.ok(await getObject(kc, cmPath('demo-extra')));
  assert.ok(await getObject(kc, `/api/v1/namespaces/${NS}/services/demo`));
  assert.ok(await getObject(kc, '/apis/rbac.authorization.k8s.io/v1/clusterroles/demo-reader'));
  assert.deepEqual(await revisions(), ['1:deployed']);
  const first = secretPayload((await releaseSecrets(kc, NS, 'demo'))[0]).release;
  assert.equal(first.info.description, 'Install complete');
  assert.equal(first.info.notes, 'demo 1');
  assert.equal(first.apply_method, 'ssa', "Helm 4's field: its objects were applied server-side");
  assert.deepEqual(first.config, { global: { region: 'eu' }, demo: { replicas: 2 } });
  assert.deepEqual(first.chart.values, { demo: { replicas: 1, extra: true } });
  // install order: the ConfigMaps, the ClusterRole, then the Service
  assert.deepEqual(
    [...first.manifest.matchAll(/# Source: (\S+)/g)].map((m) => m[1]),
    ['demo/templates/cm.yaml', 'demo/templates/extra.yaml', 'demo/templates/role.yaml', 'demo/templates/svc.yaml'],
  );

  // the stored manifest is the post-rendered one (the Go operator's post-renderer): the extra labels
  // sorted in with the chart's, each document as applied; kyaml's layout (no leading `---`)
  assert.match(first.manifest, /^# Source: demo\/templates\/cm\.yaml\napiVersion: v1\n/);
  assert.match(first.manifest, /\nmetadata:\n {2}name: demo-config\n {2}labels:\n {4}heritage: addon-operator\n {4}tier: web\n/);
  for (const doc of first.manifest.split(/^---\n/m)) {
    const { kind, metadata } = parseYaml(doc, 'manifest') as { kind: string; metadata: { name: string; labels: Record<string, string> } };
    const path = { ConfigMap: cmPath(metadata.name), Service: `/api/v1/namespaces/${NS}/services/${metadata.name}`, ClusterRole: `/apis/rbac.authorization.k8s.io/v1/clusterroles/${metadata.name}` }[kind]!;
    assert.equal(metadata.labels.heritage, 'addon-operator', `${kind} ${metadata.name}`);
    const { 'app.kubernetes.io/managed-by': managedBy, ...live } = (await getObject(kc, path)).metadata.labels;
    assert.equal(managedBy, 'Helm');
    assert.deepEqual(live, metadata.labels, `${kind} ${metadata.name}: the live labels are the stored manifest's`);
  }

  // render: the manifest the release would get, nothing applied
  const rendered = await helm.render(request({ replicas: 7 }));
  assert.match(rendered, /heritage: addon-operator/);
  assert.deepEqual([...rendered.matchAll(/# Source: (\S+)/g)].map((m) => m[1]), [...first.manifest.matchAll(/# Source: (\S+)/g)].map((m) => m[1]));
  assert.match(rendered, /replicas: "7"/);
  assert.deepEqual((await getObject(kc, cmPath('demo-config'))).data, { replicas: '2', region: 'eu' });

  // nothing changed
  assert.equal(await helm.upgradeInstall(request({ replicas: 2 })), 'unchanged');
  assert.deepEqual(await revisions(), ['1:deployed']);

  // new values
  assert.equal(await helm.upgradeInstall(request({ replicas: 3 })), 'upgraded');
  assert.deepEqual((await getObject(kc, cmPath('demo-config'))).data, { replicas: '3', region: 'eu' });
  assert.deepEqual(await revisions(), ['1:superseded', '2:deployed']);
  assert.equal(secretPayload((await releaseSecrets(kc, NS, 'demo'))[1]).release.info.description, 'Upgrade complete');
  // the chart reads .Release.Revision: rendered again for the revision (the probe render has 1)
  assert.equal(secretPayload((await releaseSecrets(kc, NS, 'demo'))[1]).release.info.notes, 'demo 2');

  // someone deleted an object: the checksum is the same, but the release is upgraded
  await requestJson(kc, 'DELETE', cmPath('demo-extra'));
  assert.deepEqual(await helm.absentObjects('demo', NS), [`ConfigMap ${NS}/demo-extra`]);
  assert.equal(await helm.upgradeInstall(request({ replicas: 3 })), 'upgraded');
  assert.ok(await getObject(kc, cmPath('demo-extra')));
  assert.deepEqual(await revisions(), ['1:superseded', '2:superseded', '3:deployed']);

  // a template no longer rendered: its object is deleted; the history keeps 3 revisions
  assert.equal(await helm.upgradeInstall(request({ replicas: 3, extra: false })), 'upgraded');
  assert.equal(await getObject(kc, cmPath('demo-extra')), undefined);
  assert.ok(await getObject(kc, cmPath('demo-config')));
  assert.deepEqual(await revisions(), ['2:superseded', '3:superseded', '4:deployed']);

  // a failing apply: a failed revision, an error naming the release, the object and the API's message
  await assert.rejects(helm.upgradeInstall(request({ replicas: 3, extra: false, tier: 'not valid!' })), (e: Error) => {
    assert.match(e.message, /^release demo: applying ConfigMap apps\/demo-config \(demo\/templates\/cm\.yaml\) failed: 422 /);
    assert.match(e.message, /not valid!/);
    return true;
  });
  assert.deepEqual(await revisions(), ['3:superseded', '4:deployed', '5:failed']);
  const failed = secretPayload((await releaseSecrets(kc, NS, 'demo'))[2]).release;
  assert.match(failed.info.description, /^Upgrade "demo" failed: release demo: applying ConfigMap/);
  // the next good run upgrades over the failure
  assert.equal(await helm.upgradeInstall(request({ replicas: 4, extra: false })), 'upgraded');
  assert.deepEqual(await revisions(), ['4:superseded', '5:failed', '6:deployed']);

  assert.deepEqual(await helm.listReleases(NS), ['demo']);
  assert.deepEqual(await helm.absentObjects('demo', NS), []);

  // uninstall
  assert.equal(await helm.uninstall('demo', NS), true);
  assert.equal(await getObject(kc, cmPath('demo-config')), undefined);
  assert.equal(await getObject(kc, `/api/v1/namespaces/${NS}/services/demo`), undefined);
  assert.equal(await getObject(kc, '/apis/rbac.authorization.k8s.io/v1/clusterroles/demo-reader'), undefined);
  assert.deepEqual(await revisions(), []);
  assert.deepEqual(await helm.listReleases(NS), []);
  assert.equal(await helm.uninstall('demo', NS), false);
});

test('a release made by Helm (or the Go operator) is taken over: upgraded as the next revision, its leftovers pruned', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  // what Helm left: revision 4, an object the chart no longer has
  await requestJson(kc, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old-thing' }, data: {} });
  const helmJson = JSON.stringify({
    name: 'demo',
    info: { first_deployed: '2023-01-02T03:04:05.123456789Z', last_deployed: '2023-01-02T03:04:05.123456789Z', deleted: '', description: 'Upgrade complete', status: 'deployed' },
    chart: { metadata: { name: 'demo', version: '0.1.0', apiVersion: 'v2' }, lock: null, templates: [], values: {}, schema: null, files: [] },
    config: {},
    manifest: '---\n# Source: demo/templates/old.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old-thing\n',
    version: 4,
    namespace: NS,
  });
  await requestJson(kc, 'POST', `/api/v1/namespaces/${NS}/secrets`, {}, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'sh.helm.release.v1.demo.v4', labels: { name: 'demo', owner: 'helm', status: 'deployed', version: '4' } },
    type: 'helm.sh/release.v1',
    data: { release: Buffer.from(gzipSync(helmJson).toString('base64')).toString('base64') },
  });
  const helm = new HelmReleases({ kc, mapper });
  assert.deepEqual(await helm.listReleases(NS), ['demo']);
  assert.equal(await helm.upgradeInstall({ release: 'demo', namespace: NS, chartDir: moduleChart(), values: { global: { region: 'us' }, demo: {} } }), 'upgraded');
  assert.equal(await getObject(kc, cmPath('old-thing')), undefined);
  const secrets = await releaseSecrets(kc, NS, 'demo');
  assert.deepEqual(secrets.map((s) => `${s.metadata.labels.version}:${s.metadata.labels.status}`), ['4:superseded', '5:deployed']);
  assert.equal(secretPayload(secrets[1]).release.info.first_deployed, '2023-01-02T03:04:05.123456789Z');
});

test('a pending revision left by a stopped operator is dropped; render errors leave no record', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper });
  const chartDir = moduleChart();
  const req = { release: 'demo', namespace: NS, chartDir, values: { global: { region: 'eu' }, demo: {} } };
  assert.equal(await helm.upgradeInstall(req), 'installed');
  // fake an interrupted upgrade: revision 2 stuck in pending-upgrade
  const [v1] = await releaseSecrets(kc, NS, 'demo');
  await addPendingRevision(kc, v1, 2);
  assert.equal(await helm.upgradeInstall({ ...req, values: { ...req.values, demo: { replicas: 5 } } }), 'upgraded');
  assert.deepEqual(
    (await releaseSecrets(kc, NS, 'demo')).map((s) => `${s.metadata.labels.version}:${s.metadata.labels.status}`),
    ['1:superseded', '2:deployed'],
  );
  const broken = makeTree({ 'Chart.yaml': 'name: broken\nversion: 0.1.0\n', 'templates/a.yaml': '{{ required "need x" .Values.x }}' });
  await assert.rejects(helm.upgradeInstall({ release: 'broken', namespace: NS, chartDir: broken, values: {} }), /execution error at \(broken\/templates\/a\.yaml:1:3\): need x/);
  assert.deepEqual(await releaseSecrets(kc, NS, 'broken'), []);
});

test('a last revision that is not deployed (failed, pending-upgrade) is upgraded by the next run, even with nothing changed', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper });
  const req = { release: 'demo', namespace: NS, chartDir: moduleChart(), values: { global: { region: 'eu' }, demo: {} } };
  const revisions = async () => (await releaseSecrets(kc, NS, 'demo')).map((s) => `${s.metadata.labels.version}:${s.metadata.labels.status}`);
  assert.equal(await helm.upgradeInstall(req), 'installed');
  assert.equal(await helm.upgradeInstall(req), 'unchanged');
  // left failed (by helm, or a failed run whose cause is gone): upgraded as revision 2
  await setReleaseStatus(kc, NS, 'demo', 1, 'failed');
  assert.equal(await helm.upgradeInstall(req), 'upgraded');
  assert.deepEqual(await revisions(), ['1:failed', '2:deployed']);
  assert.equal(await helm.upgradeInstall(req), 'unchanged');
  // the last revision left pending-upgrade by a stop in the middle of an upgrade: its record dropped, upgraded again
  const [, v2] = await releaseSecrets(kc, NS, 'demo');
  await addPendingRevision(kc, v2, 3);
  assert.equal(await helm.upgradeInstall(req), 'upgraded');
  assert.deepEqual(await revisions(), ['1:failed', '2:superseded', '3:deployed']);
  // a deployed revision again: nothing to do
  assert.equal(await helm.upgradeInstall(req), 'unchanged');
  assert.deepEqual(await revisions(), ['1:failed', '2:superseded', '3:deployed']);
});

test("releaseLabels label each new revision's Secret beside moduleChecksum, merged over the last revision's as Helm merges them (\"null\" removes one)", async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const chartDir = makeTree({ 'Chart.yaml': 'apiVersion: v2\nname: lab\nversion: 0.1.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lab\ndata:\n  v: {{ .Values.v | quote }}\n' });
  const custom = (s: any) => Object.fromEntries(Object.entries(s.metadata.labels as Record<string, string>).filter(([k]) => !['name', 'owner', 'status', 'version', 'createdAt', 'modifiedAt', 'moduleChecksum'].includes(k)));
  const first = new HelmReleases({ kc, mapper, releaseLabels: { 'maintenance.deckhouse.io/no-resource-reconciliation': 'false', team: 'core' } });
  assert.equal(await first.upgradeInstall({ release: 'lab', namespace: NS, chartDir, values: { v: 1 } }), 'installed');
  let secrets = await releaseSecrets(kc, NS, 'lab');
  assert.deepEqual(custom(secrets[0]), { 'maintenance.deckhouse.io/no-resource-reconciliation': 'false', team: 'core' });
  assert.match(secrets[0].metadata.labels.moduleChecksum, /^\w+$/);
  const second = new HelmReleases({ kc, mapper, releaseLabels: { team: 'null', tier: 'infra' } });
  assert.equal(await second.upgradeInstall({ release: 'lab', namespace: NS, chartDir, values: { v: 2 } }), 'upgraded');
  secrets = await releaseSecrets(kc, NS, 'lab');
  assert.deepEqual(custom(secrets[1]), { 'maintenance.deckhouse.io/no-resource-reconciliation': 'false', tier: 'infra' });
});

test('a custom resource waits for the CRD installed before it by the same release', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper });
  const chartDir = makeTree({
    'Chart.yaml': 'name: widgets\nversion: 0.1.0\n',
    'templates/crd.yaml': JSON.stringify(crd('Widget')),
    'templates/widget.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: 3\n',
  });
  assert.equal(await helm.upgradeInstall({ release: 'widgets', namespace: NS, chartDir, values: {} }), 'installed');
  const w = await getObject(kc, `/apis/example.com/v1/namespaces/${NS}/widgets/w1`);
  assert.deepEqual(w.spec, { size: 3 });
  assert.equal(await helm.upgradeInstall({ release: 'widgets', namespace: NS, chartDir, values: {} }), 'unchanged');
});

test("applies go as Helm's kube client makes them: one kind at a time in install order, a kind's objects together, at most applyConcurrency", async (t) => {
  const { kc, mapper, sandbox } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper, applyConcurrency: 4 });
  const doc = (kind: string, apiVersion: string, name: string, body = '') => `---\napiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\n${body}`;
  const deployment = (name: string) =>
    doc('Deployment', 'apps/v1', name, `spec:\n  selector:\n    matchLabels: {app: ${name}}\n  template:\n    metadata:\n      labels: {app: ${name}}\n    spec:\n      containers:\n      - {name: c, image: x}\n`);
  // written in a scrambled order: the release applies them in Helm's install order
  const chartDir = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: kinds\nversion: 0.1.0\n',
    'templates/all.yaml': [
      deployment('d1'),
      doc('Service', 'v1', 's1', 'spec:\n  ports:\n  - port: 80\n'),
      ...[1, 2, 3, 4, 5, 6].map((i) => doc('ConfigMap', 'v1', `c${i}`)),
      deployment('d2'),
      doc('ServiceAccount', 'v1', 'sa1'),
    ].join(''),
  });
  sandbox.clearRequestLog();
  const LATENCY = 600;
  sandbox.setLatency(LATENCY);
  t.after(() => sandbox.setLatency(0));
  assert.equal(await helm.upgradeInstall({ release: 'kinds', namespace: NS, chartDir, values: {} }), 'installed');
  const applies = sandbox.requests
    .filter((r) => r.method === 'PATCH' && r.contentType === 'application/apply-patch+yaml')
    .map((r) => ({ kind: r.path.split('/').at(-2)!, at: Date.parse(r.time) }));
  assert.deepEqual(
    applies.map((a) => a.kind),
    ['serviceaccounts', ...Array(6).fill('configmaps'), 'services', 'deployments', 'deployments'],
  );
  const cms = applies.filter((a) => a.kind === 'configmaps');
  // four ConfigMaps sent together, the fifth when one of them was answered
  assert.ok(cms[3]!.at - cms[0]!.at < LATENCY, `4 in flight: ${cms.map((c) => c.at - cms[0]!.at).join(', ')}`);
  assert.ok(cms[4]!.at - cms[0]!.at >= LATENCY - 50, `the 5th waited: ${cms.map((c) => c.at - cms[0]!.at).join(', ')}`);
  // the next kind starts when every ConfigMap was applied
  const svc = applies.find((a) => a.kind === 'services')!;
  assert.ok(svc.at - cms[5]!.at >= LATENCY - 50);
  const deps = applies.filter((a) => a.kind === 'deployments');
  assert.ok(Math.abs(deps[1]!.at - deps[0]!.at) < LATENCY, 'the two Deployments together');
});

test('a chart that does not read the revision is rendered once per upgrade; one that does gets its revision', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper });
  const chartDir = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: once\nversion: 0.1.0\n',
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: once-{{ .Release.Name }}\ndata:\n  v: {{ .Values.v | quote }}\n  msg: {{ tpl .Values.msg . | quote }}\n',
  });
  const install = (v: string, msg: string) => helm.upgradeInstall({ release: 'once', namespace: NS, chartDir, values: { v, msg } });
  assert.equal(await install('1', 'plain'), 'installed');
  assert.equal(await install('2', 'plain'), 'upgraded');
  assert.equal((await getObject(kc, cmPath('once-once'))).data.msg, 'plain');
  // a value that reaches .Release.Revision through tpl: the revision is the release's, not the probe's
  assert.equal(await install('3', 'rev {{ .Release.Revision }} {{ .Release.IsUpgrade }}'), 'upgraded');
  assert.equal((await getObject(kc, cmPath('once-once'))).data.msg, 'rev 3 true');
});

test("crds/: absent CRDs are created before the release's objects, never changed or deleted; skipCrds leaves them alone", async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper, extraLabels: { heritage: 'addon-operator' } });
  const crd = (plural: string, kind: string, label: string) =>
    `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${plural}.example.com\n  labels:\n    rev: "${label}"\nspec:\n  group: example.com\n  scope: Namespaced\n` +
    `  names: {plural: ${plural}, singular: ${kind.toLowerCase()}, kind: ${kind}, listKind: ${kind}List}\n` +
    '  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}\n';
  const chartDir = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: gadgets\nversion: 0.1.0\n',
    'crds/gadgets.yaml': crd('gadgets', 'Gadget', '1'),
    'values.yaml': 'size: 1\n',
    'templates/gadget.yaml': 'apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n  size: {{ .Values.size }}\n',
  });
  const crdPath = (plural: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.example.com`;
  assert.equal(await helm.upgradeInstall({ release: 'gadgets', namespace: NS, chartDir, values: {} }), 'installed');
  const installed = await getObject(kc, crdPath('gadgets'));
  // as in the file: no release ownership, and no extra labels (Helm never post-renders crds/)
  assert.deepEqual(installed.metadata.labels, { rev: '1' });
  assert.deepEqual((await getObject(kc, `/apis/example.com/v1/namespaces/${NS}/gadgets/g1`)).spec, { size: 1 });
  const [secret] = await releaseSecrets(kc, NS, 'gadgets');
  assert.doesNotMatch(secretPayload(secret).release.manifest, /CustomResourceDefinition/);
  // a changed crds/ file does not change the CRD
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${chartDir}/crds/gadgets.yaml`, crd('gadgets', 'Gadget', '2'));
  assert.equal(await helm.upgradeInstall({ release: 'gadgets', namespace: NS, chartDir, values: { size: 2 } }), 'upgraded');
  assert.equal((await getObject(kc, crdPath('gadgets'))).metadata.labels.rev, '1');
  // uninstalling leaves it
  assert.equal(await helm.uninstall('gadgets', NS), true);
  assert.ok(await getObject(kc, crdPath('gadgets')));
  assert.equal(await getObject(kc, `/apis/example.com/v1/namespaces/${NS}/gadgets/g1`), undefined);
  // skipCrds: the Go operator's SkipCRDs
  const skipped = makeTree({ 'Chart.yaml': 'apiVersion: v2\nname: gizmos\nversion: 0.1.0\n', 'crds/gizmos.yaml': crd('gizmos', 'Gizmo', '1'), 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gizmos\n' });
  assert.equal(await helm.upgradeInstall({ release: 'gizmos', namespace: NS, chartDir: skipped, values: {}, skipCrds: true }), 'installed');
  assert.equal(await getObject(kc, crdPath('gizmos')), undefined);
});

test('lookup reads the live cluster during install and upgrade: objects, lists, not found, answers that lead to further lookups', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper });
  const post = (path: string, body: object) => requestJson(kc, 'POST', path, {}, body);
  await post(`/api/v1/namespaces/${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db-pass' }, data: { password: Buffer.from('s3cret').toString('base64') } });
  await post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pointer' }, data: { target: 'db-pass' } });
  await post(`/api/v1/namespaces/${NS}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ port: 8080 }] } });
  const chartDir = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: looker\nversion: 0.1.0\n',
    'templates/cm.yaml':
      '{{- $s := lookup "v1" "Secret" .Release.Namespace "db-pass" }}\n' +
      '{{- $p := lookup "v1" "ConfigMap" .Release.Namespace "pointer" }}\n' +
      '{{- $t := lookup "v1" "Secret" .Release.Namespace ($p.data.target | default "unset") }}\n' +
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: looked-up\ndata:\n' +
      '  password: {{ $s.data.password | b64dec | quote }}\n' +
      '  chained: {{ $t.metadata.name | default "none" | quote }}\n' +
      '  missing: {{ (lookup "v1" "Secret" .Release.Namespace "nope") | len | quote }}\n' +
      '  namespaces: {{ gt (len (lookup "v1" "Namespace" "" "").items) 0 | quote }}\n' +
      '  port: {{ $svc := lookup "v1" "Service" .Release.Namespace "svc" }}{{ with $svc.spec }}{{ printf "%T %d" (index .ports 0).port (index .ports 0).port | quote }}{{ end }}\n',
  });
  assert.equal(await helm.upgradeInstall({ release: 'looker', namespace: NS, chartDir, values: {} }), 'installed');
  const cm = await getObject(kc, cmPath('looked-up'));
  // integers come as int64, as in client-go's unstructured objects
  assert.deepEqual(cm.data, { password: 's3cret', chained: 'db-pass', missing: '0', namespaces: 'true', port: 'int64 8080' });
  // "nothing changed" is decided from the inputs (chart, values), not from looked-up answers (issue 39):
  // a changed answer alone leaves the release unchanged; the next upgrade renders with the new answer
  assert.equal(await helm.upgradeInstall({ release: 'looker', namespace: NS, chartDir, values: {} }), 'unchanged');
  await requestJson(kc, 'PATCH', `/api/v1/namespaces/${NS}/secrets/db-pass`, {}, { data: { password: Buffer.from('n3w').toString('base64') } }, 'application/merge-patch+json');
  assert.equal(await helm.upgradeInstall({ release: 'looker', namespace: NS, chartDir, values: {} }), 'unchanged');
  assert.equal(await helm.upgradeInstall({ release: 'looker', namespace: NS, chartDir, values: { next: 1 } }), 'upgraded');
  assert.equal((await getObject(kc, cmPath('looked-up'))).data.password, 'n3w');
});

test("a chart's Deployment switched to strategy Recreate upgrades, as Helm 3's three-way patch does, over the rollingUpdate the API server defaulted", async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper, historyMax: 3 });
  const chartDir = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: app\nversion: 0.1.0\n',
    'values.yaml': 'app:\n  strategy: {}\n',
    'templates/deploy.yaml':
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  {{- with .Values.app.strategy }}\n  strategy: {{ toJson . }}\n  {{- end }}\n  selector:\n    matchLabels: {app: app}\n  template:\n    metadata:\n      labels: {app: app}\n    spec:\n      containers:\n      - name: app\n        image: app:1\n',
  });
  const request = (strategy: JsonObject) => ({ release: 'app', namespace: NS, chartDir, values: { global: {}, app: { strategy } } });
  const deployment = () => getObject(kc, `/apis/apps/v1/namespaces/${NS}/deployments/app`);
  assert.equal(await helm.upgradeInstall(request({})), 'installed');
  assert.equal((await deployment()).spec.strategy.type, 'RollingUpdate');
  assert.equal(await helm.upgradeInstall(request({ type: 'Recreate' })), 'upgraded');
  assert.deepEqual((await deployment()).spec.strategy, { type: 'Recreate' });
  assert.equal(await helm.upgradeInstall(request({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } })), 'upgraded');
  assert.deepEqual((await deployment()).spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } });
});
