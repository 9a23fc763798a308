/**
 * OpenAPI schemas of a values scope (global or one module), as VALUES.md "Validation" describes:
 * `openapi/config-values.yaml` for config values, `openapi/values.yaml` for effective values (with
 * `x-extend`), `additionalProperties: false` wherever an object schema leaves it unset, and
 * `x-required-for-helm` checked only before rendering. Schemas are compiled lazily, once.
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { UserError } from '../util/errors.js';
import { parseYaml } from '../util/yaml.js';
import { cloneJson, isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';
import { Re2, RegexpSyntaxError } from '../gotemplate/re2.js';
import { decodeSchema, toValidatorSchema, NO_TYPE_KEYWORD, FORMAT_NAME_KEYWORD, MULTIPLE_OF_KEYWORD, isGoMultipleOf } from './openapi.js';
import { STRFMT_FORMATS } from './formats.js';
import { celProblems } from './cel.js';

export type SchemaKind = 'config' | 'values' | 'helm';

export const CONFIG_SCHEMA_FILE = 'config-values.yaml';
export const VALUES_SCHEMA_FILE = 'values.yaml';

/** One problem found by validation: a dotted JSON path (rooted at the scope key) and what is wrong. */
export interface SchemaProblem {
  /** Path segments below the scope's root, e.g. ['param1'] or ['list', 0]. */
  segments: (string | number)[];
  /** Dotted form with the scope key: `someModule.param1`, `global.list[0]`. */
  path: string;
  message: string;
}

/** Why a pattern does not compile with Go's regexp syntax, or undefined when it does. */
const patternErrors = new Map<string, string | undefined>();
function patternError(pattern: string): string | undefined {
  if (!patternErrors.has(pattern)) {
    try {
      new Re2(pattern);
      patternErrors.set(pattern, undefined);
    } catch (e) {
      if (!(e instanceof RegexpSyntaxError)) throw e;
      patternErrors.set(pattern, e.message);
    }
  }
  return patternErrors.get(pattern);
}

/**
 * Patterns are Go regexps (RE2 syntax and semantics), as go-openapi compiles them. A pattern that does
 * not compile fails every string it is checked against (go-openapi: "pattern is invalid"), not the load.
 */
const PATTERN_CACHE_SIZE = 512;

function re2Engine(pattern: string): { test: (s: string) => boolean; toString: () => string } {
  // Ajv caches compiled patterns by toString()
  const toString = (): string => `re2:${pattern}`;
  try {
    const re = new Re2(pattern);
    // values are validated again after every change, mostly with the same strings: remember answers
    const seen = new Map<string, boolean>();
    const test = (s: string): boolean => {
      let ok = seen.get(s);
      if (ok === undefined) {
        ok = re.test(s);
        if (seen.size >= PATTERN_CACHE_SIZE) seen.clear();
        seen.set(s, ok);
      }
      return ok;
    };
    return { test, toString };
  } catch (e) {
    if (!(e instanceof RegexpSyntaxError)) throw e;
    return { test: () => false, toString };
  }
}
re2Engine.code = 're2';

let sharedAjv: Ajv | undefined;
function ajv(): Ajv {
  if (!sharedAjv) {
    sharedAjv = new Ajv({
      allErrors: true,
      // schemas arrive decoded as go-openapi decodes them (./openapi.ts): only known keywords, right shapes
      strict: false,
      validateSchema: false,
      discriminator: false,
      verbose: true,
      code: { regExp: re2Engine },
    });
    for (const [name, check] of Object.entries(STRFMT_FORMATS)) sharedAjv.addFormat(name, { type: 'string', validate: check });
    sharedAjv.addKeyword({
      keyword: NO_TYPE_KEYWORD,
      schemaType: 'object',
      errors: false,
      // a type naming no JSON type: go-openapi matches nothing but null with `nullable`
      validate: (s: { nullable: boolean }, data: unknown) => data === null && s.nullable,
    });
    sharedAjv.addKeyword({
      keyword: MULTIPLE_OF_KEYWORD,
      type: 'number',
      schemaType: 'number',
      errors: false,
      validate: (factor: number, data: number) => isGoMultipleOf(data, factor),
    });
  }
  return sharedAjv;
}

