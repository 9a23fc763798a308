/**
 * Starts the monitors of the enabled modules' kubernetes bindings that would share an informer keeping
 * no objects together, at a module run (the first of a converge: after the converge's CRDs are in
 * place), ahead of the other modules' runs: they share one list. Started one module run after
 * another, each but the first would list the whole collection again, as such an informer has no
 * objects to give a monitor that joins late (src/kube/shared-informer.ts): at 150,000 Pods and four
 * Pod watchers, four lists. Each module's run then takes its monitors as they are (hook-bindings.ts:
 * their snapshot is the Synchronization's, the changes before the run are not events). Monitors
 * started ahead for modules no longer enabled are stopped.
 */
import type { KubernetesBinding } from '../hooks/config-types.js';
import type { Runtime } from './runtime.js';

/**
 * What decides the informers of a binding: bindings with one key watch the same collections with the
 * same selectors. A namespace label selector's informers follow the namespaces: never grouped.
 */
function informerKey(b: KubernetesBinding): string | undefined {
  if (b.keepFullObjectsInMemory || b.namespace?.labelSelector) return undefined;
  return JSON.stringify([b.apiVersion ?? '', b.kind, b.namespace?.nameSelector ?? null, b.nameSelector ?? null, b.labelSelector ?? null, b.fieldSelector ?? null]);
}

/** Stops the monitors started ahead for the module's run (it is no longer to run). */
export async function stopPrestarted(rt: Runtime, module: string): Promise<void> {
  for (const hook of rt.manager.loadedModuleHooks()) if (hook.module === module) await rt.bindingsOf(hook).stopPrestarted();
}

/**
 * Starts ahead the monitors of bindings of `enabled` modules not running yet that share a key with
 * another; once for each discovery's list (the first module run after it).
 */
export async function prestartMonitors(rt: Runtime, enabled: readonly string[]): Promise<void> {
  if (!rt.opts.kube || rt.prestartedFor === enabled) return;
  rt.prestartedFor = enabled;
  const enabledSet = new Set(enabled);
  for (const hook of rt.manager.loadedModuleHooks()) if (!enabledSet.has(hook.module!)) await rt.bindingsOf(hook).stopPrestarted();
  const toStart = [];
  const count = new Map<string, number>();
  for (const module of enabled) {
    for (const hook of await rt.manager.moduleHooks(module)) {
      const bindings = rt.bindingsOf(hook);
      if (bindings.kubernetesEnabled || !bindings.hasKubernetes) continue;
      toStart.push(bindings);
      for (const b of hook.config.kubernetes) {
        const key = informerKey(b);
        if (key !== undefined) count.set(key, (count.get(key) ?? 0) + 1);
      }
    }
  }
  const shared = (b: KubernetesBinding) => {
    const key = informerKey(b);
    return key !== undefined && (count.get(key) ?? 0) > 1;
  };
  for (const bindings of toStart) bindings.prestartKubernetes(shared);
}
