// The charts of a chart repository for the sweeps (scripts/chart-sweep.ts, chart-sweep-runtime.ts):
// finding them under a directory, `helm dependency build` without a network, and Helm's own refusals.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { loadChart, parseChartMetadata } from '../src/helm/index.js';
import { semverCompare } from '../src/gotemplate/funcs/semver.js';

/** Errors Helm gives too, in Helm's words: its dependency check, a chart's own fail/required. */
export function helmFailsToo(msg: string): boolean {
  return (
    msg.startsWith('An error occurred while checking for chart dependencies.') ||
    /^\S+ charts are not installable$/.test(msg) ||
    // the chart's own fail/required, wherever it is called from (include, tpl)
    /^execution error at \([^)]*\): /.test(msg)
  );
}

/** An error in one line: Helm's multi-line traces (location, `executing ... at <node>:`, message) joined. */
export function firstLine(s: string): string {
  const line = s
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l)
    .join(' ');
  return line.length > 400 ? `${line.slice(0, 200)} ... ${line.slice(-200)}` : line;
}

/** Directories holding a Chart.yaml under `dir` (not looking inside a chart). */
export function findCharts(dir: string, out: string[] = []): string[] {
  if (existsSync(join(dir, 'Chart.yaml'))) {
    out.push(dir);
    return out;
  }
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) findCharts(p, out);
  }
  return out;
}

export interface Known {
  dir: string;
  name: string;
  version: string;
}

/** The name and version of each chart of `dirs` whose Chart.yaml reads (the others are reported by their render). */
export function knownCharts(dirs: string[]): Known[] {
  const known: Known[] = [];
  for (const dir of dirs) {
    try {
      const m = parseChartMetadata(readFileSync(join(dir, 'Chart.yaml'), 'utf8'), join(dir, 'Chart.yaml'));
      known.push({ dir, name: m.name, version: m.version });
    } catch {
      // reported by its render
    }
  }
  return known;
}

/**
 * `helm dependency build` without a network: a copy of the chart (in `work`) whose missing
 * dependencies are copied into charts/ from a file:// path or from a chart of `known` with the same
 * name and a version that satisfies the pin. Returns the chart itself when nothing is missing or found.
 */
export function withDependencies(chartDir: string, known: Known[], work: string): { dir: string; copied: string[] } {
  const meta = parseChartMetadata(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8'), join(chartDir, 'Chart.yaml'));
  const present = new Set<string>();
  try {
    for (const d of loadChart(chartDir).dependencies) present.add(d.metadata.name);
  } catch {
    return { dir: chartDir, copied: [] };
  }
  const copies: [string, string][] = [];
  for (const dep of meta.dependencies ?? []) {
    if (present.has(dep.name) || copies.some(([n]) => n === dep.name)) continue;
    let from: string | undefined;
    if (dep.repository?.startsWith('file://')) {
      const p = resolve(chartDir, dep.repository.slice('file://'.length));
      if (existsSync(join(p, 'Chart.yaml'))) from = p;
    } else {
      from = known.find((k) => k.name === dep.name && versionMatches(dep.version, k.version))?.dir;
    }
    if (from) copies.push([dep.name, from]);
  }
  if (copies.length === 0) return { dir: chartDir, copied: [] };
  const dir = join(mkdtempSync(join(work, 'chart-')), basename(chartDir));
  cpSync(chartDir, dir, { recursive: true });
  for (const [name, from] of copies) cpSync(from, join(dir, 'charts', name), { recursive: true });
  return { dir, copied: copies.map(([n]) => n) };
}

function versionMatches(constraint: string | undefined, version: string): boolean {
  if (!constraint) return true;
  try {
    return semverCompare(constraint, version);
  } catch {
    return false;
  }
}

export interface SweepArgs {
  jobs: number;
  dependencyBuild: boolean;
  dirs: string[];
}

/**
 * The sweeps' command line from process.argv: -j N, --dependency-build, -h and the DIRs, each of them
 * a directory; `own` takes the script's other options (true when it took `flag`; `value()` reads the
 * flag's value). Bad arguments print the error and `usage` and exit 2.
 */
export function sweepArgs(usage: string, jobs: number, own: (flag: string, value: () => string) => boolean = () => false): SweepArgs {
  const argv = process.argv.slice(2);
  const opts: SweepArgs = { jobs, dependencyBuild: false, dirs: [] };
  try {
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      const value = () => {
        const v = argv[++i];
        if (v === undefined) throw new Error(`${a} needs a value`);
        return v;
      };
      if (a === '-j' || a === '--jobs') {
        opts.jobs = Number(value());
        if (!Number.isInteger(opts.jobs) || opts.jobs < 1) throw new Error(`${a}: a positive integer, not ${argv[i]}`);
      } else if (a === '--dependency-build') opts.dependencyBuild = true;
      else if (a === '-h' || a === '--help') {
        console.log(usage);
        process.exit(0);
      } else if (own(a, value)) continue;
      else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
      else opts.dirs.push(a);
    }
    if (opts.dirs.length === 0) throw new Error('no directory given');
    for (const d of opts.dirs) isDirectory(d);
  } catch (e) {
    console.error(`chart-sweep: ${(e as Error).message}\n${usage}`);
    process.exit(2);
  }
  return opts;
}

/** Throws `DIR: not a directory` unless it is one. */
export function isDirectory(d: string): string {
  if (!existsSync(d) || !statSync(d).isDirectory()) throw new Error(`${d}: not a directory`);
  return d;
}
