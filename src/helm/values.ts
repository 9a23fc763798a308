/**
 * Helm's values algebra (chartutil): coalescing the given values over a chart's defaults and its
 * subcharts' (given values win, a null deletes a default, subcharts get their own table plus the
 * parent's `global`), merging values documents, and enabling subcharts by condition and tags.
 * A port of Helm 3's coalesce.go and dependencies.go, aliasing quirks included; operates in place
 * on copies it makes itself.
 */
import { isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';
import { sprintf } from '../gotemplate/index.js';
import { semverCompare } from '../gotemplate/funcs/semver.js';
import type { Chart } from './chart.js';

export type Warn = (message: string) => void;

const GLOBAL = 'global';
/** A map of values; a Go value kept as an object (an int64 from --set) is no table. */
const isTable = (v: unknown): v is JsonObject => {
  if (!isPlainObject(v as JsonValue)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/** A deep copy of values: tables and lists copied, anything else (scalars, Go values) shared. */
function cloneValues<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneValues) as T;
  if (!isTable(v)) return v;
  const out: JsonObject = {};
  for (const k in v) out[k] = cloneValues(v[k]!);
  return out as T;
}
const concatPrefix = (a: string, b: string): string => (a ? `${a}.${b}` : b);

/** chartutil.MergeMaps: b over a, maps merged recursively; returns a new top-level map. */
export function mergeMaps(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const bv = out[k];
    out[k] = isTable(v) && isTable(bv) ? mergeMaps(bv, v) : v;
  }
  return out;
}

/** Helm's Values.Table: the map at a dotted path, or undefined. */
export function valuesTable(v: JsonObject, path: string): JsonObject | undefined {
  let t: JsonValue = v;
  for (const part of path.split('.')) {
    if (!isTable(t)) return undefined;
    t = t[part] as JsonValue;
    if (t === undefined) return undefined;
  }
  return isTable(t) ? t : undefined;
}

/** Helm's Values.PathValue: a non-table value at a dotted path, or undefined. */
export function pathValue(v: JsonObject, path: string): JsonValue | undefined {
  const parts = path.split('.');
  const key = parts.pop()!;
  const table = parts.length ? valuesTable(v, parts.join('.')) : v;
  const x = table?.[key];
  return x === undefined || isTable(x) ? undefined : x;
}

class Coalescer {
  constructor(
    private readonly warn: Warn,
    /** MergeValues keeps nulls; CoalesceValues deletes the keys they override. */
    private readonly merge: boolean,
  ) {}

  coalesce(chart: Chart, dest: JsonObject, prefix: string): JsonObject {
    this.values(chart, dest, prefix);
    return this.deps(chart, dest, prefix);
  }

  private deps(chart: Chart, dest: JsonObject, prefix: string): JsonObject {
    for (const sub of chart.dependencies) {
      const name = sub.metadata.name;
      if (!(name in dest)) dest[name] = {};
      else if (!isTable(dest[name])) throw new Error(sprintf('type mismatch on %s: %t', [name, dest[name]]));
      const dv = dest[name] as JsonObject;
      const subPrefix = concatPrefix(prefix, chart.metadata.name);
      this.globals(dv, dest, subPrefix);
      dest[name] = this.coalesce(sub, dv, subPrefix);
    }
    return dest;
  }

  /** Copies the globals of src into dest (src wins). */
  private globals(dest: JsonObject, src: JsonObject, prefix: string): void {
    let dg: JsonObject;
    if (!(GLOBAL in dest)) dg = {};
    else if (isTable(dest[GLOBAL])) dg = dest[GLOBAL];
    else return this.warn(`warning: skipping globals because destination ${GLOBAL} is not a table.`);
    let sg: JsonObject;
    if (!(GLOBAL in src)) sg = {};
    else if (isTable(src[GLOBAL])) sg = src[GLOBAL];
    else return this.warn(`warning: skipping globals because source ${GLOBAL} is not a table.`);
    for (const [key, val] of Object.entries(sg)) {
      if (isTable(val)) {
        const vv: JsonObject = { ...val }; // a shallow copy, as Go's copyMap
        if (!(key in dg)) dg[key] = vv;
        else if (!isTable(dg[key])) this.warn(`Conflict: cannot merge map onto non-map for "${key}". Skipping.`);
        else {
          this.tables(vv, dg[key], concatPrefix(prefix, key), true);
          dg[key] = vv;
        }
      } else if (key in dg && isTable(dg[key])) {
        this.warn(`key ${key} is table. Skipping`);
      } else {
        dg[key] = val;
      }
    }
    dest[GLOBAL] = dg;
  }

