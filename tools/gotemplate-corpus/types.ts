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
      /** Take the expected result from the Go 1.23 reference (tagged "go123"): for features Go 1.19 lacks. */
      go?: '1.23';
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

const RANGE_INT_NOTE =
  'range over an integer is an error up to Go 1.23 (this result); Go 1.24 iterates 0..n-1 (no Go 1.24 reference here)';

/** A case on range over an integer: tagged "go-range-int" (Go 1.24 behaves differently). */
export function rangeInt(t: string): CaseInput {
  return { t, tags: ['go-range-int'], note: RANGE_INT_NOTE };
}

/** A case whose expected result comes from the Go 1.23 reference (tag "go123"). */
export function go123(t: string, note: string): CaseInput {
  return { t, go: '1.23', tags: ['go123'], note };
}

/** An error case checked on the given key words only. */
export function keywords(t: string, words: string[], note?: string): CaseInput {
  return { t, keywords: words, ...(note ? { note } : {}) };
}
