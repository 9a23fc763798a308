// The fast reader of plain block YAML (src/util/yaml-fast.ts) answers exactly as the yaml library
// path does, or leaves the text to it: hand-picked cases, rendered manifests, and random documents
// written in random block styles (fixed seed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseYaml, parseYamlFully, resolveGoNumber } from '../../src/util/yaml.js';
import { UNSUPPORTED, parseSimpleYaml } from '../../src/util/yaml-fast.js';

const fast = (text: string, lastKeyWins = false) => parseSimpleYaml(text, resolveGoNumber, lastKeyWins);

function full(text: string, lastKeyWins = false): unknown {
  try {
    return parseYamlFully(text, 'f', lastKeyWins ? { duplicateKeys: 'last' } : {});
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-0
  labels:
    fleet.example.com/module: web
    app.kubernetes.io/name: "web"
  annotations:
    checksum/config: 'a1b2'
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web-0
  template:
    metadata:
      labels:
        app: web-0
    spec:
      containers:
      - name: app
        image: registry.example.com/web:v1.2 # the tag
        args: ["--index=0", "--cluster=fleet"]
        ports:
        - containerPort: 8000
          protocol: TCP
        resources:
          requests: {cpu: 10m, memory: 16Mi}
        env:
          - name: EMPTY
            value: ""
          - name: ESCAPED
            value: "a\\"b\\\\c\\n\\u00e9"
      tolerations: []
---`.replace(/\n---$/, '');

const CONFIGMAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  index: "0"
  settings.yaml: |
    features:
    - a

    limits:
      cpu: 100m
  script.sh: |-
    #!/bin/sh
    echo "it's # not a comment"
  flag: on
  octal: 0777
  empty:
  tilde: ~`;

void test('rendered manifests and values files are read by the fast reader, as the library reads them', () => {
  for (const text of [DEPLOYMENT, CONFIGMAP, 'global:\n  clusterName: fleet\nwebEnabled: true\n', '', '# only a comment\n']) {
    const got = fast(text);
    assert.notEqual(got, UNSUPPORTED, text);
    assert.deepEqual(got, full(text));
    assert.deepEqual(parseYaml(text, 'f'), got);
  }
  const cm = fast(CONFIGMAP) as { data: Record<string, unknown> };
  assert.deepEqual(cm.data, {
    index: '0',
    'settings.yaml': 'features:\n- a\n\nlimits:\n  cpu: 100m\n',
    'script.sh': '#!/bin/sh\necho "it\'s # not a comment"',
    flag: true,
    octal: 511,
    empty: null,
    tilde: null,
  });
});

void test('what the fast reader does not read is left to the library, errors included', () => {
  const left = [
    'a: &x 1\nb: *x\n', // anchors, aliases
    'a: !!str 1\n', // tags
    'a:\n\tb: 1\n', // tabs
    'a: 1\n---\nb: 2\n', // several documents
    'a: >\n  folded\n', // folded scalars
    'a: |+\n  kept\n\n', // keep chomping
    'a: |2\n   x\n', // explicit indentation
    'a: plain\n  continued\n', // multi-line plain scalar
    'a: "open\n  quote"\n',
    'a: [1,\n  2]\n', // multi-line flow
    '1: one\n', // a key that is not a string
    'on: x\n',
    '<<: {a: 1}\n', // merge key
    'a: 1\na: 2\n', // duplicate key: the library's error
    'a: b: c\n', // an error
    '- a\nb: c\n',
    'a: "\\U0001F600"\n',
    '__proto__: x\n',
  ];
  for (const text of left) assert.equal(fast(text), UNSUPPORTED, text);
  assert.throws(() => parseYaml('a: 1\na: 2\n', 'values.yaml'), /invalid YAML in values.yaml:2:1: Map keys must be unique/);
  assert.deepEqual(parseYaml('a: 1\na: 2\n', 'f', { duplicateKeys: 'last' }), { a: 2 });
  assert.deepEqual(fast('a: 1\nb: 0\na: 2\n', true), { a: 2, b: 0 });
  assert.deepEqual(parseYaml('a: &x 1\nb: *x\n', 'f'), { a: 1, b: 1 });
});

void test('scalars resolve as the library resolves them', () => {
  const scalars = ['v', 'hello world', '1', '-1', '0x1F', '1e3', '.5', '010', '0o7', '1_000', '+1', '---x', '~', 'null', 'NULL', 'Null', 'y', 'n', 'Y', 'yes', 'Off', 'ON', 'true', 'False', '12:30', '2024-01-01', '1.2.3', '9223372036854775808', '0b101', '-0b11', 'http://x:80/y', 'a, b', 'x[0]', 'a#b', 'a  b', '"q"', "'it''s'", '"\\t\\x41\\/"', '[a, [b, c], {d: e, f: }]', '[]', '{}', '[a, ]', '.inf', '1.5e500'];
  let read = 0;
  for (const s of scalars) {
    for (const text of [`k: ${s}\n`, `- ${s}\n`, `k:\n- x\n- ${s} # c\n`]) {
      const got = fast(text);
      if (got === UNSUPPORTED) continue;
      read++;
      assert.deepEqual(got, full(text), text);
    }
  }
  assert.ok(read > scalars.length * 2, `fast reader read ${read} of ${scalars.length * 3}`);
});

/** Random trees written as block YAML in random styles (indentation, compact sequences, spacing). */
function randomDocuments(seed: number, n: number): string[] {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const keys = ['a', 'b', 'name', '"q"', "'s'", 'on', 'x y', 'a:b', 'k ', 'app.io/n', '"e\\"x"', "'it''s'", 'a#b', 'k:', '1'];
  const scalars = ['v', 'a b', '1', '-1', '0x1F', '.5', '~', 'y', 'Off', '"q"', '"a\\nb"', "'x''y'", '[a, b]', '{a: 1, b: [x, "y"]}', '[a: b]', 'a #c', 'http://x:80', '&x v', '*x', '"a', '- a', 'a: b', '.nan', ''];
  type Tree = { s: string } | { block: string; lines: string[] } | { map: [string, Tree][] } | { seq: Tree[] };
  const tree = (d: number): Tree => {
    const r = rnd();
    if (d > 3 || r < 0.4) return { s: pick(scalars) };
    if (r < 0.5) return { block: pick(['|', '|-', '|+', '>']), lines: Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(['text', '  more', '', '# hash', 'k: v', '- x'])) };
    if (r < 0.75) return { map: Array.from({ length: 1 + Math.floor(rnd() * 3) }, (): [string, Tree] => [pick(keys), tree(d + 1)]) };
    return { seq: Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => tree(d + 1)) };
  };
  const leaf = (t: Tree) => 's' in t || 'block' in t;
  const write = (t: Tree, ind: number, out: string[], head: string): void => {
    const step = pick([2, 2, 4, 1]);
    if ('s' in t) out.push(head + t.s);
    else if ('block' in t) {
      out.push(head + t.block);
      for (const l of t.lines) out.push(l === '' ? '' : ' '.repeat(ind + step) + l);
    } else if ('map' in t) {
      t.map.forEach(([k, v], i) => {
        const pre = i === 0 ? head : ' '.repeat(ind);
        if (leaf(v)) return write(v, ind, out, `${pre}${k}: `);
        out.push(`${pre}${k}:`);
        const compact = 'seq' in v && rnd() < 0.5;
        write(v, compact ? ind : ind + step, out, ' '.repeat(compact ? ind : ind + step));
      });
    } else {
      t.seq.forEach((v, i) => {
        const pre = i === 0 ? head : ' '.repeat(ind);
        const dash = pick(['- ', '- ', '-   ']);
        if (leaf(v) || 'map' in v) return write(v, ind + dash.length, out, pre + dash);
        out.push(`${pre}-`);
        write(v, ind + step, out, ' '.repeat(ind + step));
      });
    }
  };
  const docs: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = tree(0);
    const out: string[] = [];
    write('s' in t || 'block' in t ? { map: [['root', t]] } : t, 0, out, '');
    if (rnd() < 0.2) out.splice(Math.floor(rnd() * out.length), 0, pick(['# comment', '', '  # c']));
    docs.push(out.join('\n') + pick(['', '\n']));
  }
  return docs;
}

