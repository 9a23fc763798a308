/**
 * A token bucket: holds `burst` tokens and gains one every `intervalMs`. Used for a hook's `settings`
 * (shell-operator's executionMinInterval and executionBurst) and for the Kubernetes clients' QPS and
 * burst (client-go's token bucket). A caller reserves its token at once and waits until the bucket
 * has paid it back, so that callers waiting together leave one interval apart, in call order.
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

  /** A bucket of `qps` tokens a second holding `burst` of them; qps ≤ 0 means no limit. */
  static perSecond(qps: number, burst: number): RateLimiter {
    return new RateLimiter(qps > 0 ? 1000 / qps : 0, Math.max(1, burst));
  }

  /** Takes a token, waiting for one when the bucket is empty; resolves early (false) when `signal` aborts. */
  async take(signal?: AbortSignal): Promise<boolean> {
    if (this.intervalMs <= 0) return true;
    if (signal?.aborted) return false;
    this.refill();
    this.tokens -= 1;
    if (this.tokens >= 0) return true;
    const completed = await sleep(Math.ceil(-this.tokens * this.intervalMs), signal);
    // a wait given up gives its reserved token back
    if (!completed) this.tokens += 1;
    return completed;
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + (t - this.last) / this.intervalMs);
    this.last = t;
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
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

/** A backoff delay for retry `attempt` (1, 2, ...): exponential up to `maxMs`, with equal jitter (half fixed, half random). */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  return jittered(Math.min(maxMs, initialMs * 2 ** (attempt - 1)), random);
}

/** `ms` with equal jitter: between half of it and all of it, so that clients that failed together do not retry together. */
export function jittered(ms: number, random: () => number = Math.random): number {
  return ms / 2 + random() * (ms / 2);
}
