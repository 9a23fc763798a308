/**
 * Metric families for the operator's per-hook and per-module series, kept in plain objects and
 * rendered straight to Prometheus' text format.
 *
 * prom-client hashes the label object at every `inc`/`observe` and formats every label of every line
 * again at every scrape. With 600 hooks that made recording a hook run cost a quarter of an
 * in-process hook's run and a scrape take tens of milliseconds. Here a series is found by one string
 * key, its label text is escaped once when it is created, and its lines are rendered again only after
 * it changed: a scrape joins the text of the series that did not.
 * The exposition is the text format as client_golang writes it (`le` last in a bucket's labels).
 */

/** Prometheus' default buckets (client_golang's DefBuckets; Go's lazily created histograms use them). */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A sample value as client_golang prints it. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

export const escapeLabelValue = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

interface Series {
  /** `a="x",b="y"`: the escaped label pairs, without braces ("" with no labels). */
  readonly labels: string;
  /** The series' lines as last rendered; cleared by every change. */
  text: string | undefined;
}

/** The part all families share: series by label values, header lines, rendering. */
abstract class Family<S extends Series> {
  private readonly byKey = new Map<string, S>();

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly type: 'counter' | 'gauge' | 'histogram',
    readonly labelNames: readonly string[],
  ) {}

  /** The series of these label values (in `labelNames` order), created on first use. */
  series(values: readonly string[]): S {
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    let s = this.byKey.get(key);
    if (s === undefined) {
      if (values.length !== this.labelNames.length) throw new Error(`${this.name}: ${values.length} label values for ${this.labelNames.length} labels`);
      const labels = this.labelNames.map((n, i) => `${n}="${escapeLabelValue(values[i]!)}"`).join(',');
      s = this.create(labels);
      this.byKey.set(key, s);
    }
    return s;
  }

  protected abstract create(labels: string): S;
  /** The series' lines, joined by newlines. */
  protected abstract lines(s: S): string;

  /** Removes every series but these. */
  retain(keep: ReadonlySet<S>): void {
    for (const [key, s] of this.byKey) if (!keep.has(s)) this.byKey.delete(key);
  }

  /** The family's exposition: header lines, then one or more lines per series. */
  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`);
    for (const s of this.byKey.values()) out.push((s.text ??= this.lines(s)));
  }
}

const braces = (labels: string) => (labels === '' ? '' : `{${labels}}`);

export interface ValueSeries extends Series {
  value: number;
}

/** A counter or a gauge: one value per series. */
export class ValueFamily extends Family<ValueSeries> {
  constructor(name: string, help: string, type: 'counter' | 'gauge', labelNames: readonly string[]) {
    super(name, help, type, labelNames);
  }

  protected create(labels: string): ValueSeries {
    return { labels, value: 0, text: undefined };
  }

  protected lines(s: ValueSeries): string {
    return `${this.name}${braces(s.labels)} ${formatValue(s.value)}`;
  }

  incIn(s: ValueSeries, by = 1): void {
    s.value += by;
    s.text = undefined;
  }

  setIn(s: ValueSeries, v: number): void {
    if (s.value === v && s.text !== undefined) return;
    s.value = v;
    s.text = undefined;
  }

  inc(values: readonly string[], by = 1): void {
    this.incIn(this.series(values), by);
  }

  set(values: readonly string[], v: number): void {
    this.setIn(this.series(values), v);
  }

  /**
   * Makes the family hold exactly the series `read` sets (a gauge read from the running state at a
   * scrape); the text of a series whose value did not change is kept.
   */
  refresh(read: (set: (values: readonly string[], v: number) => void) => void): void {
    const seen = new Set<ValueSeries>();
    read((values, v) => {
      const s = this.series(values);
      this.setIn(s, v);
      seen.add(s);
    });
    this.retain(seen);
  }
}

export interface HistogramSeries extends Series {
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export class HistogramFamily extends Family<HistogramSeries> {
  private readonly bounds: readonly number[];
  /** `le="0.005"` ... `le="+Inf"`, rendered once. */
  private readonly le: readonly string[];

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[] = DEFAULT_BUCKETS) {
    super(name, help, 'histogram', labelNames);
    this.bounds = buckets;
    this.le = [...buckets.map((b) => `le="${formatValue(b)}"`), 'le="+Inf"'];
  }

  protected create(labels: string): HistogramSeries {
    return { labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0, text: undefined };
  }

  /** Records one observation in a series of this family. */
  observeIn(s: HistogramSeries, v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    s.counts[i]!++;
    s.sum += v;
    s.count++;
    s.text = undefined;
  }

  observe(values: readonly string[], v: number): void {
    this.observeIn(this.series(values), v);
  }

  protected lines(s: HistogramSeries): string {
    const sep = s.labels === '' ? '' : ',';
    let acc = 0;
    // joined from an array: a flat string, which later joins copy quickly (a string built with += is a
    // tree of pieces that every scrape would walk again)
    const lines: string[] = [];
    for (let i = 0; i < this.le.length; i++) {
      acc += s.counts[i]!;
      lines.push(`${this.name}_bucket{${s.labels}${sep}${this.le[i]}} ${acc}`);
    }
    lines.push(`${this.name}_sum${braces(s.labels)} ${formatValue(s.sum)}`, `${this.name}_count${braces(s.labels)} ${s.count}`);
    return lines.join('\n');
  }
}

/** The size of a part of renderParts(), well under V8's large-object size (128 KiB). */
const PART_CHARS = 32_768;

/** A set of families rendered together, in the order they were added. */
export class FamilySet {
  private readonly families: Family<Series>[] = [];

  add<F extends Family<Series>>(f: F): F {
    this.families.push(f);
    return f;
  }

  /** The exposition of every family, each followed by a blank line as prom-client separates them. */
  render(): string {
    return this.renderParts().join('');
  }

  /**
   * render()'s text in parts of about PART_CHARS characters (with the line breaks between them): a
   * scrape sends them one after another. Joined, the text of a thousand hooks' series is a string of a
   * megabyte, which V8 allocates in its large-object space and keeps until a full collection when a
   * young collection finds it alive.
   */
  renderParts(): string[] {
    const out: string[] = [];
    for (const f of this.families) {
      f.render(out);
      out.push('');
    }
    // each element is a line or a series' lines
    const parts: string[] = [];
    let start = 0;
    let chars = 0;
    for (let i = 0; i < out.length; i++) {
      chars += out[i]!.length + 1;
      if (chars < PART_CHARS && i < out.length - 1) continue;
      if (parts.length) parts.push('\n');
      parts.push(out.slice(start, i + 1).join('\n'));
      start = i + 1;
      chars = 0;
    }
    return parts;
  }
}
