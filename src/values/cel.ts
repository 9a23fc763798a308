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
 * Programs are compiled once per expression and kept; the walk visits only the properties below
 * which a rule lies, and each value is converted to CEL at most once per check.
 */
import { createRequire } from 'node:module';
import type { CelInput } from '@bufbuild/cel';
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

type Cel = typeof import('@bufbuild/cel');
let celModule: { cel: Cel; env: ReturnType<Cel['celEnv']> } | undefined;
/**
 * The evaluator, loaded when the first rule is compiled (its CommonJS build, synchronously): about
 * 19 MiB and 0.15 s of start-up CPU that an operator without CEL rules does not spend.
 */
function cel(): NonNullable<typeof celModule> {
  if (!celModule) {
    const mod = createRequire(import.meta.url)('@bufbuild/cel') as Cel;
    celModule = { cel: mod, env: mod.celEnv() };
  }
  return celModule;
}
const compiledRules = new WeakMap<JsonObject, CompiledRule[]>();

/** True when a parsed expression names the identifier `oldSelf` anywhere. */
function mentionsOldSelf(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsOldSelf);
  if (node === null || typeof node !== 'object') return false;
  const n = node as { case?: unknown; value?: { name?: unknown } };
  if (n.case === 'identExpr' && n.value?.name === 'oldSelf') return true;
  return Object.values(node).some(mentionsOldSelf);
}

/** Programs by expression: the same rule in many modules or schema kinds is parsed and planned once. */
const programs = new Map<string, { program: Program; usesOldSelf: boolean } | { error: string }>();

function compileExpression(expression: string): { program: Program; usesOldSelf: boolean } | { error: string } {
  let p = programs.get(expression);
  if (!p) {
    try {
      const { cel: c, env } = cel();
      const parsed = c.parse(expression);
      p = { program: c.plan(env, parsed) as unknown as Program, usesOldSelf: mentionsOldSelf(parsed.expr) };
    } catch (e) {
      p = { error: `the rule "${expression}" does not compile: ${(e as Error).message}` };
    }
    programs.set(expression, p);
  }
  return p;
}

function compileRules(raw: JsonValue): CompiledRule[] {
  if (!Array.isArray(raw)) return [{ expression: '', message: '', usesOldSelf: false, error: `${RULES_KEY} must be a list of {expression, message}` }];
  return raw.map((entry): CompiledRule => {
    const expression = isPlainObject(entry) ? entry.expression : undefined;
    const message = isPlainObject(entry) ? entry.message : undefined;
    if (typeof expression !== 'string' || expression === '') return { expression: '', message: '', usesOldSelf: false, error: `${RULES_KEY}: a rule has no expression` };
    if (typeof message !== 'string' || message === '') return { expression, message: '', usesOldSelf: false, error: `${RULES_KEY}: the rule "${expression}" has no message` };
    const p = compileExpression(expression);
    return 'error' in p ? { expression, message, usesOldSelf: false, error: p.error } : { expression, message, ...p };
  });
}

function rulesOf(schema: JsonObject): CompiledRule[] | undefined {
  const raw = schema[RULES_KEY];
  if (raw === undefined) return undefined;
  let rules = compiledRules.get(schema);
  if (!rules) compiledRules.set(schema, (rules = compileRules(raw)));
  return rules;
}

/**
 * JSON data as CEL values: maps with string keys, lists, doubles (structpb's conversion). Objects and
 * lists are converted once per check (`seen`): a level's value is shared with the levels above it.
 */
function toCel(v: JsonValue, seen: Map<object, CelInput>): CelInput {
  if (v === null || typeof v !== 'object') return v;
  let c = seen.get(v);
  if (c === undefined) {
    if (Array.isArray(v)) c = cel().cel.celList(v.map((x) => toCel(x, seen)));
    else {
      const m = new Map<string, CelInput>();
      for (const k in v) m.set(k, toCel(v[k]!, seen));
      c = cel().cel.celMap(m);
    }
    seen.set(v, c);
  }
  return c;
}

/**
 * The rule-bearing part of a schema node: its own rules and the properties below which some rule
 * lies. Computed once per schema node; subtrees without rules are never walked.
 */
interface RuleNode {
  rules: CompiledRule[] | undefined;
  children: [string, RuleNode][];
}
const ruleNodes = new WeakMap<JsonObject, RuleNode | null>();
function ruleNodeOf(schema: JsonObject): RuleNode | null {
  let node = ruleNodes.get(schema);
  if (node === undefined) {
    const children: [string, RuleNode][] = [];
    if (isPlainObject(schema.properties)) {
      for (const [name, sub] of Object.entries(schema.properties)) {
        const child = isPlainObject(sub) ? ruleNodeOf(sub) : null;
        if (child) children.push([name, child]);
      }
    }
    const rules = rulesOf(schema);
    node = rules || children.length ? { rules, children } : null;
    ruleNodes.set(schema, node);
  }
  return node;
}

/**
 * Problems of `value` against the schema's CEL rules, at every depth. `old` is the previous value at
 * the same level; undefined (or null) when there is none, which skips transition rules.
 */
export function celProblems(schema: JsonObject, value: JsonValue, old: JsonValue | undefined, segments: (string | number)[] = []): CelProblem[] {
  const node = ruleNodeOf(schema);
  const out: CelProblem[] = [];
  if (node) check(node, value, old, segments, out, new Map());
  return out;
}

/** Error texts of a missing key in @bufbuild/cel: cel-go's "no such key" skips the rule. */
const MISSING_KEY = /field not found|no such key/;

function check(node: RuleNode, value: JsonValue, old: JsonValue | undefined, segments: (string | number)[], out: CelProblem[], seen: Map<object, CelInput>): void {
  if (node.children.length && isPlainObject(value)) {
    const oldMap = isPlainObject(old) ? old : undefined;
    for (const [name, child] of node.children) {
      if (!Object.hasOwn(value, name)) continue;
      check(child, value[name]!, oldMap && Object.hasOwn(oldMap, name) ? oldMap[name] : undefined, [...segments, name], out, seen);
    }
  }
  const rules = node.rules;
  if (!rules) return;
  const haveOld = old !== undefined && old !== null;
  let vars: { self: CelInput; oldSelf: CelInput } | undefined;
  for (const rule of rules) {
    if (rule.error !== undefined) {
      out.push({ segments, message: rule.error });
      continue;
    }
    if (rule.usesOldSelf && !haveOld) continue;
    vars ??= { self: toCel(value, seen), oldSelf: null };
    // the previous value is converted only for a rule that reads it
    if (rule.usesOldSelf && vars.oldSelf === null) vars.oldSelf = toCel(old!, seen);
    const result = rule.program!(vars);
    if (cel().cel.isCelError(result)) {
      if (MISSING_KEY.test(result.message)) continue;
      out.push({ segments, message: `the rule "${rule.expression}" failed: ${result.message}` });
    } else if (typeof result !== 'boolean') {
      out.push({ segments, message: `the rule "${rule.expression}" must give a boolean` });
    } else if (!result) {
      out.push({ segments, message: rule.message });
    }
  }
}
