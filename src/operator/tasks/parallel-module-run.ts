/**
 * ParallelModuleRun (`--parallel-module-runs` above 1, DESIGN decision 7): one ModuleRun per module of
 * the group into at most N parallel queues (each queue runs its modules one by one, so at most N run
 * at once); done when every one has succeeded. A failing module is retried in its own queue, alone.
 * Main waits here, so the next order number starts only after the whole group.
 */
import { TaskResults } from '../../queue/index.js';
import { makeTask, PARALLEL_QUEUE_PREFIX } from '../task-meta.js';
import type { TaskHandler } from './shared.js';

export const parallelModuleRun: TaskHandler<'ParallelModuleRun'> = (rt, task) => {
  const meta = task.metadata;
  let pending = rt.converge.parallelGroup(task.id);
  if (!pending) {
    const live = meta.modules.filter((m) => rt.isEnabled(m.module));
    pending = rt.converge.startParallelGroup(task.id, live.map((m) => m.module));
    const n = Math.min(rt.opts.parallelModuleRuns, live.length);
    live.forEach((m, i) =>
      rt.queues.addLast(
        makeTask({ kind: 'ModuleRun', module: m.module, doStartup: m.doStartup, reloadAll: meta.reloadAll, event: meta.event, parallelGroup: task.id }, `${PARALLEL_QUEUE_PREFIX}${i % n}`),
      ),
    );
    rt.log.info({ modules: live.map((m) => m.module), queues: n }, 'parallel module run started');
  }
  // woken by the last module's success (Converge.parallelModuleDone); the poll is a fallback
  if (pending.size > 0) return TaskResults.repeat({ delayBeforeNextTask: 1000 });
  rt.converge.endParallelGroup(task.id);
  return TaskResults.success();
};