  /** Fills v with the chart's defaults that v does not set. */
  private values(chart: Chart, v: JsonObject, prefix: string): void {
    const subPrefix = concatPrefix(prefix, chart.metadata.name);
    const defaults = cloneValues(chart.values);
    const childNames = new Set(chart.dependencies.map((d) => d.metadata.name));
    for (const [key, val] of Object.entries(defaults)) {
      if (!(key in v)) {
        v[key] = val;
        continue;
      }
      const value = v[key];
      if (value === null && !this.merge) delete v[key];
      else if (isTable(value)) {
        if (!isTable(val)) {
          if (val !== null) this.warn(`warning: skipped value for ${subPrefix}.${key}: Not a table.`);
        } else {
          // a subchart's table keeps its nulls: its own coalescing removes them later
          this.tables(value, val, concatPrefix(subPrefix, key), this.merge || childNames.has(key));
        }
      }
    }
  }

  /** coalesceTablesFullKey: src under dst, dst wins. */
  tables(dst: JsonObject, src: JsonObject, prefix: string, merge = this.merge): JsonObject {
    for (const [key, val] of Object.entries(src)) {
      const fullKey = concatPrefix(prefix, key);
      const has = key in dst;
      const dv = dst[key];
      if (has && !merge && dv === null) delete dst[key];
      else if (!has) dst[key] = val;
      else if (isTable(val)) {
        if (isTable(dv)) this.tables(dv, val, fullKey, merge);
        else this.warn(`warning: cannot overwrite table with non table for ${fullKey} (${JSON.stringify(val)})`);
      } else if (isTable(dv) && val !== null) {
        this.warn(`warning: destination for ${fullKey} is a table. Ignoring non-table value (${JSON.stringify(val)})`);
      }
    }
    return dst;
  }
}

/** chartutil.CoalesceValues: the values a chart renders with. `values` is not modified. */
export function coalesceValues(chart: Chart, values: JsonObject, warn: Warn = () => {}): JsonObject {
  return new Coalescer(warn, false).coalesce(chart, cloneValues(values), '');
}

/** chartutil.MergeValues: like coalesceValues, but nulls are kept. */
function mergeValues(chart: Chart, values: JsonObject, warn: Warn = () => {}): JsonObject {
  return new Coalescer(warn, true).coalesce(chart, cloneValues(values), '');
}

/** Masterminds constraint check; an unparsable constraint or version never matches (IsCompatibleRange). */
function compatible(constraint: string | undefined, version: string): boolean {
  try {
    return semverCompare(constraint ?? '', version);
  } catch {
    return false;
  }
}

/**
 * chartutil.ProcessDependenciesWithMerge: applies aliases, drops subcharts disabled by their
 * `condition` or `tags` (Chart.yaml dependencies), then imports values (`import-values`). Returns a
 * new chart tree; `chart` is untouched.
 */
export function processDependencies(chart: Chart, values: JsonObject, warn: Warn = () => {}): Chart {
  const copy = copyTree(chart, undefined);
  enableDependencies(copy, values, '', warn);
  importDependencyValues(copy, warn);
  return copy;
}

function copyTree(c: Chart, parent: Chart | undefined): Chart {
  const metadata = { ...c.metadata, dependencies: c.metadata.dependencies?.map((d) => ({ ...d })) };
  const out: Chart = { ...c, metadata, parent, dependencies: [] };
  out.dependencies = c.dependencies.map((d) => copyTree(d, out));
  return out;
}

function enableDependencies(c: Chart, v: JsonObject, path: string, warn: Warn): void {
  const reqs = c.metadata.dependencies;
  if (!reqs) return;
  const deps: Chart[] = c.dependencies.filter((existing) => !reqs.some((r) => r && existing.metadata.name === r.name && compatible(r.version, existing.metadata.version)));
  for (const req of reqs) {
    if (!req) continue;
    const found = c.dependencies.find((d) => d.metadata.name === req.name && compatible(req.version, d.metadata.version));
    if (found) {
      // a shallow copy, as Go's `out := *c`: its own subcharts keep the original as their parent
      deps.push({ ...found, metadata: { ...found.metadata, name: req.alias || found.metadata.name } });
    }
    if (req.alias) req.name = req.alias;
  }
  c.dependencies = deps;
  for (const r of reqs) if (r) r.enabled = true;
  const cvals = mergeValues(c, v, warn);
  applyTags(reqs, cvals, warn);
  applyConditions(reqs, cvals, path, warn);
  const disabled = new Set(reqs.filter((r) => r && !r.enabled).map((r) => r.name));
  c.dependencies = c.dependencies.filter((d) => !disabled.has(d.metadata.name));
  c.metadata.dependencies = reqs.filter((r) => r && !disabled.has(r.name));
  for (const d of c.dependencies) enableDependencies(d, cvals, `${path}${d.metadata.name}.`, warn);
}

