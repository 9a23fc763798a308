import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { makeTree } from '../helpers/tree.js';
import { loadChart } from '../../src/helm/chart.js';
import { renderChart, renderTemplateFiles, type RenderOptions } from '../../src/helm/render.js';
import { defaultCapabilities, discoverCapabilities, parseKubeVersion } from '../../src/helm/capabilities.js';
import { startSandbox } from '../../src/sandbox/index.js';

const fixture = (p: string) => fileURLToPath(new URL(`./fixtures/${p}`, import.meta.url));
const OPTS: RenderOptions = { releaseName: 'rel', namespace: 'ns' };

function files(tree: Record<string, string>, values: Record<string, unknown> = {}, options: Partial<RenderOptions> = {}) {
  return renderTemplateFiles(loadChart(makeTree(tree)), values as never, { ...OPTS, ...options }).files;
}

test('helm template output of Helm\'s own "subchart" test chart is what Helm 3 prints (cmd/helm/testdata/output/template.txt)', () => {
  const chart = loadChart(fixture('subchart'));
  const caps = defaultCapabilities().withKubeVersion(parseKubeVersion('1.20'));
  const r = renderChart(chart, {}, { releaseName: 'RELEASE-NAME', namespace: 'default', capabilities: caps });
  assert.equal(r.output, readFileSync(fixture('golden/subchart-template.txt'), 'utf8'));
  // the release manifest has no hooks; the tests are hooks
  assert.deepEqual(r.hooks.map((h) => [h.path, h.events]), [
    ['subchart/templates/tests/test-config.yaml', ['test']],
    ['subchart/templates/tests/test-nothing.yaml', ['test']],
  ]);
  assert.ok(!r.manifest.includes('tests/'));
  // --skip-tests and --no-hooks drop them from the output
  const skipped = renderChart(chart, {}, { releaseName: 'RELEASE-NAME', namespace: 'default', capabilities: caps, skipTests: true });
  assert.equal(skipped.output, r.output.slice(0, r.output.indexOf('---\n# Source: subchart/templates/tests/')));
  // a condition turns a subchart off
  const off = renderChart(chart, { subcharta: { enabled: false } }, { releaseName: 'RELEASE-NAME', namespace: 'default', capabilities: caps });
  assert.ok(!off.output.includes('subcharta'));
  assert.ok(off.output.includes('subchartb'));
  // tags: every tag false turns it off, one true tag keeps it
  const tagged = renderChart(chart, { tags: { 'front-end': false, subchartb: true } }, { releaseName: 'x', namespace: 'default', capabilities: caps });
  assert.deepEqual(tagged.chart.dependencies.map((d) => d.metadata.name), ['subchartb']);
});

test("values and subchart scopes as in Helm's TestRenderNestedValues", () => {
  const out = files(
    {
      'Chart.yaml': 'name: top\nversion: 0.1.0\n',
      'values.yaml': 'what: stinkweed\nwho: me\nherrick:\n  who: time\n  what: Sun\n',
      'templates/outer.tpl': 'Gather ye {{.Values.what}} while ye may',
      'templates/subcharts.tpl': 'The glorious Lamp of {{.Subcharts.herrick.Subcharts.deepest.Values.where}}, the {{.Subcharts.herrick.Values.what}}',
      'charts/herrick/Chart.yaml': 'name: herrick\nversion: 0.1.0\n',
      'charts/herrick/values.yaml': 'who: Robert\nwhat: glasses\n',
      'charts/herrick/templates/inner.tpl': "Old {{.Values.who}} is still a-flyin'",
      'charts/herrick/charts/deepest/Chart.yaml': 'name: deepest\nversion: 0.1.0\n',
      'charts/herrick/charts/deepest/values.yaml': 'what: milkshake\nwhere: here\n',
      'charts/herrick/charts/deepest/templates/inner.tpl': 'And this same {{.Values.what}} that smiles {{.Values.global.when}}',
      'charts/herrick/charts/deepest/templates/release.tpl': 'Tomorrow will be {{default "happy" .Release.Name }}',
    },
    { what: 'rosebuds', herrick: { deepest: { what: 'flower', where: 'Heaven' } }, global: { when: 'to-day' } },
    { releaseName: 'dyin' },
  );
  assert.deepEqual(out, {
    'top/templates/outer.tpl': 'Gather ye rosebuds while ye may',
    'top/templates/subcharts.tpl': 'The glorious Lamp of Heaven, the Sun',
    'top/charts/herrick/templates/inner.tpl': "Old time is still a-flyin'",
    'top/charts/herrick/charts/deepest/templates/inner.tpl': 'And this same flower that smiles to-day',
    'top/charts/herrick/charts/deepest/templates/release.tpl': 'Tomorrow will be dyin',
  });
});

