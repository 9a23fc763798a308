import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError, UserErrors } from '../util/errors.js';
import { readConfigFile, type ConfigData } from '../config/configmap.js';
import { isValidValuesKey } from '../modules/names.js';
import { splitPathList } from '../modules/discovery.js';
import { loadModuleSet, type ModuleSet } from '../modules/module-set.js';
import { loadChart, renderChart } from '../helm/index.js';
import { resolveEnabled } from '../modules/enabled.js';
import { enabledScriptRunner } from '../modules/enabled-script.js';
import { parseDuration, parseOrder } from './env.js';
import type { JsonObject } from '../util/json.js';

export interface RenderOptions {
  values?: boolean;
  modulesDir: string;
  globalHooksDir: string;
  config?: string;
  unnumberedModulesOrder: string;
  tmpDir?: string;
  enabledScriptTimeout: string;
  namespace: string;
}

export interface ValuesReport {
  global: JsonObject;
  enabledModules: string[];
  modules: Record<string, JsonObject>;
}

async function computeState(opts: RenderOptions, only: string[], warn: (m: string) => void): Promise<{ report: ValuesReport; set: ModuleSet; printed: string[] }> {
  const globalHooksDir = opts.globalHooksDir;
  const explicitGlobal = opts.globalHooksDir !== 'global-hooks';
  if (explicitGlobal && !existsSync(globalHooksDir)) throw new UserError(`global hooks dir ${globalHooksDir} does not exist`);
  const set = loadModuleSet({
    modulesDirs: splitPathList(opts.modulesDir),
    globalHooksDir: existsSync(globalHooksDir) ? globalHooksDir : undefined,
    unnumberedOrder: parseOrder(opts.unnumberedModulesOrder, '--unnumbered-modules-order'),
    warn,
  });
  for (const name of only) if (!set.byName.has(name)) throw new UserError(`no module named "${name}" in ${opts.modulesDir}`);
  const config: ConfigData = opts.config ? readConfigFile(opts.config, isValidValuesKey) : { modules: new Map() };
  const { unknownModules } = set.store.applyConfig({
    global: config.global,
    modules: config.modules,
    sourceOf: (key) => ({ kind: 'configmap', key, origin: opts.config }),
    // as at start-up: no module is enabled yet, so only sections the config itself enables are checked
    // here; the others once the enabled modules are known (below)
    checkModule: (key) => config.modules.get(key)?.enabled?.value === true,
  });
  for (const key of unknownModules) warn(`config has values for "${key}", which names no module; ignored`);
  const configFlags = new Map([...config.modules].filter(([, m]) => m.enabled).map(([k, m]) => [k, m.enabled!]));
  const decisions = await resolveEnabled(
    set,
    { configFlags },
    enabledScriptRunner({
      store: set.store,
      tmpDir: opts.tmpDir ?? join(tmpdir(), 'addon-operator'),
      timeoutMs: parseDuration(opts.enabledScriptTimeout, '--enabled-script-timeout'),
      log: (module, stream, line) => warn(`module ${module}: enabled script ${stream}: ${line}`),
    }),
  );
  // the values schemas are checked after hook patches and before Helm, never on static values alone
  const enabledModules = decisions.filter((d) => d.enabled).map((d) => d.name);
  // the config of an enabled module is checked as the operator checks it when the module becomes enabled
  const invalid = set.store.checkConfigsOnEnable(enabledModules.map((name) => set.byName.get(name)!.def.valuesKey));
  if (invalid.size) throw new UserErrors('config values are not valid', [...invalid.values()]);
  const modules: Record<string, JsonObject> = {};
  const printed = enabledModules.filter((name) => only.length === 0 || only.includes(name));
  for (const name of printed) {
    const m = set.byName.get(name)!;
    // the operator checks a module's values for Helm (openapi/values.yaml with x-required-for-helm)
    // before it renders the chart, and installs nothing when they fail
    if (m.def.hasChart) {
      set.store.global.validateEffective('helm');
      m.values.validateEffective('helm');
    }
    modules[m.def.valuesKey] = m.values.effective();
  }
  return { report: { global: set.store.global.effective(), enabledModules, modules }, set, printed };
}

/** What `helm template` would print for each printed module's release (values for Helm, Helm's default capabilities). */
function renderManifests(set: ModuleSet, printed: string[], namespace: string, warn: (m: string) => void): string {
  let out = '';
  for (const name of printed) {
    const m = set.byName.get(name)!;
    if (!m.def.hasChart) continue;
    let text: string;
    try {
      const chart = loadChart(m.def.path, { syntheticName: name });
      text = renderChart(chart, set.store.helmValues(m.def.valuesKey), { releaseName: name, namespace, warn: (w) => warn(`module ${name}: ${w}`) }).output;
    } catch (e) {
      if (e instanceof UserError) throw new UserError(`module ${name}: ${e.message}`, { cause: e });
      throw e;
    }
    if (text.trim() !== '') out += text;
  }
  return out;
}

/** `render [module...]`: the values (--values) or the manifests of the printed modules, on stdout. */
export async function runRender(only: string[], opts: RenderOptions): Promise<void> {
  const warn = (m: string) => console.error(`warning: ${m}`);
  const { report, set, printed } = await computeState(opts, only, warn);
  if (opts.values) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else process.stdout.write(renderManifests(set, printed, opts.namespace, warn));
}