function applyTags(reqs: NonNullable<Chart['metadata']['dependencies']>, cvals: JsonObject, warn: Warn): void {
  const tags = valuesTable(cvals, 'tags');
  if (!tags) return;
  for (const r of reqs) {
    if (!r) continue;
    let hasTrue = false;
    let hasFalse = false;
    for (const k of r.tags ?? []) {
      const b = tags[k];
      if (b === undefined) continue;
      if (typeof b === 'boolean') {
        if (b) hasTrue = true;
        else hasFalse = true;
      } else warn(`Warning: Tag '${k}' for chart ${r.name} returned non-bool value`);
    }
    if (!hasTrue && hasFalse) r.enabled = false;
    else r.enabled = true;
  }
}

function applyConditions(reqs: NonNullable<Chart['metadata']['dependencies']>, cvals: JsonObject, path: string, warn: Warn): void {
  for (const r of reqs) {
    if (!r) continue;
    for (const cond of (r.condition ?? '').trim().split(',')) {
      if (!cond) continue;
      const vv = pathValue(cvals, path + cond);
      if (vv === undefined) continue;
      if (typeof vv === 'boolean') {
        r.enabled = vv;
        break;
      }
      warn(`Warning: Condition path '${cond}' for chart ${r.name} returned non-bool value`);
    }
  }
}

/**
 * chartutil.processDependencyImportValues with merge (ProcessDependenciesWithMerge, Helm 3.19): each
 * chart with dependencies, bottom up, gets as its own values its values merged with its subcharts'
 * (nulls kept), under the tables its dependencies' `import-values` name: `{child, parent}` puts the
 * subchart's `child` table at `parent` (`.` for the top), a plain name imports `exports.NAME` at the
 * top. The chart's own values win over imported ones. A missing table is a warning, as in Helm.
 */
export function importDependencyValues(c: Chart, warn: Warn = () => {}): void {
  for (const d of c.dependencies) importDependencyValues(d, warn);
  const reqs = c.metadata.dependencies;
  if (!reqs) return;
  const cvals = mergeValues(c, {}, warn);
  const merger = new Coalescer(warn, true);
  let b: JsonObject = {};
  for (const r of reqs) {
    if (!r) continue;
    const out: JsonObject[] = [];
    for (const riv of r['import-values'] ?? []) {
      if (isTable(riv)) {
        const child = sprintf('%v', [riv.child ?? null]);
        const parent = sprintf('%v', [riv.parent ?? null]);
        out.push({ child, parent });
        const vv = tableAt(cvals, `${r.name}.${child}`);
        if (typeof vv === 'string') {
          warn(`Warning: ImportValues missing table from chart ${r.name}: ${vv}`);
          continue;
        }
        b = merger.tables(b, pathToMap(parent, vv), '');
      } else if (typeof riv === 'string') {
        const child = `exports.${riv}`;
        out.push({ child, parent: '.' });
        const vm = tableAt(cvals, `${r.name}.${child}`);
        if (typeof vm === 'string') {
          warn(`Warning: ImportValues missing table: ${vm}`);
          continue;
        }
        b = merger.tables(b, vm, '');
      }
    }
    r['import-values'] = out.length > 0 ? out : undefined;
  }
  c.values = merger.tables(cloneValues(cvals), b, '');
}

/** Values.Table: the table at a dotted path, or Helm's error text (`"x" is not a table`). */
function tableAt(v: JsonObject, path: string): JsonObject | string {
  let t = v;
  for (const seg of path.split('.')) {
    const next = t[seg];
    if (!isTable(next)) return `${JSON.stringify(seg)} is not a table`;
    t = next;
  }
  return t;
}

/** pathToMap: `a.b` and a table give {a: {b: table}}; `.` the table itself. */
function pathToMap(path: string, data: JsonObject): JsonObject {
  if (path === '.') return data;
  let cur: JsonObject = data;
  const segs = path.split('.');
  for (let i = segs.length - 1; i >= 0; i--) cur = { [segs[i]!]: cur };
  return cur;
}
