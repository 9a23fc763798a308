// A/B of the values checks against another checkout of this repository, in one process: both load the
// module set of bench/values (Go regexps, CEL rules), then check every module (config, effective
// values, validation, checksum) taking turns, with a structuredClone of the same values before and
// after; medians of the paired rounds. On a shared, loaded machine this is steadier than comparing two
// runs of bench/values.ts made at different times (docs/compatibility.md, "CEL rules").
//
//   git worktree add --detach /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/
//   node --import tsx bench/values-ab.ts --before /tmp/before [--modules 300] [--rounds 20]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import * as now from '../src/values/index.js';
import { buildModuleSet, checkAll, median } from './values-set.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const beforeDir = arg('--before');
if (!beforeDir) {
  console.error('usage: node --import tsx bench/values-ab.ts --before CHECKOUT [--modules N] [--rounds N]');
  process.exit(2);
}
const modules = Number(arg('--modules') ?? 300);
const rounds = Number(arg('--rounds') ?? 20);
const before = (await import(pathToFileURL(resolve(beforeDir, 'src/values/index.ts')).href)) as typeof now;

const dir = mkdtempSync(join(tmpdir(), 'bench-values-ab-'));
try {
  const sets = { before: buildModuleSet(before, join(dir, 'before'), modules), after: buildModuleSet(now, join(dir, 'after'), modules) };
  for (const set of Object.values(sets)) for (const { scope } of set) scope.schemas.compileAll();
  const values = sets.after.map((s) => s.scope.effective());
  const baseline = (): number => {
    const t = performance.now();
    for (const v of values) structuredClone(v);
    return performance.now() - t;
  };
  for (let i = 0; i < 3; i++) {
    checkAll(sets.before);
    checkAll(sets.after);
    baseline();
  }
  const perModule = { before: [] as number[], after: [] as number[] };
  const ratio = { before: [] as number[], after: [] as number[] };
  const afterOverBefore: number[] = [];
  const loads: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const b1 = baseline();
    const ms = { before: 0, after: 0 };
    for (const name of r % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
      const t = performance.now();
      checkAll(sets[name]);
      ms[name] = performance.now() - t;
    }
    const base = (b1 + baseline()) / 2;
    for (const name of ['before', 'after'] as const) {
      perModule[name].push((ms[name] / modules) * 1000);
      ratio[name].push(ms[name] / base);
    }
    afterOverBefore.push(ms.after / ms.before);
    loads.push(loadavg()[0]!);
  }
  console.log(`bench/values-ab: ${modules} modules, ${rounds} paired rounds, medians; load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`);
  for (const name of ['before', 'after'] as const) {
    console.log(`  ${name.padEnd(6)} ${median(perModule[name]).toFixed(1)} µs per module, ${median(ratio[name]).toFixed(2)}x structuredClone`);
  }
  console.log(`  after / before: ${median(afterOverBefore).toFixed(2)} (rounds ${Math.min(...afterOverBefore).toFixed(2)}-${Math.max(...afterOverBefore).toFixed(2)})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
