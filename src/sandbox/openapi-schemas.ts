/**
 * OpenAPI v3 schemas of the built-in kinds, for `kubectl explain` and for the strategic merge patches
 * kubectl computes from them. The structure comes from @kubernetes/client-node's generated models
 * (each class's attribute type map), the field descriptions from their declaration files; the patch
 * extensions (merge keys) from the sandbox's own strategic merge table. Loaded on first use: a sandbox
 * that nobody asks for OpenAPI never loads the client library.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { builtinMergeKey } from './patch.js';

type Schema = Record<string, unknown>;
interface Attribute {
  name: string;
  baseName: string;
  type: string;
  format: string;
}
type Models = Record<string, { getAttributeTypeMap?: () => Attribute[] } | unknown>;

let models: Models | undefined;
let modelsDir: string | undefined;
const built = new Map<string, Schema>();

async function loadModels(): Promise<Models> {
  if (!models) {
    models = (await import('@kubernetes/client-node')) as unknown as Models;
    try {
      modelsDir = join(dirname(createRequire(import.meta.url).resolve('@kubernetes/client-node')), 'gen', 'models');
    } catch {
      modelsDir = undefined;
    }
  }
  return models;
}

function attributes(cls: string): Attribute[] | undefined {
  const c = models?.[cls] as { getAttributeTypeMap?: () => Attribute[] } | undefined;
  return typeof c?.getAttributeTypeMap === 'function' ? c.getAttributeTypeMap() : undefined;
}

/** The class comment and the field comments (and which fields are required) of a model's .d.ts. */
function declarations(cls: string): { doc?: string; fields: Map<string, string>; required: Set<string> } {
  const fields = new Map<string, string>();
  const required = new Set<string>();
  let text = '';
  try {
    if (modelsDir) text = readFileSync(join(modelsDir, `${cls}.d.ts`), 'utf8');
  } catch {
    // no declarations: no descriptions
  }
  const clean = (c: string): string =>
    c
      .split('\n')
      .map((l) => l.replace(/^\s*\*\s?/, '').trim())
      .filter(Boolean)
      .join('\n')
      .replace(/\\(['"])/g, '$1');
  // a comment is the text between /** and the next */ (the file's header is a comment too)
  const classDoc = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export declare class/.exec(text);
  const re = /(?:\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*)?'([^']+)'(\??):/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[1]) fields.set(m[2], clean(m[1]));
    if (!m[3]) required.add(m[2]);
  }
  return { doc: classDoc ? clean(classDoc[1]) : undefined, fields, required };
}

/** `V1DeploymentSpec` → `DeploymentSpec`, `CoreV1Event` → `Event`, `V1beta1X` → `X`. */
function plainName(cls: string): string {
  return cls.replace(/^[A-Z][a-z]*?V\d+(?:(?:alpha|beta)\d+)?(?=[A-Z])|^V\d+(?:(?:alpha|beta)\d+)?(?=[A-Z])/, '');
}

/** The component name of a model: its last dot-separated part is the type name kubectl explain prints. */
export function schemaName(cls: string): string {
  const prefix = cls.slice(0, cls.length - plainName(cls).length).toLowerCase();
  return `io.k8s.sandbox.${prefix || 'types'}.${plainName(cls)}`;
}

/** The field path builtinMergeKey expects, for a list field of a model. */
function mergePath(cls: string, field: string): string[] {
  if (/Container$/.test(cls)) return ['containers', field];
  if (cls === 'V1ServiceSpec') return ['spec', field];
  if (cls === 'V1ObjectMeta') return ['metadata', field];
  return ['_', field];
}

