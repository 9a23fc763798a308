/**
 * Random jq filters (from jq's grammar and builtins) and random Kubernetes-like objects, from a seed,
 * for the differential test against jq-wasm (test/jq/differential.test.ts; larger runs:
 * `node --import tsx test/jq/differential-run.ts COUNT [SEED]`).
 */
import type { Json } from '../../src/jq/value.js';

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['web', 'db', 'cache', 'prod', 'dev', 'a-b', 'x_y', 'Hello', 'sys', ''];
const KEYS = ['app', 'tier', 'name', 'kind', 'a', 'b', 'value', 'key'];

export function randomObject(r: () => number, i: number): Json {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const labels: Record<string, Json> = {};
  for (let k = 0; k < Math.floor(r() * 4); k++) labels[pick(KEYS)] = pick(WORDS);
  const containers: Json[] = [];
  for (let c = 0; c < Math.floor(r() * 3); c++) {
    containers.push({
      name: `c${c}`,
      image: `${pick(WORDS)}:${Math.floor(r() * 10)}`,
      ports: r() < 0.5 ? [{ containerPort: 80 + Math.floor(r() * 10) }] : [],
      resources: r() < 0.5 ? { requests: { cpu: `${Math.floor(r() * 500)}m` } } : {},
    });
  }
  const obj: Record<string, Json> = {
    kind: pick(['Pod', 'ConfigMap', 'Secret']),
    metadata: { name: `${pick(WORDS)}-${i}`, namespace: pick(['default', 'kube-system', 'prod']), labels, generation: Math.floor(r() * 5) },
    spec: { replicas: r() < 0.3 ? null : Math.floor(r() * 5), containers, paused: r() < 0.5 },
  };
  if (r() < 0.5) obj.data = { a: pick(WORDS), b: String(Math.floor(r() * 100)), n: Math.floor(r() * 100) - 50 };
  if (r() < 0.3) obj.list = [1, 2, 3, 'x', null, true].slice(0, Math.floor(r() * 6));
  return obj;
}

export function randomFilter(r: () => number, depth = 3): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const f = (d: number): string => randomFilter(r, d);
  if (depth <= 0) {
    return pick([
      '.', '.metadata', '.metadata.name', '.metadata.labels', '.spec.containers', '.spec.replicas', '.data', '.list', '.kind',
      '.metadata.labels.app', '.spec.containers[0].image', '.data.n', '1', '2.5', '-3', '"web"', 'null', 'true', 'false', '[]', '{}',
      '.spec.containers[].name', '.[]?', '..', '$__loc__', '.list[1:3]', '.metadata.name[0:3]', 'empty',
    ]);
  }
  const d = depth - 1;
  switch (Math.floor(r() * 30)) {
    case 0: return `${f(d)} | ${f(d)}`;
    case 1: return `${f(d)}, ${f(d)}`;
    case 2: return `(${f(d)} ${pick(['+', '-', '*', '/', '%'])} ${f(d)})`;
    case 3: return `(${f(d)} ${pick(['==', '!=', '<', '<=', '>', '>='])} ${f(d)})`;
    case 4: return `(${f(d)} ${pick(['and', 'or', '//'])} ${f(d)})`;
    case 5: return `[${f(d)}]`;
    case 6: return `{${pick(KEYS)}: ${f(d)}, "${pick(KEYS)}": ${f(d)}}`;
    case 7: return `if ${f(d)} then ${f(d)} else ${f(d)} end`;
    case 8: return `try ${f(d)} catch .`;
    case 9: return `(${f(d)})?`;
    case 10: return `reduce (${f(d)}) as $x (0; . + ($x | length))`;
    case 11: return `[foreach (${f(d)}) as $x (0; . + 1; [$x, .])]`;
    case 12: return `(${f(d)}) as $v | ${f(d)} | [., $v]`;
    case 13: return `"s-\\(${f(d)})"`;
    case 14: return `${pick(['map', 'select', 'sort_by', 'group_by', 'unique_by', 'min_by', 'max_by', 'any', 'all', 'with_entries', 'first', 'isempty', 'path', 'del', 'paths', 'map_values', 'walk', 'add', 'recurse', 'limit(2; '])}${'('}${f(d)})`.replace('limit(2; (', 'limit(2; ').replace(/\(\(/, '(');
    case 15: return `.${pick(KEYS)} |= ${f(d)}`;
    case 16: return `.${pick(KEYS)} = ${f(d)}`;
    case 17: return `.${pick(KEYS)} ${pick(['+=', '-=', '*=', '//='])} ${f(d)}`;
    case 18: return `${f(d)} | ${pick(['has("app")', 'contains("a")', 'startswith("w")', 'endswith("b")', 'test("e.")', 'split("-")', 'join(",")', 'ltrimstr("w")', 'index("b")', 'indices(1)', 'splits("-")', 'sub("e"; "E")', 'gsub("[a-c]"; "Z")', 'ascii_downcase', 'ascii_upcase', 'explode', 'implode'])}`;
    case 19: return `${f(d)} | ${pick(['length', 'keys', 'keys_unsorted', 'type', 'tostring', 'tojson', 'to_entries', 'from_entries', 'add', 'sort', 'unique', 'reverse', 'flatten', 'min', 'max', 'not', 'floor', 'abs', 'tonumber', 'any', 'all', 'first', 'last', 'transpose', 'combinations', 'utf8bytelength', 'trim'])}`;
    case 20: return `${f(d)} | ${pick(['@text', '@json', '@html', '@uri', '@csv', '@tsv', '@sh', '@base64', '@base32', 'tojson | fromjson', '[paths]', '[leaf_paths?]', 'getpath(["metadata","name"])', 'to_entries | map(.key)', 'splits("a")', 'ascii', 'tostream', '[tostream] | fromstream(.[])'])}`;
    case 21: return `[limit(${Math.floor(r() * 4)}; ${f(d)})]`;
    case 22: return `[range(${Math.floor(r() * 4)}; ${Math.floor(r() * 6)})] | ${f(d)}`;
    case 23: return `. as {metadata: {name: $n}, kind: $k} | [$n, $k, ${f(d)}]`;
    case 24: return `def g(x): x | ${f(d)}; g(${f(d)})`;
    case 25: return `label $out | ${f(d)} | ., break $out`;
    case 26: return `-(${f(d)})`;
    case 27: return `${f(d)}[${pick(['0', '-1', '"a"', '1:', ':2'])}]`;
    case 28: return `[.[]? | ${f(d)}] | ${pick(['length', 'add', 'sort', 'group_by(type)', 'unique_by(length?)'])}`;
    default: return `getpath(["spec", "containers", 0]) | ${f(d)}`;
  }
}
