/**
 * Loading a chart directory as Helm 3's loader does (LoadDir + LoadFiles): `.helmignore`, Chart.yaml,
 * values.yaml (its documents merged), values.schema.json, templates/, subcharts from charts/ (unpacked
 * directories and .tgz archives), and every other file as `.Files` (crds/ among them).
 *
 * addon-operator modules may have no Chart.yaml: with `syntheticName` such a directory is read as the
 * Go operator reads it (a generated `name: NAME, version: 0.2.0`, without .helmignore, without the
 * crds, docs, hooks, images and lib directories).
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../util/errors.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';
import { parseYamlDocuments } from '../util/yaml.js';
import { readChartArchive } from './archive.js';
import { IgnoreRules } from './helmignore.js';
import { ChartError, parseChartMetadata, type ChartDependency, type ChartMetadata } from './metadata.js';
import { mergeMaps } from './values.js';

export interface ChartFile {
  /** Relative to the chart root, '/'-separated: `templates/deployment.yaml`, `files/a.conf`. */
  name: string;
  data: Buffer;
}

export interface Chart {
  metadata: ChartMetadata;
  /** The chart's own values.yaml (an empty object without one). */
  values: JsonObject;
  schema?: Buffer;
  templates: ChartFile[];
  /** Every file that is not Chart.yaml, values.yaml, a template or a subchart: Helm's `.Files`. */
  files: ChartFile[];
  dependencies: Chart[];
  parent?: Chart;
  /** Where it came from, for messages (a directory, or `dir/charts/x.tgz`). */
  source: string;
}

export interface LoadChartOptions {
  /** For a directory without Chart.yaml: load it with a generated Chart.yaml of this name. */
  syntheticName?: string;
}

/** Directories the Go operator leaves out of a module without Chart.yaml. */
const SYNTHETIC_SKIPPED_DIRS = new Set(['crds', 'docs', 'hooks', 'images', 'lib']);

interface BufferedFile extends ChartFile {
  /** Full path (or archive member) for messages. */
  path: string;
}

const stripBom = (b: Buffer): Buffer => (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? b.subarray(3) : b);

/** Walks like sympath.Walk: names in lexical order, symlinks followed. */
function walk(root: string, rel: string, visit: (rel: string, abs: string, isDir: boolean) => 'skip' | void): void {
  const dir = rel ? join(root, rel) : root;
  for (const name of readdirSync(dir).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    const abs = join(root, r);
    const st = statSync(abs);
    if (st.isDirectory()) {
      if (visit(r, abs, true) !== 'skip') walk(root, r, visit);
    } else {
      if (!st.isFile()) throw new UserError(`cannot load irregular file ${abs} as it has file mode type bits set`);
      visit(r, abs, false);
    }
  }
}

function readDir(dir: string, options: LoadChartOptions): BufferedFile[] {
  const files: BufferedFile[] = [];
  const read = (rel: string, abs: string) => files.push({ name: rel, data: stripBom(readFileSync(abs)), path: abs });
  if (!existsSync(join(dir, 'Chart.yaml')) && options.syntheticName !== undefined) {
    files.push({ name: 'Chart.yaml', data: Buffer.from(`name: ${options.syntheticName}\nversion: 0.2.0\n`), path: join(dir, 'Chart.yaml') });
    walk(dir, '', (rel, abs, isDir) => {
      if (isDir) return SYNTHETIC_SKIPPED_DIRS.has(rel) ? 'skip' : undefined;
      read(rel, abs);
    });
    return files;
  }
  const ignoreFile = join(dir, '.helmignore');
  const rules = existsSync(ignoreFile) ? IgnoreRules.parse(readFileSync(ignoreFile, 'utf8'), ignoreFile) : new IgnoreRules();
  rules.addDefaults();
  walk(dir, '', (rel, abs, isDir) => {
    if (rules.ignores(rel, isDir)) return 'skip';
    if (!isDir) read(rel, abs);
  });
  return files;
}

/** values.yaml: one or more YAML documents, merged; each must be a map. */
function parseValuesFile(f: BufferedFile): JsonObject {
  let values: JsonObject = {};
  for (const doc of parseYamlDocuments(f.data.toString('utf8'), f.path)) {
    if (!isPlainObject(doc)) {
      throw new UserError(`${f.path}: cannot load values.yaml: a values document must be a map, not ${Array.isArray(doc) ? 'a list' : JSON.stringify(doc)}`);
    }
    values = mergeMaps(values, doc);
  }
  return values;
}

function requirementsDependencies(f: BufferedFile): ChartDependency[] | undefined {
  const docs = parseYamlDocuments(f.data.toString('utf8'), f.path) as JsonValue[];
  const deps = isPlainObject(docs[0]) ? docs[0].dependencies : undefined;
  return Array.isArray(deps) ? (deps as unknown as ChartDependency[]) : undefined;
}

