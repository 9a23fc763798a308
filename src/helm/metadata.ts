/**
 * Chart.yaml as Helm 3 reads it: YAML → JSON → chart.Metadata (so a field of the wrong JSON type is
 * an error, as Go's decoder reports it), then Metadata.Validate. Errors name the file and, when a
 * field is at fault, its line.
 */
import { UserError } from '../util/errors.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';
import { lineOfPath, parseYaml } from '../util/yaml.js';

/** A chart that Helm refuses to load; `helmText` is Helm's own message (without our file and line). */
export class ChartError extends UserError {
  constructor(
    message: string,
    readonly helmText: string,
  ) {
    super(message);
  }
}
import { SemverVersion } from '../gotemplate/index.js';

export interface Maintainer {
  name?: string;
  email?: string;
  url?: string;
}

/** Helm's chart.Dependency (JSON names). `enabled` is computed from conditions and tags. */
export interface ChartDependency {
  name: string;
  version?: string;
  repository: string;
  condition?: string;
  tags?: string[];
  enabled?: boolean;
  'import-values'?: JsonValue[];
  alias?: string;
}

/** Helm's chart.Metadata with its JSON field names. */
export interface ChartMetadata {
  name: string;
  home?: string;
  sources?: string[];
  version: string;
  description?: string;
  keywords?: string[];
  maintainers?: Maintainer[];
  icon?: string;
  apiVersion: string;
  condition?: string;
  tags?: string;
  appVersion?: string;
  deprecated?: boolean;
  annotations?: Record<string, string>;
  kubeVersion?: string;
  dependencies?: ChartDependency[];
  type?: string;
}

type FieldType = 'string' | 'bool' | '[]string' | 'map[string]string' | '[]interface {}' | 'maintainers' | 'dependencies';

/** Field order of Go's struct (also the order of its JSON encoding). */
const METADATA_FIELDS: [keyof ChartMetadata, FieldType][] = [
  ['name', 'string'],
  ['home', 'string'],
  ['sources', '[]string'],
  ['version', 'string'],
  ['description', 'string'],
  ['keywords', '[]string'],
  ['maintainers', 'maintainers'],
  ['icon', 'string'],
  ['apiVersion', 'string'],
  ['condition', 'string'],
  ['tags', 'string'],
  ['appVersion', 'string'],
  ['deprecated', 'bool'],
  ['annotations', 'map[string]string'],
  ['kubeVersion', 'string'],
  ['dependencies', 'dependencies'],
  ['type', 'string'],
];
export const METADATA_FIELD_ORDER = METADATA_FIELDS.map(([k]) => k);

const MAINTAINER_FIELDS: [keyof Maintainer, FieldType][] = [
  ['name', 'string'],
  ['email', 'string'],
  ['url', 'string'],
];

const DEPENDENCY_FIELDS: [keyof ChartDependency, FieldType][] = [
  ['name', 'string'],
  ['version', 'string'],
  ['repository', 'string'],
  ['condition', 'string'],
  ['tags', '[]string'],
  ['enabled', 'bool'],
  ['import-values', '[]interface {}'],
  ['alias', 'string'],
];

function jsonTypeName(v: JsonValue): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

class DecodeError extends Error {
  constructor(
    message: string,
    readonly path: (string | number)[],
  ) {
    super(message);
  }
}

