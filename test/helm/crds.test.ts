// crds/ the Go operator's way (HelmReleases `crds: 'module'`, what `start` uses): Helm is told
// SkipCRDs, and the module's crd files are created or updated before its release, as the Go
// operator's ModuleEnsureCRDs does; doc- and _ files are left out; subcharts' crds/ are installed
// as Helm installs them (created when absent, never changed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { HelmReleases } from '../../src/helm/release-engine.js';
import type { JsonObject } from '../../src/util/json.js';
import { makeTree } from '../helpers/tree.js';
import { cluster, releaseSecrets, secretPayload, getObject } from './helpers.js';

const NS = 'apps';

const crd = (plural: string, kind: string, rev: string) =>
  `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${plural}.example.com\n  labels:\n    rev: "${rev}"\nspec:\n  group: example.com\n  scope: Namespaced\n` +
  `  names: {plural: ${plural}, singular: ${kind.toLowerCase()}, kind: ${kind}, listKind: ${kind}List}\n` +
  '  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}\n';
const crdPath = (plural: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.example.com`;

test("crds: 'module': the module's crd files created and updated before the release, filtered as the Go operator filters them; a module without Chart.yaml too", async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper, crds: 'module', extraLabels: { heritage: 'addon-operator' } });
  const moduleDir = makeTree({
    // no Chart.yaml: a module chart, as most addon-operator modules are
    'crds/widgets.yaml': crd('widgets', 'Widget', '1'),
    'crds/more/gadgets.yaml': crd('gadgets', 'Gadget', '1'),
    'crds/doc-widgets.yaml': crd('docs', 'Doc', '1'),
    'crds/_skipped.yaml': crd('skipped', 'Skipped', '1'),
    'crds/notes.yml': crd('ymls', 'Yml', '1'),
    'charts/sub/Chart.yaml': 'apiVersion: v2\nname: sub\nversion: 0.1.0\n',
    'charts/sub/crds/subs.yaml': crd('subs', 'Sub', '1'),
    'templates/widget.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: {{ .Values.size | default 1 }}\n',
  });
  const request = (values: JsonObject) => ({ release: 'widgets', namespace: NS, chartDir: moduleDir, values });
  assert.equal(await helm.upgradeInstall(request({})), 'installed');
  assert.deepEqual((await getObject(kc, crdPath('widgets'))).metadata.labels, { rev: '1', heritage: 'addon-operator' });
  assert.ok(await getObject(kc, crdPath('gadgets')), 'crds/ is walked into its directories');
  for (const skipped of ['docs', 'skipped', 'ymls']) assert.equal(await getObject(kc, crdPath(skipped)), undefined, skipped);
  // a subchart's crds/ the way Helm installs it (issue 39: the Go operator's SkipCRDs left it out)
  assert.equal((await getObject(kc, crdPath('subs'))).metadata.labels.rev, '1');
  assert.deepEqual((await getObject(kc, `/apis/example.com/v1/namespaces/${NS}/widgets/w1`)).spec, { size: 1 });
  assert.doesNotMatch(secretPayload((await releaseSecrets(kc, NS, 'widgets'))[0]).release.manifest, /CustomResourceDefinition/);

  // nothing changed: nothing is applied
  assert.equal(await helm.upgradeInstall(request({})), 'unchanged');
  // a changed crd file is applied by the next run (the Go operator updates them too), values unchanged
  writeFileSync(`${moduleDir}/crds/widgets.yaml`, crd('widgets', 'Widget', '2'));
  assert.equal(await helm.upgradeInstall(request({})), 'upgraded');
  assert.equal((await getObject(kc, crdPath('widgets'))).metadata.labels.rev, '2');
  assert.equal(await helm.upgradeInstall(request({})), 'unchanged');

  // uninstall leaves the CRDs
  assert.equal(await helm.uninstall('widgets', NS), true);
  assert.ok(await getObject(kc, crdPath('widgets')));
});
