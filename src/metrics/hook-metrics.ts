/**
 * Metrics written by hooks ($METRICS_PATH), served on `/metrics/hooks`. Semantics of shell-operator
 * §5.1: for every group in a batch, the series stored for that group are dropped first, then the
 * batch applies; `expire` only drops. A `hook` label with the hook's name is added to every series,
 * and a `module` label to those of module hooks (reference/addon-operator.md §4).
 * Series of one metric may have different label sets, which is why this is not prom-client.
 */
import { UserError } from '../util/errors.js';
import { escapeLabelValue, formatValue } from './series.js';

/** The metric operations as the hook engine validated them (structurally the same type). */
export type HookMetricOperation =
  | { action: 'set' | 'add'; name: string; value: number; labels: Record<string, string>; group: string }
  | { action: 'observe'; name: string; value: number; buckets: number[]; labels: Record<string, string>; group: string }
  | { action: 'expire'; group: string };

type MetricType = 'gauge' | 'counter' | 'histogram';

interface Series {
  labels: Record<string, string>;
  value: number;
  /** histogram only: upper bounds (sorted, +Inf implied) and cumulative-by-render counts */
  buckets?: number[];
  counts?: number[];
  count?: number;
}

interface Metric {
  type: MetricType;
  series: Map<string, Series>;
}

const TYPE_OF: Record<'set' | 'add' | 'observe', MetricType> = { set: 'gauge', add: 'counter', observe: 'histogram' };

/**
 * The identity of a series: its labels, the hook's and the module's included, by name. Label names
 * are checked ([a-zA-Z_][a-zA-Z0-9_]*), so "=" ends a name, and the value's length makes it unambiguous.
 * Built without the merged labels object, which only a new series needs.
 */
function labelKey(labels: Record<string, string>, hook: string, module: string | undefined): string {
  const names = Object.keys(labels).filter((k) => k !== 'hook' && (module === undefined || k !== 'module'));
  names.push('hook');
  if (module !== undefined) names.push('module');
  names.sort();
  let key = '';
  for (const k of names) {
    const v = k === 'hook' ? hook : k === 'module' && module !== undefined ? module : labels[k]!;
    key += `${k}=${v.length}:${v}`;
  }
  return key;
}

/**
 * Where a group's series are kept. A module hook's own group (its name: the default) is its module's.
 * Module hook names repeat across modules (`hooks/<path>`), and Go keys the default group on the name
 * alone, so since its #629 a run of one module's hook drops the series of another module's hook of the
 * same name; here each run replaces its own hook's series, as docs/hooks.md says (as Go did before
 * #629, when names held the module's directory). Other groups are shared by every hook, as in Go.
 */
const groupKey = (group: string, hook: string, module: string | undefined): string => (module !== undefined && group === hook ? `${module}\0${group}` : group);

/** A series as a group owns it: the metric's name and the series' key (metric names hold no NUL). */
const refOf = (name: string, key: string): string => `${name}\0${key}`;
const splitRef = (ref: string): [string, string] => {
  const i = ref.indexOf('\0');
  return [ref.slice(0, i), ref.slice(i + 1)];
};

function formatLabels(labels: Record<string, string>, extra?: [string, string]): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabelValue(labels[k]!)}"`);
  if (extra) pairs.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return pairs.length ? `{${pairs.join(',')}}` : '';
}

function sameRefs(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const ref of b) if (!a.has(ref)) return false;
  return true;
}

export class HookMetricsStorage {
  private readonly metrics = new Map<string, Metric>();
  /** group → series it owns, as (metric name, series key) */
  private readonly groups = new Map<string, Set<string>>();

