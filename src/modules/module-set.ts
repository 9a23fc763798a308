/**
 * Loads everything about the modules that does not need a cluster: discovery, static values files,
 * OpenAPI schemas, and the values store built from them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserError, UserErrors } from '../util/errors.js';
import { ScopeValues, ValuesStore, loadScopeSchemas, ScopeSchemas, GLOBAL, type StaticLayer } from '../values/index.js';
import { discoverModules, type ModuleDefinition } from './discovery.js';
import { readModulesDirValues, readModuleValues, type FileFlag } from './static-values.js';

export interface Module {
  def: ModuleDefinition;
  values: ScopeValues;
  /** Enabled flags from values files, lowest precedence first. */
  fileFlags: FileFlag[];
}

export interface ModuleSet {
  /** In execution order. */
  modules: Module[];
  byName: Map<string, Module>;
  store: ValuesStore;
}

export interface LoadOptions {
  modulesDirs: string[];
  /** `$GLOBAL_HOOKS_DIR`: its `openapi/` holds the global schemas. */
  globalHooksDir?: string;
  unnumberedOrder?: number;
  /** A modules dir or a module without values.yaml is an error (the Go operator's strict mode). */
  strictValues?: boolean;
  warn?: (message: string) => void;
}

function collect<T>(problems: string[], f: () => T): T | undefined {
  try {
    return f();
  } catch (e) {
    if (e instanceof UserError) problems.push(e.message);
    else throw e;
    return undefined;
  }
}

export function loadModuleSet(opts: LoadOptions): ModuleSet {
  const defs = discoverModules({ modulesDirs: opts.modulesDirs, unnumberedOrder: opts.unnumberedOrder, warn: opts.warn });
  const dirFiles = readModulesDirValues(opts.modulesDirs);
  const problems: string[] = [];
  if (opts.strictValues) {
    // STRICT_CHECK_VALUES_MODE_ENABLED: the Go loader then requires every values.yaml it reads
    for (const dir of [...opts.modulesDirs, ...defs.map((d) => d.path)]) {
      if (!existsSync(join(dir, 'values.yaml'))) problems.push(`${join(dir, 'values.yaml')} does not exist (strict check values mode: every modules dir and every module needs one)`);
    }
    if (problems.length) throw new UserErrors('cannot load modules', problems);
  }

  const globalSchemas = opts.globalHooksDir
    ? (collect(problems, () => loadScopeSchemas(join(opts.globalHooksDir!, 'openapi'))) ?? ScopeSchemas.empty())
    : ScopeSchemas.empty();
  const global = new ScopeValues(GLOBAL, 'global', globalSchemas);
  global.setStatic(dirFiles.filter((f) => f.global).map((f): StaticLayer => ({ source: { kind: 'file', file: f.file }, values: f.global! })));
  const store = new ValuesStore(global);

  const known = new Set(defs.map((d) => d.valuesKey));
  for (const f of dirFiles) {
    for (const key of [...f.sections.keys(), ...f.flags.keys()]) {
      if (!known.has(key)) opts.warn?.(`${f.file}: "${key}" names no module found in the modules dirs; ignored`);
    }
  }

  const modules: Module[] = [];
  for (const def of defs) {
    const own = collect(problems, () => readModuleValues(def));
    // schemas compile on first use (about 20 ms each with ajv): start-up pays only for what it validates
    const schemas = collect(problems, () => loadScopeSchemas(def.openapiDir));
    if (problems.length) continue;
    const layers: StaticLayer[] = [];
    const fileFlags: FileFlag[] = [];
    for (const f of dirFiles) {
      const flag = f.flags.get(def.valuesKey);
      if (flag) fileFlags.push(flag);
      // a module's section comes from its own modules dir's values.yaml
      if (f.file === join(def.modulesDir, 'values.yaml')) {
        const section = f.sections.get(def.valuesKey);
        if (section) layers.push({ source: { kind: 'file', file: f.file }, values: section });
      }
    }
    if (own) {
      const section = own.sections.get(def.valuesKey);
      if (section) layers.push({ source: { kind: 'file', file: own.file }, values: section });
      const flag = own.flags.get(def.valuesKey);
      if (flag) fileFlags.push(flag);
    }
    const scope = new ScopeValues(def.valuesKey, `module ${def.name}`, schemas);
    scope.setStatic(layers);
    store.addModule(scope);
    modules.push({ def, values: scope, fileFlags });
  }
  if (problems.length) throw new UserErrors('cannot load modules', problems);
  return { modules, byName: new Map(modules.map((m) => [m.def.name, m])), store };
}
