// Larger differential runs: node --import tsx test/jq/differential-run.ts [FILTERS] [SEED]  (20 objects per filter)
import { differential } from './differential.js';

const filters = Number(process.argv[2] ?? 5000);
const seed = Number(process.argv[3] ?? Date.now() % 100000);
const { cases, mismatches, crashed } = await differential(filters, 20, seed);
const seen = new Set<string>();
for (const m of mismatches) {
  if (seen.has(m.filter) || seen.size >= 40) continue;
  seen.add(m.filter);
  console.log(`${m.filter}\n  input ${m.input.slice(0, 200)}\n  jq    ${m.jq.slice(0, 300)}\n  ours  ${m.ours.slice(0, 300)}`);
}
for (const c of crashed) console.log(`jq-wasm aborted: ${c}`);
console.log(`seed ${seed}: ${cases} cases, ${mismatches.length} mismatches, ${crashed.length} filters where jq-wasm aborted`);
