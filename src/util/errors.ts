/**
 * An error caused by the user's input (a file, a flag, a hook's output). The CLI prints its message
 * without a stack trace unless --debug is given.
 */
export class UserError extends Error {
  override name = 'UserError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Several problems found in one pass, reported together. */
export class UserErrors extends UserError {
  readonly problems: readonly string[];
  constructor(headline: string, problems: readonly string[]) {
    super(problems.length === 1 ? `${headline}: ${problems[0]}` : `${headline}:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