/** Checks one value against a Go field type the way encoding/json does (null leaves the zero value). */
function decodeField(v: JsonValue, type: FieldType, struct: string, path: (string | number)[]): unknown {
  if (v === null) return undefined;
  const fail = (): never => {
    const goType = type === 'maintainers' ? '[]*chart.Maintainer' : type === 'dependencies' ? '[]*chart.Dependency' : type;
    throw new DecodeError(`json: cannot unmarshal ${jsonTypeName(v)} into Go struct field ${struct}.${path.filter((p) => typeof p === 'string').join('.')} of type ${goType}`, path);
  };
  switch (type) {
    case 'string':
      return typeof v === 'string' ? v : fail();
    case 'bool':
      return typeof v === 'boolean' ? v : fail();
    case '[]string':
      if (!Array.isArray(v)) fail();
      return (v as JsonValue[]).map((x, i) => (x === null ? '' : typeof x === 'string' ? x : decodeField(x, 'string', struct, [...path, i])));
    case 'map[string]string': {
      if (!isPlainObject(v)) fail();
      const out: Record<string, string> = {};
      for (const [k, x] of Object.entries(v as JsonObject)) out[k] = x === null ? '' : (decodeField(x, 'string', struct, [...path, k]) as string);
      return out;
    }
    case '[]interface {}':
      return Array.isArray(v) ? v : fail();
    case 'maintainers':
      if (!Array.isArray(v)) fail();
      return (v as JsonValue[]).map((x, i) => decodeStruct(x, MAINTAINER_FIELDS, 'Maintainer', [...path, i]));
    case 'dependencies':
      if (!Array.isArray(v)) fail();
      return (v as JsonValue[]).map((x, i) => decodeStruct(x, DEPENDENCY_FIELDS, 'Dependency', [...path, i]));
  }
}

function decodeStruct<T>(v: JsonValue, fields: [keyof T, FieldType][], struct: string, path: (string | number)[]): T {
  if (v === null) return null as T;
  if (!isPlainObject(v)) throw new DecodeError(`json: cannot unmarshal ${jsonTypeName(v)} into Go value of type chart.${struct}`, path);
  const out: Record<string, unknown> = {};
  for (const [key, type] of fields) {
    const k = key as string;
    if (!(k in v)) continue;
    const d = decodeField(v[k]!, type, struct, [...path, k]);
    if (d !== undefined) out[k] = d;
  }
  return out as T;
}

/** Masterminds semver.NewVersion, as Helm validates chart versions. */
function isValidSemver(v: string): boolean {
  try {
    SemverVersion.parse(v);
    return true;
  } catch {
    return false;
  }
}

const ALIAS_NAME = /^[a-zA-Z0-9_-]+$/;

/** Parses and validates Chart.yaml text; `file` is its path for messages. */
export function parseChartMetadata(text: string, file: string): ChartMetadata {
  const data = parseYaml(text, file) as JsonValue;
  const at = (path: (string | number)[]): string => {
    const line = lineOfPath(text, path);
    return line ? `${file}:${line}` : file;
  };
  let md: ChartMetadata;
  try {
    md = decodeStruct<ChartMetadata>(data ?? {}, METADATA_FIELDS, 'Metadata', []);
  } catch (e) {
    if (e instanceof DecodeError) throw new UserError(`${at(e.path)}: cannot load Chart.yaml: ${e.message}`);
    throw e;
  }
  // Helm 2 charts had no apiVersion; Helm 3 reads them as v1
  md.apiVersion ||= 'v1';
  const invalid = (message: string, path: (string | number)[] = []): never => {
    throw new ChartError(`${path.length ? at(path) : file}: validation: ${message}`, `validation: ${message}`);
  };
  if (!md.name) invalid('chart.metadata.name is required');
  if (md.name.includes('/') || md.name === '.' || md.name === '..') invalid(`chart.metadata.name ${JSON.stringify(md.name)} is invalid`, ['name']);
  if (!md.version) invalid('chart.metadata.version is required');
  if (!isValidSemver(md.version)) invalid(`chart.metadata.version ${JSON.stringify(md.version)} is invalid`, ['version']);
  if (md.type && md.type !== 'application' && md.type !== 'library') invalid('chart.metadata.type must be application or library', ['type']);
  const seen = new Set<string>();
  (md.dependencies ?? []).forEach((d, i) => {
    if (!d) invalid('dependencies must not contain empty or null nodes', ['dependencies', i]);
    if (d.alias && !ALIAS_NAME.test(d.alias)) invalid(`dependency ${JSON.stringify(d.name)} has disallowed characters in the alias`, ['dependencies', i, 'alias']);
    const key = d.alias || d.name;
    if (seen.has(key)) invalid(`more than one dependency with name or alias ${JSON.stringify(key)}`, ['dependencies', i]);
    seen.add(key);
  });
  return md;
}
