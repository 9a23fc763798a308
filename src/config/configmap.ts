/**
 * The ConfigMap config format (VALUES.md "ConfigMap/addon-operator"): every data key holds a YAML
 * string — `global`, `<camelName>` (a map; the legacy `"false"` disables the module, DESIGN §4.3),
 * `<camelName>Enabled` (`"true"`/`"false"`), `<camelName>Maintenance` (`NoResourceReconciliation` or
 * `""`, the Go operator's maintenance mode). Pure parsing: no cluster access here.
 */
import { UserError, UserErrors } from '../util/errors.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { parseYaml } from '../util/yaml.js';
import { LIMITS, formatBytes, readFileLimited } from '../util/limits.js';

export interface EnabledFlag {
  value: boolean;
  /** The data key that set it: `fooEnabled`, or `foo` for the legacy `foo: "false"`. */
  key: string;
}

export interface ModuleConfig {
  /** The module's config section; absent when the ConfigMap has no `<camelName>` map. */
  values?: JsonObject;
  enabled?: EnabledFlag;
  /** `<camelName>Maintenance: NoResourceReconciliation`: Helm and the resources monitor leave its objects alone. */
  noResourceReconciliation?: boolean;
}

export interface ConfigData {
  global?: JsonObject;
  /** By camelCase values key. */
  modules: Map<string, ModuleConfig>;
}

/** `isValidValuesKey` is passed in: config/ sits below modules/ and must not import it. */
export type KeyCheck = (valuesKey: string) => boolean;

const ENABLED_SUFFIX = 'Enabled';
const MAINTENANCE_SUFFIX = 'Maintenance';
const MAINTENANCE_STATES = ['NoResourceReconciliation', 'noresourcereconciliation', ''];

function moduleEntry(out: ConfigData, key: string): ModuleConfig {
  let m = out.modules.get(key);
  if (!m) out.modules.set(key, (m = {}));
  return m;
}

export function parseBool(v: unknown): boolean | undefined {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  return undefined;
}

/**
 * Parses ConfigMap data. `where` names the source for messages ("ConfigMap kube-system/addon-operator",
 * "config.yaml"). All problems are reported together.
 */
export function parseConfigData(data: Record<string, unknown>, where: string, isValidKey: KeyCheck): ConfigData {
  const out: ConfigData = { modules: new Map() };
  const problems: string[] = [];
  const keys = Object.keys(data).sort();
  // the API server's limit of a ConfigMap's data, checked before any YAML is parsed
  let size = 0;
  for (const key of keys) size += Buffer.byteLength(key) + (typeof data[key] === 'string' ? Buffer.byteLength(data[key]) : 0);
  if (size > LIMITS.configMap) {
    const largest = [...keys].sort((a, b) => (typeof data[b] === 'string' ? (data[b] as string).length : 0) - (typeof data[a] === 'string' ? (data[a] as string).length : 0))[0];
    throw new UserErrors(`invalid config in ${where}`, [`${where} is too large: its data holds ${size} bytes, more than the limit of a ConfigMap, ${formatBytes(LIMITS.configMap)} (the largest key is "${largest}"); refused`]);
  }
  for (const key of keys) {
    const raw = data[key];
    const src = `${where}, key "${key}"`;
    if (raw !== null && raw !== undefined && typeof raw !== 'string') {
      problems.push(`${src}: a ConfigMap value must be a string holding YAML (write "${key}: |" and indent the YAML below it)`);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = raw ? parseYaml(raw, src) : null;
    } catch (e) {
      problems.push((e as Error).message);
      continue;
    }
    if (key === 'global') {
      if (parsed === null) out.global = {};
      else if (isPlainObject(parsed)) out.global = parsed;
      else problems.push(`${src}: global config must be a YAML map, got ${JSON.stringify(parsed)}`);
      continue;
    }
    if (key.endsWith(MAINTENANCE_SUFFIX) && isValidKey(key.slice(0, -MAINTENANCE_SUFFIX.length))) {
      // the Go operator compares the raw string; "" (or no key) is the normal, managed state
      const state = typeof raw === 'string' ? raw : '';
      if (MAINTENANCE_STATES.includes(state)) moduleEntry(out, key.slice(0, -MAINTENANCE_SUFFIX.length)).noResourceReconciliation = state !== '';
      else problems.push(`${src}: module maintenance state can only be "NoResourceReconciliation", "noresourcereconciliation" or "", got ${JSON.stringify(raw)}`);
      continue;
    }
    if (key.endsWith(ENABLED_SUFFIX) && key.length > ENABLED_SUFFIX.length) {
      const mod = key.slice(0, -ENABLED_SUFFIX.length);
      if (!isValidKey(mod)) {
        problems.push(`${src}: bad module name "${mod}": it should be the camelCase form of a module directory name`);
        continue;
      }
      const b = parseBool(parsed);
      if (b === undefined) problems.push(`${src}: must be "true" or "false", got ${JSON.stringify(raw)}`);
      else moduleEntry(out, mod).enabled = { value: b, key };
      continue;
    }
    if (!isValidKey(key)) {
      problems.push(`${src}: bad module name "${key}": it should be the camelCase form of a module directory name`);
      continue;
    }
    if (parsed === false) {
      const m = moduleEntry(out, key);
      if (!m.enabled) m.enabled = { value: false, key };
    } else if (parsed === null) {
      moduleEntry(out, key).values = {};
    } else if (isPlainObject(parsed)) {
      moduleEntry(out, key).values = parsed;
    } else {
      problems.push(`${src}: module config must be a YAML map (or "false" to disable the module), got ${JSON.stringify(parsed)}`);
    }
  }
  // an explicit `<name>Enabled` wins over the legacy `<name>: "false"` in the same ConfigMap
  for (const key of keys) {
    if (!key.endsWith(ENABLED_SUFFIX)) continue;
    const mod = key.slice(0, -ENABLED_SUFFIX.length);
    const b = parseBool(data[key]);
    const m = out.modules.get(mod);
    if (m && b !== undefined) m.enabled = { value: b, key };
  }
  if (problems.length) throw new UserErrors(`invalid config in ${where}`, problems);
  return out;
}

/**
 * Reads a config file for commands that run without a cluster: a ConfigMap manifest (its `data`) or
 * a bare data map.
 */
export function readConfigFile(file: string, isValidKey: KeyCheck): ConfigData {
  let text: string;
  try {
    text = readFileLimited(file, LIMITS.valuesFile, `config file ${file}`);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`cannot read config file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const doc = parseYaml(text, file);
  if (doc === null) return { modules: new Map() };
  if (!isPlainObject(doc)) throw new UserError(`${file}: expected a ConfigMap manifest or a map of ConfigMap data keys`);
  const isManifest = doc.kind === 'ConfigMap' || (typeof doc.apiVersion === 'string' && 'data' in doc);
  const data = isManifest ? (doc.data ?? {}) : doc;
  if (!isPlainObject(data)) throw new UserError(`${file}: ConfigMap "data" must be a map`);
  return parseConfigData(data, file, isValidKey);
}
