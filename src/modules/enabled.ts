/**
 * Which modules are enabled (LIFECYCLE.md "Modules discovery", DESIGN §4.1–§4.3): the flag from the
 * modules dirs' values.yaml, then the module's values.yaml, then the ConfigMap, then flags set by
 * global hooks — the last one that says something wins; no flag means disabled. A module enabled by
 * its flags then runs its `enabled` script, which may disable it. A module whose module.yaml requires a
 * module that ends up disabled is disabled too (an `!optional` requirement never disables), as
 * Deckhouse's module-dependency extender does. Each result says who decided.
 */
import type { EnabledFlag } from '../config/configmap.js';
import { UserError } from '../util/errors.js';
import type { Module, ModuleSet } from './module-set.js';

export type EnabledReason =
  | { kind: 'default' }
  | { kind: 'file'; file: string; key: string }
  | { kind: 'configmap'; key: string }
  | { kind: 'global-hook'; hook: string }
  /** `why`: what a disabling script wrote to $MODULE_ENABLED_REASON. */
  | { kind: 'script'; file: string; wrote: 'true' | 'false'; why?: string }
  /** module.yaml `requirements.modules.<module>` names a disabled module. */
  | { kind: 'requirement'; file: string; module: string };

export interface EnabledDecision {
  name: string;
  enabled: boolean;
  reason: EnabledReason;
}

export interface DynamicFlag {
  value: boolean;
  hook: string;
}

/**
 * The Go operator's module extenders, the sources of the enabled state (APPLIED_MODULE_EXTENDERS):
 * values files (Static), flags set by global hooks (DynamicallyEnabled), the ConfigMap (KubeConfig),
 * `enabled` scripts (ScriptEnabled).
 */
export const ENABLED_EXTENDERS = ['Static', 'DynamicallyEnabled', 'KubeConfig', 'ScriptEnabled'] as const;
export type EnabledExtender = (typeof ENABLED_EXTENDERS)[number];

/**
 * `--applied-module-extenders`: a comma-separated list of extenders that take part (all when empty);
 * an unknown or repeated name is an error, as in Go. Their order is the specification's, whatever the
 * list's (docs/compatibility.md).
 */
export function parseAppliedExtenders(text: string, flag: string): ReadonlySet<EnabledExtender> {
  if (text.trim() === '') return new Set(ENABLED_EXTENDERS);
  const out = new Set<EnabledExtender>();
  for (const name of text.split(',').map((s) => s.trim())) {
    if (!(ENABLED_EXTENDERS as readonly string[]).includes(name)) throw new UserError(`${flag}: couldn't find ${name} extender in the list of available extenders (${ENABLED_EXTENDERS.join(', ')})`);
    if (out.has(name as EnabledExtender)) throw new UserError(`${flag}: there are multiple entries for ${name} extender`);
    out.add(name as EnabledExtender);
  }
  return out;
}

export interface EnabledInputs {
  /** `<name>Enabled` (or legacy `<name>: "false"`) from the ConfigMap, by values key. */
  configFlags: ReadonlyMap<string, EnabledFlag>;
  /** Flags set by global hooks' patches, by values key. */
  dynamicFlags?: ReadonlyMap<string, DynamicFlag>;
  /** The sources that take part (all when absent). */
  extenders?: ReadonlySet<EnabledExtender>;
}

/** Runs a module's `enabled` script with the modules enabled so far; returns its answer. */
/** An `enabled` script's answer, with the reason a disabling script gave. */
export type EnabledScriptRunner = (module: Module, enabledSoFar: readonly string[]) => Promise<{ enabled: boolean; why?: string }>;

export function describeReason(r: EnabledReason): string {
  switch (r.kind) {
    case 'default':
      return 'no enabled flag is set (modules are disabled by default)';
    case 'file':
      return `${r.key} in ${r.file}`;
    case 'configmap':
      return `ConfigMap key "${r.key}"`;
    case 'global-hook':
      return `set by global hook ${r.hook}`;
    case 'script':
      return `the enabled script ${r.file} wrote "${r.wrote}"${r.why ? `: ${r.why}` : ''}`;
    case 'requirement':
      return `requires module "${r.module}" (requirements.modules.${r.module} in ${r.file}), which is disabled`;
  }
}

/** The merged flag of one module before its script runs. */
export function flagOf(module: Module, inputs: EnabledInputs): { value: boolean; reason: EnabledReason } {
  let decided: { value: boolean; reason: EnabledReason } = { value: false, reason: { kind: 'default' } };
  const applied = (e: EnabledExtender) => inputs.extenders?.has(e) ?? true;
  if (applied('Static')) for (const f of module.fileFlags) decided = { value: f.value, reason: { kind: 'file', file: f.file, key: f.key } };
  const key = module.def.valuesKey;
  const cm = applied('KubeConfig') ? inputs.configFlags.get(key) : undefined;
  if (cm) decided = { value: cm.value, reason: { kind: 'configmap', key: cm.key } };
  const dyn = applied('DynamicallyEnabled') ? inputs.dynamicFlags?.get(key) : undefined;
  if (dyn) decided = { value: dyn.value, reason: { kind: 'global-hook', hook: dyn.hook } };
  return decided;
}

/** The first required module that is decided disabled, or undefined. */
function disabledRequirement(module: Module, decided: ReadonlyMap<string, EnabledDecision>): string | undefined {
  return module.def.requires.find((r) => !r.optional && decided.get(r.module)?.enabled === false)?.module;
}

/**
 * Decides every module in order; scripts see the modules enabled before them. A module whose
 * required module is already decided disabled is disabled without running its script; requirements
 * on later modules are settled after the pass, until nothing changes (the graph has no cycle).
 */
export async function resolveEnabled(set: ModuleSet, inputs: EnabledInputs, runScript: EnabledScriptRunner): Promise<EnabledDecision[]> {
  const decisions: EnabledDecision[] = [];
  const decided = new Map<string, EnabledDecision>();
  const enabledSoFar: string[] = [];
  const byRequirement = (module: Module, required: string): EnabledDecision => ({
    name: module.def.name,
    enabled: false,
    reason: { kind: 'requirement', file: module.def.definitionFile ?? module.def.dir, module: required },
  });
  for (const module of set.modules) {
    const flag = flagOf(module, inputs);
    let decision: EnabledDecision = { name: module.def.name, enabled: flag.value, reason: flag.reason };
    const missing = flag.value ? disabledRequirement(module, decided) : undefined;
    const script = (inputs.extenders?.has('ScriptEnabled') ?? true) ? module.def.enabledScript : undefined;
    if (missing !== undefined) {
      decision = byRequirement(module, missing);
    } else if (flag.value && script) {
      const answer = await runScript(module, enabledSoFar);
      if (!answer.enabled) decision = { name: module.def.name, enabled: false, reason: { kind: 'script', file: script, wrote: 'false', ...(answer.why ? { why: answer.why } : {}) } };
      else decision = { name: module.def.name, enabled: true, reason: { kind: 'script', file: script, wrote: 'true' } };
    }
    if (decision.enabled) enabledSoFar.push(module.def.name);
    decisions.push(decision);
    decided.set(module.def.name, decision);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [i, module] of set.modules.entries()) {
      if (!decisions[i]!.enabled) continue;
      const missing = disabledRequirement(module, decided);
      if (missing === undefined) continue;
      decisions[i] = byRequirement(module, missing);
      decided.set(module.def.name, decisions[i]!);
      changed = true;
    }
  }
  return decisions;
}