test("built-in objects as in Helm's TestRenderBuiltinValues: .Template, .Chart, .Release, .Files, .Subcharts", () => {
  const out = files(
    {
      'Chart.yaml': 'name: Troy\nversion: 0.1.0\n',
      'templates/Aeneas': '{{.Template.Name}}{{.Chart.Name}}{{.Release.Name}}',
      'templates/Amata': '{{.Subcharts.Latium.Chart.Name}} {{.Subcharts.Latium.Files.author | printf "%s"}}',
      'charts/Latium/Chart.yaml': 'name: Latium\nversion: 0.1.0\n',
      'charts/Latium/templates/Lavinia': '{{.Template.Name}}{{.Chart.Name}}{{.Release.Name}}',
      'charts/Latium/templates/From': '{{.Files.author | printf "%s"}} {{.Files.Get "book/title.txt"}}',
      'charts/Latium/author': 'Virgil',
      'charts/Latium/book/title.txt': 'Aeneid',
    },
    {},
    { releaseName: 'Aeneid' },
  );
  assert.deepEqual(out, {
    'Troy/charts/Latium/templates/Lavinia': 'Troy/charts/Latium/templates/LaviniaLatiumAeneid',
    'Troy/templates/Aeneas': 'Troy/templates/AeneasTroyAeneid',
    'Troy/templates/Amata': 'Latium Virgil',
    'Troy/charts/Latium/templates/From': 'Virgil Aeneid',
  });
});

test('.Release, .Chart fields and .Template.BasePath', () => {
  const out = files(
    {
      'Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 1.2.3\nappVersion: "2.0"\nkeywords: [a, b]\nannotations:\n  x: z\n',
      'templates/a.txt':
        '{{ .Release.Name }}|{{ .Release.Namespace }}|{{ .Release.IsInstall }}|{{ .Release.IsUpgrade }}|{{ .Release.Revision }}|{{ .Release.Service }}|' +
        '{{ .Chart.Name }}|{{ .Chart.Version }}|{{ .Chart.AppVersion }}|{{ .Chart.APIVersion }}|{{ .Chart.Keywords }}|{{ .Chart.Annotations.x }}|{{ .Chart.IsRoot }}|{{ .Template.BasePath }}',
    },
    {},
    { revision: 7, isUpgrade: true },
  );
  assert.equal(out['demo/templates/a.txt'], 'rel|ns|false|true|7|Helm|demo|1.2.3|2.0|v2|[a b]|z|true|demo/templates');
  assert.throws(
    () => files({ 'Chart.yaml': 'name: demo\nversion: 1.0.0\n', 'templates/a.txt': '{{ .Chart.Nope }}' }),
    /can't evaluate field Nope/,
  );
});

