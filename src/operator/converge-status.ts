/**
 * Converge accounting (reference/addon-operator.md §5.5): after every task of `main` the converge
 * tasks left in it are counted; 0 → >0 starts a converge, >0 → 0 ends it. The end of the first one
 * makes the operator ready. Feeds `/readyz` and `/status/converge` (§3.1).
 */
import type { OperatorTask } from './task-meta.js';

export type FirstConvergePhase = 'NotStarted' | 'InProgress' | 'Done';

/** Tasks that belong to a converge; `first` adds the start-up-only ones. */
export function isConvergeTask(task: OperatorTask, first: boolean): boolean {
  const m = task.metadata;
  switch (m.kind) {
    case 'ModuleDelete':
    case 'ConvergeModules':
      return true;
    case 'ModuleRun':
    case 'ParallelModuleRun':
      return m.reloadAll;
    case 'GlobalHookRun':
      return m.bindingType === 'beforeAll' || m.bindingType === 'afterAll';
    case 'ModuleHookRun':
      return m.sync !== undefined;
    case 'ModulePurge':
    case 'DiscoverHelmReleases':
    case 'GlobalHookEnableKubernetesBindings':
    case 'GlobalHookEnableScheduleBindings':
      return first;
    default:
      return false;
  }
}

/** A converge cut short by a new one: why, in which phase, when (ms). */
export interface ConvergeRestart {
  cause: string;
  phase: string;
  at: number;
}

/** Go's five keys first; the count and the restarts are ours. */
export interface ConvergeStatusJson {
  CONVERGE_IN_PROGRESS: number;
  CONVERGE_WAIT_TASK: boolean;
  STARTUP_CONVERGE_DONE: boolean;
  STARTUP_CONVERGE_IN_PROGRESS: number;
  STARTUP_CONVERGE_NOT_STARTED: boolean;
  CONVERGE_COUNT: number;
  CONVERGE_RESTARTS: number;
  LAST_CONVERGE_RESTART?: ConvergeRestart;
}

export class ConvergeStatus {
  firstPhase: FirstConvergePhase = 'NotStarted';
  /** Converge tasks in main at the last count. */
  inProgress = 0;
  /** Start of the running converge (ms), and the durations of finished ones. */
  startedAt: number | undefined;
  lastDurationMs: number | undefined;
  convergeCount = 0;
  /** Converges cut short and started again, and the last such restart. */
  restarts = 0;
  lastRestart: ConvergeRestart | undefined;
  private readonly doneListeners: Array<() => void> = [];

  constructor(private readonly now: () => number = Date.now) {}

  get ready(): boolean {
    return this.firstPhase === 'Done';
  }

  /** Resolves when the first converge is done. */
  whenFirstDone(): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve) => this.doneListeners.push(resolve));
  }

  /** A running converge was replaced by a new one (the converge in progress goes on: not counted as done). */
  restarted(cause: string, phase: string): void {
    this.restarts++;
    this.lastRestart = { cause, phase, at: this.now() };
  }

  /** Recounts after a task of main; returns true when this count ended the first converge. */
  update(mainTasks: readonly OperatorTask[]): boolean {
    const first = this.firstPhase !== 'Done';
    let count = 0;
    for (const t of mainTasks) if (isConvergeTask(t, first)) count++;
    const was = this.inProgress;
    this.inProgress = count;
    if (was === 0 && count > 0) {
      this.startedAt = this.now();
      if (this.firstPhase === 'NotStarted') this.firstPhase = 'InProgress';
    }
    if (was > 0 && count === 0) {
      this.lastDurationMs = this.startedAt === undefined ? undefined : this.now() - this.startedAt;
      this.startedAt = undefined;
      this.convergeCount++;
      if (this.firstPhase === 'InProgress') {
        this.firstPhase = 'Done';
        for (const l of this.doneListeners.splice(0)) l();
        return true;
      }
    }
    return false;
  }

  /** The text of `/status/converge`: Go's lines, then the converge count and the restarts. */
  text(): string {
    let go: string;
    if (this.firstPhase === 'NotStarted') go = 'STARTUP_CONVERGE_NOT_STARTED\n';
    else if (this.firstPhase === 'InProgress') go = `STARTUP_CONVERGE_IN_PROGRESS: ${this.inProgress} tasks\n`;
    else go = `STARTUP_CONVERGE_DONE\n${this.inProgress > 0 ? `CONVERGE_IN_PROGRESS: ${this.inProgress} tasks` : 'CONVERGE_WAIT_TASK'}\n`;
    const r = this.lastRestart;
    return `${go}CONVERGE_COUNT: ${this.convergeCount}\nCONVERGE_RESTARTS: ${this.restarts}\n${r ? `LAST_CONVERGE_RESTART: ${r.cause} in phase ${r.phase} at ${new Date(r.at).toISOString()}\n` : ''}`;
  }

  json(): ConvergeStatusJson {
    const done = this.firstPhase === 'Done';
    return {
      CONVERGE_IN_PROGRESS: done ? this.inProgress : 0,
      CONVERGE_WAIT_TASK: done && this.inProgress === 0,
      STARTUP_CONVERGE_DONE: done,
      STARTUP_CONVERGE_IN_PROGRESS: this.firstPhase === 'InProgress' ? this.inProgress : 0,
      STARTUP_CONVERGE_NOT_STARTED: this.firstPhase === 'NotStarted',
      CONVERGE_COUNT: this.convergeCount,
      CONVERGE_RESTARTS: this.restarts,
      ...(this.lastRestart ? { LAST_CONVERGE_RESTART: { ...this.lastRestart } } : {}),
    };
  }
}