/** A parsed schema document, as go-openapi caches documents for $ref resolution. */
interface RefDocument {
  file: string;
  raw: JsonValue;
}

function splitRef(ref: string): { location: string; pointer: string } {
  const hash = ref.indexOf('#');
  return hash < 0 ? { location: ref, pointer: '' } : { location: ref.slice(0, hash), pointer: ref.slice(hash + 1) };
}

function atPointer(raw: JsonValue, pointer: string): JsonValue | undefined {
  if (pointer === '' || pointer === '/') return raw;
  let cur: JsonValue | undefined = raw;
  for (const seg of pointer.replace(/^\//, '').split('/')) {
    const key = decodeURIComponent(seg).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else cur = isPlainObject(cur) ? cur[key] : undefined;
  }
  return cur;
}

/**
 * Expands `$ref`s as go-openapi's ExpandSchema does: the referenced schema replaces the node (keys
 * beside `$ref` are ignored), local references point into the same document, and another file is read
 * relative to the working directory (go-openapi's base for an in-memory root) or, when not found there,
 * to the referring file's directory. A file that cannot be read fails the load, naming it.
 */
class RefExpander {
  private readonly docs = new Map<string, RefDocument>();

  constructor(private readonly rootFile: string) {}

  private load(location: string, from: RefDocument, ref: string): RefDocument {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location) && !location.startsWith('file://')) {
      throw new UserError(`${from.file}: $ref "${ref}": only files can be referenced, not URLs`);
    }
    const path = location.replace(/^file:\/\//, '');
    const candidates = isAbsolute(path)
      ? [path]
      : from.file === this.rootFile
        ? [resolvePath(process.cwd(), path), resolvePath(dirname(from.file), path)]
        : [resolvePath(dirname(from.file), path)];
    const file = candidates.find((c) => existsSync(c)) ?? candidates[candidates.length - 1]!;
    let doc = this.docs.get(file);
    if (!doc) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (e) {
        throw new UserError(`${from.file}: cannot read the file of $ref "${ref}" (${file}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      doc = { file, raw: parseYaml(text, file, { duplicateKeys: 'last' }) as JsonValue };
      this.docs.set(file, doc);
    }
    return doc;
  }

  expandRoot(raw: JsonValue): JsonObject {
    const root: RefDocument = { file: this.rootFile, raw };
    this.docs.set(this.rootFile, root);
    return this.expand(decodeSchema(raw, this.rootFile), root, []);
  }

  private expand(s: JsonObject, doc: RefDocument, stack: string[]): JsonObject {
    if (typeof s.$ref === 'string') {
      const ref = s.$ref;
      const { location, pointer } = splitRef(ref);
      const target = location ? this.load(location, doc, ref) : doc;
      const key = `${target.file}#${pointer}`;
      if (stack.includes(key)) throw new UserError(`${doc.file}: $ref "${ref}" refers back to itself; circular schemas are not supported`);
      const raw = atPointer(target.raw, pointer);
      if (raw === undefined) throw new UserError(`${doc.file}: $ref "${ref}" points at nothing${location ? ` in ${target.file}` : ''}`);
      return this.expand(decodeSchema(raw, target.file, pointer.split('/').filter(Boolean)), target, [...stack, key]);
    }
    const sub = (v: JsonObject): JsonObject => this.expand(v, doc, stack);
    const out: JsonObject = { ...s };
    for (const k of ['items', 'not', 'additionalProperties', 'additionalItems']) {
      const v = out[k];
      if (Array.isArray(v)) out[k] = v.map((x) => sub(x as JsonObject));
      else if (isPlainObject(v)) out[k] = sub(v);
    }
    for (const k of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(out[k])) out[k] = (out[k] as JsonObject[]).map(sub);
    for (const k of ['properties', 'patternProperties', 'definitions', 'dependencies']) {
      const m = out[k];
      if (!isPlainObject(m)) continue;
      const next: JsonObject = {};
      for (const [name, v] of Object.entries(m)) next[name] = isPlainObject(v) ? sub(v) : v;
      out[k] = next;
    }
    return out;
  }
}

/** VALUES.md "Extending": the values schema takes fields of the config schema it names. */
function extendSchema(child: JsonObject, parent: JsonObject): JsonObject {
  const out: JsonObject = { ...child };
  for (const key of ['definitions', 'properties', 'patternProperties']) {
    const p = parent[key];
    const c = child[key];
    if (isPlainObject(p) || isPlainObject(c)) out[key] = { ...(isPlainObject(p) ? p : {}), ...(isPlainObject(c) ? c : {}) };
  }
  const required = [...(Array.isArray(parent.required) ? parent.required : []), ...(Array.isArray(child.required) ? child.required : [])];
  if (required.length) out.required = [...new Set(required)];
  for (const key of ['title', 'description']) {
    if (!child[key] && parent[key] !== undefined) out[key] = parent[key] as JsonValue;
  }
  for (const [k, v] of Object.entries(parent)) {
    if (k.startsWith('x-') && !(k in out)) out[k] = v;
  }
  delete out['x-extend'];
  return out;
}

/**
 * Sets `additionalProperties: false` where unset (VALUES.md note), recursing into properties and
 * items. A schema that declares no `properties` or `patternProperties` stays open: VALUES.md calls
 * `discovery: {type: object}` "an optional object with no restrictions on keys" (the Go code closes
 * it too, so that it accepts only `{}`; docs/compatibility.md).
 */
export function closeObjects(schema: JsonObject): JsonObject {
  const out: JsonObject = { ...schema };
  const declaresKeys = isPlainObject(out.properties) || isPlainObject(out.patternProperties);
  if (!('additionalProperties' in out) && declaresKeys) out.additionalProperties = false;
  if (isPlainObject(out.properties)) {
    const props: JsonObject = {};
    for (const [k, p] of Object.entries(out.properties)) {
      props[k] = isPlainObject(p) && !('additionalProperties' in p) ? closeObjects(p) : p;
    }
    out.properties = props;
  }
  if (isPlainObject(out.items)) out.items = closeObjects(out.items);
  return out;
}

/** Merges `x-required-for-helm` into `required`, recursively. */
export function requireForHelm(schema: JsonObject): JsonObject {
  const out: JsonObject = { ...schema };
  const extra = out['x-required-for-helm'];
  const names = typeof extra === 'string' ? [extra] : Array.isArray(extra) ? extra.filter((x): x is string => typeof x === 'string') : [];
  if (names.length) out.required = [...new Set([...(Array.isArray(out.required) ? out.required : []), ...names])];
  if (isPlainObject(out.properties)) {
    const props: JsonObject = {};
    for (const [k, p] of Object.entries(out.properties)) props[k] = isPlainObject(p) ? requireForHelm(p) : p;
    out.properties = props;
  }
  if (isPlainObject(out.items)) out.items = requireForHelm(out.items);
  return out;
}

/**
 * Fills defaults as the Go operator does: an absent property with a `default` gets a copy of it (a
 * present null is kept; `default: null` is no default); then every present property is visited, defaulted ones included, and list
 * items with `items`. allOf/anyOf/oneOf and additionalProperties schemas are not used for defaults.
 * Changes `value` in place.
 */
export function applyDefaults(schema: JsonObject | undefined, value: JsonValue): void {
  if (!schema) return;
  if (isPlainObject(value)) {
    const props = isPlainObject(schema.properties) ? schema.properties : undefined;
    if (!props) return;
    for (const [k, p] of Object.entries(props)) {
      // go-openapi: a null default is no default
      if (!(k in value) && isPlainObject(p) && p.default !== undefined && p.default !== null) value[k] = cloneJson(p.default);
    }
    for (const [k, v] of Object.entries(value)) {
      const p = props[k];
      if (isPlainObject(p)) applyDefaults(p, v);
    }
  } else if (Array.isArray(value) && isPlainObject(schema.items)) {
    for (const item of value) applyDefaults(schema.items, item);
  }
}

function dotted(root: string, segments: (string | number)[]): string {
  let s = root;
  for (const seg of segments) {
    if (typeof seg === 'number') s += `[${seg}]`;
    else s += /^[A-Za-z_$][\w$-]*$/.test(seg) ? `.${seg}` : `[${JSON.stringify(seg)}]`;
  }
  return s;
}

function segmentsOf(instancePath: string, data: JsonValue): (string | number)[] {
  if (!instancePath) return [];
  const out: (string | number)[] = [];
  let cur: JsonValue | undefined = data;
  for (const raw of instancePath.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      out.push(Number(seg));
      cur = cur[Number(seg)];
    } else {
      out.push(seg);
      cur = isPlainObject(cur) ? cur[seg] : undefined;
    }
  }
  return out;
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  const s = JSON.stringify(v);
  return `${typeof v} ${s.length > 60 ? s.slice(0, 57) + '...' : s}`;
}

