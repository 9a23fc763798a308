/**
 * Reads one module's `module.yaml` (Deckhouse's module definition: `name`, `weight`, `critical`,
 * `tags`, `requirements.modules`, `disable`; and this operator's `helmWait`) into a checked definition; every bad value is a
 * UserError naming the file, the line and the key. Keys this operator does not use (`stage`,
 * `namespace`, `descriptions`, `subsystems`, `accessibility`, ...) are ignored, as the Go decoder does.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../util/errors.js';
import { isPlainObject } from '../util/json.js';
import { lineOfPath, parseYaml } from '../util/yaml.js';
import { readYamlFile } from './static-values.js';

export const MODULE_YAML = 'module.yaml';

/** One entry of `requirements.modules`: `name: "<version constraint>[ !optional]"`. */
export interface ModuleRequirement {
  module: string;
  /** `!optional`: required only when that module is enabled. */
  optional: boolean;
  /** The version constraint as written (modules of the modules dirs have no version: not checked). */
  constraint: string;
}

export interface ModuleYaml {
  file: string;
  name?: string;
  /** Replaces the directory's numeric prefix as the module's order. */
  weight?: number;
  /** Absent in a module.yaml means false (Deckhouse): the module is functional. */
  critical: boolean;
  tags: string[];
  requires: ModuleRequirement[];
  disable?: { confirmation: boolean; message: string };
  /**
   * This operator's key (Deckhouse and the Go operator have none): the module's runs wait for its
   * release's readiness (true) or not (false) whatever `--helm-wait` says; absent: as the flag says.
   */
  helmWait?: boolean;
}

/** The largest order a module may have (the Go loaders parse it into 31 bits). */
export const MAX_WEIGHT = 2 ** 31 - 1;
const OPTIONAL = /\s*!optional\s*$/;

/** Reads `<moduleDir>/module.yaml`; undefined when the module has none. */
export function readModuleYaml(moduleDir: string): ModuleYaml | undefined {
  const file = join(moduleDir, MODULE_YAML);
  if (!existsSync(file)) return undefined;
  const { text, data } = readYamlFile(file);
  return checkModuleYaml(data, text, file);
}

/** Parses the text of a module.yaml; `file` names it in errors. */
export function parseModuleYaml(text: string, file: string): ModuleYaml {
  return checkModuleYaml(parseYaml(text, file), text, file);
}

function checkModuleYaml(data: unknown, text: string, file: string): ModuleYaml {
  const def: ModuleYaml = { file, critical: false, tags: [], requires: [] };
  if (data === null || data === undefined) return def;
  const bad = (path: (string | number)[], what: string): UserError => {
    const line = lineOfPath(text, path);
    return new UserError(`${file}${line ? `:${line}` : ''}: ${path.join('.')}: ${what}`);
  };
  if (!isPlainObject(data)) throw new UserError(`${file}: must be a map of module properties (name, weight, critical, requirements, ...), got ${describe(data)}`);

  if (data.name !== undefined && data.name !== null) {
    if (typeof data.name !== 'string' || data.name === '') throw bad(['name'], `must be the module's name as a string, got ${describe(data.name)}`);
    def.name = data.name;
  }
  if (data.weight !== undefined && data.weight !== null) {
    const w = data.weight;
    if (typeof w !== 'number' || !Number.isInteger(w) || w < 0 || w > MAX_WEIGHT) {
      throw bad(['weight'], `must be a whole number from 0 to ${MAX_WEIGHT}, got ${describe(w)}`);
    }
    def.weight = w;
  }
  if (data.critical !== undefined && data.critical !== null) {
    if (typeof data.critical !== 'boolean') throw bad(['critical'], `must be true or false, got ${describe(data.critical)}`);
    def.critical = data.critical;
  }
  if (data.helmWait !== undefined && data.helmWait !== null) {
    if (typeof data.helmWait !== 'boolean') throw bad(['helmWait'], `must be true or false (wait for the release's readiness before afterHelm hooks, whatever --helm-wait says), got ${describe(data.helmWait)}`);
    def.helmWait = data.helmWait;
  }
  if (data.tags !== undefined && data.tags !== null) {
    if (!Array.isArray(data.tags)) throw bad(['tags'], `must be a list of strings, got ${describe(data.tags)}`);
    data.tags.forEach((t, i) => {
      if (typeof t !== 'string' || t === '') throw bad(['tags', i], `must be a non-empty string, got ${describe(t)}`);
    });
    def.tags = data.tags as string[];
  }
  if (data.requirements !== undefined && data.requirements !== null) {
    const req = data.requirements;
    if (!isPlainObject(req)) throw bad(['requirements'], `must be a map (deckhouse, kubernetes, bootstrapped, modules), got ${describe(req)}`);
    const mods = req.modules;
    if (mods !== undefined && mods !== null) {
      if (!isPlainObject(mods)) throw bad(['requirements', 'modules'], `must be a map of module name to version constraint, got ${describe(mods)}`);
      for (const [module, value] of Object.entries(mods)) {
        if (typeof value !== 'string') {
          throw bad(['requirements', 'modules', module], `must be a version constraint string such as ">= 0.0.0" or ">= 0.0.0 !optional", got ${describe(value)}`);
        }
        def.requires.push({ module, optional: OPTIONAL.test(value), constraint: value.replace(OPTIONAL, '').trim() });
      }
    }
  }
  if (data.disable !== undefined && data.disable !== null) {
    const d = data.disable;
    if (!isPlainObject(d)) throw bad(['disable'], `must be a map (confirmation, message), got ${describe(d)}`);
    if (d.confirmation !== undefined && d.confirmation !== null && typeof d.confirmation !== 'boolean') {
      throw bad(['disable', 'confirmation'], `must be true or false, got ${describe(d.confirmation)}`);
    }
    if (d.message !== undefined && d.message !== null && typeof d.message !== 'string') throw bad(['disable', 'message'], `must be a string, got ${describe(d.message)}`);
    def.disable = { confirmation: d.confirmation === true, message: typeof d.message === 'string' ? d.message : '' };
  }
  return def;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  return `${typeof v} ${JSON.stringify(v)}`;
}