test(".Files: Get, GetBytes, Glob, AsConfig, AsSecrets, Lines (Helm's files_test cases)", () => {
  const out = files({
    'Chart.yaml': 'name: demo\nversion: 1.0.0\n',
    'ship/captain.txt': 'The Captain',
    'ship/stowaway.txt': 'Legatt',
    'story/name.txt': 'The Secret Sharer',
    'story/author.txt': 'Joseph Conrad',
    'multiline/test.txt': 'bar\nfoo\n',
    'templates/a.txt': [
      '{{ .Files.Get "story/author.txt" }}',
      '{{ .Files.GetBytes "ship/stowaway.txt" | len }}',
      '{{ len (.Files.Glob "story/**") }}',
      '{{ (.Files.Glob "story/**").Get "story/author.txt" }}',
      '{{ (.Files.Glob "**/captain.txt").AsConfig }}',
      '{{ (.Files.Glob "ship/**").AsConfig }}',
      '{{ (.Files.Glob "ship/**").AsSecrets }}',
      '{{ .Files.Lines "multiline/test.txt" }}',
      '{{ range $path, $_ := .Files.Glob "ship/*" }}{{ $path }};{{ end }}',
      '{{ .Files.Get "no_such_file.txt" }}-{{ (.Files.Glob "nothing").AsConfig }}',
    ].join('\n'),
  });
  assert.deepEqual(out['demo/templates/a.txt']!.split('\n'), [
    'Joseph Conrad',
    '6',
    '2',
    'Joseph Conrad',
    'captain.txt: The Captain',
    'captain.txt: The Captain',
    'stowaway.txt: Legatt',
    'captain.txt: VGhlIENhcHRhaW4=',
    'stowaway.txt: TGVnYXR0',
    '[bar foo]',
    'ship/captain.txt;ship/stowaway.txt;',
    '-{}',
  ]);
});

test('.Capabilities: Helm defaults without a cluster, API discovery with one', async (t) => {
  const tpl = '{{ .Capabilities.KubeVersion }}|{{ .Capabilities.KubeVersion.Version }}|{{ .Capabilities.KubeVersion.GitVersion }}|{{ .Capabilities.KubeVersion.Major }}.{{ .Capabilities.KubeVersion.Minor }}|{{ .Capabilities.APIVersions.Has "apps/v1" }}|{{ .Capabilities.APIVersions.Has "v1/ConfigMap" }}|{{ .Capabilities.APIVersions.Has "example.com/v1" }}|{{ .Capabilities.HelmVersion.Version }}';
  const tree = { 'Chart.yaml': 'name: demo\nversion: 1.0.0\n', 'templates/a.txt': tpl };
  assert.equal(files(tree)['demo/templates/a.txt'], 'v1.34.0|v1.34.0|v1.34.0|1.34|true|false|false|v3.19.0');
  const extra = defaultCapabilities().withApiVersions(['example.com/v1']).withKubeVersion(parseKubeVersion('v1.28.3'));
  assert.equal(files(tree, {}, { capabilities: extra })['demo/templates/a.txt'], 'v1.28.3|v1.28.3|v1.28.3|1.28|true|false|true|v3.19.0');

  const sandbox = await startSandbox({ kubernetesVersion: 'v1.31.2' });
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  const live = await discoverCapabilities(kc);
  assert.equal(files(tree, {}, { capabilities: live })['demo/templates/a.txt'], 'v1.31.2|v1.31.2|v1.31.2|1.31|true|true|false|v3.19.0');
});

