/**
 * bench/jq: 10,000 Pod-like objects of about 3 KB through five filters typical of hooks' jqFilter, per
 * object: our engine (src/jq) against JSON.parse of the same text, jq-wasm (jq 1.8.2: one call per object,
 * and all objects in one batched call) and, when tools/gojq-bench is built (needs Go and Debian's
 * golang-github-itchyny-gojq-dev), gojq, the engine shell-operator embeds.
 * Targets (issue 14): ≥ 30× faster than jq-wasm per call; < 2× JSON.parse for the first three filters;
 * no slower than gojq on any.   Run: node --import tsx bench/jq.ts [--objects N]
 */
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadJq } from 'jq-wasm';
import { compileJq } from '../src/jq/index.js';
import type { Figure } from './figures.js';
import { emitFigures } from './figures.js';

const objectsArg = process.argv.indexOf('--objects');
const N = objectsArg > 0 ? Number(process.argv[objectsArg + 1]) : 10_000;
const WASM_PER_CALL_SAMPLE = Math.min(500, N);

export const FILTERS = [
  '.metadata.labels',
  '{name: .metadata.name, ns: .metadata.namespace, data: .data}',
  'select(.metadata.labels.app == "web-3")',
  '.spec.containers | map({name, image, cpu: (.resources.requests.cpu // "100m"), memory: (.resources.limits.memory // "128Mi")})',
  '.metadata.annotations | to_entries | map(select(.key | startswith("example.com/"))) | from_entries',
];

export function makeObject(i: number): Record<string, unknown> {
  const containers = [0, 1, 2].map((c) => ({
    name: `c${c}`,
    image: `registry.example.com/team/app-${c}:v1.${i % 50}`,
    ports: [{ containerPort: 8080 + c, protocol: 'TCP' }],
    env: [0, 1, 2, 3, 4, 5, 6, 7].map((e) => ({ name: `ENV_${e}`, value: `value-${i}-${e}` })),
    resources: c === 2 ? {} : { requests: { cpu: `${100 + c}m` }, limits: { memory: `${128 * (c + 1)}Mi` } },
  }));
  const annotations: Record<string, string> = {};
  for (let a = 0; a < 14; a++) annotations[a % 2 ? `example.com/key-${a}` : `other.io/key-${a}`] = `annotation value ${i} ${a}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-${i}`,
      namespace: `ns-${i % 20}`,
      uid: `0000-${i}-aaaa-bbbb-cccc`,
      resourceVersion: String(100000 + i),
      labels: { app: `web-${i % 10}`, tier: 'frontend', release: `r${i % 3}` },
      annotations,
    },
    data: { 'config.yaml': `key: ${i}\nother: value\n`, mode: 'fast' },
    spec: { nodeName: `node-${i % 7}`, serviceAccountName: 'default', containers },
    status: { phase: 'Running', podIP: `10.0.${i % 250}.${i % 200}`, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/** Best of `reps` runs, in ms (the machine is shared: the best run is the least disturbed one). */
function time(fn: () => void, reps = 1): number {
  fn();
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

async function main(): Promise<void> {
  const objects = Array.from({ length: N }, (_x, i) => makeObject(i));
  const texts = objects.map((o) => JSON.stringify(o));
  const avg = texts.reduce((s, t) => s + t.length, 0) / N;
  console.log(`${N} objects, ${Math.round(avg)} bytes each on average\n`);
  const parseMs = time(() => {
    for (const t of texts) JSON.parse(t);
  }, 5);
  const perParse = (parseMs * 1000) / N;
  console.log(`JSON.parse: ${perParse.toFixed(2)} µs/object\n`);

  const jq = await loadJq();
  let gojq: string | undefined;
  const gojqBin = new URL('../tools/gojq-bench/gojq-bench', import.meta.url).pathname;
  if (existsSync(gojqBin)) {
    const dir = mkdtempSync(join(tmpdir(), 'jq-bench-'));
    gojq = join(dir, 'objects.ndjson');
    writeFileSync(gojq, texts.join('\n'));
  }

  const rows: string[][] = [['filter', 'ours µs', '×JSON.parse', 'wasm/call µs', 'ours faster ×', 'wasm batch µs', 'gojq µs']];
  const figures: Figure[] = [];
  for (const [k, src] of FILTERS.entries()) {
    const f = compileJq(src);
    const oursMs = time(() => {
      for (const o of objects) f.run(o);
    }, 5);
    const ours = (oursMs * 1000) / N;
    const callMs = time(() => {
      for (let i = 0; i < WASM_PER_CALL_SAMPLE; i++) jq.raw(texts[i]!, src, ['-c']);
    });
    const perCall = (callMs * 1000) / WASM_PER_CALL_SAMPLE;
    const batchMs = time(() => {
      jq.raw(texts.join('\n'), src, ['-c']);
    });
    let goUs = '-';
    if (gojq) {
      const out = execFileSync(gojqBin, [src, gojq], { encoding: 'utf8' });
      goUs = (Number(out.trim()) / N / 1000).toFixed(2);
    }
    figures.push(
      { name: `F${k + 1}: our engine per object`, value: ours, unit: 'µs', baseline: { what: 'JSON.parse', value: perParse, unit: 'µs' }, ...(k < 3 ? { target: { max: 2, of: 'ratio' as const } } : {}) },
      { name: `F${k + 1}: faster than jq-wasm per call`, value: perCall / ours, unit: '×', better: 'higher', target: { min: 30 } },
    );
    rows.push([`F${k + 1}`, ours.toFixed(2), (ours / perParse).toFixed(2), perCall.toFixed(1), (perCall / ours).toFixed(0), ((batchMs * 1000) / N).toFixed(2), goUs]);
  }
  for (const r of rows) console.log(r.map((c, i) => (i === 0 ? c.padEnd(7) : c.padStart(14))).join(''));
  console.log('\nF1..F5:');
  FILTERS.forEach((f, i) => console.log(`  F${i + 1} ${f}`));
  console.log('\ngojq column: best of 5 runs of the compiled filter over objects already decoded (tools/gojq-bench);');
  console.log('ours and JSON.parse: best of 5 runs.');
  emitFigures(figures);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
