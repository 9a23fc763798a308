/**
 * A converge restart (docs/operator.md "Converge restarts", reference/addon-operator.md §5.7): a new
 * ConvergeModules put at the head of main ends the converge in progress when it starts. That
 * converge's tasks go (main up to and including its ConvergeModules, and the parallel queues); module
 * runs it cut short keep what they finished (onStartup done, Synchronization done) and redo what
 * they did not (a Synchronization cut short starts again with fresh monitors); ModuleDelete tasks it
 * removed stay owed (Converge.owesDelete).
 */
import type { TaskQueue } from '../queue/index.js';
import { isConvergeTask } from './converge-status.js';
import type { Runtime } from './runtime.js';
import { isParallelQueue, type OperatorTask, type TaskMeta } from './task-meta.js';

/** Resolves when every task of `ids` has finished its current handler call. */
function finished(rt: Runtime, ids: Set<string>): Promise<void> {
  if (ids.size === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const off = rt.queues.on('taskFinished', (e) => {
      ids.delete(e.task.id);
      if (ids.size === 0) {
        off();
        resolve();
      }
    });
  });
}

/** Converge tasks of the parallel queues, and Synchronization runs of `modules` in other queues. */
function strayTask(rt: Runtime, q: TaskQueue<TaskMeta>, t: OperatorTask, modules: ReadonlySet<string>): boolean {
  if (isParallelQueue(q.name)) return isConvergeTask(t, false);
  return q !== rt.main && t.metadata.kind === 'ModuleHookRun' && t.metadata.sync !== undefined && modules.has(t.metadata.module);
}

/** Module runs cut between onStartup and the end of their Synchronization. */
function modulesMidSync(rt: Runtime): string[] {
  return rt.manager.enabledModules.filter((m) => {
    const phase = rt.peekModuleState(m)?.phase;
    return phase === 'QueueSynchronizationTasks' || phase === 'WaitForSynchronization';
  });
}

/**
 * Ends the converge in progress for `next` (the restarting ConvergeModules, running at the head of
 * main). Returns the number of tasks removed.
 */
export async function endConvergeInProgress(rt: Runtime, next: OperatorTask, main: TaskQueue<TaskMeta>): Promise<number> {
  const oldId = rt.converge.taskId!;
  const phase = rt.converge.phase;
  const items = main.tasks();
  const end = items.findIndex((t) => t.id === oldId);
  const doomed = new Set(items.slice(0, end + 1).filter((t) => t !== next && !t.processing && isConvergeTask(t, false)).map((t) => t.id));
  let removed = main.removeWhere((t) => doomed.has(t.id)).length;
  rt.converge.dropParallelGroups();
  rt.functional.reset();

  // runs in other queues: running ones finish their step first (they may queue more), then all go
  let midSync = new Set(modulesMidSync(rt));
  for (;;) {
    const running = new Set(
      rt.queues
        .queues()
        .flatMap((q) => q.tasks().filter((t) => t.processing && strayTask(rt, q, t, midSync)))
        .map((t) => t.id),
    );
    if (running.size === 0) break;
    await finished(rt, running);
    midSync = new Set(modulesMidSync(rt));
  }
  for (const q of rt.queues.queues()) removed += q.removeWhere((t) => !t.processing && strayTask(rt, q, t, midSync)).length;

  // a Synchronization cut short starts again: monitors stop, and the next run lists afresh
  for (const module of midSync) {
    for (const hook of await rt.manager.moduleHooks(module)) await rt.bindingsOf(hook).disableKubernetes();
    const state = rt.moduleState(module);
    state.pendingSync.clear();
    state.phase = 'Startup';
  }
  const cause = next.metadata.event;
  rt.convergeStatus.restarted(cause, phase);
  rt.log.info({ cause, phase, removedTasks: removed }, `converge restarted: ${cause} arrived in phase ${phase}`);
  return removed;
}
