/**
 * Polls `cond` (every 20 ms) until it holds. The limit is a hang guard, generous for a loaded machine,
 * not a measurement: past it the wait fails naming `what`.
 */
export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Awaits `p` and returns the error it rejects with; fails when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}
