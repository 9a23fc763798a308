import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockMetadata, postRender, postRenderedManifest, scannedMetadata, withLabelsBlock } from '../../src/helm/post-render.js';
import type { Manifest } from '../../src/helm/manifests.js';
import { parseYaml } from '../../src/util/yaml.js';

const manifest = (name: string, content: string): Manifest => ({ name, content, head: { apiVersion: '', kind: '', name: '', annotations: {} }, data: parseYaml(content, name) as never });

test("the Go operator's post-renderer case: labels added, overridden, sorted, at the end of metadata; kyaml's document layout", () => {
  const input = [
    manifest('c/templates/a.yaml', 'apiVersion: ""\nkind: pod\nmetadata:\n  name: pod1'),
    manifest('c/templates/b.yaml', 'apiVersion: ""\nkind: statefulset\nmetadata:\n  name: pod2\n  labels:\n    new: pod\n  annotations:\n    new: pod'),
    manifest('c/templates/c.yaml', 'apiVersion: ""\nkind: deployment\nmetadata:\n  name: pod3\n  labels:\n    heritage: legacy'),
  ];
  const out = postRender(input, { heritage: 'addon-operator' });
  assert.equal(
    postRenderedManifest(out),
    '# Source: c/templates/a.yaml\napiVersion: ""\nkind: pod\nmetadata:\n  name: pod1\n  labels:\n    heritage: addon-operator\n' +
      '---\n# Source: c/templates/b.yaml\napiVersion: ""\nkind: statefulset\nmetadata:\n  name: pod2\n  annotations:\n    new: pod\n  labels:\n    heritage: addon-operator\n    new: pod\n' +
      '---\n# Source: c/templates/c.yaml\napiVersion: ""\nkind: deployment\nmetadata:\n  name: pod3\n  labels:\n    heritage: addon-operator\n',
  );
  // the parsed data (what is applied) is the text's
  for (const m of out) assert.deepEqual(m.data, parseYaml(m.content, m.name));
  // the input is left alone
  assert.equal(input[0]!.content, 'apiVersion: ""\nkind: pod\nmetadata:\n  name: pod1');
});

test('post-render: values become strings as written, quoted when YAML would read them otherwise; other layouts', () => {
  const [flowLabels, flowMeta, deep] = postRender(
    [
      manifest('a.yaml', 'kind: A\nmetadata:\n  name: a\n  labels: {v: 1, b: 0777, z: "yes"}  # gone with the entry\n  namespace: x\n  # stays\ndata:\n  k: v'),
      manifest('b.yaml', 'kind: B\nmetadata: {name: b}'),
      manifest('c.yaml', 'kind: C\nmetadata:\n    labels:\n        a: b\n    name: c'),
    ],
    { 'x.io/on': 'true' },
  );
  assert.equal(flowLabels!.content, 'kind: A\nmetadata:\n  name: a\n  namespace: x\n  labels:\n    b: "0777"\n    v: "1"\n    x.io/on: "true"\n    z: "yes"\n  # stays\ndata:\n  k: v');
  assert.deepEqual((flowLabels!.data as any).metadata.labels, { b: '0777', v: '1', 'x.io/on': 'true', z: 'yes' });
  // flow-style metadata: the document written out again from its data
  assert.deepEqual(parseYaml(flowMeta!.content, 'b.yaml'), { kind: 'B', metadata: { labels: { 'x.io/on': 'true' }, name: 'b' } });
  assert.equal(deep!.content, 'kind: C\nmetadata:\n    name: c\n    labels:\n      a: b\n      x.io/on: "true"');
  // no extra labels: nothing changes
  const same = manifest('d.yaml', 'kind: D\nmetadata:\n  name: d');
  assert.deepEqual(postRender([same], {}), [same]);
});

test('post-render: the line scanner gives what parsing the document gives, over layouts charts render', () => {
  // metadata entries before and after the labels, blank lines where templates leave them, labels in
  // every style, values YAML reads as other types, block scalars, comments, deeper indents
  const labelBlocks = [
    '',
    '{i}labels:\n{i}  app: web\n{i}  app.kubernetes.io/name: "web"\n',
    "{i}labels:\n{i}  a: 'x'\n\n{i}  b: y # trailing comment\n",
    '{i}labels:\n{i}  v: 1\n{i}  on: true\n',
    '{i}labels: {a: b}\n',
    '{i}labels:\n{i}    deep: x\n',
    '{i}labels:\n{i}  multi: one\n{i}    two\n',
    '{i}labels:\n{i}  e: ""\n',
    '{i}labels:\n',
    '{i}labels:\n{i}  x: y\n\n',
  ];
  const others = [
    ['{i}name: web\n', ''],
    ['{i}name: web\n{i}namespace: ns\n', '{i}annotations:\n{i}  note: |\n{i}    line one\n\n{i}    line two\n'],
    ['', '{i}name: late\n'],
    ['{i}name: web\n# a comment\n', ''],
    ['{i}name: web\n{i}  # indented comment\n', ''],
    ['\n{i}name: web\n', '\n\n'],
  ];
  const tails = ['', 'spec:\n  replicas: 1\n', '\nspec:\n  x: 1\n', '# tail comment\ndata:\n  k: v'];
  let compared = 0;
  let scanned = 0;
  for (const i of ['  ', '    ']) {
    for (const labels of labelBlocks) {
      for (const [before, after] of others) {
        for (const tail of tails) {
          const text = ('apiVersion: v1\nkind: ConfigMap\nmetadata:\n' + before + labels + after + tail).replaceAll('{i}', i);
          let data: unknown;
          try {
            data = parseYaml(text, 'x.yaml');
          } catch {
            continue;
          }
          const slow = blockMetadata(text);
          const fast = scannedMetadata(text, data as never);
          compared++;
          if (!fast) continue;
          scanned++;
          assert.ok(slow, `the scanner read a layout the parser does not:\n${text}`);
          assert.deepEqual(fast.labels, slow.labels, text);
          assert.equal(withLabelsBlock(fast, { ...fast.labels, z: 'z' }), withLabelsBlock(slow, { ...slow.labels, z: 'z' }), text);
        }
      }
    }
  }
  // the common layouts are scanned, the odd ones left to the parser
  assert.ok(compared > 300 && scanned > compared / 4, `${scanned} of ${compared} scanned`);
});
