/**
 * What the operator has been doing, kept for the status page and the debug socket: the last hook
 * runs, each module's last run and release outcome. Never values or Secret data: only names,
 * times, durations, outcomes and error messages.
 */
export type RunResult = 'success' | 'error';

export interface HookRunRecord {
  /** Start, ms since the epoch. */
  at: number;
  durationMs: number;
  hook: string;
  module?: string;
  binding: string;
  queue: string;
  result: RunResult;
  error?: string;
}

export interface ModuleRunRecord {
  at: number;
  durationMs: number;
  result: 'success' | 'error';
  error?: string;
  /** Helm outcome of the run, when it reached Helm. */
  release?: string;
}

const HOOK_RUNS_KEPT = 50;

/** A slot of the ring: every field always present, so that a slot is rewritten in place. */
interface HookRunSlot {
  at: number;
  durationMs: number;
  hook: string;
  module: string | undefined;
  binding: string;
  queue: string;
  result: RunResult;
  error: string | undefined;
}

export class Activity {
  /**
   * A ring of the last HOOK_RUNS_KEPT runs; `next` is where the next one goes. Its slots are rewritten in
   * place: a record per run kept for 50 runs lived long enough to reach V8's old generation under a
   * stream of events (about 110 B per run, garbage only a full collection frees).
   */
  private readonly hookRuns: HookRunSlot[] = [];
  private next = 0;
  private readonly moduleRuns = new Map<string, ModuleRunRecord>();
  private readonly releases = new Map<string, string>();
  /** Per module, its hooks whose last run failed and the error. */
  private readonly failing = new Map<string, Map<string, string>>();
  /** Told when a module's run or one of its hooks' runs was recorded (the module health). */
  onModuleActivity?: (module: string) => void;

  hookRun(r: HookRunRecord): void {
    if (r.module !== undefined) this.noteHook(r.module, r.hook, r.error);
    const slot = this.hookRuns[this.next];
    if (!slot) this.hookRuns[this.next] = { at: r.at, durationMs: r.durationMs, hook: r.hook, module: r.module, binding: r.binding, queue: r.queue, result: r.result, error: r.error };
    else {
      slot.at = r.at;
      slot.durationMs = r.durationMs;
      slot.hook = r.hook;
      slot.module = r.module;
      slot.binding = r.binding;
      slot.queue = r.queue;
      slot.result = r.result;
      slot.error = r.error;
    }
    this.next = (this.next + 1) % HOOK_RUNS_KEPT;
  }

  /**
   * Keeps the module's failing hooks; tells `onModuleActivity` only when they changed: a hook run
   * that succeeds as the one before it changes nothing of the module's health (a Pod watcher under a
   * stream of events would recompute it at every run).
   */
  private noteHook(module: string, hook: string, error: string | undefined): void {
    let hooks = this.failing.get(module);
    let changed = false;
    if (error !== undefined) {
      if (!hooks) this.failing.set(module, (hooks = new Map()));
      changed = hooks.get(hook) !== error;
      hooks.set(hook, error);
    } else if (hooks?.delete(hook)) {
      changed = true;
      if (!hooks.size) this.failing.delete(module);
    }
    if (changed) this.onModuleActivity?.(module);
  }

  /** The module's hooks whose last run failed, with the error. */
  failingHooks(module: string): { hook: string; error: string }[] {
    return [...(this.failing.get(module) ?? [])].map(([hook, error]) => ({ hook, error }));
  }

  /** The last hook runs, newest first (copies, without the fields a run does not have). */
  lastHookRuns(): HookRunRecord[] {
    const n = this.hookRuns.length;
    const out: HookRunRecord[] = [];
    for (let i = 1; i <= n; i++) {
      const { at, durationMs, hook, module, binding, queue, result, error } = this.hookRuns[(this.next - i + n) % n]!;
      out.push({ at, durationMs, hook, ...(module === undefined ? {} : { module }), binding, queue, result, ...(error === undefined ? {} : { error }) });
    }
    return out;
  }

  /** A Helm outcome of a module run in progress (`installed`, `upgraded`, `unchanged`, `deleted`). */
  release(module: string, outcome: string): void {
    this.releases.set(module, outcome);
  }

  /** The Helm outcome recorded for the module's run in progress, if it reached Helm. */
  lastReleaseOutcome(module: string): string | undefined {
    return this.releases.get(module);
  }

  moduleRun(module: string, r: Omit<ModuleRunRecord, 'release'>): void {
    const release = this.releases.get(module);
    this.releases.delete(module);
    this.moduleRuns.set(module, release === undefined ? r : { ...r, release });
    this.onModuleActivity?.(module);
  }

  lastModuleRun(module: string): ModuleRunRecord | undefined {
    return this.moduleRuns.get(module);
  }
}
