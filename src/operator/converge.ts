/**
 * The converge ("reload all modules", reference/addon-operator.md §5.5) as one object: the phase of the
 * ConvergeModules task in progress and its id, the deletes a discovery made owed, the parallel groups
 * main waits on, the global Synchronization runs start-up waits for; and the rules that queue a
 * converge: one waiting at most, and a restart of the one in progress (its end: converge-restart.ts).
 */
import type { Logger } from 'pino';
import type { TaskQueue } from '../queue/index.js';
import { makeTask, type ConvergeEvent, type OperatorTask, type TaskMeta } from './task-meta.js';

/** Phases of a ConvergeModules task (reference §5.5). */
export type ConvergePhase = 'StandBy' | 'WaitBeforeAll' | 'WaitDeleteAndRunModules' | 'WaitAfterAll';

export class Converge {
  private phaseNow: ConvergePhase = 'StandBy';
  private taskIdNow: string | undefined;
  /** Modules a discovery disabled whose ModuleDelete has not run yet (a restart keeps them). */
  private readonly deletes = new Set<string>();
  /** ParallelModuleRun task id → modules of the group that have not succeeded yet. */
  private readonly parallelGroups = new Map<string, Set<string>>();
  /** Global Synchronization runs in other queues that start-up waits for, by task id. */
  private readonly globalSyncs = new Set<string>();

  constructor(
    private readonly main: TaskQueue<TaskMeta>,
    private readonly log: Logger,
  ) {}

  get phase(): ConvergePhase {
    return this.phaseNow;
  }

  /** The ConvergeModules task in progress (phase ≠ StandBy). */
  get taskId(): string | undefined {
    return this.taskIdNow;
  }

  // ---- phases ------------------------------------------------------------------------------------

  /**
   * `task` becomes the converge that runs: one in progress is ended first (`endInProgress`, a restart:
   * converge-restart.ts), and `task` starts from StandBy. Nothing changes when it already runs.
   */
  async takeOver(task: OperatorTask, endInProgress: () => Promise<unknown>): Promise<void> {
    if (this.taskIdNow === task.id) return;
    if (this.taskIdNow !== undefined) await endInProgress();
    this.phaseNow = 'StandBy';
  }

  /** `task` starts: its beforeAll hooks come next. */
  begin(task: OperatorTask): void {
    this.taskIdNow = task.id;
    this.phaseNow = 'WaitBeforeAll';
  }

  /** Modules are discovered, their deletes and runs queued. */
  modulesQueued(): void {
    this.phaseNow = 'WaitDeleteAndRunModules';
  }

  /** The afterAll hooks are queued. */
  afterAllQueued(): void {
    this.phaseNow = 'WaitAfterAll';
  }

  /** The converge is done. */
  finish(): void {
    this.phaseNow = 'StandBy';
    this.taskIdNow = undefined;
  }

  // ---- deletes owed ------------------------------------------------------------------------------

  /** A discovery disabled the module: its ModuleDelete is owed until it runs. */
  owesDelete(module: string): void {
    this.deletes.add(module);
  }

  owes(module: string): boolean {
    return this.deletes.has(module);
  }

  /** The deletes owed for modules `enabled` again are off; returns those modules. */
  forgiveDeletes(enabled: ReadonlySet<string>): string[] {
    const forgiven = [...this.deletes].filter((m) => enabled.has(m));
    for (const m of forgiven) this.deletes.delete(m);
    return forgiven;
  }

  deleteDone(module: string): void {
    this.deletes.delete(module);
  }

  // ---- parallel groups ---------------------------------------------------------------------------

  /** The modules of a ParallelModuleRun that have not succeeded yet; undefined before the group started. */
  parallelGroup(taskId: string): ReadonlySet<string> | undefined {
    return this.parallelGroups.get(taskId);
  }

  startParallelGroup(taskId: string, modules: readonly string[]): ReadonlySet<string> {
    const pending = new Set(modules);
    this.parallelGroups.set(taskId, pending);
    return pending;
  }

  endParallelGroup(taskId: string): void {
    this.parallelGroups.delete(taskId);
  }

  /** A module of a parallel group succeeded; main goes on at once when it was the last one. */
  parallelModuleDone(group: string, module: string): void {
    const pending = this.parallelGroups.get(group);
    if (!pending?.delete(module)) return;
    this.log.info({ module }, 'module of a parallel run done');
    if (pending.size === 0) this.main.cancelDelay();
  }

  /** A restart: the groups' runs are gone. */
  dropParallelGroups(): void {
    this.parallelGroups.clear();
  }

  // ---- global Synchronization --------------------------------------------------------------------

  awaitGlobalSync(taskId: string): void {
    this.globalSyncs.add(taskId);
  }

  globalSyncDone(taskId: string): void {
    this.globalSyncs.delete(taskId);
  }

  get waitsForGlobalSync(): boolean {
    return this.globalSyncs.size > 0;
  }

  // ---- queueing converges ------------------------------------------------------------------------

  /** A ConvergeModules task waits in main (not the one in progress). */
  pending(): boolean {
    return this.main.tasks().some((t) => t.metadata.kind === 'ConvergeModules' && t.id !== this.taskIdNow && !t.processing);
  }

  newTask(convergeEvent: ConvergeEvent, event: string): OperatorTask {
    return makeTask({ kind: 'ConvergeModules', convergeEvent, event });
  }

  /** Appends a converge to main unless one is already waiting. */
  request(convergeEvent: ConvergeEvent, event: string): void {
    if (this.pending()) return;
    this.main.addLast(this.newTask(convergeEvent, event));
  }

  /**
   * Modules must be discovered again (an enabled flag or the global config changed): a converge in
   * progress is restarted (a new ConvergeModules at the head of main ends it when it starts, see
   * docs/operator.md), otherwise one is appended. `flagsOnly`: nothing but enabled flags changed, so
   * a converge that has not discovered modules yet needs no restart.
   */
  requestReloadAll(event: string, flagsOnly = false): void {
    const current = this.taskIdNow === undefined ? undefined : this.main.get(this.taskIdNow);
    if (!current) return this.request('ReloadAllModules', event);
    if (flagsOnly && this.phaseNow === 'WaitBeforeAll' && !current.processing) return;
    // one restart at most: a waiting one reads the latest state when it starts
    if (this.main.tasks().some((t) => t.metadata.kind === 'ConvergeModules' && t.metadata.restart && t !== current && !t.processing)) return;
    this.main.addFirst(makeTask({ kind: 'ConvergeModules', convergeEvent: 'ReloadAllModules', event, restart: true }));
  }
}
