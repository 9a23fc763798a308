import { test } from 'node:test';
import assert from 'node:assert/strict';
import { postRender, postRenderedManifest } from '../../src/helm/post-render.js';
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
