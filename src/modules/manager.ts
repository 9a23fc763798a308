/**
 * The state of all modules between lifecycle steps: the module set and its values store, the global
 * hooks, each module's hooks (loaded when the module is first enabled, HOOKS.md "Module hook"), the
 * enabled flags from every source, and the enabled list. Runs a hook with the values view it must
 * see (VALUES.md) and applies its values outputs. Knows nothing of queues: the operator drives it.
 */
import { join } from 'node:path';
import type { JsonObject } from '../util/json.js';
import { jsonEqual } from '../util/json.js';
import type { ConfigData, EnabledFlag } from '../config/configmap.js';
import { loadHooks, type Hook, type HookRunRequest, type HookRuntimeOptions, type LoadHooksOptions } from '../hooks/hook.js';
import { applyValuesOutputs } from '../hooks/apply-values.js';
import type { HookOutputs } from '../hooks/executor.js';
import type { BindingContext, SnapshotSource } from '../hooks/binding-context.js';
import { loadModuleSet, type Module, type ModuleSet } from './module-set.js';
import { resolveEnabled, type DynamicFlag, type EnabledDecision, type EnabledExtender } from './enabled.js';
import { enabledScriptRunner } from './enabled-script.js';
import { splitPathList } from './discovery.js';

export interface ModuleManagerOptions {
  modulesDir: string;
  globalHooksDir: string;
  unnumberedOrder?: number;
  /** Every modules dir and every module must have a values.yaml (STRICT_CHECK_VALUES_MODE_ENABLED). */
  strictValues?: boolean;
  /** The sources of the enabled state that take part (APPLIED_MODULE_EXTENDERS; all when absent). */
  extenders?: ReadonlySet<EnabledExtender>;
  tmpDir: string;
  hookTimeoutMs: number;
  keepTmpFiles?: boolean;
  warn?: (message: string) => void;
  /** Debug log lines (files in hooks dirs that are not hooks). */
  debug?: (message: string) => void;
  /** Builds the runtime (logger labels...) for one hook run. */
  runtimeFor?: (hook: Hook, contexts: readonly BindingContext[]) => Partial<HookRuntimeOptions>;
}

export interface HookRunOutcome {
  outputs: HookOutputs;
  /** The scope's effective values changed (a config or values patch). */
  valuesChanged: boolean;
  /** The new config section to persist (ConfigMap key `global` or the module's key). */
  savedConfig?: { key: string; values: JsonObject };
  /** A global hook changed a module's Enabled flag. */
  enabledFlagsChanged: boolean;
}

/** What a new config means for the lifecycle (LIFECYCLE-STEPS step 16). */
export interface ConfigChange {
  globalChanged: boolean;
  enabledFlagsChanged: boolean;
  /** Modules (by name) whose config section changed. */
  modulesChanged: string[];
  /** Modules (by name) whose maintenance state (`<camelName>Maintenance`) changed. */
  maintenanceChanged: string[];
}

export interface DiscoveryResult {
  decisions: EnabledDecision[];
  enabled: string[];
  /** Enabled now, not before (their onStartup hooks run). */
  toEnable: string[];
  /** Enabled before, not now (ModuleDelete). */
  toDisable: string[];
  /**
   * Modules of toEnable whose config, stored unchecked (Go checks only enabled modules' sections),
   * fails their config schema: one message each, naming the keys. Their last valid config is restored.
   */
  invalidConfigs: string[];
}

const SKIP_REASONS = {
  'not-executable': 'not executable',
  'ignored-extension': 'not a hook (.yaml, .json, .md or .txt)',
  'broken-symlink': 'a broken symlink',
  'directory-loop': 'a symlink back to a directory above it',
  'not-a-file': 'not a regular file',
} as const;

/** A file in a hooks directory that is not run: a warning when it lacks the x bit (as Go's "file is skipped"), else debug. */
function skipLogger(opts: ModuleManagerOptions): LoadHooksOptions['onSkip'] {
  return (e) => {
    if (e.reason === 'not-executable') opts.warn?.(`${e.path}: skipped, not executable: chmod +x is required to run this hook`);
    else opts.debug?.(`${e.path}: skipped, ${SKIP_REASONS[e.reason]}`);
  };
}

