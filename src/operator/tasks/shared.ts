/**
 * What the task handlers share: the handler's signature, and the steps more than one task type takes
 * (a module's lifecycle hooks in order; a hook run's combining, Synchronization bookkeeping and
 * allowFailure).
 */
import { combineBindingContexts, lifecycleContext, type BindingContext } from '../../hooks/binding-context.js';
import type { Hook } from '../../hooks/hook.js';
import { hooksInOrder } from '../../hooks/order.js';
import type { ModuleLifecycleBinding } from '../../hooks/config-types.js';
import { TaskResults, type TaskQueue, type TaskResult } from '../../queue/index.js';
import { errorMessage } from '../../util/errors.js';
import type { Runtime } from '../runtime.js';
import { hookLabel, type GlobalHookRunMeta, type ModuleHookRunMeta, type OperatorTask, type TaskMeta } from '../task-meta.js';

export type TaskKind = TaskMeta['kind'];

/** A task whose metadata is that of its type (an intersection, not Extract: some metadata shapes serve two types). */
export type TaskOf<K extends TaskKind> = OperatorTask & { metadata: TaskMeta & { kind: K } };

/** Runs one task of type K once; its result tells the queue what comes next. */
export type TaskHandler<K extends TaskKind = TaskKind> = (
  rt: Runtime,
  task: TaskOf<K>,
  queue: TaskQueue<TaskMeta>,
  signal: AbortSignal,
) => Promise<TaskResult<TaskMeta>> | TaskResult<TaskMeta>;

/** How long a waiting task sleeps between checks (shell-operator polls every 125 ms). */
export const WAIT_POLL_MS = 100;

/** Runs the module's hooks of a lifecycle binding (beforeHelm, afterHelm, ...) in order. */
export async function runLifecycle(rt: Runtime, module: string, hooks: readonly Hook[], binding: ModuleLifecycleBinding, queue: string): Promise<void> {
  for (const hook of hooksInOrder(hooks, binding)) {
    await rt.hookRunner.runModuleHook(module, hook, [lifecycleContext(hook.config, binding)], binding, queue);
  }
}

// ---- hook runs (GlobalHookRun, ModuleHookRun) ------------------------------------------------------

type HookRunMeta = GlobalHookRunMeta | ModuleHookRunMeta;

function asCombinable(t: OperatorTask) {
  const m = t.metadata as HookRunMeta;
  return { task: t, hookKey: m.hook?.id ?? '', taskType: t.type + (m.sync ? ':sync' : ''), contexts: m.contexts };
}

/**
 * The tasks from `from` on, looked at lazily: combining stops at the first task for another hook, and
 * the queue may be long. A generator of the module, not one declared in combineFollowing: each
 * generator function made per call gave its generator objects a hidden class of their own, which V8
 * keeps until a full collection, and with it the queue's tasks the closure saw (docs/performance.md,
 * "Profile and fix": 112 against 46 MB reaching the old generation over bench/memory's events).
 */
function* following(all: readonly OperatorTask[], from: number) {
  for (let i = from; i < all.length; i++) yield asCombinable(all[i]!);
}

/**
 * Takes the tasks for the same hook that directly follow `task` into its contexts (v1 hooks only). A
 * Synchronization run combines only when its binding has a group (shell-operator: the grouped
 * Synchronization runs of a hook collapse into one run with one Group context); the combined runs'
 * bindings are unlocked when this one finishes.
 */
function combineFollowing(task: OperatorTask, meta: HookRunMeta, queue: TaskQueue<TaskMeta>): void {
  const all = queue.tasks();
  const combined = combineBindingContexts(asCombinable(task), following(all, all.indexOf(task) + 1), { hookVersion: meta.hook.config.version });
  if (!combined) return;
  for (const c of combined.combined) {
    queue.remove(c.task.id);
    const m = c.task.metadata as HookRunMeta;
    if (m.sync) (meta.combinedSyncs ??= []).push({ taskId: c.task.id, sync: m.sync }, ...(m.combinedSyncs ?? []));
  }
  meta.contexts = combined.contexts;
}

/** A Synchronization run that the hook does not want executed (v0, executeHookOnSynchronization: false). */
export function skipsSynchronization(meta: HookRunMeta): boolean {
  if (!meta.sync) return false;
  if (meta.hook.config.version === 'v0') return true;
  const binding = meta.hook.config.kubernetes.find((b) => b.name === meta.sync!.binding);
  return binding ? !binding.executeHookOnSynchronization : true;
}

/** A Synchronization run ended: its bindings' events flow, and whoever waited for it stops waiting. */
export function finishSync(rt: Runtime, task: OperatorTask, meta: HookRunMeta): void {
  if (!meta.sync) return;
  for (const { taskId, sync } of [{ taskId: task.id, sync: meta.sync }, ...(meta.combinedSyncs ?? [])]) {
    rt.bindingsOf(meta.hook).unlock(sync.binding);
    if (meta.kind === 'GlobalHookRun') rt.converge.globalSyncDone(taskId);
    else rt.moduleState(meta.module).pendingSync.delete(taskId);
  }
}

async function runHook(rt: Runtime, task: OperatorTask, meta: HookRunMeta, queue: TaskQueue<TaskMeta>) {
  combineFollowing(task, meta, queue);
  const contexts: BindingContext[] = meta.contexts;
  return meta.kind === 'GlobalHookRun'
    ? rt.hookRunner.runGlobalHook(meta.hook, contexts, meta.bindingType, queue.name)
    : rt.hookRunner.runModuleHook(meta.module, meta.hook, contexts, meta.bindingType, queue.name);
}

/** Runs the hook (after its rate limit) with the contexts combined; a failure with allowFailure is logged and counts as success. */
export async function attemptHookRun(rt: Runtime, task: OperatorTask, meta: HookRunMeta, queue: TaskQueue<TaskMeta>, signal: AbortSignal) {
  // a rate-limited hook waits for its turn (stopping cuts the wait short: the task runs again later)
  if (!(await rt.hookRunner.rateLimit(meta.hook, signal))) return { failure: TaskResults.repeat<TaskMeta>() };
  const labels = { module: meta.kind === 'ModuleHookRun' ? meta.module : undefined, hook: meta.hook.name, binding: meta.bindingType, queue: queue.name, activation: rt.activation() };
  try {
    const outcome = await runHook(rt, task, meta, queue);
    rt.opts.metrics?.hookTaskResult(labels, 'success');
    return { outcome };
  } catch (e) {
    rt.opts.metrics?.hookTaskResult(labels, meta.allowFailure ? 'allowed' : 'error');
    if (!meta.allowFailure) return { failure: TaskResults.fail<TaskMeta>(e) };
    rt.log.warn({ hook: hookLabel(meta.hook), queue: queue.name, error: errorMessage(e) }, 'hook failed; allowFailure is set, so the task succeeds');
    return { allowedFailure: true };
  }
}