void test('random block documents: the fast reader agrees with the library on every one it reads', () => {
  let read = 0;
  const docs = randomDocuments(7, 2000);
  for (const text of docs) {
    for (const last of [false, true]) {
      const got = fast(text, last);
      if (got === UNSUPPORTED) continue;
      read++;
      assert.deepEqual(got, full(text, last), JSON.stringify(text));
    }
  }
  // most random documents are plain block YAML: the fast reader must take them
  assert.ok(read > docs.length * 0.6, `fast reader read ${read} of ${docs.length * 2}`);
});

test('deeply nested collections are left to the library, which reads or refuses them; the fast reader never overflows', () => {
  const flow = 'a: ' + '['.repeat(20_000) + ']'.repeat(20_000) + '\n';
  assert.equal(fast(flow), UNSUPPORTED);
  let block = '';
  for (let i = 0; i < 5_000; i++) block += ' '.repeat(i) + 'k:\n';
  assert.equal(fast(block), UNSUPPORTED);
  assert.throws(() => parseYaml(flow, 'deep.yaml'), /deep\.yaml.*nested too deeply|nested too deeply.*deep\.yaml/s);
  // within the bound the answer is the library's
  const shallow = 'a: ' + '['.repeat(30) + '1' + ']'.repeat(30) + '\n';
  assert.notEqual(fast(shallow), UNSUPPORTED);
  assert.deepEqual(fast(shallow), full(shallow));
});
