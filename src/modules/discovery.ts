/**
 * Finds the modules in one or more modules dirs (LIFECYCLE.md "Structure", MODULES.md "Structure of a
 * module"): directories `NNN-name` or `name`, ordered by number (or module.yaml's `weight`) then name;
 * symlinks followed.
 */
import { readdirSync, readFileSync, statSync, realpathSync, accessSync, constants, existsSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { UserError, UserErrors } from '../util/errors.js';
import { isValidModuleName, moduleValuesKey } from './names.js';
import { readModuleYaml, type ModuleRequirement } from './module-yaml.js';
import { checkRequirements } from './module-requirements.js';

export interface ModuleDefinition {
  /** kebab-case name, without the numeric prefix: the release name and `enabledModules` entry. */
  name: string;
  /** camelCase values key. */
  valuesKey: string;
  /** The numeric prefix of the directory, or module.yaml's `weight`. */
  order: number;
  /**
   * Critical modules converge first, in order; functional ones (module.yaml without `critical: true`)
   * by their requirements. A module without module.yaml is critical, as the Go fs loader makes it.
   */
  critical: boolean;
  /** module.yaml `tags`. */
  tags: string[];
  /** module.yaml `requirements.modules`. */
  requires: ModuleRequirement[];
  /**
   * module.yaml `disable`: Deckhouse asks for a confirmation before its ModuleConfig disables the
   * module; here a warning with the message is logged when the ConfigMap disables it.
   */
  disable?: { confirmation: boolean; message: string };
  /** module.yaml `helmWait`: wait for the release's readiness (true) or not (false); absent: as --helm-wait says. */
  helmWait?: boolean;
  /** The module's module.yaml, when it has one. */
  definitionFile?: string;
  /** The directory as listed in the modules dir (a symlink stays a symlink here). */
  dir: string;
  /** The real directory behind `dir`. */
  path: string;
  modulesDir: string;
  /** Chart.yaml or templates/ exists: the module has a Helm chart. */
  hasChart: boolean;
  /** The module has a crds/ directory (ModuleEnsureCRDs when it becomes enabled). */
  hasCrds: boolean;
  /** A file of templates/ names the kind ConversionWebhook (ModuleEnsureHooks; Go's cheap check). */
  hasConversionWebhooks: boolean;
  /** `<module>/values.yaml`, when it exists. */
  valuesFile?: string;
  hooksDir?: string;
  /** The `enabled` script, when it exists and is executable. */
  enabledScript?: string;
  openapiDir: string;
}

export interface DiscoveryOptions {
  modulesDirs: string[];
  unnumberedOrder?: number;
  /** Receives warnings (a non-executable `enabled` file, a broken symlink...). */
  warn?: (message: string) => void;
}

/** `a:b::c` → [a, b, c]. */
export function splitPathList(list: string): string[] {
  return list.split(':').filter((p) => p !== '');
}

const NAME_RE = /^(?:([0-9]+)-)?(.+)$/;
const MAX_ORDER = 2 ** 31 - 1;

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function discoverModules(opts: DiscoveryOptions): ModuleDefinition[] {
  const unnumbered = opts.unnumberedOrder ?? 1;
  const warn = opts.warn ?? (() => {});
  const problems: string[] = [];
  const byName = new Map<string, ModuleDefinition>();
  for (const modulesDir of opts.modulesDirs) {
    let entries: string[];
    try {
      if (!statSync(modulesDir).isDirectory()) {
        problems.push(`modules dir ${modulesDir} is not a directory`);
        continue;
      }
      entries = readdirSync(modulesDir).sort();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      problems.push(code === 'ENOENT' ? `modules dir ${modulesDir} does not exist` : `cannot read modules dir ${modulesDir}: ${code ?? (e as Error).message}`);
      continue;
    }
    for (const entry of entries) {
      if (entry.startsWith('.')) continue; // .git and other hidden entries are not modules
      const dir = join(modulesDir, entry);
      let path: string;
      try {
        if (!statSync(dir).isDirectory()) continue; // values.yaml and other files
        path = realpathSync(dir);
      } catch {
        warn(`${dir}: broken symlink, skipped`);
        continue;
      }
      const m = NAME_RE.exec(entry)!;
      const name = m[2]!;
      let order = unnumbered;
      if (m[1] !== undefined) {
        const n = Number(m[1]);
        order = Number.isSafeInteger(n) && n <= MAX_ORDER ? n : unnumbered;
      }
      if (!isValidModuleName(name)) {
        problems.push(
          `${dir}: module name "${name}" is not kebab-case: it must convert to a camelCase values key and back unchanged (it gives "${moduleValuesKey(name)}")`,
        );
        continue;
      }
      const prior = byName.get(name);
      if (prior) {
        problems.push(`module "${name}" is defined twice: ${prior.dir} and ${dir}`);
        continue;
      }
      let yaml;
      try {
        yaml = readModuleYaml(path);
      } catch (e) {
        if (!(e instanceof UserError)) throw e;
        problems.push(e.message);
        continue;
      }
      if (yaml?.name !== undefined && yaml.name !== name) {
        problems.push(`${yaml.file}: name: "${yaml.name}" differs from the module's directory name "${name}" (${dir})`);
        continue;
      }
      const def: ModuleDefinition = {
        name,
        valuesKey: moduleValuesKey(name),
        order: yaml?.weight ?? order,
        critical: yaml ? yaml.critical : true,
        tags: yaml?.tags ?? [],
        requires: yaml?.requires ?? [],
        dir,
        path,
        modulesDir,
        hasChart: existsSync(join(path, 'Chart.yaml')) || existsSync(join(path, 'templates')),
        hasCrds: existsSync(join(path, 'crds')),
        hasConversionWebhooks: templatesMention(join(path, 'templates'), 'ConversionWebhook'),
        openapiDir: join(path, 'openapi'),
      };
      if (yaml) def.definitionFile = yaml.file;
      if (yaml?.disable) def.disable = yaml.disable;
      if (yaml?.helmWait !== undefined) def.helmWait = yaml.helmWait;
      if (existsSync(join(path, 'values.yaml'))) def.valuesFile = join(path, 'values.yaml');
      if (existsSync(join(path, 'hooks'))) def.hooksDir = join(path, 'hooks');
      const enabled = join(path, 'enabled');
      if (existsSync(enabled)) {
        if (isExecutable(enabled)) def.enabledScript = enabled;
        else warn(`${enabled}: not executable, ignored (chmod +x it to use it)`);
      }
      byName.set(name, def);
    }
  }
  if (!problems.length) problems.push(...checkRequirements([...byName.values()]));
  if (problems.length) throw new UserErrors('module discovery failed', problems);
  return [...byName.values()].sort(compareModules);
}

/** A file under `dir` (recursively) contains `text`; false when there is no `dir`. */
function templatesMention(dir: string, text: string): boolean {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.some((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return templatesMention(full, text);
    try {
      return readFileSync(full, 'utf8').includes(text);
    } catch {
      return false;
    }
  });
}

export function compareModules(a: { order: number; name: string }, b: { order: number; name: string }): number {
  return a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
