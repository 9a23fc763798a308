/**
 * A hook's `settings` (shell-operator: executionMinInterval and executionBurst): a token bucket that
 * holds `burst` runs and gains one every `intervalMs`. A run waits for a token; the queue waits with it.
 */
export class RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly intervalMs: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Takes a token, waiting for one when the bucket is empty; resolves early (false) when `signal` aborts. */
  async take(signal?: AbortSignal): Promise<boolean> {
    if (this.intervalMs <= 0) return true;
    this.refill();
    if (this.tokens < 1) {
      const wait = Math.ceil((1 - this.tokens) * this.intervalMs);
      const completed = await sleep(wait, signal);
      if (!completed) return false;
      this.refill();
    }
    this.tokens -= 1;
    return true;
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + (t - this.last) / this.intervalMs);
    this.last = t;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