  /**
   * Applies one run's operations for `hook`. All are checked before any is applied: a metric used
   * with two types is an error and nothing changes.
   */
  apply(hook: string, ops: readonly HookMetricOperation[], module?: string): void {
    // the type each metric has in this batch: that of its first operation
    const batchTypes = new Map<string, MetricType>();
    for (const op of ops) {
      if (op.action === 'expire') continue;
      const type = TYPE_OF[op.action];
      const known = this.metrics.get(op.name)?.type;
      const first = batchTypes.get(op.name);
      if (first === undefined) batchTypes.set(op.name, type);
      if ((known && known !== type) || (first !== undefined && first !== type)) {
        throw new UserError(`hook ${hook}: metric "${op.name}" is used as a ${known ?? first} and as a ${type}`);
      }
    }
    // What each group of the batch owns after it, as refs; the key of each operation's series.
    const owners = new Map<string, Set<string>>();
    const keys: (string | undefined)[] = [];
    for (const op of ops) {
      const group = groupKey(op.group, hook, module);
      let owned = owners.get(group);
      if (!owned) owners.set(group, (owned = new Set()));
      if (op.action === 'expire') {
        keys.push(undefined);
        continue;
      }
      const key = labelKey(op.labels, hook, module);
      owned.add(refOf(op.name, key));
      keys.push(key);
    }
    // The series the batch's groups own are dropped. Those the batch sets again start afresh in place,
    // and the others go after the batch has added its own: a map emptied and filled again at every run
    // makes V8 allocate it new tables in its old generation, garbage only a full collection frees.
    let again: Set<string>;
    if (owners.size === 1) again = owners.values().next().value!;
    else {
      again = new Set<string>();
      for (const owned of owners.values()) for (const ref of owned) again.add(ref);
    }
    const dropped: string[] = [];
    for (const group of owners.keys()) {
      for (const ref of this.groups.get(group) ?? []) {
        if (!again.has(ref)) {
          dropped.push(ref);
          continue;
        }
        const s = this.seriesOf(ref);
        if (!s) continue;
        s.value = 0;
        s.buckets = s.counts = s.count = undefined;
      }
    }
    ops.forEach((op, i) => {
      if (op.action === 'expire') return;
      const key = keys[i]!;
      let metric = this.metrics.get(op.name);
      if (!metric) this.metrics.set(op.name, (metric = { type: TYPE_OF[op.action], series: new Map() }));
      let s = metric.series.get(key);
      if (!s) {
        const labels = module === undefined ? { ...op.labels, hook } : { ...op.labels, hook, module };
        metric.series.set(key, (s = { labels, value: 0 }));
      }
      if (op.action === 'observe' && !s.buckets) {
        s.buckets = [...op.buckets].sort((a, b) => a - b);
        s.counts = s.buckets.map(() => 0);
        s.count = 0;
      }
      if (op.action === 'set') s.value = op.value;
      else if (op.action === 'add') s.value += op.value;
      else {
        s.value += op.value;
        s.count! += 1;
        s.buckets!.forEach((b, i) => {
          if (op.value <= b) s.counts![i]! += 1;
        });
      }
    });
    for (const ref of dropped) this.dropSeries(ref);
    for (const [group, owned] of owners) {
      const before = this.groups.get(group);
      if (owned.size === 0) this.groups.delete(group);
      else if (!before || !sameRefs(before, owned)) this.groups.set(group, owned);
    }
  }

  private seriesOf(ref: string): Series | undefined {
    const [name, key] = splitRef(ref);
    return this.metrics.get(name)?.series.get(key);
  }

  private dropSeries(ref: string): void {
    const [name, key] = splitRef(ref);
    const metric = this.metrics.get(name);
    metric?.series.delete(key);
    if (metric && metric.series.size === 0) this.metrics.delete(name);
  }

  expire(group: string): void {
    const owned = this.groups.get(group);
    if (!owned) return;
    for (const ref of owned) this.dropSeries(ref);
    this.groups.delete(group);
  }

  /** Prometheus text exposition format, metrics sorted by name. */
  render(): string {
    const out: string[] = [];
    for (const name of [...this.metrics.keys()].sort()) {
      const m = this.metrics.get(name)!;
      out.push(`# HELP ${name} ${name}`, `# TYPE ${name} ${m.type}`);
      for (const s of [...m.series.values()].sort((a, b) => formatLabels(a.labels).localeCompare(formatLabels(b.labels)))) {
        if (m.type !== 'histogram') {
          out.push(`${name}${formatLabels(s.labels)} ${formatValue(s.value)}`);
          continue;
        }
        s.buckets!.forEach((b, i) => out.push(`${name}_bucket${formatLabels(s.labels, ['le', formatValue(b)])} ${s.counts![i]}`));
        out.push(`${name}_bucket${formatLabels(s.labels, ['le', '+Inf'])} ${s.count}`);
        out.push(`${name}_sum${formatLabels(s.labels)} ${formatValue(s.value)}`);
        out.push(`${name}_count${formatLabels(s.labels)} ${s.count}`);
      }
    }
    return out.length ? out.join('\n') + '\n' : '';
  }
}
