/**
 * ModuleEnsureCRDs and ModuleEnsureHooks (the Go operator's d9021959 and #790): ahead of a converge's
 * module runs, a module's crds/ CRDs (so that every hook binding to those kinds finds them served) and
 * the ConversionWebhook objects its chart renders (so that its release adopts them). A failure fails
 * the task, which is retried; a module disabled meanwhile is skipped.
 */
import { TaskResults } from '../../queue/index.js';
import type { TaskHandler } from './shared.js';

export const moduleEnsureCrds: TaskHandler<'ModuleEnsureCRDs'> = async (rt, task) => {
  const { module } = task.metadata;
  const ensure = rt.opts.helm.ensureModuleCrds?.bind(rt.opts.helm);
  if (!ensure || !rt.isEnabled(module)) return TaskResults.success();
  try {
    const crds = await ensure(module, rt.manager.module(module).def.path);
    if (crds.length) rt.log.info({ module, crds }, 'module CRDs ensured before the converge');
  } catch (e) {
    return TaskResults.fail(e);
  }
  return TaskResults.success();
};

export const moduleEnsureHooks: TaskHandler<'ModuleEnsureHooks'> = async (rt, task) => {
  const { module } = task.metadata;
  const ensure = rt.opts.helm.ensureConversionWebhooks?.bind(rt.opts.helm);
  if (!ensure || !rt.isEnabled(module)) return TaskResults.success();
  const m = rt.manager.module(module);
  try {
    const n = await ensure({ release: module, namespace: rt.opts.namespace, chartDir: m.def.path, values: rt.manager.store.helmValues(m.def.valuesKey) });
    if (n) rt.log.info({ module, conversionWebhooks: n }, 'module conversion webhooks ensured before its release');
  } catch (e) {
    return TaskResults.fail(e);
  }
  return TaskResults.success();
};
