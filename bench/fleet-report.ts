/**
 * The fleet headline for the benchmark report (bench/run.ts): one cold converge of the generated fleet
 * of bench/fleet (generateFleet, runFleet; that bench is the fleet engineer's, this only calls it), as
 * figures. Needs dist/ built (bench/run.ts builds it when it is older than src/).
 *   node --import tsx bench/fleet-report.ts [--modules 100] [--objects 30] [--parallel 1]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFleet } from './fleet/generate.js';
import { runFleet } from './fleet/run.js';
import { emitFigures } from './figures.js';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const modules = arg('--modules', 100);
const objects = arg('--objects', 30);
const parallel = arg('--parallel', 1);

const root = mkdtempSync(join(tmpdir(), 'bench-fleet-report-'));
try {
  const fleet = generateFleet(root, { modules, objects });
  const r = await runFleet(fleet, root, { parallel });
  const full = modules >= 100;
  console.log(
    `bench/fleet: ${modules} modules × ${objects} objects × 5 hooks, --parallel-module-runs ${parallel}: converge ${(r.convergeMs / 1000).toFixed(2)} s; ` +
      `operator CPU ${(r.operatorCpuMs / modules).toFixed(1)} ms/module; sandbox CPU ${(r.sandboxCpuMs / 1000).toFixed(2)} s; ` +
      `peak RSS ${r.peakRssMiB.toFixed(0)} MiB; TLS handshakes ${r.handshakes} over ${r.sockets} sockets; ${r.objects} objects`,
  );
  emitFigures([
    // the wall-time target is for the 100-module fleet; smaller runs are reported without it
    { name: 'cold converge (wall)', value: r.convergeMs / 1000, unit: 's', ...(full ? { target: { max: parallel > 1 ? 10 : 15 } } : {}) },
    { name: 'operator CPU per module', value: r.operatorCpuMs / modules, unit: 'ms', target: { max: 40 } },
    // not the hooks' CPU: runFleet's hooksCpuMs (the operator's reaped children, from /proc) read 0 in
    // every run here although the fleet's shell hooks run; the hooks' share needs another measure
    { name: 'operator peak RSS', value: r.peakRssMiB, unit: 'MiB', target: { max: 150 } },
    { name: 'TLS handshakes per socket', value: r.handshakes / r.sockets, unit: '', target: { max: 1 } },
  ]);
} finally {
  rmSync(root, { recursive: true, force: true });
}
