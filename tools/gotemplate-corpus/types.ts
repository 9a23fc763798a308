// Shapes shared by the corpus generator and its topic files.

/** One case input: a template alone (the topic's data is used), or a template with its own data. */
export type CaseInput =
  | string
  | {
      t: string;
      data?: unknown;
      note?: string;
      /** Markers for the runner's --skip-tag, e.g. "go119" (see go119 below). */
      tags?: string[];
      /** Error key words to use instead of the derived ones (each must be in both messages). */
      keywords?: string[];
    };

/** A group of cases on one topic. Ids are `${prefix}-NNN` in order: append new cases at the end. */
export interface Topic {
  source: string;
  prefix: string;
  /** Data (dot) for the cases that bring none. */
  data: unknown;
  cases: CaseInput[];
}

/** String.raw, short: keeps backslashes as written, for Go string literals inside templates. */
export const r = String.raw;

const GO119_RANGE_INT = 'Go 1.19 cannot range over an integer (Go 1.22 can): this is Go 1.19 behaviour';
const GO119_ELSE_WITH = 'Go 1.19 has no {{else with}} (Go 1.23 has): this is Go 1.19 behaviour';

/** A case whose result differs in Go 1.22+ (range over int) or 1.23+ (else with): tagged "go119". */
export function go119(t: string, what: 'range-int' | 'else-with'): CaseInput {
  return { t, tags: ['go119'], note: what === 'range-int' ? GO119_RANGE_INT : GO119_ELSE_WITH };
}

/** An error case checked on the given key words only. */
export function keywords(t: string, words: string[], note?: string): CaseInput {
  return { t, keywords: words, ...(note ? { note } : {}) };
}