/** Helm's LoadFiles: sorts the files of one chart into its parts and loads its subcharts. */
function loadFiles(files: BufferedFile[], source: string): Chart {
  const chartYaml = files.find((f) => f.name === 'Chart.yaml');
  if (!chartYaml) throw new UserError(`${source}: Chart.yaml file is missing`);
  const metadata = parseChartMetadata(chartYaml.data.toString('utf8'), chartYaml.path);
  const chart: Chart = { metadata, values: {}, templates: [], files: [], dependencies: [], source };
  const subcharts = new Map<string, BufferedFile[]>();
  for (const f of files) {
    const n = f.name;
    if (n === 'Chart.yaml' || n === 'Chart.lock' || n === 'requirements.lock') continue;
    if (n === 'values.yaml') chart.values = parseValuesFile(f);
    else if (n === 'values.schema.json') chart.schema = f.data;
    else if (n === 'requirements.yaml') {
      const deps = requirementsDependencies(f);
      if (deps) metadata.dependencies = deps;
      if (metadata.apiVersion === 'v1') chart.files.push({ name: n, data: f.data });
    } else if (n.startsWith('templates/')) chart.templates.push({ name: n, data: f.data });
    else if (n.startsWith('charts/') && !n.endsWith('.prov')) {
      const rest = n.slice('charts/'.length);
      const sub = rest.split('/')[0]!;
      const list = subcharts.get(sub) ?? [];
      list.push({ name: rest, data: f.data, path: f.path });
      subcharts.set(sub, list);
    } else chart.files.push({ name: n, data: f.data });
  }
  for (const [name, list] of [...subcharts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (name.startsWith('_') || name.startsWith('.')) continue;
    const subSource = `${source}/charts/${name}`;
    let sub: Chart;
    try {
      if (name.endsWith('.tgz')) {
        const members = readChartArchive(list[0]!.data, subSource).map((m) => ({ ...m, path: `${subSource}:${m.name}` }));
        sub = loadFiles(members, subSource);
      } else {
        const inner = list.filter((f) => f.name.includes('/')).map((f) => ({ ...f, name: f.name.slice(f.name.indexOf('/') + 1) }));
        sub = loadFiles(inner, subSource);
      }
    } catch (e) {
      const prefix = `error unpacking ${name} in ${metadata.name}: `;
      if (e instanceof ChartError) throw new ChartError(prefix + e.message, prefix + e.helmText);
      throw new UserError(prefix + (e as Error).message, { cause: e });
    }
    sub.parent = chart;
    chart.dependencies.push(sub);
  }
  return chart;
}

/** Loads the chart in `dir` (Helm's `loader.Load` of a directory). Errors are UserErrors naming the file. */
export function loadChart(dir: string, options: LoadChartOptions = {}): Chart {
  const root = resolve(dir);
  let isDir: boolean;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    throw new UserError(`chart directory ${dir} does not exist`);
  }
  if (!isDir) {
    // a packed chart (helm template CHART.tgz): its members without their top directory
    const members = readChartArchive(readFileSync(root), dir).map((m) => ({ ...m, path: `${dir}:${m.name}` }));
    return loadFiles(members, root);
  }
  return loadFiles(readDir(root, options), root);
}

export const isRoot = (c: Chart): boolean => c.parent === undefined;

/** Helm's ChartFullPath: `top`, `top/charts/sub`, ... (template names start with it). */
export function chartFullPath(c: Chart): string {
  return c.parent ? `${chartFullPath(c.parent)}/charts/${c.metadata.name}` : c.metadata.name;
}

export interface CrdFile {
  /** `crds/x.yaml` */
  name: string;
  /** `chart/crds/x.yaml`, `chart/charts/sub/crds/y.yaml` (what `helm template --include-crds` prints). */
  filename: string;
  data: Buffer;
}

/** The chart's crds/*.yaml|yml|json and its subcharts' (Helm's CRDObjects). */
export function crdObjects(c: Chart): CrdFile[] {
  const own = c.files
    .filter((f) => f.name.startsWith('crds/') && /\.(ya?ml|json)$/i.test(f.name))
    .map((f) => ({ name: f.name, filename: `${chartFullPath(c)}/${f.name}`, data: f.data }));
  return [...own, ...c.dependencies.flatMap(crdObjects)];
}

/**
 * The checks `helm install`/`helm template` make on a loaded chart before rendering (cmd/helm/install.go
 * checkIfInstallable, action.CheckDependencies), with Helm's messages: only an application chart is
 * installed, and every dependency of Chart.yaml must be in charts/ (by chart name, enabled or not; a
 * subchart's own dependencies are not checked). Rendering alone (the release engine) does neither.
 */
export function checkInstallable(chart: Chart): void {
  const type = chart.metadata.type ?? '';
  if (type !== '' && type !== 'application') throw new UserError(`${type} charts are not installable`);
  const missing = missingDependencies(chart);
  if (missing.length > 0) {
    throw new UserError(
      'An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: ' +
        `found in Chart.yaml, but missing in charts/ directory: ${missing.join(', ')}`,
    );
  }
}

/** Names of the dependencies of Chart.yaml that are not in charts/, in Chart.yaml's order. */
export function missingDependencies(chart: Chart): string[] {
  const present = new Set(chart.dependencies.map((d) => d.metadata.name));
  return (chart.metadata.dependencies ?? []).map((d) => d.name).filter((n) => !present.has(n));
}
