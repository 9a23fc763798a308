/** Delays of the queue engine and Go-style duration text for the queue status strings. */

/** Delay before retrying a failed task for the first time. */
export const INITIAL_FAIL_DELAY_MS = 5_000;
/** Upper bound of the retry delay (DESIGN §4.6: 30 s instead of Go's 32 s). */
export const MAX_FAIL_DELAY_MS = 30_000;
/** Sleep after a `Repeat` result. */
export const DELAY_ON_REPEAT_MS = 25;
/** Go's wait-loop tick; status strings with elapsed times appear once a wait is this old. */
export const WAIT_STATUS_GRANULARITY_MS = 125;
/** A compaction id with this many tasks queued triggers compaction. */
export const COMPACTION_THRESHOLD = 100;

/**
 * Retry delay for a task that has failed `failureCount` times before this failure
 * (shell-operator's exponential_backoff): 5 s for the first failure, then 5 s + 2^(n-1) s + jitter
 * below 1 s, truncated to 100 ms, at most 30 s. So ≈ 5, 6–7, 7–8, 9–10, 13–14, 21–22, 30, 30 … s.
 */
export function defaultBackoff(failureCount: number, random: () => number = Math.random): number {
  if (failureCount <= 0) return INITIAL_FAIL_DELAY_MS;
  if (failureCount > 5) return MAX_FAIL_DELAY_MS;
  const jitter = Math.min(Math.max(random(), 0), 0.999999) * 1000;
  const delay = INITIAL_FAIL_DELAY_MS + 2 ** (failureCount - 1) * 1000 + jitter;
  return Math.min(Math.floor(delay / 100) * 100, MAX_FAIL_DELAY_MS);
}

function frac(value: number, unit: number, digits: number): string {
  const whole = Math.floor(value / unit);
  const rest = value - whole * unit;
  if (rest === 0) return String(whole);
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** Go's `time.Duration.String()` for a duration in milliseconds: `0s`, `25ms`, `6.5s`, `1m0s`, `1h2m3s`. */
export function formatGoDuration(ms: number): string {
  let ns = Math.round(ms * 1e6);
  const sign = ns < 0 ? '-' : '';
  ns = Math.abs(ns);
  if (ns === 0) return '0s';
  if (ns < 1e3) return `${sign}${ns}ns`;
  if (ns < 1e6) return `${sign}${frac(ns, 1e3, 3)}µs`;
  if (ns < 1e9) return `${sign}${frac(ns, 1e6, 6)}ms`;
  const h = Math.floor(ns / 3.6e12);
  ns -= h * 3.6e12;
  const m = Math.floor(ns / 6e10);
  ns -= m * 6e10;
  const s = `${frac(ns, 1e9, 9)}s`;
  if (h > 0) return `${sign}${h}h${m}m${s}`;
  if (m > 0) return `${sign}${m}m${s}`;
  return `${sign}${s}`;
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
