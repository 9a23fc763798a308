// Node side of the Go reference renderer (tools/gotemplate-ref, a development tool: CI never needs
// Go). Functions to call it from scripts and benchmarks, and a CLI:
//
//   node --import tsx tools/gotemplate-ref.ts check-public [cases.json]
//       runs the reference on the public cases and compares with their expected results
//   node --import tsx tools/gotemplate-ref.ts bench SET.json [N]
//       times N renders of a chart-like set {"templates": {...}, "values": {...}} in Go
//   node --import tsx tools/gotemplate-ref.ts bench-chart [N]
//       the same for the benchmark chart of tools/gotemplate-bench-chart.ts
//   node --import tsx tools/gotemplate-ref.ts dump-chart
//       prints the benchmark chart set as JSON (to feed the binary by hand)
//
// All functions return null when the binary is not built (tools/gotemplate-ref/build.sh).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchChartSet } from './gotemplate-bench-chart.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Path of the reference binary built by build.sh (Go 1.19; pass 'go1.23' for the second build). */
export function goRefPath(version?: 'go1.23'): string {
  return resolve(root, 'tools/gotemplate-ref/bin', version ? `gotemplate-ref-${version}` : 'gotemplate-ref');
}

export interface GoRenderResult {
  id: string;
  output?: string;
  error?: string;
  goError?: string;
  phase?: 'parse' | 'exec' | 'panic';
  invalidUtf8?: boolean;
  outputHex?: string;
}

export interface GoTiming {
  iterations: number;
  totalMs: number;
  perRenderMs: number;
  rendersPerSec: number;
}

export interface GoBenchResult {
  engine: string;
  files: number;
  rendered: string[];
  outputBytes: number;
  outputLines: number;
  /** A new template set parsed and executed per render, as `helm template` does. */
  parseAndExecute: GoTiming;
  /** Parsed once, executed per render. */
  executeOnly: GoTiming;
}

/** A chart-like template set: file name -> template text, and the top-level object. */
export interface GoTemplateSet {
  templates: Record<string, string>;
  values: Record<string, unknown>;
}

function run(bin: string, args: string[], input: string): string | null {
  if (!existsSync(bin)) return null;
  const res = spawnSync(bin, args, { input, maxBuffer: 1 << 30, env: { ...process.env, TZ: 'UTC' } });
  if (res.error) throw res.error;
  if (res.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed (${res.status}): ${res.stderr.toString()}`);
  return res.stdout.toString();
}

/** Renders each case as Helm would (template "main" with data as dot). */
export function renderWithGo(
  cases: { id: string; template: string; data: unknown }[],
  bin = goRefPath(),
): GoRenderResult[] | null {
  const out = run(bin, ['render'], JSON.stringify(cases));
  return out === null ? null : (JSON.parse(out) as GoRenderResult[]);
}

/** Renders a chart-like set once: file -> output, or Helm's error. */
export function renderSetWithGo(
  set: GoTemplateSet,
  bin = goRefPath(),
): { rendered: Record<string, string> } | { error: string; goError: string; phase: string } | null {
  const out = run(bin, ['set'], JSON.stringify(set));
  return out === null ? null : (JSON.parse(out) as { rendered: Record<string, string> });
}

/** Times n renders of a chart-like set in Go (after a few untimed ones). */
export function benchWithGo(set: GoTemplateSet, n: number, bin = goRefPath()): GoBenchResult | null {
  const out = run(bin, ['bench', '-n', String(n), '-warmup', String(Math.min(20, n))], JSON.stringify(set));
  return out === null ? null : (JSON.parse(out) as GoBenchResult);
}

interface PublicCase {
  id: string;
  template: string;
  data: unknown;
  expected: string;
  error?: boolean;
  goError?: string;
}

function checkPublic(file: string): number {
  const cases = JSON.parse(readFileSync(file, 'utf8')) as PublicCase[];
  const results = renderWithGo(cases.map(({ id, template, data }) => ({ id, template, data })));
  if (!results) {
    console.error('the reference is not built: run tools/gotemplate-ref/build.sh');
    return 2;
  }
  const byId = new Map(results.map((r) => [r.id, r]));
  let bad = 0;
  for (const c of cases) {
    const r = byId.get(c.id);
    const same = c.error
      ? r?.error === c.expected && (c.goError === undefined || r?.goError === c.goError)
      : r?.output === c.expected;
    if (!same) {
      bad++;
      console.log(`DIFF ${c.id}\n  expected: ${JSON.stringify(c.expected)}\n  go:       ${JSON.stringify(r?.error ?? r?.output)}`);
    }
  }
  console.log(`${cases.length - bad}/${cases.length} public cases reproduced exactly`);
  return bad ? 1 : 0;
}

function main(argv: string[]): number {
  const [cmd, ...rest] = argv;
  if (cmd === 'check-public') {
    return checkPublic(rest[0] ?? '/work/shared/template-cases/public-cases.json');
  }
  if (cmd === 'dump-chart') {
    console.log(JSON.stringify(benchChartSet()));
    return 0;
  }
  if ((cmd === 'bench' && rest[0]) || cmd === 'bench-chart') {
    const set = cmd === 'bench-chart' ? benchChartSet() : (JSON.parse(readFileSync(rest[0] ?? '', 'utf8')) as GoTemplateSet);
    const res = benchWithGo(set, Number((cmd === 'bench-chart' ? rest[0] : rest[1]) ?? 200));
    if (!res) {
      console.error('the reference is not built: run tools/gotemplate-ref/build.sh');
      return 2;
    }
    console.log(JSON.stringify(res, null, 2));
    return 0;
  }
  console.error('usage: gotemplate-ref.ts check-public [cases.json] | bench SET.json [N] | bench-chart [N] | dump-chart');
  return 2;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
