/**
 * Which functional module runs next (the Go operator's pkg/task/functional/scheduler.go): a converge
 * adds its enabled functional modules, each with the functional modules it requires; once the
 * critical modules are done the converge kicks the scheduler, which starts every module whose
 * requirements are all done, and each module reported done starts those it freed. Modules start in
 * the order they were added (weight, then name). The converge is finished when every module is done.
 */

export interface FunctionalRequest {
  module: string;
  /** Run the module's onStartup hooks (newly enabled). */
  doStartup: boolean;
  /**
   * Functional modules that must be done first. One that is not added blocks the module until it is
   * added and done, unless `optional` (as in Go; enabled-state resolution disables a module whose
   * required module is disabled, so this waits only for modules being added).
   */
  requires: readonly { module: string; optional: boolean }[];
}

export class FunctionalScheduler {
  private readonly requests = new Map<string, FunctionalRequest>();
  private readonly done = new Set<string>();
  private readonly scheduled = new Set<string>();
  private kicked = false;

  /** `start` queues a module's run; it is called once a module, when its requirements are done. */
  constructor(private readonly start: (request: FunctionalRequest) => void) {}

  /** Adds (or replaces) requests: each is undone and unscheduled until it runs again. */
  add(...requests: FunctionalRequest[]): void {
    for (const r of requests) {
      this.requests.set(r.module, r);
      this.done.delete(r.module);
      this.scheduled.delete(r.module);
    }
  }

  /** The module is disabled: it is no longer waited for (those requiring it are disabled too). */
  remove(module: string): void {
    this.requests.delete(module);
    this.done.delete(module);
    this.scheduled.delete(module);
  }

  /** Forgets everything (a converge restart: its queued runs are gone). */
  reset(): void {
    this.requests.clear();
    this.done.clear();
    this.scheduled.clear();
    this.kicked = false;
  }

  /** The critical modules are done: start what is ready. Returns the modules started. */
  kick(): string[] {
    this.kicked = true;
    return this.schedule();
  }

  /** A module's run succeeded: it is done, and what waited only for it starts. Returns the modules started. */
  markDone(module: string): string[] {
    if (!this.scheduled.delete(module)) return [];
    this.done.add(module);
    return this.schedule();
  }

  /** Every added module is done. */
  finished(): boolean {
    return this.done.size === this.requests.size;
  }

  /** True while the module waits to start or runs in this converge. */
  has(module: string): boolean {
    return this.requests.has(module) && !this.done.has(module);
  }

  /**
   * What the module waits for before it starts: its required modules not done yet, or `critical
   * modules` while the scheduler has not been kicked. Empty once it started or when it is done.
   */
  waitsFor(module: string): string[] {
    const r = this.requests.get(module);
    if (!r || this.done.has(module) || this.scheduled.has(module)) return [];
    const pending = this.pending(r);
    return this.kicked ? pending : ['critical modules', ...pending];
  }

  /** The requirements of `r` not done: an optional one only when it was added. */
  private pending(r: FunctionalRequest): string[] {
    return r.requires.filter((d) => !this.done.has(d.module) && (!d.optional || this.requests.has(d.module))).map((d) => d.module);
  }

  private schedule(): string[] {
    if (!this.kicked) return [];
    const started: string[] = [];
    for (const r of this.requests.values()) {
      if (this.done.has(r.module) || this.scheduled.has(r.module)) continue;
      if (this.pending(r).length) continue;
      this.scheduled.add(r.module);
      started.push(r.module);
      this.start(r);
    }
    return started;
  }
}
