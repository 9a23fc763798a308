// Install is an install, and "nothing changed" is decided from the inputs (issue 39): a chart that
// generates a password on install (`randAlphaNum` when `.Release.IsInstall`) and looks it up on
// upgrade (`fail` when an upgrade finds none), as many public charts do; installed, left unchanged
// over three converges (no new revision, no resourceVersion moved, no write at all), upgraded with
// the password kept, then unchanged again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { HelmReleases } from '../../src/helm/release-engine.js';
import { RestMapper } from '../../src/kube/mapper.js';
import { makeTree } from '../helpers/tree.js';
import { cluster, getObject, releaseSecrets, secretPayload } from './helpers.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { operatorSeed, sandboxPorts } from '../helpers/sandbox-ports.js';
import { scenario, settle } from '../operator/helpers.js';

const NS = 'apps';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const chartDir = () =>
  makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: vault\nversion: 0.1.0\n',
    'values.yaml': 'size: 1\n',
    'templates/secret.yaml':
      '{{- $live := lookup "v1" "Secret" .Release.Namespace "vault-pass" }}\n' +
      '{{- $pass := "" }}\n' +
      '{{- if $live }}{{ $pass = index $live.data "password" }}\n' +
      '{{- else if .Release.IsInstall }}{{ $pass = randAlphaNum 20 | b64enc }}\n' +
      '{{- else }}{{ fail "You must provide your current passwords when upgrading the release" }}{{ end }}\n' +
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: vault-pass\ndata:\n  password: {{ $pass }}\n',
    'templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vault-info\ndata:\n' +
      '  install: {{ .Release.IsInstall | quote }}\n  upgrade: {{ .Release.IsUpgrade | quote }}\n  revision: {{ .Release.Revision | quote }}\n' +
      '  size: {{ .Values.size | quote }}\n  token: {{ uuidv4 | quote }}\n',
  });

test('a chart that makes a password on install and reads it back on upgrade: installed, unchanged over three converges, upgraded with the same password', async (t) => {
  const { sandbox, kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper, monitor: {} });
  t.after(() => helm.stop());
  const dir = chartDir();
  const req = (size: number) => ({ release: 'vault', namespace: NS, chartDir: dir, values: { size } });
  const secretPath = `/api/v1/namespaces/${NS}/secrets/vault-pass`;
  const cmPath = `/api/v1/namespaces/${NS}/configmaps/vault-info`;

  // before the install, render shows what the install will render
  assert.match(await helm.render(req(1)), /install: "true"\n {2}upgrade: "false"\n {2}revision: "1"/);
  assert.equal(await helm.upgradeInstall(req(1)), 'installed');
  const password = (await getObject(kc, secretPath)).data.password as string;
  assert.equal(Buffer.from(password, 'base64').toString().length, 20);
  assert.deepEqual(
    (({ install, upgrade, revision }) => ({ install, upgrade, revision }))((await getObject(kc, cmPath)).data),
    { install: 'true', upgrade: 'false', revision: '1' },
  );

  const versions = async () => [(await getObject(kc, secretPath)).metadata.resourceVersion, (await getObject(kc, cmPath)).metadata.resourceVersion];
  const before = await versions();
  sandbox.clearRequestLog();
  for (let i = 0; i < 3; i++) assert.equal(await helm.upgradeInstall(req(1)), 'unchanged', `converge ${i + 1}`);
  assert.deepEqual(sandbox.requests.filter((r) => WRITES.has(r.method)).map((r) => `${r.method} ${r.path}`), []);
  assert.deepEqual(await versions(), before, 'no object was written');
  assert.equal((await releaseSecrets(kc, NS, 'vault')).length, 1, 'no new revision');

  // an input changed: one upgrade, the password looked up and kept, the upgrade's flags and revision
  assert.equal(await helm.upgradeInstall(req(2)), 'upgraded');
  assert.equal((await getObject(kc, secretPath)).data.password, password);
  assert.deepEqual(
    (({ install, upgrade, revision, size }) => ({ install, upgrade, revision, size }))((await getObject(kc, cmPath)).data),
    { install: 'false', upgrade: 'true', revision: '2', size: '2' },
  );
  const records = await releaseSecrets(kc, NS, 'vault');
  assert.deepEqual(records.map((s) => secretPayload(s).release.info.status).sort(), ['deployed', 'superseded']);
  const after = await versions();
  for (let i = 0; i < 3; i++) assert.equal(await helm.upgradeInstall(req(2)), 'unchanged', `converge ${i + 1} after the upgrade`);
  assert.deepEqual(await versions(), after);
  assert.equal((await releaseSecrets(kc, NS, 'vault')).length, 2);
});

