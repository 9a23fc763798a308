/**
 * bench/values: computing, validating and checksumming the effective values of 300 modules with 50
 * keys each, per module, as a ratio to a deep copy (structuredClone) of the same values. The schemas
 * carry Go regexps (RE2 engine, named groups) and CEL rules (x-deckhouse-validations), as real module
 * sets do; the CEL cost per rule is measured apart.
 * Targets: ratio at most 20× (issue 2); compile and validate no more than 10 % worse than the last
 * recorded figures (issue 19); CEL evaluation under 20 µs per rule.
 * Each figure is the median of several rounds (the machine is shared and noisy); the load average is
 * printed with them. LAST below holds the last recorded figures; update it when a change is accepted.
 *   Run: node --import tsx bench/values.ts [--modules N] [--rounds N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as Values from '../src/values/index.js';
import { RULES_KEY, celProblems } from '../src/values/cel.js';
import { decodeSchema } from '../src/values/openapi.js';
import { KEYS, buildModuleSet, checkAll, median } from './values-set.js';
import { emitFigures } from './figures.js';

/** Last recorded figures (before issue 19: ajv strict, JS RegExp, no CEL; same machine, load ~14). */
const LAST = { compileMsPerModule: 62.5, validateUsPerModule: 485.8, ratio: 8.58 };

const argOf = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MODULES = argOf('--modules', 300);
const ROUNDS = argOf('--rounds', 15);

const dir = mkdtempSync(join(tmpdir(), 'bench-values-'));
try {
  const setupStart = performance.now();
  const scopes = buildModuleSet(Values, dir, MODULES);
  const loadMs = performance.now() - setupStart;
  const compileStart = performance.now();
  for (const { scope } of scopes) scope.schemas.compileAll();
  const compileMs = performance.now() - compileStart;

  const run = () => checkAll(scopes);
  const effectiveValues = scopes.map((s) => s.scope.effective());
  const baseline = () => {
    for (const v of effectiveValues) structuredClone(v);
  };
  // CEL's evaluator is loaded on first use (before issue 22 it loaded at start): loaded here, so that
  // the first check measures the rules' compilation, as it did
  if (celProblems({ type: 'object', [RULES_KEY]: [{ expression: 'self == self', message: 'warm' }] }, {}, undefined).length) throw new Error('the warm-up rule failed');
  // the first check compiles the CEL rules (once per expression, shared by all modules)
  const firstStart = performance.now();
  run();
  const firstMs = performance.now() - firstStart;
  for (let i = 0; i < 3; i++) {
    run();
    baseline();
  }
  const engineUs: number[] = [];
  const baseUs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // the baseline runs before and after the engine, so that a change of load within a round weighs on both
    let t = performance.now();
    baseline();
    const b1 = performance.now() - t;
    t = performance.now();
    run();
    const e = ((performance.now() - t) / MODULES) * 1000;
    t = performance.now();
    baseline();
    const b = (((b1 + performance.now() - t) / 2) / MODULES) * 1000;
    engineUs.push(e);
    baseUs.push(b);
    ratios.push(e / b);
  }
  const json = JSON.stringify(effectiveValues[0]).length;
  console.log(`bench/values: ${MODULES} modules x ${KEYS} keys (${json} bytes of JSON each), ${ROUNDS} rounds, medians; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
  console.log(`  one-time schema load: ${(loadMs / MODULES).toFixed(2)} ms per module; compile (2 schemas, ajv): ${(compileMs / MODULES).toFixed(2)} ms per module`);
  console.log(`  first check (CEL rules compiled on first use): ${((firstMs / MODULES) * 1000).toFixed(1)} µs per module`);
  console.log(`  compute + validate + checksum: ${median(engineUs).toFixed(1)} µs per module`);
  console.log(`  structuredClone baseline:      ${median(baseUs).toFixed(1)} µs per module`);
  const ratio = median(ratios);
  const compilePerModule = compileMs / MODULES;
  console.log(`  ratio: ${ratio.toFixed(2)}x (target <= 20x; rounds ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`);
  console.log(
    `  against the last recorded figures: compile ${(compilePerModule / LAST.compileMsPerModule).toFixed(2)}x, validate ${(median(engineUs) / LAST.validateUsPerModule).toFixed(2)}x, ratio ${(ratio / LAST.ratio).toFixed(2)}x (target <= 1.10; absolute times follow the machine's load, the ratio to structuredClone less so)`,
  );

  // CEL: one schema with 10 rules of the kinds real module sets use, evaluated on a ConfigMap edit (with oldSelf)
  const celSchema = decodeSchema(
    {
      type: 'object',
      'x-deckhouse-validations': [
        { expression: 'self.replicas >= 1 && self.replicas <= self.maxReplicas', message: 'm' },
        { expression: "!has(self.https) || self.https.mode != 'CustomCertificate' || has(self.https.secretName)", message: 'm' },
        { expression: "self.domain.endsWith('.example.com')", message: 'm' },
        { expression: 'self.domain == oldSelf.domain', message: 'm' },
        { expression: 'self.hosts.all(h, h.size() < 64)', message: 'm' },
        { expression: "self.hosts.exists(h, h.startsWith('a'))", message: 'm' },
        { expression: 'size(self.hosts) <= 10', message: 'm' },
        { expression: 'self.replicas == oldSelf.replicas || self.replicas > 0', message: 'm' },
        { expression: "self.https.mode in ['CustomCertificate', 'Disabled']", message: 'm' },
        { expression: 'self.maxReplicas >= 1', message: 'm' },
      ],
    },
    'bench',
  );
  const celValue = { replicas: 2, maxReplicas: 5, domain: 'a.example.com', hosts: ['a.example.com', 'b.example.com'], https: { mode: 'CustomCertificate', secretName: 's' } };
  const celOld = { ...celValue, replicas: 3 };
  const RULES = 10;
  const ITER = 1000;
  for (let i = 0; i < 500; i++) celProblems(celSchema, celValue, celOld);
  const perRule: number[] = [];
  for (let r = 0; r < 9; r++) {
    const t = performance.now();
    for (let i = 0; i < ITER; i++) if (celProblems(celSchema, celValue, celOld).length) throw new Error('a CEL rule failed in the bench');
    perRule.push(((performance.now() - t) / ITER / RULES) * 1000);
  }
  console.log(
    `  CEL: ${median(perRule).toFixed(1)} µs per rule, conversion of self/oldSelf included (target < 20 µs; 9 rounds ${Math.min(...perRule).toFixed(1)}-${Math.max(...perRule).toFixed(1)})`,
  );
  emitFigures([
    { name: 'compute + validate + checksum per module', value: median(engineUs), unit: 'µs', baseline: { what: 'structuredClone', value: median(baseUs), unit: 'µs' }, target: { max: 20, of: 'ratio' } },
    { name: 'schema compile per module', value: compilePerModule, unit: 'ms' },
    { name: 'CEL per rule', value: median(perRule), unit: 'µs', target: { max: 20 } },
  ]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
