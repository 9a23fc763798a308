// 10,000 random cases (500 random filters from jq's grammar and builtins × 20 random Kubernetes-like
// objects, fixed seed) give the same outputs and errors as jq 1.8.2 (jq-wasm). Larger runs with other
// seeds: node --import tsx test/jq/differential-run.ts FILTERS SEED.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { differential } from './differential.js';

void test('our engine and jq-wasm agree on 10,000 random cases (seed 1)', async () => {
  const { cases, mismatches, crashed } = await differential(500, 20, 1);
  assert.equal(cases, 10_000);
  assert.deepEqual(crashed, []);
  assert.deepEqual(
    mismatches.slice(0, 5).map((m) => `${m.filter}\n  jq   ${m.jq}\n  ours ${m.ours}`),
    [],
    `${mismatches.length} mismatches`,
  );
});
