/**
 * Applies the values outputs of one hook run to its scope, all or nothing: the config patch (then
 * saved to the ConfigMap by the caller) and the values patch. Global hooks may also set modules'
 * `<name>Enabled` flags with ops on root keys ending in `Enabled` (LIFECYCLE-STEPS step 9); those
 * never reach the values.
 */
import { UserError } from '../util/errors.js';
import type { JsonObject } from '../util/json.js';
import { parsePointer, type PatchOp } from '../values/patch.js';
import type { ScopeValues } from '../values/scope.js';

export interface ValuesOutcome {
  /** The new config section to persist, when the config patch changed it. */
  savedConfig?: JsonObject;
  /** The effective values changed (config or values patch). */
  valuesChanged: boolean;
  /** Module enabled flags set (true/false) or removed (null) by a global hook, by values key. */
  enabledFlags: Map<string, boolean | null>;
}

const ENABLED = 'Enabled';

function splitEnabledOps(ops: readonly PatchOp[], hook: string, kind: 'global' | 'module', flags: Map<string, boolean | null>): PatchOp[] {
  const rest: PatchOp[] = [];
  ops.forEach((op, i) => {
    const root = parsePointer(op.path)[0] ?? '';
    if (!root.endsWith(ENABLED) || root === ENABLED) {
      rest.push(op);
      return;
    }
    if (kind === 'module') throw new UserError(`hook ${hook}: operation ${i} (${op.op} ${op.path}): only global hooks may set a module's Enabled flag`);
    const moduleKey = root.slice(0, -ENABLED.length);
    if (parsePointer(op.path).length !== 1) throw new UserError(`hook ${hook}: operation ${i} (${op.op} ${op.path}): an Enabled flag has no keys below it`);
    if (op.op === 'remove') flags.set(moduleKey, null);
    else if ((op.op === 'add' || op.op === 'replace') && typeof op.value === 'boolean') flags.set(moduleKey, op.value);
    else throw new UserError(`hook ${hook}: operation ${i} (${op.op} ${op.path}): an Enabled flag takes add/replace with true or false, or remove`);
  });
  return rest;
}

export function applyValuesOutputs(
  scope: ScopeValues,
  outputs: { valuesPatch: readonly PatchOp[]; configValuesPatch: readonly PatchOp[] },
  hook: string,
  kind: 'global' | 'module',
): ValuesOutcome {
  const enabledFlags = new Map<string, boolean | null>();
  const configOps = splitEnabledOps(outputs.configValuesPatch, hook, kind, enabledFlags);
  const valuesOps = splitEnabledOps(outputs.valuesPatch, hook, kind, enabledFlags);
  const before = scope.checksum();
  const oldConfig = scope.configValues;
  const savedConfig = scope.applyConfigPatch(configOps, hook);
  try {
    scope.applyValuesPatch(valuesOps, hook);
  } catch (e) {
    if (savedConfig) scope.setConfig(oldConfig); // all or nothing
    throw e;
  }
  return { savedConfig, valuesChanged: scope.checksum() !== before, enabledFlags };
}
