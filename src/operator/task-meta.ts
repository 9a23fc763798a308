/**
 * The operator's tasks: one metadata shape per task type, constructors that keep the task type and
 * the metadata in step, the task description of `queue list` (addon-operator's
 * HookMetadata.GetDescription, reference/addon-operator.md §3.2), and the names of the parallel
 * queues. Their handlers are in tasks/, one file per task type.
 */
import { newTask, type Task } from '../queue/index.js';
import type { Hook } from '../hooks/hook.js';
import { bindingNameOf, type BindingContext } from '../hooks/binding-context.js';
import type { ConfigData } from '../config/configmap.js';

/** Binding types as Go names them (shell-operator `types.BindingType`). */
export type BindingType =
  | 'onStartup'
  | 'schedule'
  | 'kubernetes'
  | 'beforeAll'
  | 'afterAll'
  | 'beforeHelm'
  | 'afterHelm'
  | 'beforeDeleteHelm'
  | 'afterDeleteHelm'
  | 'kubernetesValidating'
  | 'kubernetesMutating'
  | 'kubernetesCustomResourceConversion';

/** Why a converge runs (addon-operator's ConvergeEvent). */
export type ConvergeEvent = 'OperatorStartup' | 'GlobalValuesChanged' | 'ReloadAllModules';

/** Marks a Synchronization hook run: which binding's events it unlocks. */
export interface SyncMark {
  binding: string;
  /** Whether the module run / startup waits for it. */
  wait: boolean;
}

interface HookRunCommon {
  hook: Hook;
  bindingType: BindingType;
  contexts: BindingContext[];
  event: string;
  allowFailure: boolean;
  sync?: SyncMark;
  /** Synchronization runs of the same hook combined into this one (grouped bindings): finished with it. */
  combinedSyncs?: { taskId: string; sync: SyncMark }[];
}

export interface GlobalHookRunMeta extends HookRunCommon {
  kind: 'GlobalHookRun';
  /** A kubernetes event that changes global values reloads all modules. */
  reloadAllOnValuesChanges: boolean;
  /** Set on the last afterAll hook: the global checksum before the first afterAll hook. */
  afterAllChecksum?: string;
}

export interface ModuleHookRunMeta extends HookRunCommon {
  kind: 'ModuleHookRun';
  module: string;
}

export interface ModuleRunMeta {
  kind: 'ModuleRun';
  module: string;
  doStartup: boolean;
  /** Part of a converge ("reload all modules"). */
  reloadAll: boolean;
  event: string;
  /** Set when the run belongs to a ParallelModuleRun: that task's id. */
  parallelGroup?: string;
  /** A functional module's run of a converge: its success frees the modules requiring it (functional-scheduler.ts). */
  functional?: boolean;
}

/** Modules of one order number run in parallel queues (`--parallel-module-runs` > 1). */
export interface ParallelModuleRunMeta {
  kind: 'ParallelModuleRun';
  modules: { module: string; doStartup: boolean }[];
  reloadAll: boolean;
  event: string;
}

export interface ModuleDeleteMeta {
  kind: 'ModuleDelete';
  module: string;
  event: string;
}

/** ModuleEnsureCRDs / ModuleEnsureHooks: a module's CRDs or ConversionWebhooks ahead of the converge's runs. */
export interface ModuleEnsureMeta {
  kind: 'ModuleEnsureCRDs' | 'ModuleEnsureHooks';
  module: string;
  event: string;
}

export interface ModulePurgeMeta {
  kind: 'ModulePurge';
  release: string;
  event: string;
}

export interface ConvergeModulesMeta {
  kind: 'ConvergeModules';
  convergeEvent: ConvergeEvent;
  event: string;
  /** Put at the head of main while another converge runs: it ends that one when it starts. */
  restart?: boolean;
}

export interface EnableBindingsMeta {
  kind: 'GlobalHookEnableScheduleBindings' | 'GlobalHookEnableKubernetesBindings';
  hook: Hook;
  event: string;
}

export interface SimpleMeta {
  kind: 'GlobalHookWaitKubernetesSynchronization' | 'DiscoverHelmReleases';
  event: string;
}