export class ModuleManager {
  readonly set: ModuleSet;
  readonly globalHooks: Hook[];
  private readonly opts: ModuleManagerOptions;
  private readonly moduleHooksByName = new Map<string, Hook[]>();
  private configFlags = new Map<string, EnabledFlag>();
  /** Modules (by name) in the maintenance state NoResourceReconciliation. */
  private maintenance = new Set<string>();
  private readonly dynamicFlags = new Map<string, DynamicFlag>();
  private enabledList: string[] = [];
  private decisions = new Map<string, EnabledDecision>();

  private constructor(set: ModuleSet, globalHooks: Hook[], opts: ModuleManagerOptions) {
    this.set = set;
    this.globalHooks = globalHooks;
    this.opts = opts;
  }

  /** Loads modules and global hooks; a bad global hook is an error (the operator exits with 1). */
  static async load(opts: ModuleManagerOptions): Promise<ModuleManager> {
    const set = loadModuleSet({ modulesDirs: splitPathList(opts.modulesDir), globalHooksDir: opts.globalHooksDir, unnumberedOrder: opts.unnumberedOrder, strictValues: opts.strictValues, warn: opts.warn });
    const globalHooks = await loadHooks(join(opts.globalHooksDir, 'hooks'), { kind: 'global', timeoutMs: opts.hookTimeoutMs, onSkip: skipLogger(opts) });
    return new ModuleManager(set, globalHooks, opts);
  }

  get store() {
    return this.set.store;
  }

  get enabledModules(): readonly string[] {
    return this.enabledList;
  }

  /** Why the module is enabled or disabled, as the last discovery decided (undefined before the first). */
  decision(name: string): EnabledDecision | undefined {
    return this.decisions.get(name);
  }

  module(name: string): Module {
    const m = this.set.byName.get(name);
    if (!m) throw new Error(`unknown module "${name}"`);
    return m;
  }

  /** The module's hooks, loaded (and configured) the first time; errors fail the module's discovery. */
  async moduleHooks(name: string): Promise<Hook[]> {
    let hooks = this.moduleHooksByName.get(name);
    if (!hooks) {
      const m = this.module(name);
      hooks = m.def.hooksDir ? await loadHooks(m.def.hooksDir, { kind: 'module', module: name, timeoutMs: this.opts.hookTimeoutMs, onSkip: skipLogger(this.opts) }) : [];
      this.moduleHooksByName.set(name, hooks);
    }
    return hooks;
  }

  /** Module hooks loaded so far (of modules enabled at some point). */
  loadedModuleHooks(): Hook[] {
    return [...this.moduleHooksByName.values()].flat();
  }

  /**
   * Applies a new config (all or nothing) and says what changed. Module sections are compared with
   * what the store had; Enabled flags with the previous flags.
   */
  applyConfig(config: ConfigData): ConfigChange {
    const store = this.store;
    const oldGlobal = store.global.configValues;
    const oldModules = new Map(this.set.modules.map((m) => [m.def.name, m.values.configValues]));
    const enabledNow = new Set(this.enabledList.map((n) => this.module(n).def.valuesKey));
    // Go checks a module's section only for an enabled module: enabled now, or by this config's flag
    const checkModule = (key: string): boolean => enabledNow.has(key) || config.modules.get(key)?.enabled?.value === true;
    const { unknownModules } = store.applyConfig({ global: config.global, modules: config.modules, checkModule });
    for (const key of unknownModules) this.opts.warn?.(`config has values for "${key}", which names no module; ignored`);
    const newFlags = new Map([...config.modules].filter(([, m]) => m.enabled).map(([k, m]) => [k, m.enabled!]));
    const flagsChanged =
      newFlags.size !== this.configFlags.size || [...newFlags].some(([k, f]) => this.configFlags.get(k)?.value !== f.value);
    this.configFlags = newFlags;
    const maintenance = new Set(this.set.modules.filter((m) => config.modules.get(m.def.valuesKey)?.noResourceReconciliation === true).map((m) => m.def.name));
    const maintenanceChanged = this.set.modules.map((m) => m.def.name).filter((n) => maintenance.has(n) !== this.maintenance.has(n));
    this.maintenance = maintenance;
    return {
      maintenanceChanged,
      globalChanged: !jsonEqual(oldGlobal, store.global.configValues),
      enabledFlagsChanged: flagsChanged,
      modulesChanged: this.set.modules.filter((m) => !jsonEqual(oldModules.get(m.def.name), m.values.configValues)).map((m) => m.def.name),
    };
  }

