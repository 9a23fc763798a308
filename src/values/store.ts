/**
 * All values of the operator: the `global` scope and one scope per module, and the views VALUES.md
 * prescribes for global hooks, module hooks, `enabled` scripts and Helm.
 */
import { UserError, UserErrors } from '../util/errors.js';
import type { JsonObject } from '../util/json.js';
import { ScopeValues, ValuesValidationError } from './scope.js';
import type { LayerSource } from './layers.js';

export const GLOBAL = 'global';

/** What the config source provides for one apply: the global section and module sections by key. */
export interface ConfigSections {
  global?: JsonObject;
  modules: ReadonlyMap<string, { values?: JsonObject }>;
  /** Names the source in layer descriptions, e.g. key names of a ConfigMap. */
  sourceOf?: (key: string) => LayerSource;
  /**
   * Whether a module's section is checked against its config schema: Go checks only enabled modules
   * (a disabled module's config is stored unchecked). Every module when not given.
   */
  checkModule?: (key: string) => boolean;
}

export class ValuesStore {
  readonly global: ScopeValues;
  private readonly modules = new Map<string, ScopeValues>();

  constructor(global: ScopeValues) {
    this.global = global;
  }

  addModule(scope: ScopeValues): void {
    if (scope.key === GLOBAL) throw new UserError('a module may not use the values key "global"');
    this.modules.set(scope.key, scope);
  }

  module(key: string): ScopeValues {
    const m = this.modules.get(key);
    if (!m) throw new Error(`no values scope for module key "${key}"`);
    return m;
  }

  hasModule(key: string): boolean {
    return this.modules.has(key);
  }

  moduleKeys(): string[] {
    return [...this.modules.keys()];
  }

  /**
   * Replaces the config sections of every scope, all or nothing, checking them as Go's
   * validateNewKubeConfig does: the global section only when the config has one (the ConfigMap's
   * `global` key), a module's section only when it is not empty and `checkModule` says so. On any
   * problem nothing changes and all problems are reported. Sections for unknown modules are returned
   * (the caller logs them).
   */
  applyConfig(config: ConfigSections): { unknownModules: string[] } {
    const plan: { scope: ScopeValues; values: JsonObject; source: LayerSource; checked: boolean }[] = [];
    const problems: string[] = [];
    const unknownModules: string[] = [];
    const sourceOf = config.sourceOf ?? ((key: string): LayerSource => ({ kind: 'configmap', key }));
    const check = (scope: ScopeValues, values: JsonObject, validate: boolean) => {
      const source = sourceOf(scope.key);
      try {
        if (validate) scope.checkConfig(values, source);
        plan.push({ scope, values, source, checked: validate });
      } catch (e) {
        if (e instanceof ValuesValidationError) problems.push(e.message);
        else throw e;
      }
    };
    check(this.global, config.global ?? {}, config.global !== undefined);
    for (const [key, scope] of this.modules) {
      const values = config.modules.get(key)?.values ?? {};
      check(scope, values, Object.keys(values).length > 0 && (config.checkModule?.(key) ?? true));
    }
    for (const key of config.modules.keys()) if (!this.modules.has(key) && config.modules.get(key)?.values) unknownModules.push(key);
    if (problems.length) throw new UserErrors('config values are not valid', problems);
    for (const p of plan) p.scope.storeConfig(p.values, p.source, p.checked);
    return { unknownModules };
  }

  /**
   * Modules becoming enabled: each config stored unchecked (while the module was disabled, or before
   * the first discovery) is checked against its config schema now, before the module's first run.
   * Returns the messages of those that fail, by values key (their configs stay as they are).
   */
  checkConfigsOnEnable(keys: readonly string[]): Map<string, string> {
    const problems = new Map<string, string>();
    for (const key of keys) {
      try {
        this.module(key).checkUncheckedConfig();
      } catch (e) {
        if (e instanceof ValuesValidationError) problems.set(key, e.message);
        else throw e;
      }
    }
    return problems;
  }

  /** $VALUES_PATH of a global hook: `{"global": ...}`. */
  globalHookValues(): JsonObject {
    return { [GLOBAL]: this.global.effective() };
  }

  /** $CONFIG_VALUES_PATH of a global hook. */
  globalHookConfigValues(): JsonObject {
    return { [GLOBAL]: this.global.configValues };
  }

  /**
   * $VALUES_PATH of a module hook or `enabled` script: global values with `enabledModules`, and the
   * module's own section (DESIGN §4.2).
   */
  moduleHookValues(key: string, enabledModules: readonly string[]): JsonObject {
    return {
      [GLOBAL]: { ...this.global.effective(), enabledModules: [...enabledModules] },
      [key]: this.module(key).effective(),
    };
  }

  /** $CONFIG_VALUES_PATH of a module hook or `enabled` script. */
  moduleHookConfigValues(key: string): JsonObject {
    return { [GLOBAL]: this.global.configValues, [key]: this.module(key).configValues };
  }

  /** What the module's chart gets as .Values: no `enabledModules`. */
  helmValues(key: string): JsonObject {
    return { [GLOBAL]: this.global.effective(), [key]: this.module(key).effective() };
  }
}