test("install order: Helm's InstallOrder by kind, unknown kinds last by name, file and document order kept", () => {
  const chart = loadChart(
    makeTree({
      'Chart.yaml': 'name: demo\nversion: 1.0.0\n',
      'templates/a-deploy.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\n',
      'templates/b-multi.yaml':
        '# a comment-only first document is kept, as Helm keeps it\n---\n\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c2\n---   \n',
      'templates/c-cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n',
      'templates/d-custom.yaml': 'apiVersion: x.io/v1\nkind: Zeta\nmetadata:\n  name: z\n---\napiVersion: x.io/v1\nkind: Alpha\nmetadata:\n  name: a\n',
      'templates/e-ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns1\n',
      'templates/empty.yaml': '{{- if false }}\nkind: Secret\n{{- end }}\n',
      'templates/NOTES.txt': 'Thanks for installing {{ .Release.Name }}',
      'templates/_helpers.tpl': '{{ define "x" }}kind: Secret{{ end }}',
    }),
  );
  const r = renderChart(chart, {}, OPTS);
  assert.deepEqual(
    r.manifests.map((m) => `${m.head.kind || '-'}/${m.head.name || '-'}`),
    // unknown kinds after known ones, by kind name: the comment-only document (kind "") comes first
    ['Namespace/ns1', 'ConfigMap/c2', 'ConfigMap/c1', 'Service/s1', 'Deployment/d1', '-/-', 'Alpha/a', 'Zeta/z'],
  );
  assert.equal(r.notes, 'Thanks for installing rel');
  assert.ok(r.manifest.startsWith('---\n# Source: demo/templates/e-ns.yaml\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns1\n---\n# Source: demo/templates/b-multi.yaml\n'));
  assert.ok(r.manifest.includes('---\n# Source: demo/templates/b-multi.yaml\n# a comment-only first document is kept, as Helm keeps it\n---\n# Source: demo/templates/d-custom.yaml\n'));
});

test('library subcharts contribute only their helpers; crds stay apart unless asked for', () => {
  const chart = loadChart(
    makeTree({
      'Chart.yaml': 'apiVersion: v2\nname: app\nversion: 1.0.0\n',
      'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include "lib.name" . }}\n',
      'crds/crd.yaml': 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: xs.example.com\n',
      'charts/lib/Chart.yaml': 'apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n',
      'charts/lib/templates/_names.tpl': '{{ define "lib.name" }}from-lib-{{ .Chart.Name }}{{ end }}',
      'charts/lib/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: never-rendered\n',
    }),
  );
  const r = renderChart(chart, {}, OPTS);
  assert.deepEqual(r.manifests.map((m) => m.head.name), ['from-lib-app']);
  assert.deepEqual(r.crds.map((c) => c.filename), ['app/crds/crd.yaml']);
  assert.ok(!r.manifest.includes('CustomResourceDefinition'));
  const withCrds = renderChart(chart, {}, { ...OPTS, includeCrds: true });
  assert.ok(withCrds.output.startsWith('---\n# Source: app/crds/crd.yaml\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: xs.example.com\n\n---\n# Source: app/templates/cm.yaml\n'));
});

test('render errors as Helm presents them', () => {
  const err = (tree: Record<string, string>, values = {}) => {
    try {
      files({ 'Chart.yaml': 'name: demo\nversion: 1.0.0\n', ...tree }, values);
    } catch (e) {
      return (e as Error).message;
    }
    return 'no error';
  };
  assert.equal(err({ 'templates/a.yaml': '{{ required "image is required" .Values.image }}' }), 'execution error at (demo/templates/a.yaml:1:3): image is required');
  assert.equal(err({ 'templates/a.yaml': '{{ foo }}' }), 'parse error at (demo/templates/a.yaml:1): function "foo" not defined');
  assert.match(
    renderError({ 'Chart.yaml': 'name: demo\nversion: 1.0.0\nkubeVersion: ">=1.40.0"\n' }),
    /^chart requires kubeVersion: >=1\.40\.0 which is incompatible with Kubernetes v1\.34\.0$/,
  );
  assert.equal(
    renderError({ 'Chart.yaml': 'name: demo\nversion: 1.0.0\n', 'templates/a.yaml': 'kind: ConfigMap\nmetadata: [x]\n' }),
    'YAML parse error on demo/templates/a.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field SimpleHead.metadata of type struct',
  );
});

function renderError(tree: Record<string, string>): string {
  try {
    renderChart(loadChart(makeTree(tree)), {}, OPTS);
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
}
