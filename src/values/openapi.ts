/**
 * Reads an OpenAPI schema the way go-openapi's `spec.Schema.UnmarshalJSON` does (the Go operator's
 * reader, pkg/values/validation/schemas.go), so that any schema the Go operator loads loads here with
 * the same meaning:
 * - keywords are matched as Go's encoding/json matches struct fields: exactly or case-insensitively;
 * - unknown keywords (documentation keys, misspellings such as `attern`) are ignored, `x-*` keys are
 *   kept as extensions;
 * - odd shapes get go-openapi's meaning: `properties: null` is no properties, `items: "string"` is no
 *   item schema, `additionalProperties: "no"` allows (only the literal `false` forbids), a null
 *   property schema accepts anything, `default: null` is no default;
 * - a keyword of the wrong type fails the load as Go's decoder does, naming the keyword's path.
 * The result is a plain JSON object holding only the keywords below (canonical spelling) and the
 * extensions; `toValidatorSchema` turns it into what the validator compiles.
 */
import { UserError } from '../util/errors.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';

type Kind = 'string' | 'bool' | 'number' | 'int' | 'any' | 'types' | 'strings' | 'list' | 'schema' | 'schemas' | 'schemaMap' | 'schemaOrArray' | 'schemaOrBool' | 'dependencies' | 'object';

/** go-openapi's SchemaProps and SwaggerSchemaProps, by JSON name. `$ref`/`$schema` are read apart. */
const KEYWORDS: Record<string, Kind> = {
  id: 'string',
  description: 'string',
  type: 'types',
  nullable: 'bool',
  format: 'string',
  title: 'string',
  default: 'any',
  maximum: 'number',
  exclusiveMaximum: 'bool',
  minimum: 'number',
  exclusiveMinimum: 'bool',
  maxLength: 'int',
  minLength: 'int',
  pattern: 'string',
  maxItems: 'int',
  minItems: 'int',
  uniqueItems: 'bool',
  multipleOf: 'number',
  enum: 'list',
  maxProperties: 'int',
  minProperties: 'int',
  required: 'strings',
  items: 'schemaOrArray',
  allOf: 'schemas',
  oneOf: 'schemas',
  anyOf: 'schemas',
  not: 'schema',
  properties: 'schemaMap',
  additionalProperties: 'schemaOrBool',
  patternProperties: 'schemaMap',
  dependencies: 'dependencies',
  additionalItems: 'schemaOrBool',
  definitions: 'schemaMap',
  discriminator: 'string',
  readOnly: 'bool',
  xml: 'object',
  externalDocs: 'object',
  example: 'any',
};
const BY_LOWER = new Map(Object.keys(KEYWORDS).map((k) => [k.toLowerCase(), k]));

function goType(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

function where(path: readonly string[]): string {
  return path.length ? path.join('.') : '(root)';
}

function fail(file: string, path: readonly string[], what: string): never {
  throw new UserError(`${file}: ${where(path)}: ${what}`);
}

/** Decodes one schema node; `null` decodes to the empty schema, as Go's decoder leaves a zero Schema. */
export function decodeSchema(raw: JsonValue, file: string, path: string[] = []): JsonObject {
  if (raw === null) return {};
  if (!isPlainObject(raw)) fail(file, path, `a schema must be a map, got ${goType(raw)}`);
  const out: JsonObject = {};
  // Go's JSON has the keys sorted (sigs.k8s.io/yaml); for two spellings of one field the later wins
  for (const key of Object.keys(raw).sort()) {
    const v = raw[key]!;
    if (key === '$ref') {
      if (typeof v === 'string') out.$ref = v;
      continue;
    }
    if (key.toLowerCase().startsWith('x-')) {
      out[key] = v;
      continue;
    }
    const name = KEYWORDS[key] ? key : BY_LOWER.get(key.toLowerCase());
    if (!name) continue; // go-openapi keeps it as an extra property that nothing reads
    const decoded = decodeKeyword(KEYWORDS[name]!, v, file, [...path, key]);
    if (decoded === undefined) delete out[name];
    else out[name] = decoded;
  }
  return out;
}

function decodeKeyword(kind: Kind, v: JsonValue, file: string, path: string[]): JsonValue | undefined {
  if (v === null) return undefined; // Go's decoder leaves the field unset
  const wrong = (want: string): never => fail(file, path, `must be ${want}, got ${goType(v)} ${JSON.stringify(v).slice(0, 40)}`);
  switch (kind) {
    case 'string':
      return typeof v === 'string' ? (v === '' ? undefined : v) : wrong('a string');
    case 'bool':
      return typeof v === 'boolean' ? (v ? true : undefined) : wrong('a boolean');
    case 'number':
      return typeof v === 'number' ? v : wrong('a number');
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) ? v : wrong('an integer');
    case 'any':
      return v;
    case 'types':
      if (typeof v === 'string') return [v];
      if (Array.isArray(v) && v.every((t) => typeof t === 'string')) return v.length ? v : undefined;
      return wrong('a string or a list of strings');
    case 'strings':
      if (Array.isArray(v) && v.every((t) => typeof t === 'string')) return v.length ? v : undefined;
      return wrong('a list of strings');
    case 'list':
      return Array.isArray(v) ? (v.length ? v : undefined) : wrong('a list');
    case 'object':
      return isPlainObject(v) ? undefined : wrong('a map');
    case 'schema':
      return decodeSchema(v, file, path);
    case 'schemas':
      if (!Array.isArray(v)) return wrong('a list of schemas');
      return v.length ? v.map((s, i) => decodeSchema(s, file, [...path, String(i)])) : undefined;
    case 'schemaMap': {
      if (!isPlainObject(v)) return wrong('a map of schemas');
      const out: JsonObject = {};
      for (const [k, s] of Object.entries(v)) out[k] = decodeSchema(s, file, [...path, k]);
      return Object.keys(out).length ? out : undefined;
    }
    case 'schemaOrArray':
      // go-openapi's SchemaOrArray: a map is a schema, a list is a tuple, anything else is nothing
      if (isPlainObject(v)) return decodeSchema(v, file, path);
      if (Array.isArray(v)) return v.map((s, i) => decodeSchema(s, file, [...path, String(i)]));
      return undefined;
    case 'schemaOrBool':
      // go-openapi's SchemaOrBool: a map is a schema; only the literal false forbids
      if (isPlainObject(v)) return decodeSchema(v, file, path);
      return v !== false;
    case 'dependencies': {
      if (!isPlainObject(v)) return wrong('a map');
      const out: JsonObject = {};
      for (const [k, d] of Object.entries(v)) {
        if (isPlainObject(d)) out[k] = decodeSchema(d, file, [...path, k]);
        else if (Array.isArray(d)) {
          if (!d.every((x) => typeof x === 'string')) fail(file, [...path, k], 'must be a schema or a list of property names');
          out[k] = d;
        }
      }
      return Object.keys(out).length ? out : undefined;
    }
  }
}

