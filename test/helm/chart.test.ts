import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { chartFullPath, crdObjects, loadChart } from '../../src/helm/chart.js';

const CHART = 'apiVersion: v2\nname: demo\nversion: 1.2.3\nappVersion: "4.5"\n';

function loadError(files: Record<string, string>): string {
  const dir = makeTree(files);
  try {
    loadChart(dir);
  } catch (e) {
    return (e as Error).message.replaceAll(dir, 'CHART');
  }
  throw new Error('expected the chart to fail loading');
}

/** A .tgz with the given members (ustar, regular files). */
function tgz(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    const h = Buffer.alloc(512);
    h.write(name, 0, 'utf8');
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(data.length.toString(8).padStart(11, '0') + '\0', 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\0' + '00', 257);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

test('loads metadata, values, templates, files and crds apart', () => {
  const dir = makeTree({
    'Chart.yaml': CHART,
    'values.yaml': 'a: 1\nb:\n  c: x\n---\nb:\n  d: z\n',
    'templates/cm.yaml': 'kind: ConfigMap',
    'templates/_helpers.tpl': '{{ define "x" }}{{ end }}',
    'files/a.conf': 'A',
    'crds/crd.yaml': 'kind: CustomResourceDefinition',
    'README.md': 'readme',
  });
  const c = loadChart(dir);
  assert.equal(c.metadata.name, 'demo');
  assert.equal(c.metadata.appVersion, '4.5');
  assert.deepEqual(c.values, { a: 1, b: { c: 'x', d: 'z' } }, 'documents of values.yaml are merged');
  assert.deepEqual(c.templates.map((t) => t.name).sort(), ['templates/_helpers.tpl', 'templates/cm.yaml']);
  assert.deepEqual(c.files.map((f) => f.name).sort(), ['README.md', 'crds/crd.yaml', 'files/a.conf']);
  assert.deepEqual(crdObjects(c).map((x) => x.filename), ['demo/crds/crd.yaml']);
});

test('Chart.yaml errors name the file, the line and what Helm says', () => {
  assert.equal(loadError({ 'values.yaml': '' }), 'CHART: Chart.yaml file is missing');
  assert.match(loadError({ 'Chart.yaml': 'name: demo\nversion: [1\n' }), /^invalid YAML in CHART\/Chart\.yaml:\d+:\d+: /);
  assert.equal(
    loadError({ 'Chart.yaml': 'name: demo\nversion: 1.0\n' }),
    'CHART/Chart.yaml:2: cannot load Chart.yaml: json: cannot unmarshal number into Go struct field Metadata.version of type string',
  );
  assert.equal(
    loadError({ 'Chart.yaml': 'name: demo\nversion: "1"\nmaintainers:\n  - name: [x]\n' }),
    'CHART/Chart.yaml:4: cannot load Chart.yaml: json: cannot unmarshal array into Go struct field Maintainer.maintainers.name of type string',
  );
  assert.equal(loadError({ 'Chart.yaml': 'name: demo\n' }), 'CHART/Chart.yaml: validation: chart.metadata.version is required');
  assert.equal(loadError({ 'Chart.yaml': 'name: demo\nversion: one\n' }), 'CHART/Chart.yaml:2: validation: chart.metadata.version "one" is invalid');
  assert.equal(loadError({ 'Chart.yaml': 'version: 1.0.0\n' }), 'CHART/Chart.yaml: validation: chart.metadata.name is required');
  assert.equal(
    loadError({ 'Chart.yaml': 'name: demo\nversion: 1.0.0\ntype: app\n' }),
    'CHART/Chart.yaml:3: validation: chart.metadata.type must be application or library',
  );
});

test('values.yaml errors name the file and the position', () => {
  assert.match(loadError({ 'Chart.yaml': CHART, 'values.yaml': 'a: 1\nb: [\n' }), /^invalid YAML in CHART\/values\.yaml:\d+:\d+: /);
  assert.equal(
    loadError({ 'Chart.yaml': CHART, 'values.yaml': '- a\n- b\n' }),
    'CHART/values.yaml: cannot load values.yaml: a values document must be a map, not a list',
  );
  assert.match(loadError({ 'Chart.yaml': CHART, 'values.yaml': 'a: 1\na: 2\n' }), /^invalid YAML in CHART\/values\.yaml:2:1: /);
});

test('.helmignore: base-name rules, anchored rules, directories, and dotfiles in templates/', () => {
  const dir = makeTree({
    'Chart.yaml': CHART,
    '.helmignore': '# comment\n*.bak\n/top.txt\ndocs/\n',
    'a.bak': '',
    'sub/b.bak': '',
    'top.txt': '',
    'sub/top.txt': 'kept: the rule is anchored',
    'docs/x.md': '',
    'templates/.hidden.yaml': 'kind: X',
    'templates/cm.yaml': 'kind: ConfigMap',
  });
  const c = loadChart(dir);
  assert.deepEqual(c.files.map((f) => f.name).sort(), ['.helmignore', 'sub/top.txt']);
  assert.deepEqual(c.templates.map((t) => t.name), ['templates/cm.yaml']);
  assert.match(loadError({ 'Chart.yaml': CHART, '.helmignore': 'a/**/b\n' }), /\.helmignore:1: double-star \(\*\*\) syntax is not supported/);
});

test('subcharts from directories and from .tgz archives; _ and . entries skipped', () => {
  const dir = makeTree({
    'Chart.yaml': CHART,
    'charts/one/Chart.yaml': 'name: one\nversion: 0.1.0\n',
    'charts/one/templates/a.yaml': 'kind: A',
    'charts/one/charts/deep/Chart.yaml': 'name: deep\nversion: 0.1.0\n',
    'charts/_skip/Chart.yaml': 'name: skip\nversion: 0.1.0\n',
  });
  writeFileSync(join(dir, 'charts', 'two-0.2.0.tgz'), tgz({ 'two/Chart.yaml': 'name: two\nversion: 0.2.0\n', 'two/values.yaml': 'x: 1\n', 'two/templates/b.yaml': 'kind: B' }));
  const c = loadChart(dir);
  assert.deepEqual(c.dependencies.map((d) => d.metadata.name), ['one', 'two']);
  const [one, two] = c.dependencies;
  assert.equal(chartFullPath(one!.dependencies[0]!), 'demo/charts/one/charts/deep');
  assert.deepEqual(two!.values, { x: 1 });
  assert.deepEqual(two!.templates.map((t) => t.name), ['templates/b.yaml']);
  assert.equal(
    loadError({ 'Chart.yaml': CHART, 'charts/bad/Chart.yaml': 'name: bad\n' }),
    'error unpacking bad in demo: CHART/charts/bad/Chart.yaml: validation: chart.metadata.version is required',
  );
});

test('a module without Chart.yaml loads with a generated one, as the Go operator does', () => {
  const dir = makeTree({
    'values.yaml': 'demoModule:\n  a: 1\n',
    'templates/cm.yaml': 'kind: ConfigMap',
    'hooks/startup.sh': '#!/bin/sh\n',
    'crds/x.yaml': 'kind: CustomResourceDefinition',
    'openapi/config-values.yaml': 'type: object',
  });
  assert.throws(() => loadChart(dir), /Chart\.yaml file is missing/);
  const c = loadChart(dir, { syntheticName: 'demo-module' });
  assert.equal(c.metadata.name, 'demo-module');
  assert.equal(c.metadata.version, '0.2.0');
  assert.equal(c.metadata.apiVersion, 'v1');
  assert.deepEqual(c.values, { demoModule: { a: 1 } });
  assert.deepEqual(c.files.map((f) => f.name), ['openapi/config-values.yaml']);
});
