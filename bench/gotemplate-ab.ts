// A/B of the template engine against another checkout of this repository, in one process: both
// engines render the benchmark chart (tools/gotemplate-bench-chart.ts) one render at a time, taking
// turns, and the median CPU time per render of each is compared. On a shared, loaded machine this is
// steadier than comparing two wall-clock runs of bench/gotemplate.ts made at different times.
//
//   git worktree add --detach /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/
//   node --import tsx bench/gotemplate-ab.ts --before /tmp/before [--rounds 300]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchChartSet } from '../tools/gotemplate-bench-chart.js';
import * as now from '../src/gotemplate/index.js';

type Engine = typeof now;

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const beforeDir = arg('--before');
if (!beforeDir) {
  console.error('usage: node --import tsx bench/gotemplate-ab.ts --before CHECKOUT [--rounds N]');
  process.exit(2);
}
const rounds = Number(arg('--rounds') ?? 300);
const before = (await import(pathToFileURL(resolve(beforeDir, 'src/gotemplate/index.ts')).href)) as Engine;

const chart = benchChartSet();

/** Parses the chart once; returns one render of every non-partial file (total output length). */
function renderer(m: Engine): () => number {
  const set = new m.TemplateSet();
  const names = m.helmParseOrder(Object.keys(chart.templates));
  for (const n of names) set.parse(n, chart.templates[n]!);
  const files = names.filter((n) => !n.slice(n.lastIndexOf('/') + 1).startsWith('_'));
  return () => {
    let len = 0;
    for (const n of files) len += set.render(n, { ...chart.values, Template: { Name: n, BasePath: m.templateBasePath(n) } }).length;
    return len;
  };
}

const a = renderer(before);
const b = renderer(now);
if (a() !== b()) throw new Error('the two engines give outputs of different lengths');
for (let i = 0; i < 10; i++) {
  a();
  b();
}
const cpuMs = (f: () => number): number => {
  const s = process.cpuUsage();
  f();
  const d = process.cpuUsage(s);
  return (d.user + d.system) / 1000;
};
const ta: number[] = [];
const tb: number[] = [];
for (let r = 0; r < rounds; r++) {
  if (r % 2) {
    ta.push(cpuMs(a));
    tb.push(cpuMs(b));
  } else {
    tb.push(cpuMs(b));
    ta.push(cpuMs(a));
  }
}
const median = (x: number[]): number => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)]!;
const ma = median(ta);
const mb = median(tb);
console.log(`before (${beforeDir}): ${ma.toFixed(2)} ms CPU per render; now: ${mb.toFixed(2)} ms; ratio now/before ${(mb / ma).toFixed(3)} (median of ${rounds} turns)`);