/** The JSON types the validator knows; go-openapi also knows `file`, which no values document holds. */
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);

/** go-openapi/strfmt's default registry; a name is compared with its dashes removed. Others are skipped. */
export const KNOWN_FORMATS = new Set([
  'bsonobjectid', 'date', 'datetime', 'uri', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uuid', 'uuid3', 'uuid4', 'uuid5', 'uuid7',
  'isbn', 'isbn10', 'isbn13', 'creditcard', 'ssn', 'hexcolor', 'rgbcolor', 'byte', 'password', 'duration', 'ulid',
]);

export const normalizeFormat = (name: string): string => name.replace(/-/g, '');

/** go-openapi's multipleOf: the quotient compared with an integer up to a relative 1e-9 (100 is a multiple of 0.01). */
export const MULTIPLE_OF_KEYWORD = 'goMultipleOf';

export function isGoMultipleOf(data: number, factor: number): boolean {
  if (!(factor > 0)) return false;
  const mult = factor < 1 ? (1 / factor) * data : data / factor;
  if (!Number.isFinite(mult)) return false;
  const rounded = Math.round(mult);
  if (mult === rounded) return true;
  if (rounded === 0) return false;
  return Math.abs(mult - rounded) / Math.abs(rounded) < 1e-9;
}

/** Annotation carrying a format's name as written (`date-time`), for messages. */
export const FORMAT_NAME_KEYWORD = 'x-format-name';

/** Keyword the validator gets for a `type` that names no JSON type at all (go-openapi: nothing matches). */
export const NO_TYPE_KEYWORD = 'goUnknownType';

/**
 * The validator's form of a decoded schema: JSON Schema draft-07 keywords only (no annotations, no
 * extensions), Swagger's boolean `exclusiveMaximum` turned into the numeric form, formats go-openapi
 * does not know dropped, `nullable` only beside a `type`.
 */
export function toValidatorSchema(s: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(s)) {
    switch (k) {
      case 'type': {
        const types = (v as string[]).filter((t) => JSON_TYPES.has(t));
        if (types.length) out.type = types.length === 1 ? types[0]! : types;
        else out[NO_TYPE_KEYWORD] = { names: v, nullable: s.nullable === true };
        if (types.length && s.nullable === true && !types.includes('null')) out.nullable = true;
        break;
      }
      case 'format':
        if (KNOWN_FORMATS.has(normalizeFormat(v as string))) {
          out.format = normalizeFormat(v as string);
          out[FORMAT_NAME_KEYWORD] = v; // for messages: the name as the schema spells it
        }
        break;
      case 'maximum':
        out[s.exclusiveMaximum === true ? 'exclusiveMaximum' : 'maximum'] = v;
        break;
      case 'minimum':
        out[s.exclusiveMinimum === true ? 'exclusiveMinimum' : 'minimum'] = v;
        break;
      case 'multipleOf':
        out[MULTIPLE_OF_KEYWORD] = v;
        break;
      case 'maxLength':
      case 'minLength':
      case 'maxItems':
      case 'minItems':
      case 'maxProperties':
      case 'minProperties':
      case 'pattern':
      case 'enum':
      case 'required':
      case 'uniqueItems':
        out[k] = v;
        break;
      case 'items':
        out.items = Array.isArray(v) ? v.map((x) => toValidatorSchema(x as JsonObject)) : toValidatorSchema(v as JsonObject);
        break;
      case 'additionalProperties':
      case 'additionalItems':
        if (v === false) out[k] = false;
        else if (isPlainObject(v)) out[k] = toValidatorSchema(v);
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        out[k] = (v as JsonObject[]).map(toValidatorSchema);
        break;
      case 'not':
        out.not = toValidatorSchema(v as JsonObject);
        break;
      case 'properties':
      case 'patternProperties': {
        const m: JsonObject = {};
        for (const [name, p] of Object.entries(v as JsonObject)) m[name] = toValidatorSchema(p as JsonObject);
        out[k] = m;
        break;
      }
      case 'dependencies': {
        const m: JsonObject = {};
        for (const [name, d] of Object.entries(v as JsonObject)) m[name] = Array.isArray(d) ? d : toValidatorSchema(d as JsonObject);
        out.dependencies = m;
        break;
      }
      default:
      // annotations, defaults, definitions (inlined before), extensions: nothing to validate
    }
  }
  return out;
}
