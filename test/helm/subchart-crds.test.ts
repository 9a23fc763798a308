// CRDs as Helm installs them (issue 39): the crds/ of the chart and of every subchart kept after
// conditions and tags, recursively, created when absent and never changed, before the render, the
// hooks and the templates; on an install and on an upgrade that brings a new CRD; a kind whose CRD
// was just created is waited for, and a CRD that never becomes served is a clear error naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HelmReleases } from '../../src/helm/release-engine.js';
import { makeTree } from '../helpers/tree.js';
import { cluster, getObject } from './helpers.js';

const NS = 'apps';

const crd = (plural: string, kind: string, rev: string, served = true) =>
  `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${plural}.deep.example.com\n  labels:\n    rev: "${rev}"\nspec:\n  group: deep.example.com\n  scope: Namespaced\n` +
  `  names: {plural: ${plural}, singular: ${kind.toLowerCase()}, kind: ${kind}, listKind: ${kind}List}\n` +
  `  versions:\n  - name: v1\n    served: ${served}\n    storage: true\n    schema:\n      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}\n`;
const crdPath = (plural: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.deep.example.com`;
const chartYaml = (name: string, deps: string) => `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n${deps}`;

/**
 * top → a → b → c: c's crds/ holds the Alarm CRD (three levels below the top chart); top → spare is
 * disabled by its condition and holds the Ghost CRD; the top chart's template makes an Alarm, and
 * `.Capabilities` must see the new kind (the CRDs come before the render, as in Helm).
 */
function deepChart(): string {
  return makeTree({
    'Chart.yaml': chartYaml('top', 'dependencies:\n- name: a\n  version: 0.1.0\n- name: spare\n  version: 0.1.0\n  condition: spare.enabled\n'),
    'values.yaml': 'spare:\n  enabled: false\n',
    'templates/alarm.yaml':
      'apiVersion: deep.example.com/v1\nkind: Alarm\nmetadata:\n  name: first\nspec:\n  seen: {{ .Capabilities.APIVersions.Has "deep.example.com/v1/Alarm" | quote }}\n',
    'charts/a/Chart.yaml': chartYaml('a', ''),
    'charts/a/charts/b/Chart.yaml': chartYaml('b', ''),
    'charts/a/charts/b/charts/c/Chart.yaml': chartYaml('c', ''),
    'charts/a/charts/b/charts/c/crds/alarms.yaml': crd('alarms', 'Alarm', '1'),
    'charts/spare/Chart.yaml': chartYaml('spare', ''),
    'charts/spare/crds/ghosts.yaml': crd('ghosts', 'Ghost', '1'),
  });
}

for (const mode of ['module', 'helm'] as const) {
  test(`crds: '${mode}': a subchart's crds/ three levels deep installed before the render and the templates; a disabled subchart's not; new CRDs on upgrade, existing ones never changed`, async (t) => {
    const { kc, mapper } = await cluster(t, [NS]);
    const helm = new HelmReleases({ kc, mapper, crds: mode });
    const chartDir = deepChart();
    const req = (values = {}) => ({ release: 'top', namespace: NS, chartDir, values });
    assert.equal(await helm.upgradeInstall(req()), 'installed');
    assert.equal((await getObject(kc, crdPath('alarms'))).metadata.labels.rev, '1');
    assert.equal(await getObject(kc, crdPath('ghosts')), undefined, 'the subchart disabled by its condition keeps its CRDs');
    const alarm = await getObject(kc, `/apis/deep.example.com/v1/namespaces/${NS}/alarms/first`);
    assert.deepEqual(alarm.spec, { seen: 'true' }, 'the render sees the CRD created before it');
    assert.equal(await helm.upgradeInstall(req()), 'unchanged', 'the revision keeps the digest taken with the new kinds');

    // an upgrade that brings a new CRD (and a custom resource of it); the existing CRD's file changed: left as it is
    const c = join(chartDir, 'charts/a/charts/b/charts/c');
    writeFileSync(join(c, 'crds/alarms.yaml'), crd('alarms', 'Alarm', '2'));
    mkdirSync(join(c, 'templates'), { recursive: true });
    writeFileSync(join(c, 'crds/sirens.yaml'), crd('sirens', 'Siren', '1'));
    writeFileSync(join(c, 'templates/siren.yaml'), 'apiVersion: deep.example.com/v1\nkind: Siren\nmetadata:\n  name: loud\n', { flag: 'w' });
    assert.equal(await helm.upgradeInstall(req()), 'upgraded');
    assert.ok(await getObject(kc, crdPath('sirens')));
    assert.ok(await getObject(kc, `/apis/deep.example.com/v1/namespaces/${NS}/sirens/loud`));
    assert.equal((await getObject(kc, crdPath('alarms'))).metadata.labels.rev, '1', 'an existing CRD is never changed');

    // the condition turned on: the subchart's CRD comes with the upgrade
    assert.equal(await helm.upgradeInstall(req({ spare: { enabled: true } })), 'upgraded');
    assert.ok(await getObject(kc, crdPath('ghosts')));
  });
}

test('a CRD that never becomes served: the module fails with an error naming the CRD and its file; nothing of the release is applied', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper, crds: 'module', crdReadyMs: 1_000 });
  const chartDir = makeTree({
    'Chart.yaml': chartYaml('mute', 'dependencies:\n- name: sub\n  version: 0.1.0\n'),
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mute-config\n',
    'charts/sub/Chart.yaml': chartYaml('sub', ''),
    'charts/sub/crds/mutes.yaml': crd('mutes', 'Mute', '1', false),
  });
  await assert.rejects(helm.upgradeInstall({ release: 'mute', namespace: NS, chartDir, values: {} }), (e: Error) => {
    assert.match(e.message, /^release mute: CustomResourceDefinition mutes\.deep\.example\.com \(mute\/charts\/sub\/crds\/mutes\.yaml\) is not ready after 1 s: no version of kind Mute is served$/);
    return true;
  });
  assert.equal(await getObject(kc, `/api/v1/namespaces/${NS}/configmaps/mute-config`), undefined);
});
