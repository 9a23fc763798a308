/**
 * The figures a bench suite hands to the report (bench/run.ts). A suite prints its own figures as it
 * always did, and also calls `emitFigures`: when it runs under the report (BENCH_FIGURES names a file),
 * the figures are appended to that file as one JSON line; run alone, nothing more happens.
 */
import { appendFileSync } from 'node:fs';

export interface Figure {
  /** What is measured, unique within its suite (the key the next run is compared by). */
  name: string;
  value: number;
  unit: string;
  /** Which way is better; default 'lower'. */
  better?: 'lower' | 'higher';
  /** The same work done the plain way in the same run (what the ratio is against). */
  baseline?: { what: string; value: number; unit: string };
  /** The target: a bound on the value, or on value/baseline when `of` is 'ratio'. */
  target?: { max?: number; min?: number; of?: 'value' | 'ratio' };
  note?: string;
}

export function emitFigures(figures: Figure[]): void {
  const file = process.env.BENCH_FIGURES;
  if (!file) return;
  for (const f of figures) appendFileSync(file, `${JSON.stringify(f)}\n`);
}