export interface ApplyKubeConfigValuesMeta {
  kind: 'ApplyKubeConfigValues';
  event: string;
  /** The config read from the source, parsed (valid as a config; the module manager may still reject it). */
  config: ConfigData;
}

export type TaskMeta =
  | GlobalHookRunMeta
  | ModuleHookRunMeta
  | ModuleRunMeta
  | ParallelModuleRunMeta
  | ModuleDeleteMeta
  | ModuleEnsureMeta
  | ModulePurgeMeta
  | ConvergeModulesMeta
  | EnableBindingsMeta
  | SimpleMeta
  | ApplyKubeConfigValuesMeta;

export type OperatorTask = Task<TaskMeta>;

/** Queues of parallel module runs: `parallel_queue_N`, as in the Go operator. */
export const PARALLEL_QUEUE_PREFIX = 'parallel_queue_';
export const isParallelQueue = (name: string): boolean => name.startsWith(PARALLEL_QUEUE_PREFIX);

/** The hook's name as `queue list` and logs show it: `hooks/x.sh` or `<module>/hooks/x.sh` (DESIGN §4.7). */
export function hookLabel(hook: Hook): string {
  return hook.module ? `${hook.module}/${hook.name}` : hook.name;
}

function bindingNames(contexts: readonly BindingContext[]): string {
  const names = [...new Set(contexts.map(bindingNameOf))].sort();
  let s = names.length ? `:${names.join(',')}` : '';
  if (contexts.length > 1) s += ` in ${contexts.length} contexts`;
  return s;
}

/** `<meta>` of a task description, as Go's HookMetadata.GetDescription writes it. */
export function describeMeta(meta: TaskMeta): string {
  switch (meta.kind) {
    case 'GlobalHookRun':
    case 'ModuleHookRun':
      return `${meta.bindingType}:${hookLabel(meta.hook)}${bindingNames(meta.contexts)}:${meta.event}`;
    case 'ModuleRun':
      return `${meta.module}${meta.doStartup ? ':doStartup' : ''}:${meta.event}`;
    case 'ParallelModuleRun':
      return `Parallel run for ${meta.modules.map((m) => m.module).join(', ')}:${meta.event}`;
    case 'ModuleDelete':
    case 'ModuleEnsureCRDs':
    case 'ModuleEnsureHooks':
      return `${meta.module}:${meta.event}`;
    case 'ModulePurge':
      return `${meta.release}:${meta.event}`;
    case 'GlobalHookEnableScheduleBindings':
    case 'GlobalHookEnableKubernetesBindings':
      return `:${hookLabel(meta.hook)}:${meta.event}`;
    default:
      // Go fills only EventDescription here: empty binding type and hook name.
      return `::${meta.event}`;
  }
}

export function makeTask<M extends TaskMeta>(meta: M, queue = 'main'): Task<TaskMeta> {
  const compactionId = (meta.kind === 'ModuleHookRun' || meta.kind === 'GlobalHookRun') && !meta.sync ? meta.hook.id : undefined;
  return newTask<TaskMeta>({ type: meta.kind, metadata: meta, queue, compactionId, describe: describeMeta });
}

/**
 * Merges queued contexts of one hook (queue compaction, reference §5.1): contexts without a group keep
 * their order, then the last context of each group, in the order the groups first appeared.
 */
export function compactContexts(contexts: readonly BindingContext[]): BindingContext[] {
  const ungrouped: BindingContext[] = [];
  const lastOfGroup = new Map<string, BindingContext>();
  for (const c of contexts) {
    const group = c.type === 'onStartup' || c.type === 'lifecycle' ? undefined : c.group;
    if (group) lastOfGroup.set(group, c);
    else ungrouped.push(c);
  }
  return [...ungrouped, ...lastOfGroup.values()];
}

/** The labels every log line of a running task carries (Go's task log labels). */
export function taskLogLabels(task: Task<TaskMeta>, queue: string): Record<string, string> {
  const m = task.metadata;
  const labels: Record<string, string> = { queue, task: task.type, 'event.type': m.event };
  if ('module' in m) labels.module = m.module;
  if ('hook' in m) labels.hook = m.hook.name;
  if ('bindingType' in m) labels.binding = m.bindingType;
  return labels;
}