function typeSchema(type: string, format: string, refs: Set<string>): Schema {
  let m: RegExpExecArray | null;
  if ((m = /^Array<(.+)>$/.exec(type))) return { type: 'array', items: typeSchema(m[1], format, refs) };
  if ((m = /^\{ \[key: string\]: (.+); \}$/.exec(type))) return { type: 'object', additionalProperties: typeSchema(m[1], format === 'byte' ? 'byte' : '', refs) };
  switch (type) {
    case 'string':
      return format ? { type: 'string', format } : { type: 'string' };
    case 'Date':
      return { type: 'string', format: 'date-time' };
    case 'number':
      return format === 'double' || format === 'float' ? { type: 'number', format } : { type: 'integer', format: format || 'int64' };
    case 'boolean':
      return { type: 'boolean' };
    case 'IntOrString':
      refs.add(INT_OR_STRING);
      return { allOf: [{ $ref: `#/components/schemas/${INT_OR_STRING}` }] };
    case 'any':
    case 'object':
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    default:
      if (attributes(type)) {
        refs.add(type);
        return { allOf: [{ $ref: `#/components/schemas/${schemaName(type)}` }] };
      }
      return {};
  }
}

const METADATA_DOC = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const INT_OR_STRING_SCHEMA: Schema = {
  type: 'string',
  format: 'int-or-string',
};

function modelSchema(cls: string, refs: Set<string>): Schema {
  if (cls === INT_OR_STRING) return INT_OR_STRING_SCHEMA;
  const cached = built.get(cls);
  if (cached) {
    for (const r of cached['x-sandbox-refs'] as string[]) refs.add(r);
    return cached;
  }
  const own = new Set<string>();
  const decl = declarations(cls);
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const a of attributes(cls) ?? []) {
    const s: Schema = { ...typeSchema(a.type, a.format, own) };
    const description = decl.fields.get(a.name) ?? decl.fields.get(a.baseName) ?? (a.baseName === 'metadata' ? METADATA_DOC : undefined);
    if (description) s.description = description;
    if (s.type === 'array') {
      const keys = builtinMergeKey(mergePath(cls, a.baseName));
      if (keys) {
        s['x-kubernetes-patch-strategy'] = 'merge';
        if (keys[0] !== '$primitive') s['x-kubernetes-patch-merge-key'] = keys[0];
      }
    }
    properties[a.baseName] = s;
    if (decl.required.has(a.name)) required.push(a.baseName);
  }
  const schema: Schema = { type: 'object', properties };
  if (decl.doc) schema.description = decl.doc;
  if (required.length) schema.required = required;
  Object.defineProperty(schema, 'x-sandbox-refs', { value: [...own], enumerable: false });
  built.set(cls, schema);
  for (const r of own) refs.add(r);
  return schema;
}

/** The client-node model class of a built-in kind, if there is one. */
export function modelClass(version: string, kind: string, group: string): string | undefined {
  const ver = version.charAt(0).toUpperCase() + version.slice(1);
  for (const cls of [`${ver}${kind}`, `${group === '' ? 'Core' : ''}${ver}${kind}`]) if (attributes(cls)) return cls;
  return undefined;
}

/**
 * The component schemas of the given built-in kinds and of every type they reference, each kind marked
 * with its group, version and kind as the API server marks them.
 */
export async function builtinComponentSchemas(
  kinds: { group: string; version: string; kind: string }[],
  extraClasses: string[] = [],
): Promise<Record<string, Schema>> {
  await loadModels();
  const out: Record<string, Schema> = {};
  const pending: string[] = [];
  const seen = new Set<string>();
  const visit = (cls: string): void => {
    if (seen.has(cls)) return;
    seen.add(cls);
    pending.push(cls);
  };
  const roots = new Map<string, { group: string; version: string; kind: string }>();
  for (const k of kinds) {
    const cls = modelClass(k.version, k.kind, k.group);
    if (!cls) continue;
    roots.set(cls, k);
    visit(cls);
  }
  for (const cls of extraClasses) if (attributes(cls)) visit(cls);
  while (pending.length) {
    const cls = pending.pop()!;
    const refs = new Set<string>();
    let schema = modelSchema(cls, refs);
    const root = roots.get(cls);
    if (root) schema = { ...schema, 'x-kubernetes-group-version-kind': [root] };
    out[cls === INT_OR_STRING ? cls : schemaName(cls)] = schema;
    for (const r of refs) visit(r);
  }
  return out;
}

/** The component name of ObjectMeta (custom resources refer to it). */
export const OBJECT_META = schemaName('V1ObjectMeta');
