/**
 * OpenAPI schemas of a values scope (global or one module), as VALUES.md "Validation" describes:
 * `openapi/config-values.yaml` for config values, `openapi/values.yaml` for effective values (with
 * `x-extend`), `additionalProperties: false` wherever an object schema leaves it unset, and
 * `x-required-for-helm` checked only before rendering. Schemas are compiled lazily, once.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { UserError } from '../util/errors.js';
import { parseYaml } from '../util/yaml.js';
import { cloneJson, isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

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

const OPENAPI_ANNOTATIONS = ['example', 'externalDocs', 'xml', 'discriminator'];

let sharedAjv: Ajv | undefined;
function ajv(): Ajv {
  if (!sharedAjv) {
    sharedAjv = new Ajv({
      allErrors: true,
      strict: true,
      strictTypes: false,
      strictTuples: false,
      strictRequired: false,
      validateFormats: true,
      discriminator: false,
    });
    addFormats(sharedAjv);
    // OpenAPI/Kubernetes durations ("30s", "1h5m") rather than ISO 8601
    sharedAjv.addFormat('duration', /^(-?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h|d|w))+|0)$/);
    for (const k of OPENAPI_ANNOTATIONS) sharedAjv.addKeyword({ keyword: k });
  }
  return sharedAjv;
}

/** Registers every `x-*` keyword and unknown format used by a schema, so strict mode accepts them. */
function registerExtensions(schema: JsonValue): void {
  const a = ajv();
  const visit = (v: JsonValue): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!isPlainObject(v)) return;
    for (const [k, child] of Object.entries(v)) {
      if (k.startsWith('x-') && !a.getKeyword(k)) a.addKeyword({ keyword: k });
      if (k === 'format' && typeof child === 'string' && !a.formats[child]) a.addFormat(child, true);
      visit(child);
    }
  };
  visit(schema);
}

/** Inlines local `$ref`s (`#/definitions/x`, `#/$defs/x`) as go-openapi's ExpandSchema does. */
function inlineRefs(schema: JsonObject, file: string): JsonObject {
  const resolve = (ref: string, seen: string[]): JsonValue => {
    if (!ref.startsWith('#/')) throw new UserError(`${file}: only local $ref are supported, got "${ref}"`);
    if (seen.includes(ref)) throw new UserError(`${file}: $ref "${ref}" refers to itself`);
    let cur: JsonValue | undefined = schema;
    for (const seg of ref.slice(2).split('/')) {
      cur = isPlainObject(cur) ? cur[seg.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    }
    if (cur === undefined) throw new UserError(`${file}: $ref "${ref}" points at nothing`);
    return walk(cur, [...seen, ref]);
  };
  const walk = (v: JsonValue, seen: string[]): JsonValue => {
    if (Array.isArray(v)) return v.map((x) => walk(x, seen));
    if (!isPlainObject(v)) return v;
    if (typeof v.$ref === 'string') {
      const { $ref, ...rest } = v;
      const target = resolve($ref as string, seen);
      return isPlainObject(target) ? { ...target, ...(walk(rest, seen) as JsonObject) } : target;
    }
    const out: JsonObject = {};
    for (const [k, child] of Object.entries(v)) out[k] = walk(child, seen);
    return out;
  };
  const out = walk(schema, []) as JsonObject;
  delete out.definitions;
  delete out.$defs;
  return out;
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
 * present null is kept); then every present property is visited, defaulted ones included, and list
 * items with `items`. allOf/anyOf/oneOf and additionalProperties schemas are not used for defaults.
 * Changes `value` in place.
 */
export function applyDefaults(schema: JsonObject | undefined, value: JsonValue): void {
  if (!schema) return;
  if (isPlainObject(value)) {
    const props = isPlainObject(schema.properties) ? schema.properties : undefined;
    if (!props) return;
    for (const [k, p] of Object.entries(props)) {
      if (!(k in value) && isPlainObject(p) && p.default !== undefined) value[k] = cloneJson(p.default);
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
        message = `must be a valid ${(e.params as { format: string }).format}, got ${describeValue(valueAt(data, segs))}`;
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
        registerExtensions(l.schema);
        l.validator = ajv().compile(l.schema);
      } catch (e) {
        throw new UserError(`${l.file}: the schema is not valid: ${(e as Error).message}`);
      }
    }
    return l.validator;
  }

  /** Problems of `data` (the scope's section) against the schema of `kind`; [] when valid or no schema. */
  validate(kind: SchemaKind, data: JsonValue, root: string): SchemaProblem[] {
    const v = this.validator(kind);
    if (!v || v(data)) return [];
    return toProblems(v.errors ?? [], root, data);
  }
}

function readSchemaFile(file: string): JsonObject {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read schema ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const data = parseYaml(text, file);
  if (data === null) return {};
  if (!isPlainObject(data)) throw new UserError(`${file}: a schema must be a YAML map, got ${describeValue(data)}`);
  return data;
}

/** Loads `<dir>/config-values.yaml` and `<dir>/values.yaml` when they exist. */
export function loadScopeSchemas(openapiDir: string): ScopeSchemas {
  const configFile = join(openapiDir, CONFIG_SCHEMA_FILE);
  const valuesFile = join(openapiDir, VALUES_SCHEMA_FILE);
  const loaded: Partial<Record<SchemaKind, LoadedSchema>> = {};
  let rawConfig: JsonObject | undefined;
  if (existsSync(configFile)) {
    rawConfig = inlineRefs(readSchemaFile(configFile), configFile);
    loaded.config = { file: configFile, schema: closeObjects(rawConfig) };
  }
  if (existsSync(valuesFile)) {
    let raw = inlineRefs(readSchemaFile(valuesFile), valuesFile);
    const ext = raw['x-extend'];
    if (ext !== undefined) {
      const target = isPlainObject(ext) ? ext.schema : undefined;
      if (typeof target !== 'string') throw new UserError(`${valuesFile}: x-extend must be a map with a "schema" file name`);
      if (target !== CONFIG_SCHEMA_FILE) throw new UserError(`${valuesFile}: x-extend.schema may only name ${CONFIG_SCHEMA_FILE}, got "${target}"`);
      if (!rawConfig) throw new UserError(`${valuesFile}: x-extend names ${CONFIG_SCHEMA_FILE}, which does not exist in ${openapiDir}`);
      raw = extendSchema(raw, rawConfig);
    }
    const closed = closeObjects(raw);
    loaded.values = { file: valuesFile, schema: closed };
    const forHelm = requireForHelm(closed);
    // without x-required-for-helm the helm schema is the values schema: share it (and its compilation)
    loaded.helm = JSON.stringify(forHelm) === JSON.stringify(closed) ? loaded.values : { file: valuesFile, schema: forHelm };
  }
  return new ScopeSchemas(loaded);
}
