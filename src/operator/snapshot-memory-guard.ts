/**
 * The snapshot memory guard (issue 37; deckhouse#14189 asks for a warning before the operator is
 * killed for its memory): every 5 seconds it sums the memory the kubernetes bindings' snapshots
 * retain (`kube_snapshot_bytes`) and logs a warning when the sum reaches 80 % of the limit
 * (`--kube-snapshot-memory-limit`), and another when it passes the limit, naming the bindings that
 * retain most. It warns again only after the sum has gone back under 80 %.
 */
import { formatBytes } from '../util/limits.js';

export interface BindingBytes {
  module: string;
  hook: string;
  binding: string;
  bytes: number;
}

export interface SnapshotMemoryGuardOptions {
  limitBytes: number;
  /** Every binding's retained bytes. */
  snapshots: () => readonly BindingBytes[];
  warn: (fields: Record<string, unknown>, message: string) => void;
  intervalMs?: number;
}

/** The share of the limit at which the first warning comes. */
export const WARN_SHARE = 0.8;

/** A check of the sum against the limit: what to warn of, if anything (exported for the tests). */
export class SnapshotMemoryGuard {
  /** 0: under 80 %; 1: warned of 80 %; 2: warned of the limit. */
  private level = 0;

  constructor(private readonly opts: SnapshotMemoryGuardOptions) {}

  check(): void {
    const rows = this.opts.snapshots();
    let total = 0;
    for (const r of rows) total += r.bytes;
    const limit = this.opts.limitBytes;
    const level = total >= limit ? 2 : total >= limit * WARN_SHARE ? 1 : 0;
    if (level === 0) this.level = 0;
    if (level <= this.level) return;
    this.level = level;
    const top = [...rows]
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 5)
      .filter((r) => r.bytes > 0)
      .map((r) => `${r.module ? `${r.module}/` : ''}${r.hook} ${r.binding}: ${formatBytes(r.bytes)}`);
    const what = level === 2 ? 'over' : `at ${Math.floor((total / limit) * 100)} % of`;
    this.opts.warn(
      { retainedBytes: total, limitBytes: limit, largest: top },
      `kubernetes bindings' snapshots retain ${formatBytes(total)}, ${what} --kube-snapshot-memory-limit ${formatBytes(limit)}; largest: ${top.join(', ')}`,
    );
  }
}

/** Starts the guard's checks; returns what stops them. */
export function guardSnapshotMemory(opts: SnapshotMemoryGuardOptions): () => void {
  const guard = new SnapshotMemoryGuard(opts);
  const timer = setInterval(() => guard.check(), opts.intervalMs ?? 5_000).unref();
  return () => clearInterval(timer);
}
