/**
 * `values.schema.json` checked as Helm 3.19 checks it (pkg/chartutil/jsonschema.go,
 * ValidateAgainstSchema): the chart's schema against its values, then each enabled subchart's
 * schema against the subchart's own scope (`values[subchart name]`), with Helm's error text:
 *
 *     values don't meet the specifications of the schema(s) in the following chart(s):
 *     CHART:
 *     - at '/path': MESSAGE
 *
 * Helm validates with santhosh-tekuri/jsonschema v6; here ajv validates, and its errors are written
 * as that library writes its ValidationError tree (output.go, kind/kind.go): one `- at 'PTR': ...`
 * line per error, a location with several errors as `validation failed` with its errors indented
 * below, `anyOf failed`, `oneOf failed, none matched`, ... The draft is the schema's `$schema`
 * (none: 2020-12, as that library); `format` is asserted for drafts before 2019-09 only, as there.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Re2, RegexpSyntaxError } from '../gotemplate/re2.js';
import { formatFloat } from '../gotemplate/floatfmt.js';
import { GoInt } from '../gotemplate/index.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';
import type { Chart } from './chart.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Patterns are Go regexps (RE2), as that library compiles them. */
function re2Engine(pattern: string): { test: (s: string) => boolean; toString: () => string } {
  const toString = (): string => `re2:${pattern}`;
  try {
    const re = new Re2(pattern);
    return { test: (s) => re.test(s), toString };
  } catch (e) {
    if (!(e instanceof RegexpSyntaxError)) throw e;
    throw new Error(`invalid regular expression ${quote(pattern)}: ${e.message}`, { cause: e });
  }
}
re2Engine.code = 're2';

type Draft = 'draft-07' | '2019-09' | '2020-12';

const validators = new Map<Draft, Ajv>();
function ajvFor(draft: Draft): Ajv {
  let a = validators.get(draft);
  if (!a) {
    const options: Options = { allErrors: true, strict: false, validateSchema: false, verbose: true, code: { regExp: re2Engine } };
    if (draft === 'draft-07') a = addFormats(new Ajv(options));
    else a = new (draft === '2019-09' ? Ajv2019 : Ajv2020)({ ...options, validateFormats: false }) as unknown as Ajv;
    validators.set(draft, a);
  }
  return a;
}

