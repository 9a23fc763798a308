/**
 * Turns the queues' task events into metrics, the status page's module records and the progress
 * lines of the log: one line when a module run starts and one when it ends
 * (`[12/40] module ingress-nginx: installed in 1.8s`), and one when a converge ends.
 */
import type { TaskFinishedEvent, TaskStartedEvent } from '../queue/index.js';
import type { Runtime } from './runtime.js';
import type { TaskMeta } from './task-meta.js';

function waitLabels(meta: TaskMeta, taskType: string, queue: string) {
  switch (meta.kind) {
    case 'GlobalHookRun':
    case 'ModuleHookRun':
      return {
        module: meta.kind === 'ModuleHookRun' ? meta.module : '',
        hook: meta.hook.name,
        binding: meta.sync?.binding ?? meta.contexts.map((c) => (c.type === 'onStartup' ? '' : c.binding)).find(Boolean) ?? meta.bindingType,
        queue,
      };
    case 'ModuleRun':
    case 'ModuleDelete':
      return { module: meta.module, hook: '', binding: taskType, queue };
    default:
      return { module: '', hook: '', binding: taskType, queue };
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;

const OUTCOME_TEXT: Record<string, string> = { installed: 'installed', upgraded: 'upgraded', unchanged: 'release up to date' };

export function observeTasks(rt: Runtime): void {
  const metrics = rt.opts.metrics;
  let convergesSeen = rt.convergeStatus.convergeCount;
  let convergeActivation = '';

  const progress = (module: string) => {
    const list = rt.manager.enabledModules;
    return `[${list.indexOf(module) + 1}/${list.length}]`;
  };

  rt.queues.on('taskStarted', (e: TaskStartedEvent<TaskMeta>) => {
    // a task may run several times (Keep, Repeat): what follows is for its first start
    if (e.task.firstStartedAt !== undefined) return;
    e.task.firstStartedAt = performance.now();
    const meta = e.task.metadata;
    metrics?.taskWait(waitLabels(meta, e.task.type, e.queue), e.waitMs / 1000);
    if (meta.kind === 'ConvergeModules') convergeActivation = meta.convergeEvent;
    if (meta.kind === 'ModuleRun') rt.log.info({ module: meta.module, queue: e.queue, event: meta.event }, `${progress(meta.module)} module ${meta.module}: run started`);
  });

  rt.queues.on('taskFinished', (e: TaskFinishedEvent<TaskMeta>) => {
    const done = e.status === 'Success' || e.status === 'Fail';
    const meta = e.task.metadata;
    if (done) {
      const started = e.task.firstStartedAt;
      e.task.firstStartedAt = undefined;
      const ms = started === undefined ? e.durationMs : performance.now() - started;
      const ok = e.status === 'Success';
      if (meta.kind === 'ModuleRun') {
        metrics?.moduleRun(meta.module, rt.activation(), ms / 1000, ok);
        const release = rt.activity.lastReleaseOutcome(meta.module);
        rt.activity.moduleRun(meta.module, { at: Date.now() - ms, durationMs: ms, result: ok ? 'success' : 'error', ...(ok ? {} : { error: e.error }) });
        const what = ok ? `${OUTCOME_TEXT[release ?? ''] ?? 'done'} in ${seconds(ms)}` : `failed after ${seconds(ms)}`;
        if (ok) rt.log.info({ module: meta.module, queue: e.queue }, `${progress(meta.module)} module ${meta.module}: ${what}`);
        else rt.log.warn({ module: meta.module, queue: e.queue, error: e.error }, `${progress(meta.module)} module ${meta.module}: ${what}`);
      } else if (meta.kind === 'ModuleDelete') {
        if (ok) rt.log.info({ module: meta.module, queue: e.queue }, `module ${meta.module}: deleted in ${seconds(ms)}`);
        else metrics?.moduleDeleteError(meta.module);
      } else if (!ok && (meta.kind === 'ConvergeModules' || meta.kind === 'ApplyKubeConfigValues')) {
        metrics?.discoverError();
      }
    }
    if (rt.convergeStatus.convergeCount > convergesSeen) {
      convergesSeen = rt.convergeStatus.convergeCount;
      const ms = rt.convergeStatus.lastDurationMs ?? 0;
      metrics?.convergence(convergeActivation, ms / 1000);
      const enabled = rt.manager.enabledModules.length;
      rt.log.info(
        { converge: convergesSeen, activation: convergeActivation, enabledModules: enabled, disabledModules: rt.manager.set.modules.length - enabled },
        `converge #${convergesSeen} done in ${seconds(ms)}: ${enabled} of ${rt.manager.set.modules.length} modules enabled`,
      );
    }
  });
}