  /** Recomputes the enabled state (LIFECYCLE.md "Modules discovery") and the diff with the last one. */
  async discover(): Promise<DiscoveryResult> {
    const decisions = await resolveEnabled(
      this.set,
      { configFlags: this.configFlags, dynamicFlags: this.dynamicFlags, ...(this.opts.extenders ? { extenders: this.opts.extenders } : {}) },
      enabledScriptRunner({ store: this.store, tmpDir: this.opts.tmpDir, timeoutMs: this.opts.hookTimeoutMs, keepTmpFiles: this.opts.keepTmpFiles }),
    );
    const enabled = decisions.filter((d) => d.enabled).map((d) => d.name);
    for (const name of enabled) await this.moduleHooks(name);
    const before = new Set(this.enabledList);
    const now = new Set(enabled);
    const toEnable = enabled.filter((n) => !before.has(n));
    // a module's config is checked when the module becomes enabled, before its first run
    const invalid = this.store.checkConfigsOnEnable(toEnable.map((n) => this.module(n).def.valuesKey));
    for (const key of invalid.keys()) this.store.module(key).restoreLastValidConfig();
    const result: DiscoveryResult = {
      decisions,
      enabled,
      toEnable,
      // deletion runs in reverse module order
      toDisable: [...this.enabledList].reverse().filter((n) => !now.has(n)),
      invalidConfigs: [...invalid.values()],
    };
    this.enabledList = enabled;
    this.decisions = new Map(decisions.map((d) => [d.name, d]));
    return result;
  }

  private runtime(hook: Hook, contexts: readonly BindingContext[], extra?: Partial<HookRuntimeOptions>): HookRuntimeOptions {
    return { tmpDir: this.opts.tmpDir, timeoutMs: this.opts.hookTimeoutMs, keepTmpFiles: this.opts.keepTmpFiles, ...this.opts.runtimeFor?.(hook, contexts), ...extra };
  }

  /** Runs a global hook with `{"global": ...}` views and applies its values outputs. */
  async runGlobalHook(hook: Hook, contexts: readonly BindingContext[], snapshots?: SnapshotSource, rt?: Partial<HookRuntimeOptions>): Promise<HookRunOutcome> {
    const store = this.store;
    const req: HookRunRequest = { contexts, snapshots, values: store.globalHookValues(), configValues: store.globalHookConfigValues() };
    const outputs = await hook.run(req, this.runtime(hook, contexts, rt));
    const applied = applyValuesOutputs(store.global, outputs, hook.name, 'global');
    let enabledFlagsChanged = false;
    for (const [key, value] of applied.enabledFlags) {
      const had = this.dynamicFlags.get(key);
      if (value === null) {
        if (had) this.dynamicFlags.delete(key);
        enabledFlagsChanged ||= had !== undefined;
      } else {
        this.dynamicFlags.set(key, { value, hook: hook.name });
        enabledFlagsChanged ||= had?.value !== value;
      }
    }
    return {
      outputs,
      valuesChanged: applied.valuesChanged,
      savedConfig: applied.savedConfig ? { key: 'global', values: applied.savedConfig } : undefined,
      enabledFlagsChanged,
    };
  }

  /** Runs a module hook with the module's views (global values carry `enabledModules`). */
  async runModuleHook(moduleName: string, hook: Hook, contexts: readonly BindingContext[], snapshots?: SnapshotSource, rt?: Partial<HookRuntimeOptions>): Promise<HookRunOutcome> {
    const m = this.module(moduleName);
    const key = m.def.valuesKey;
    const req: HookRunRequest = {
      contexts,
      snapshots,
      values: this.store.moduleHookValues(key, this.enabledList),
      configValues: this.store.moduleHookConfigValues(key),
    };
    const outputs = await hook.run(req, this.runtime(hook, contexts, rt));
    const applied = applyValuesOutputs(m.values, outputs, `${moduleName}/${hook.name}`, 'module');
    return {
      outputs,
      valuesChanged: applied.valuesChanged,
      savedConfig: applied.savedConfig ? { key, values: applied.savedConfig } : undefined,
      enabledFlagsChanged: false,
    };
  }

  /** True while the config holds `<camelName>Maintenance: NoResourceReconciliation` for the module. */
  inMaintenance(name: string): boolean {
    return this.maintenance.has(name);
  }

  /** Forgets a disabled module's volatile state; its config values stay (DESIGN §4.9). */
  resetModule(name: string): void {
    this.module(name).values.resetPatches();
  }
}
