/**
 * Reads the static values files: each modules dir's `values.yaml` (`global`, module sections,
 * `<name>Enabled` flags) and each module's own `values.yaml` (only `<name>` and `<name>Enabled`,
 * DESIGN §4.11). A module section may be the legacy `"false"`, which disables the module.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserError, UserErrors } from '../util/errors.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { lineOfPath, parseYaml } from '../util/yaml.js';
import { LIMITS, readFileLimited } from '../util/limits.js';
import { parseBool } from '../config/configmap.js';
import { isValidValuesKey } from './names.js';
import type { ModuleDefinition } from './discovery.js';

export interface FileFlag {
  value: boolean;
  file: string;
  key: string;
}

export interface ValuesFile {
  file: string;
  global?: JsonObject;
  /** Module sections by values key. */
  sections: Map<string, JsonObject>;
  /** Enabled flags by module values key. */
  flags: Map<string, FileFlag>;
}

const ENABLED = 'Enabled';

/** Reads a YAML file of the module set (at most LIMITS.valuesFile); a read error is a UserError naming it. */
export function readYamlFile(file: string): { text: string; data: unknown } {
  let text: string;
  try {
    text = readFileLimited(file, LIMITS.valuesFile, file);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return { text, data: parseYaml(text, file) };
}

function at(file: string, text: string, key: string): string {
  const line = lineOfPath(text, [key]);
  return line ? `${file}:${line}` : file;
}

/**
 * Parses one values file. `allowedKeys`, when given, limits the root keys (a module's own file);
 * otherwise `global` and any module key are allowed (a modules dir's file).
 */
export function readValuesFile(file: string, allowedKeys?: { valuesKey: string }): ValuesFile {
  const { text, data } = readYamlFile(file);
  const out: ValuesFile = { file, sections: new Map(), flags: new Map() };
  if (data === null) return out;
  if (!isPlainObject(data)) throw new UserError(`${file}: values file must be a YAML map, got ${Array.isArray(data) ? 'a list' : JSON.stringify(data)}`);
  const problems: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    // positions are looked up only for problems: each lookup parses the file again
    const where = (): string => at(file, text, key);
    if (key === 'global' && !allowedKeys) {
      if (value === null) out.global = {};
      else if (isPlainObject(value)) out.global = value;
      else problems.push(`${where()}: "global" must be a map`);
      continue;
    }
    const isFlag = key.endsWith(ENABLED) && key.length > ENABLED.length;
    const moduleKey = isFlag ? key.slice(0, -ENABLED.length) : key;
    if (allowedKeys && moduleKey !== allowedKeys.valuesKey) {
      problems.push(
        `${where()}: unexpected root key "${key}": a module's values.yaml may only hold "${allowedKeys.valuesKey}" and "${allowedKeys.valuesKey}${ENABLED}"`,
      );
      continue;
    }
    if (!isValidValuesKey(moduleKey)) {
      problems.push(`${where()}: "${key}" is not a module values key (camelCase of a module name) or "global"`);
      continue;
    }
    if (isFlag) {
      const b = parseBool(value);
      if (b === undefined) problems.push(`${where()}: "${key}" must be true or false, got ${JSON.stringify(value)}`);
      else out.flags.set(moduleKey, { value: b, file, key });
      continue;
    }
    if (value === false || value === 'false') {
      if (!out.flags.has(moduleKey)) out.flags.set(moduleKey, { value: false, file, key });
      continue;
    }
    if (value === null) out.sections.set(moduleKey, {});
    else if (isPlainObject(value)) out.sections.set(moduleKey, value);
    else problems.push(`${where()}: "${key}" must be a map of the module's values (or "false" to disable it), got ${JSON.stringify(value)}`);
  }
  // an explicit <name>Enabled wins over the legacy <name>: false of the same file
  for (const [key, value] of Object.entries(data)) {
    if (!key.endsWith(ENABLED)) continue;
    const b = parseBool(value);
    if (b !== undefined) out.flags.set(key.slice(0, -ENABLED.length), { value: b, file, key });
  }
  if (problems.length) throw new UserErrors(`invalid values file ${file}`, problems);
  return out;
}

/** The `values.yaml` of each modules dir that has one, in modules-dir order. */
export function readModulesDirValues(modulesDirs: readonly string[]): ValuesFile[] {
  const files: ValuesFile[] = [];
  const problems: string[] = [];
  for (const dir of modulesDirs) {
    const file = join(dir, 'values.yaml');
    if (!existsSync(file)) continue;
    try {
      files.push(readValuesFile(file));
    } catch (e) {
      if (e instanceof UserError) problems.push(e.message);
      else throw e;
    }
  }
  if (problems.length) throw new UserErrors('cannot load static values', problems);
  return files;
}

/** The module's own `values.yaml`, if any. */
export function readModuleValues(def: ModuleDefinition): ValuesFile | undefined {
  return def.valuesFile ? readValuesFile(def.valuesFile, { valuesKey: def.valuesKey }) : undefined;
}
