/**
 * Queue compaction (reference/addon-operator.md §5.1): counts a queue's compactable tasks per
 * compaction id; once an id has `threshold` tasks queued, merges every waiting task of that id into
 * the first waiting one, which then takes later tasks of the id (added last) at once while it waits.
 * TaskQueue owns the task list and calls in here as tasks come, start and go.
 */
import type { Task, TaskType } from './task.js';
import { COMPACTION_THRESHOLD } from './timing.js';

export interface CompactionOptions<M> {
  /** Task types that may be merged (addon-operator: `ModuleHookRun`; add `GlobalHookRun` if wanted). */
  types: readonly TaskType[];
  /**
   * Merges `from` (later tasks with the same compaction id, queue order) into `into`, the first
   * non-running one: e.g. concatenate binding contexts and monitor ids into `into.metadata`. The `from`
   * tasks are removed from the queue.
   */
  merge: (into: Task<M>, from: readonly Task<M>[]) => void;
  /** Tasks of one compaction id that trigger a compaction (default 100). */
  threshold?: number;
}

export interface CompactionEvent<M> {
  queue: string;
  compactionId: string;
  /** The task the others were merged into. */
  into: Task<M>;
  /** How many tasks were merged into it by this operation. */
  merged: number;
}

export class Compactor<M> {
  private readonly compactableTypes: ReadonlySet<TaskType>;
  private readonly threshold: number;
  /**
   * Queued compactable tasks per compaction id. Ids that had tasks stay, at 0: a map emptied and filled
   * again at every task (a queue that drains as fast as it fills) makes V8 allocate it a new table
   * each time, in its old generation, as garbage only a full collection frees.
   */
  private readonly idCounts = new Map<string, number>();
  /** Compaction ids that reached the threshold since their last compaction. */
  private readonly reachedCap = new Set<string>();
  /** After a compaction: the task that later tasks of the same id (added last) merge into at once. */
  private readonly mergeTargets = new Map<string, Task<M>>();
  private readonly compactions = new Map<string, number>();

  constructor(
    private readonly options: CompactionOptions<M> | undefined,
    /** Receives the compaction operations (the queue emits them). */
    private readonly onCompaction: (compactionId: string, into: Task<M>, merged: number) => void,
    /** Receives what the merge function throws (the merge is then skipped). */
    private readonly onMergeError: (err: unknown) => void,
  ) {
    this.compactableTypes = new Set(options?.types ?? []);
    this.threshold = Math.max(2, options?.threshold ?? COMPACTION_THRESHOLD);
  }

  /** Some compaction id reached the threshold: `compact` has work. */
  get due(): boolean {
    return this.reachedCap.size > 0;
  }

  /** Compaction operations per compaction id so far. */
  counts(): ReadonlyMap<string, number> {
    return new Map(this.compactions);
  }

  /** Queued compactable tasks per compaction id. */
  taskCounts(): ReadonlyMap<string, number> {
    return new Map([...this.idCounts].filter(([, n]) => n > 0));
  }

  /** A task joined the queue. */
  added(t: Task<M>): void {
    const cid = this.idOf(t);
    if (cid === undefined) return;
    const n = (this.idCounts.get(cid) ?? 0) + 1;
    this.idCounts.set(cid, n);
    if (n >= this.threshold) this.reachedCap.add(cid);
  }

  /** A task left the queue. */
  removed(t: Task<M>): void {
    const cid = this.idOf(t);
    if (cid === undefined) return;
    const n = Math.max(0, (this.idCounts.get(cid) ?? 0) - 1);
    this.idCounts.set(cid, n);
    if (n < this.threshold) this.reachedCap.delete(cid);
    if (this.mergeTargets.get(cid) === t) this.mergeTargets.delete(cid);
  }

  /** A task starts running: it takes no more merges. */
  started(t: Task<M>): void {
    if (t.compactionId !== undefined && this.mergeTargets.get(t.compactionId) === t) this.mergeTargets.delete(t.compactionId);
  }

  /**
   * Merges `t` (being added last) into the waiting merge target of its id, if there is one; true when
   * merged (`t` is then not added). `queued(target)`: the target is still in the queue.
   */
  mergeIntoTarget(t: Task<M>, queued: (target: Task<M>) => boolean): boolean {
    const cid = this.idOf(t);
    if (cid === undefined) return false;
    const into = this.mergeTargets.get(cid);
    if (!into || into._processing || !queued(into)) return false;
    if (!this.callMerge(into, [t])) return false;
    this.count(cid, into, 1);
    return true;
  }

  /**
   * Merges all non-running tasks of each id that reached the threshold into the first non-running task
   * of that id; returns the tasks merged away (already counted as removed), for the queue to drop.
   */
  compact(items: readonly Task<M>[]): ReadonlySet<Task<M>> {
    const wanted = new Set(this.reachedCap);
    this.reachedCap.clear();
    const groups = new Map<string, { into: Task<M>; from: Task<M>[] }>();
    for (const t of items) {
      const cid = this.idOf(t);
      if (cid === undefined || !wanted.has(cid) || t._processing) continue;
      const g = groups.get(cid);
      if (g) g.from.push(t);
      else groups.set(cid, { into: t, from: [] });
    }
    const drop = new Set<Task<M>>();
    for (const [cid, g] of groups) {
      if (g.from.length === 0) continue;
      if (!this.callMerge(g.into, g.from)) continue;
      for (const t of g.from) drop.add(t);
      this.mergeTargets.set(cid, g.into);
      this.count(cid, g.into, g.from.length);
    }
    if (drop.size === 0) return drop;
    for (const t of drop) this.removed(t);
    for (const [cid, n] of this.idCounts) if (n >= this.threshold) this.reachedCap.add(cid);
    return drop;
  }

  private idOf(t: Task<M>): string | undefined {
    if (!this.options || t.compactionId === undefined) return undefined;
    return this.compactableTypes.has(t.type) ? t.compactionId : undefined;
  }

  private callMerge(into: Task<M>, from: readonly Task<M>[]): boolean {
    try {
      this.options!.merge(into, from);
      return true;
    } catch (err) {
      this.onMergeError(err);
      return false;
    }
  }

  private count(cid: string, into: Task<M>, merged: number): void {
    this.compactions.set(cid, (this.compactions.get(cid) ?? 0) + 1);
    this.onCompaction(cid, into, merged);
  }
}
