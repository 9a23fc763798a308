// Shapes shared by the corpus generator and its topic files.

/** One case input: a template alone (the topic's data is used), or a template with its own data. */
export type CaseInput = string | { t: string; data?: unknown; note?: string };

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
