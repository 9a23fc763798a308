/**
 * The task handlers, one per task type, found by the task's type (operator.ts dispatches through this
 * table; addon-operator keeps one package per task type, pkg/task/tasks/<type>).
 */
import type { TaskHandler, TaskKind } from './shared.js';
import { applyKubeConfigValues } from './apply-kube-config-values.js';
import { convergeModules } from './converge-modules.js';
import { discoverHelmReleases } from './discover-helm-releases.js';
import { enableKubernetesBindings } from './global-hook-enable-kubernetes-bindings.js';
import { enableScheduleBindings } from './global-hook-enable-schedule-bindings.js';
import { globalHookRun } from './global-hook-run.js';
import { waitKubernetesSynchronization } from './global-hook-wait-kubernetes-synchronization.js';
import { moduleDelete } from './module-delete.js';
import { moduleEnsureCrds, moduleEnsureHooks } from './module-ensure.js';
import { moduleHookRun } from './module-hook-run.js';
import { modulePurge } from './module-purge.js';
import { moduleRun } from './module-run.js';
import { parallelModuleRun } from './parallel-module-run.js';

export type { TaskHandler, TaskKind, TaskOf } from './shared.js';

export const TASK_HANDLERS: { readonly [K in TaskKind]: TaskHandler<K> } = {
  GlobalHookRun: globalHookRun,
  ModuleHookRun: moduleHookRun,
  GlobalHookEnableScheduleBindings: enableScheduleBindings,
  GlobalHookEnableKubernetesBindings: enableKubernetesBindings,
  GlobalHookWaitKubernetesSynchronization: waitKubernetesSynchronization,
  ConvergeModules: convergeModules,
  ModuleRun: moduleRun,
  ParallelModuleRun: parallelModuleRun,
  ModuleDelete: moduleDelete,
  ModuleEnsureCRDs: moduleEnsureCrds,
  ModuleEnsureHooks: moduleEnsureHooks,
  ModulePurge: modulePurge,
  DiscoverHelmReleases: discoverHelmReleases,
  ApplyKubeConfigValues: applyKubeConfigValues,
};
