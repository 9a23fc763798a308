/**
 * CEL rules of a schema (`x-deckhouse-validations: [{expression, message}]`), evaluated as the Go
 * operator's pkg/values/validation/cel does:
 * - at every depth: a property's rules run when the property is present, recursing through
 *   `properties` only (not items or additionalProperties);
 * - `self` is the value at that level; numbers are doubles, as structpb makes them;
 * - a rule that mentions `oldSelf` is a transition rule: it runs only when a previous value exists at
 *   that level (a ConfigMap edit, a values patch), and is skipped otherwise;
 * - a rule evaluating to false gives its message; a missing key during evaluation skips the rule; a
 *   rule that does not compile, fails otherwise or gives a non-boolean is a problem too.
 * The evaluator is @bufbuild/cel (docs/compatibility.md records the measurement behind the choice).
 * Programs are compiled once per schema node and kept.
 */
import { celEnv, celList, celMap, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';

export const RULES_KEY = 'x-deckhouse-validations';

/** A problem found by a rule, at a path below the scope's root. */
export interface CelProblem {
  segments: (string | number)[];
  message: string;
}

type Program = (ctx: { self: CelInput; oldSelf: CelInput }) => unknown;

interface CompiledRule {
  expression: string;
  message: string;
  usesOldSelf: boolean;
  program?: Program;
  /** Why the rule cannot run (bad shape, syntax error); reported when it is reached. */
  error?: string;
}

const env = celEnv();
const compiledRules = new WeakMap<JsonObject, CompiledRule[]>();

/** True when a parsed expression names the identifier `oldSelf` anywhere. */
function mentionsOldSelf(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsOldSelf);
  if (node === null || typeof node !== 'object') return false;
  const n = node as { case?: unknown; value?: { name?: unknown } };
  if (n.case === 'identExpr' && n.value?.name === 'oldSelf') return true;
  return Object.values(node).some(mentionsOldSelf);
}

function compileRules(raw: JsonValue): CompiledRule[] {
  if (!Array.isArray(raw)) return [{ expression: '', message: '', usesOldSelf: false, error: `${RULES_KEY} must be a list of {expression, message}` }];
  return raw.map((entry): CompiledRule => {
    const expression = isPlainObject(entry) ? entry.expression : undefined;
    const message = isPlainObject(entry) ? entry.message : undefined;
    if (typeof expression !== 'string' || expression === '') return { expression: '', message: '', usesOldSelf: false, error: `${RULES_KEY}: a rule has no expression` };
    if (typeof message !== 'string' || message === '') return { expression, message: '', usesOldSelf: false, error: `${RULES_KEY}: the rule "${expression}" has no message` };
    try {
      const parsed = parse(expression);
      return { expression, message, usesOldSelf: mentionsOldSelf(parsed.expr), program: plan(env, parsed) as unknown as Program };
    } catch (e) {
      return { expression, message, usesOldSelf: false, error: `the rule "${expression}" does not compile: ${(e as Error).message}` };
    }
  });
}

function rulesOf(schema: JsonObject): CompiledRule[] | undefined {
  const raw = schema[RULES_KEY];
  if (raw === undefined) return undefined;
  let rules = compiledRules.get(schema);
  if (!rules) compiledRules.set(schema, (rules = compileRules(raw)));
  return rules;
}

/** JSON data as CEL values: maps with string keys, lists, doubles (structpb's conversion). */
function toCel(v: JsonValue): CelInput {
  if (Array.isArray(v)) return celList(v.map(toCel));
  if (isPlainObject(v)) return celMap(new Map(Object.entries(v).map(([k, x]) => [k, toCel(x)])));
  return v;
}

/** Does the schema tree hold any rule? (Spares the walk and the conversions for schemas without.) */
const hasRulesCache = new WeakMap<JsonObject, boolean>();
export function schemaHasRules(schema: JsonObject): boolean {
  let has = hasRulesCache.get(schema);
  if (has === undefined) {
    const props = isPlainObject(schema.properties) ? Object.values(schema.properties) : [];
    has = schema[RULES_KEY] !== undefined || props.some((p) => isPlainObject(p) && schemaHasRules(p));
    hasRulesCache.set(schema, has);
  }
  return has;
}

/**
 * Problems of `value` against the schema's CEL rules, at every depth. `old` is the previous value at
 * the same level; undefined (or null) when there is none, which skips transition rules.
 */
export function celProblems(schema: JsonObject, value: JsonValue, old: JsonValue | undefined, segments: (string | number)[] = []): CelProblem[] {
  if (!schemaHasRules(schema)) return [];
  const out: CelProblem[] = [];
  if (isPlainObject(value) && isPlainObject(schema.properties)) {
    const oldMap = isPlainObject(old) ? old : undefined;
    for (const [name, sub] of Object.entries(schema.properties)) {
      if (!isPlainObject(sub) || !(name in value)) continue;
      out.push(...celProblems(sub, value[name]!, oldMap?.[name], [...segments, name]));
    }
  }
  const rules = rulesOf(schema);
  if (!rules) return out;
  const haveOld = old !== undefined && old !== null;
  let self: CelInput | undefined;
  let oldSelf: CelInput | undefined;
  for (const rule of rules) {
    if (rule.error !== undefined) {
      out.push({ segments, message: rule.error });
      continue;
    }
    if (rule.usesOldSelf && !haveOld) continue;
    self ??= toCel(value);
    oldSelf ??= haveOld ? toCel(old) : null;
    const result = rule.program!({ self, oldSelf });
    if (isCelError(result)) {
      // cel-go's "no such key": the rule does not apply to this value
      if (/field not found|no such key/.test(result.message)) continue;
      out.push({ segments, message: `the rule "${rule.expression}" failed: ${result.message}` });
    } else if (typeof result !== 'boolean') {
      out.push({ segments, message: `the rule "${rule.expression}" must give a boolean` });
    } else if (!result) {
      out.push({ segments, message: rule.message });
    }
  }
  return out;
}
