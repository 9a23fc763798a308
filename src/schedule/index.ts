/**
 * Cron schedules: robfig-compatible crontab parsing (./crontab.ts) and a ScheduleManager that keeps one
 * timer per distinct crontab string and notifies every subscriber of that crontab when it fires
 * (shell-operator's schedule manager semantics).
 */
import { Cron } from 'croner';
import { parseCrontab, type ParsedCrontab } from './crontab.js';

export { parseCrontab, validateCrontab, parseGoDuration, CrontabError } from './crontab.js';
export type { ParsedCrontab, CalendarCrontab, EveryCrontab } from './crontab.js';

/** Next fire time strictly after `from` (default: now), or null when there is none. */
export function nextRun(crontab: string | ParsedCrontab, from: Date = new Date()): Date | null {
  const parsed = typeof crontab === 'string' ? parseCrontab(crontab) : crontab;
  if (parsed.kind === 'every') return new Date(nextEvery(parsed.intervalMs, from.getTime()));
  const job = new Cron(parsed.pattern, croneOptions(parsed, true));
  try {
    return job.nextRun(from);
  } finally {
    job.stop();
  }
}

/** robfig's ConstantDelaySchedule: t + delay, truncated to the whole second. */
function nextEvery(intervalMs: number, fromMs: number): number {
  return Math.floor((fromMs + intervalMs) / 1000) * 1000;
}

function croneOptions(parsed: Extract<ParsedCrontab, { kind: 'calendar' }>, paused: boolean, unref = false) {
  return {
    paused,
    unref,
    mode: '6-part' as const,
    domAndDow: parsed.domAndDow,
    ...(parsed.timezone !== undefined ? { timezone: parsed.timezone } : {}),
  };
}

/** Called when a crontab fires; receives the crontab string as written by the hook. */
export type ScheduleCallback = (crontab: string) => void;

export interface ScheduleManagerOptions {
  /** Called when a subscriber callback throws (the other subscribers still run). */
  onError?: (crontab: string, subscriberId: string, err: unknown) => void;
  /** Do not keep the process alive for schedule timers. Default false. */
  unref?: boolean;
}

interface Entry {
  readonly parsed: ParsedCrontab;
  readonly subscribers: Map<string, ScheduleCallback>;
  timer: { stop(): void } | undefined;
}

/**
 * One timer per distinct crontab string, with any number of subscribers (e.g. one per schedule binding).
 * Timers run only between start() and stop(); subscriptions may be added or removed at any time.
 */
export class ScheduleManager {
  private readonly entries = new Map<string, Entry>();
  private running = false;

  constructor(private readonly options: ScheduleManagerOptions = {}) {}

  /**
   * Subscribe `id` to `crontab` (validated: throws CrontabError). Subscribing the same id again replaces
   * its callback. Returns a function that removes this subscription.
   */
  add(crontab: string, id: string, callback: ScheduleCallback): () => void {
    let entry = this.entries.get(crontab);
    if (!entry) {
      entry = { parsed: parseCrontab(crontab), subscribers: new Map(), timer: undefined };
      this.entries.set(crontab, entry);
      if (this.running) this.arm(crontab, entry);
    }
    entry.subscribers.set(id, callback);
    return () => this.remove(crontab, id);
  }

  /** Remove one subscription; the crontab's timer stops when its last subscriber leaves. */
  remove(crontab: string, id: string): boolean {
    const entry = this.entries.get(crontab);
    if (!entry || !entry.subscribers.delete(id)) return false;
    if (entry.subscribers.size === 0) {
      entry.timer?.stop();
      this.entries.delete(crontab);
    }
    return true;
  }

  /** Remove every subscription of `id` (on all crontabs). */
  removeSubscriber(id: string): void {
    for (const crontab of [...this.entries.keys()]) this.remove(crontab, id);
  }

  /** Distinct crontabs that have subscribers. */
  crontabs(): string[] {
    return [...this.entries.keys()];
  }

  /** Subscriber ids of a crontab, in subscription order. */
  subscribers(crontab: string): string[] {
    return [...(this.entries.get(crontab)?.subscribers.keys() ?? [])];
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const [crontab, entry] of this.entries) this.arm(crontab, entry);
  }

  stop(): void {
    this.running = false;
    for (const entry of this.entries.values()) {
      entry.timer?.stop();
      entry.timer = undefined;
    }
  }

  /** Fire a crontab now, as its timer would (for tests and debugging). */
  fire(crontab: string): void {
    const entry = this.entries.get(crontab);
    if (!entry) return;
    for (const [id, cb] of [...entry.subscribers]) {
      try {
        cb(crontab);
      } catch (err) {
        this.options.onError?.(crontab, id, err);
      }
    }
  }

  private arm(crontab: string, entry: Entry): void {
    entry.timer?.stop();
    const parsed = entry.parsed;
    if (parsed.kind === 'calendar') {
      const job = new Cron(parsed.pattern, croneOptions(parsed, false, this.options.unref ?? false), () => this.fire(crontab));
      entry.timer = { stop: () => job.stop() };
      return;
    }
    let handle: NodeJS.Timeout | undefined;
    let stopped = false;
    const schedule = (fromMs: number): void => {
      const at = nextEvery(parsed.intervalMs, fromMs);
      handle = setTimeout(() => {
        if (stopped) return;
        schedule(at);
        this.fire(crontab);
      }, Math.max(0, at - Date.now()));
      if (this.options.unref) handle.unref();
    };
    schedule(Date.now());
    entry.timer = {
      stop: () => {
        stopped = true;
        if (handle) clearTimeout(handle);
      },
    };
  }
}