function draftOf(schema: JsonObject): Draft {
  const s = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[3-7]/.test(s)) return 'draft-07';
  if (s.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/** Compiled schemas by their text (a module's chart is rendered at every run). */
const compiled = new Map<string, ValidateFunction | Error>();

const COMPILED_MAX = 256;

function compile(text: string): ValidateFunction {
  let v = compiled.get(text);
  if (!v) {
    try {
      const schema = JSON.parse(text) as JsonValue;
      if (typeof schema === 'boolean') v = ajvFor('2020-12').compile(schema);
      else if (!isPlainObject(schema)) throw new Error('the schema is neither an object nor a boolean');
      else {
        // neither the id (ajv keeps schemas by id: two charts may share one) nor the meta-schema matter here
        const { $id: _id, $schema: _meta, ...rest } = schema as JsonObject;
        v = ajvFor(draftOf(schema as JsonObject)).compile(rest);
      }
    } catch (e) {
      v = e as Error;
    }
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(text, v);
  }
  if (v instanceof Error) throw v;
  return v;
}

/**
 * Helm's ValidateAgainstSchema on the coalesced values of a chart (after conditions, tags and
 * aliases): undefined when every schema is met, else the text after Helm's header.
 */
export function schemaErrors(chart: Chart, values: JsonObject): string | undefined {
  let out = '';
  if (chart.schema) {
    const error = validateOne(chart.schema.toString('utf8'), values);
    if (error !== undefined) out += `${chart.metadata.name}:\n${error}`;
  }
  for (const sub of chart.dependencies) {
    const scope = values[sub.metadata.name];
    const error = schemaErrors(sub, isPlainObject(scope ?? null) ? (scope as JsonObject) : {});
    if (error !== undefined) out += error;
  }
  return out || undefined;
}

/** Helm's header before the charts' errors. */
export const SCHEMA_HEADER = "values don't meet the specifications of the schema(s) in the following chart(s):\n";

/** One schema: undefined, or the error lines followed by "\n" (JSONSchemaValidationError). */
function validateOne(text: string, values: JsonObject): string | undefined {
  let validate: ValidateFunction;
  try {
    validate = compile(text);
  } catch (e) {
    return `${(e as Error).message}\n`;
  }
  if (validate(plain(values))) return undefined;
  const top = nodeErrors((validate.errors ?? []) as Err[], []);
  // validator.go: the Schema error's causes are the root's error, or the causes of the root's error when it is a group
  const causes = top.length === 1 && top[0]!.message === GROUP ? top[0]!.causes : top;
  const lines: string[] = [];
  for (const c of causes) display(c, 1, lines);
  return `${lines.join('\n')}\n`;
}

type Err = ErrorObject<string, Record<string, unknown>, unknown>;

interface Node {
  at: string[];
  /** The keyword of a leaf. */
  keyword?: string;
  message: string;
  causes: Node[];
}

const GROUP = 'validation failed';

/** output.go's display: `- at 'PTR': MESSAGE`, causes indented by two spaces per level. */
function display(n: Node, indent: number, lines: string[]): void {
  lines.push(`${'  '.repeat(indent - 1)}- at ${quote(jsonPtr(n.at))}: ${n.message}`);
  for (const c of n.causes) display(c, indent + 1, lines);
}

const escapeToken = (t: string): string => t.replace(/~/g, '~0').replace(/\//g, '~1');
const jsonPtr = (tokens: string[]): string => tokens.map((t) => `/${escapeToken(t)}`).join('');
const pointerTokens = (ptr: string): string[] => (ptr === '' ? [] : ptr.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~')));

/** kind.quote: Go's %q with `"` unescaped and `'` escaped, in single quotes. */
function quote(s: string): string {
  const q = JSON.stringify(s)
    .slice(1, -1)
    .replace(/\\"/g, '"')
    .replace(/'/g, "\\'")
    .replace(/[\u007f-\u009f]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
  return `'${q}'`;
}

/** kind.display: strings quoted, composites `value`, numbers and booleans as Go's %v prints them. */
function show(v: unknown): string {
  if (typeof v === 'string') return quote(v);
  if (v === null) return '<nil>';
  if (typeof v === 'object') return 'value';
  if (typeof v === 'number') return goNumber(v);
  return String(v);
}

/** Go's %v of a float64. */
const goNumber = (n: number): string => formatFloat(n, 'g', -1);

const TYPE_ORDER = ['null', 'boolean', 'number', 'integer', 'string', 'array', 'object'];
const jsonType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'boolean' : typeof v === 'number' ? 'number' : 'string');
const runeCount = (s: string): number => [...s].length;
const lengthOf = (v: unknown): number => (Array.isArray(v) ? v.length : isPlainObject(v as never) ? Object.keys(v as object).length : typeof v === 'string' ? runeCount(v) : 0);

/** The values as JSON: integers of `--set` (GoInt) as numbers. */
function plain(v: unknown): unknown {
  if (v instanceof GoInt) return Number(v.v);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = plain(x);
    return out;
  }
  return v;
}

/** Keywords that end the checks of a location when they fail (validator.go returns at once). */
const EARLY = ['type', 'const', 'enum', 'format', 'false schema'];

/** Keywords validator.go checks before the members of an object or array. */
const BEFORE_MEMBERS = new Set(['minProperties', 'maxProperties', 'required', 'dependencies', 'minItems', 'maxItems', 'uniqueItems']);

/** The order in which validator.go checks the keywords of one location. */
const ORDER = [
  'minProperties', 'maxProperties', 'required', 'dependencies', 'additionalProperties', 'propertyNames', 'dependentRequired',
  'minItems', 'maxItems', 'uniqueItems', 'additionalItems', 'contains', 'minContains', 'maxContains',
  'minLength', 'maxLength', 'pattern',
  'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'multipleOf',
  'not', 'allOf', 'anyOf', 'oneOf', 'if', 'unevaluatedProperties', 'unevaluatedItems',
];

/** A leaf error's message as kind/kind.go writes it. */
function leafMessage(e: Err, merged: Err[]): string | undefined {
  const p = e.params;
  switch (e.keyword) {
    case 'type': {
      const want = ([] as string[]).concat(e.schema as string | string[]);
      return `got ${jsonType(e.data)}, want ${TYPE_ORDER.filter((t) => want.includes(t)).join(' or ')}`;
    }
    case 'required': {
      const missing = merged.map((m) => String(m.params.missingProperty));
      return missing.length === 1 ? `missing property ${quote(missing[0]!)}` : `missing properties ${missing.map(quote).join(', ')}`;
    }
    case 'additionalProperties':
      return `additional properties ${merged.map((m) => quote(String(m.params.additionalProperty))).join(', ')} not allowed`;
    case 'dependencies':
    case 'dependentRequired':
      return `properties ${merged.map((m) => quote(String(m.params.missingProperty))).join(', ')} required, if ${quote(String(p.property))} exists`;
    case 'enum': {
      const want = e.schema as unknown[];
      if (want.some((w) => typeof w === 'object' && w !== null)) return 'enum failed';
      return want.length === 1 ? `value must be ${show(want[0])}` : `value must be one of ${want.map(show).join(', ')}`;
    }
    case 'const':
      return typeof e.schema === 'object' && e.schema !== null ? 'const failed' : `value must be ${show(e.schema)}`;
    case 'format':
      return `${show(e.data)} is not valid ${String(p.format)}`;
    case 'pattern':
      return `${quote(String(e.data))} does not match pattern ${quote(String(p.pattern))}`;
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
      return `${e.keyword}: got ${lengthOf(e.data)}, want ${String(p.limit)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'multipleOf':
      return `${e.keyword}: got ${goNumber(Number(e.data))}, want ${goNumber(Number(e.schema))}`;
    case 'uniqueItems':
      return `items at ${Math.min(Number(p.i), Number(p.j))} and ${Math.max(Number(p.i), Number(p.j))} are equal`;
    case 'additionalItems':
      return `last ${lengthOf(e.data) - Number(p.limit)} additionalItem(s) not allowed`;
    case 'contains':
    case 'minContains':
      return p.minContains !== undefined && Number(p.minContains) !== 1 ? `min ${String(p.minContains)} items required to match contains schema, but none matched` : 'no items match contains schema';
    case 'propertyNames':
      return `invalid propertyName ${quote(String(p.propertyName))}`;
    case 'false schema':
      return 'false schema';
    case 'not':
      return 'not failed';
    case 'unevaluatedProperties':
      return `additional properties ${merged.map((m) => quote(String(m.params.unevaluatedProperty))).join(', ')} not allowed`;
    default:
      return e.message;
  }
}

/** Keywords whose ajv errors (one per property) are one error in that library. */
const MERGED = new Set(['required', 'additionalProperties', 'dependencies', 'dependentRequired', 'unevaluatedProperties']);
/** Composites: ajv reports the branches' errors before the composite's own. */
const COMPOSITE = new Set(['anyOf', 'oneOf']);

/**
 * The errors of the location `at` (the validator of one value): its own keywords' errors, then one
 * error per child location (a group when it has several). Composite errors take the errors of their
 * branches (by schema path) as causes.
 */
function nodeErrors(errors: Err[], at: string[]): Node[] {
  const depth = at.length;
  const own: Err[] = [];
  const children = new Map<string, Err[]>();
  for (const e of errors) {
    const tokens = pointerTokens(e.instancePath);
    if (tokens.length === depth) own.push(e);
    else {
      const key = tokens[depth]!;
      children.set(key, [...(children.get(key) ?? []), e]);
    }
  }
  // errors inside a composite's branches belong to the composite
  const composites = own.filter((e) => COMPOSITE.has(e.keyword) || e.keyword === 'contains');
  const inComposite = (e: Err): Err | undefined => composites.find((c) => c !== e && e.schemaPath.startsWith(`${c.schemaPath}/`));
  const early = own.find((e) => EARLY.includes(e.keyword) && !inComposite(e));
  if (early) return [{ at, message: leafMessage(early, [early])!, causes: [] }];

  const leaves: Node[] = [];
  const done = new Set<Err>();
  const rank = (k: string) => (ORDER.includes(k) ? ORDER.indexOf(k) : ORDER.length);
  const ownSorted = own.filter((e) => !inComposite(e)).sort((a, b) => rank(a.keyword) - rank(b.keyword));
  for (const e of ownSorted) {
    if (done.has(e)) continue;
    if (e.keyword === 'if') continue; // the then/else errors stand for themselves
    if (COMPOSITE.has(e.keyword)) {
      leaves.push(compositeNode(e, errors.filter((x) => x.schemaPath.startsWith(`${e.schemaPath}/`)), at));
      continue;
    }
    const merged = MERGED.has(e.keyword) ? own.filter((x) => x.keyword === e.keyword && x.schemaPath === e.schemaPath) : [e];
    for (const m of merged) done.add(m);
    // the items' errors are the causes of `contains`
    const causes = e.keyword === 'contains' ? nodeErrors(errors.filter((x) => x.schemaPath.startsWith(`${e.schemaPath}/`)), at) : [];
    leaves.push({ at, keyword: e.keyword, message: leafMessage(e, merged)!, causes });
  }
  const childNodes: Node[] = [];
  const keys = [...children.keys()].sort((a, b) => (/^\d+$/.test(a) && /^\d+$/.test(b) ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0));
  for (const key of keys) {
    const sub = children.get(key)!.filter((e) => !composites.some((c) => e.schemaPath.startsWith(`${c.schemaPath}/`)));
    if (!sub.length) continue;
    childNodes.push(collapse(nodeErrors(sub, [...at, key]), [...at, key]));
  }
  // validator.go: counts and required before the members' errors, the rest after them
  const before = leaves.filter((n) => BEFORE_MEMBERS.has(n.keyword ?? ''));
  const after = leaves.filter((n) => !before.includes(n));
  return [...before, ...childNodes, ...after];
}



/** One location's errors as one: itself when alone, else a group. */
function collapse(nodes: Node[], at: string[]): Node {
  return nodes.length === 1 ? nodes[0]! : { at, message: GROUP, causes: nodes };
}

function compositeNode(e: Err, inner: Err[], at: string[]): Node {
  const branches = new Map<number, Err[]>();
  for (const x of inner) {
    const m = /^\/(\d+)/.exec(x.schemaPath.slice(e.schemaPath.length));
    if (!m) continue;
    const i = Number(m[1]);
    branches.set(i, [...(branches.get(i) ?? []), x]);
  }
  if (e.keyword === 'oneOf' && Array.isArray(e.params.passingSchemas)) {
    const [i, j] = e.params.passingSchemas as number[];
    return { at, message: `oneOf failed, subschemas ${i}, ${j} matched`, causes: [] };
  }
  const causes = [...branches.keys()].sort((a, b) => a - b).map((i) => collapse(nodeErrors(branches.get(i)!, at), at));
  return { at, message: e.keyword === 'oneOf' ? 'oneOf failed, none matched' : 'anyOf failed', causes };
}
