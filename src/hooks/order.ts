/**
 * Ordering of hooks for the ordered bindings (onStartup, beforeAll, afterAll, beforeHelm, afterHelm,
 * beforeDeleteHelm, afterDeleteHelm): by ORDER ascending, then by hook name (byte order), as HOOKS.md says
 * ("sorted by this value and then alphabetically by file name"). Deterministic, unlike Go's sort.Slice.
 */
import { lifecycleOrder, type HookConfig, type LifecycleBinding } from './config-types.js';

export type OrderedBinding = 'onStartup' | LifecycleBinding;

/** ORDER of an ordered binding for a hook, or undefined when the hook does not have that binding. */
export function bindingOrder(config: HookConfig, binding: OrderedBinding): number | undefined {
  return binding === 'onStartup' ? config.onStartup : lifecycleOrder(config, binding);
}

/** The hooks that have `binding`, sorted by (ORDER, name). */
export function hooksInOrder<T extends { readonly name: string; readonly config: HookConfig }>(hooks: readonly T[], binding: OrderedBinding): T[] {
  const withOrder: Array<{ hook: T; order: number }> = [];
  for (const hook of hooks) {
    const order = bindingOrder(hook.config, binding);
    if (order !== undefined) withOrder.push({ hook, order });
  }
  withOrder.sort((a, b) => a.order - b.order || (a.hook.name < b.hook.name ? -1 : a.hook.name > b.hook.name ? 1 : 0));
  return withOrder.map((x) => x.hook);
}
