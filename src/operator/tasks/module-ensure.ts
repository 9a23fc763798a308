/**
 * ModuleEnsureCRDs and ModuleEnsureHooks (the Go operator's d9021959 and #790): ahead of a converge's
 * module runs, a module's crds/ CRDs (so that every hook binding to those kinds finds them served) and
 * the ConversionWebhook objects its chart renders (so that its release adopts them). A failure fails
 * the task, which is retried; a module disabled meanwhile is skipped. The last ModuleEnsureCRDs of a
 * converge puts the kinds ensured in `global.discovery.apiVersions`.
 */
import { TaskResults } from '../../queue/index.js';
import { isPlainObject } from '../../util/json.js';
import { errorMessage } from '../../util/errors.js';
import type { Runtime } from '../runtime.js';
import type { TaskHandler } from './shared.js';

export const moduleEnsureCrds: TaskHandler<'ModuleEnsureCRDs'> = async (rt, task, queue) => {
  const { module } = task.metadata;
  const ensure = rt.opts.helm.ensureModuleCrds?.bind(rt.opts.helm);
  if (ensure && rt.isEnabled(module)) {
    try {
      const { crds, apiVersions } = await ensure(module, rt.manager.module(module).def.path);
      if (crds.length) rt.log.info({ module, crds }, 'module CRDs ensured before the converge');
      for (const v of apiVersions) rt.crdApiVersions.add(v);
    } catch (e) {
      return TaskResults.fail(e);
    }
  }
  // the last of the converge's ModuleEnsureCRDs: the modules about to run see the kinds in the values
  if (!queue.tasks().some((t) => t !== task && t.metadata.kind === 'ModuleEnsureCRDs')) setDiscoveryApiVersions(rt);
  return TaskResults.success();
};

/**
 * `global.discovery.apiVersions`: the sorted `group/version/Kind` of every CRD ensured so far, as a
 * global values patch (Go's SetGlobalDiscoveryAPIVersions). Only for a module set in Deckhouse's form
 * (a module.yaml in it): the Go operator's fs loader, which reads none, leaves the key alone.
 */
function setDiscoveryApiVersions(rt: Runtime): void {
  if (!rt.crdApiVersions.size || !rt.manager.set.modules.some((m) => m.def.definitionFile !== undefined)) return;
  const global = rt.manager.store.global;
  const apiVersions = [...rt.crdApiVersions].sort();
  const discovery = global.effective().discovery;
  const op = isPlainObject(discovery)
    ? { op: 'add' as const, path: '/global/discovery/apiVersions', value: apiVersions }
    : { op: 'add' as const, path: '/global/discovery', value: { apiVersions } };
  try {
    global.applyValuesPatch([op], 'ModuleEnsureCRDs');
  } catch (e) {
    rt.log.error({ error: errorMessage(e) }, 'global.discovery.apiVersions not set');
  }
}

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