test('a chart file changed with the values unchanged is upgraded once, then unchanged', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper });
  const dir = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: plain\nversion: 0.1.0\n',
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: "1"\n',
    'charts/sub/Chart.yaml': 'apiVersion: v2\nname: sub\nversion: 0.1.0\n',
    'charts/sub/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\ndata:\n  b: "1"\n',
  });
  const req = { release: 'plain', namespace: NS, chartDir: dir, values: {} };
  assert.equal(await helm.upgradeInstall(req), 'installed');
  assert.equal(await helm.upgradeInstall(req), 'unchanged');
  writeFileSync(`${dir}/charts/sub/templates/cm.yaml`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\ndata:\n  b: "2"\n');
  assert.equal(await helm.upgradeInstall(req), 'upgraded');
  assert.equal((await getObject(kc, `/api/v1/namespaces/${NS}/configmaps/sub`)).data.b, '2');
  assert.equal(await helm.upgradeInstall(req), 'unchanged');
});

test('under the operator: the password chart as a module is installed by the first converge and left alone by three more operator starts (no new revision, no object written)', async (t) => {
  const OPNS = 'addons';
  const sandbox = await startSandbox({ seedObjects: operatorSeed(OPNS) });
  t.after(() => sandbox.stop());
  const dir = chartDir();
  const templates = Object.fromEntries(readdirSync(`${dir}/templates`).map((f) => [`modules/001-vault/templates/${f}`, readFileSync(`${dir}/templates/${f}`, 'utf8')]));
  const converge = async () => {
    const ports = sandboxPorts(sandbox.kubeconfigPath, OPNS);
    const s = await scenario({
      files: () => ({ 'modules/values.yaml': 'vaultEnabled: true\nvault:\n  size: 1\n', 'modules/001-vault/Chart.yaml': 'name: vault\nversion: 0.1.0\n', ...templates }),
      operator: { kube: ports.kube, helm: ports.helm, config: ports.config, namespace: OPNS },
    });
    await s.op.start();
    await s.op.converge.whenFirstDone();
    await settle(s.op);
    await s.op.stop();
    return ports.kc;
  };
  const kc = await converge();
  const secretPath = `/api/v1/namespaces/${OPNS}/secrets/vault-pass`;
  const cmPath = `/api/v1/namespaces/${OPNS}/configmaps/vault-info`;
  assert.equal((await getObject(kc, cmPath)).data.install, 'true');
  const versions = async () => [(await getObject(kc, secretPath)).metadata.resourceVersion, (await getObject(kc, cmPath)).metadata.resourceVersion];
  const before = await versions();
  for (let i = 0; i < 3; i++) await converge();
  assert.deepEqual(await versions(), before, 'no object was written');
  assert.deepEqual((await releaseSecrets(kc, OPNS, 'vault')).map((s) => s.metadata.labels.version), ['1'], 'no new revision');
});

test('a chart whose templates hold a CRD and read .Capabilities: the converge after the install finds nothing changed (the digest kept sees the CRD served)', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper });
  const dir = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: gadgets\nversion: 0.1.0\n',
    'templates/crd.yaml':
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n' +
      '  names: {plural: gadgets, singular: gadget, kind: Gadget}\n' +
      '  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]\n',
    'templates/pdb.yaml':
      '{{- if .Capabilities.APIVersions.Has "policy/v1" }}\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: gadgets\nspec:\n  minAvailable: 1\n  selector: {matchLabels: {app: gadgets}}\n{{- end }}\n',
  });
  const req = { release: 'gadgets', namespace: NS, chartDir: dir, values: {} };
  assert.equal(await helm.upgradeInstall(req), 'installed');
  // as an operator restarted: the API versions discovered afresh (policy/v1, and example.com/v1 now)
  const restarted = new HelmReleases({ kc, mapper: new RestMapper(kc) });
  assert.equal(await restarted.upgradeInstall(req), 'unchanged');
  assert.deepEqual((await releaseSecrets(kc, NS, 'gadgets')).map((s) => s.metadata.labels.version), ['1']);
});