function valueAt(data: JsonValue, segs: (string | number)[]): unknown {
  let cur: unknown = data;
  for (const s of segs) cur = cur === null || typeof cur !== 'object' ? undefined : (cur as Record<string, unknown>)[String(s)];
  return cur;
}

function toProblems(errors: ErrorObject[], root: string, data: JsonValue): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const segs = segmentsOf(e.instancePath, data);
    let message: string;
    switch (e.keyword) {
      case 'additionalProperties':
        segs.push((e.params as { additionalProperty: string }).additionalProperty);
        message = 'is not allowed: the schema does not define this property (additionalProperties is false)';
        break;
      case 'required':
        segs.push((e.params as { missingProperty: string }).missingProperty);
        message = 'is required';
        break;
      case 'type':
        message = `must be ${(e.params as { type: string }).type}, got ${describeValue(valueAt(data, segs))}`;
        break;
      case 'enum':
        message = `must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}, got ${describeValue(valueAt(data, segs))}`;
        break;
      case 'format':
        message = `must be a valid ${(e.parentSchema as Record<string, string> | undefined)?.[FORMAT_NAME_KEYWORD] ?? (e.params as { format: string }).format}, got ${describeValue(valueAt(data, segs))}`;
        break;
      case 'pattern': {
        const pattern = (e.params as { pattern: string }).pattern;
        const bad = patternError(pattern);
        message = bad
          ? `must match pattern "${pattern}", but the pattern is not a valid Go regexp: ${bad}`
          : `must match pattern "${pattern}", got ${describeValue(valueAt(data, segs))}`;
        break;
      }
      case MULTIPLE_OF_KEYWORD:
        message = `must be multiple of ${(e.parentSchema as Record<string, number>)[MULTIPLE_OF_KEYWORD]}, got ${describeValue(valueAt(data, segs))}`;
        break;
      case NO_TYPE_KEYWORD:
        message = `must be of type ${JSON.stringify((e.parentSchema as Record<string, { names: string[] }>)[NO_TYPE_KEYWORD]!.names.join(','))}, which no value has, got ${describeValue(valueAt(data, segs))}`;
        break;
      default:
        message = `${e.message ?? 'is invalid'}${e.keyword === 'pattern' || e.keyword.startsWith('m') ? `, got ${describeValue(valueAt(data, segs))}` : ''}`;
    }
    const path = dotted(root, segs);
    const key = `${path}\0${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ segments: segs, path, message });
  }
  return problems;
}

interface LoadedSchema {
  file: string;
  schema: JsonObject;
  validator?: ValidateFunction;
}

/** The schemas of one scope. `validate` compiles on first use. */
export class ScopeSchemas {
  private readonly loaded: Partial<Record<SchemaKind, LoadedSchema>>;

  constructor(loaded: Partial<Record<SchemaKind, LoadedSchema>>) {
    this.loaded = loaded;
  }

  static empty(): ScopeSchemas {
    return new ScopeSchemas({});
  }

  has(kind: SchemaKind): boolean {
    return this.loaded[kind] !== undefined;
  }

  file(kind: SchemaKind): string | undefined {
    return this.loaded[kind]?.file;
  }

  /** The effective (transformed) schema, for defaults and inspection. */
  schema(kind: SchemaKind): JsonObject | undefined {
    return this.loaded[kind]?.schema;
  }

  /** Compiles every schema now, so that an invalid schema is reported at load time. */
  compileAll(): void {
    for (const kind of ['config', 'values', 'helm'] as const) this.validator(kind);
  }

  private validator(kind: SchemaKind): ValidateFunction | undefined {
    const l = this.loaded[kind];
    if (!l) return undefined;
    if (!l.validator) {
      try {
        l.validator = ajv().compile(toValidatorSchema(l.schema));
      } catch (e) {
        throw new UserError(`${l.file}: the schema is not valid: ${(e as Error).message}`);
      }
    }
    return l.validator;
  }

  /**
   * Problems of `data` (the scope's section) against the schema of `kind`; [] when valid or no schema.
   * The CEL rules run first, as in Go, and when one fails only their problems are reported; `old` is
   * the previous value for transition rules (those using `oldSelf`), undefined when there is none.
   */
  validate(kind: SchemaKind, data: JsonValue, root: string, old?: JsonValue): SchemaProblem[] {
    const l = this.loaded[kind];
    if (!l) return [];
    const cel = celProblems(l.schema, data, old);
    if (cel.length) return cel.map((p) => ({ segments: p.segments, path: dotted(root, p.segments), message: p.message }));
    const v = this.validator(kind);
    if (!v || v(data)) return [];
    return toProblems(v.errors ?? [], root, data);
  }
}

/** Reads a schema file as the Go operator does: YAML read by sigs.k8s.io/yaml (a repeated key: the later wins). */
function readSchemaFile(file: string): JsonValue {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read schema ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseYaml(text, file, { duplicateKeys: 'last' }) as JsonValue;
}

/** Decodes a schema file as go-openapi does and expands its `$ref`s. */
function loadSchemaFile(file: string): JsonObject {
  return new RefExpander(file).expandRoot(readSchemaFile(file));
}

/**
 * Loads `<dir>/config-values.yaml` and `<dir>/values.yaml` when they exist. `x-extend` with a
 * `schema` name extends the values schema with the config schema when there is one; without a config
 * schema, or without a name, it does nothing (Go's ExtendTransformer).
 */
export function loadScopeSchemas(openapiDir: string): ScopeSchemas {
  const configFile = join(openapiDir, CONFIG_SCHEMA_FILE);
  const valuesFile = join(openapiDir, VALUES_SCHEMA_FILE);
  const loaded: Partial<Record<SchemaKind, LoadedSchema>> = {};
  let config: JsonObject | undefined;
  if (existsSync(configFile)) {
    config = loadSchemaFile(configFile);
    loaded.config = { file: configFile, schema: closeObjects(config) };
  }
  if (existsSync(valuesFile)) {
    let values = loadSchemaFile(valuesFile);
    const ext = values['x-extend'];
    if (config && isPlainObject(ext) && typeof ext.schema === 'string') values = extendSchema(values, config);
    const closed = closeObjects(values);
    loaded.values = { file: valuesFile, schema: closed };
    const forHelm = requireForHelm(closed);
    // without x-required-for-helm the helm schema is the values schema: share it (and its compilation)
    loaded.helm = JSON.stringify(forHelm) === JSON.stringify(closed) ? loaded.values : { file: valuesFile, schema: forHelm };
  }
  return new ScopeSchemas(loaded);
}
