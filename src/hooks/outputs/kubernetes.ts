/**
 * `$KUBERNETES_PATCH_PATH`: object operations (shell-operator §5.2), a JSON stream or multi-document
 * YAML. Each spec is validated here; executing them is the Kubernetes layer's job.
 */
import { isPlainObject, splitJsonStream, type JsonObject, type JsonValue } from '../../util/json.js';
import { parseYamlDocuments } from '../../util/yaml.js';
import { toPatchOp, type PatchOp } from '../../values/patch.js';
import { HookOutputError } from './metrics.js';

interface Common {
  /** Apply this operation even when the hook failed (only with subresource "/status"). */
  ignoreHookError: boolean;
  subresource?: string;
}

interface Target {
  apiVersion?: string;
  kind: string;
  namespace?: string;
  name: string;
}

export type KubeOperation =
  | (Common & { operation: 'Create' | 'CreateIfNotExists' | 'CreateOrUpdate'; object: JsonObject })
  | (Common & Target & { operation: 'Delete' | 'DeleteInBackground' | 'DeleteNonCascading' })
  | (Common & Target & { operation: 'JQPatch'; jqFilter: string; ignoreMissingObject: boolean })
  | (Common & Target & { operation: 'MergePatch'; mergePatch: JsonObject; ignoreMissingObject: boolean })
  | (Common & Target & { operation: 'JSONPatch'; jsonPatch: PatchOp[]; ignoreMissingObject: boolean });

const KEYS = new Set(['operation', 'namespace', 'subresource', 'apiVersion', 'kind', 'name', 'object', 'jsonPatch', 'jqFilter', 'mergePatch', 'ignoreMissingObject', 'ignoreHookError']);
const OPERATIONS = ['Create', 'CreateIfNotExists', 'CreateOrUpdate', 'Delete', 'DeleteInBackground', 'DeleteNonCascading', 'JQPatch', 'MergePatch', 'JSONPatch'];

function parseDocs(text: string, source: string): { value: unknown; where: string }[] {
  try {
    return splitJsonStream(text, source, HookOutputError).map(({ value }, i) => ({ value, where: `${source}, document ${i + 1}` }));
  } catch (jsonError) {
    try {
      return parseYamlDocuments(text, source).map((value, i) => ({ value, where: `${source}, document ${i + 1}` }));
    } catch (yamlError) {
      const looksJson = /^\s*[[{]/.test(text);
      throw looksJson ? jsonError : yamlError;
    }
  }
}

/** An object or a JSON/YAML string holding one. */
function objectOrText(v: unknown, what: string, fail: (why: string) => never): JsonObject {
  if (typeof v === 'string') {
    let parsed: unknown;
    try {
      parsed = parseYamlDocuments(v, what)[0];
    } catch (e) {
      fail(`"${what}" is a string that is not JSON or YAML: ${(e as Error).message}`);
    }
    v = parsed;
  }
  if (!isPlainObject(v) || Object.keys(v).length === 0) fail(`"${what}" must be a non-empty object`);
  return v as JsonObject;
}

/** Validates one operation spec; `where` prefixes errors. */
export function toKubeOperation(item: unknown, where: string): KubeOperation {
  const fail = (why: string): never => {
    throw new HookOutputError(`${where}: ${why}`);
  };
  if (!isPlainObject(item)) fail('an operation must be a map');
  const spec = item as JsonObject;
  for (const k of Object.keys(spec)) if (!KEYS.has(k)) fail(`unknown key "${k}"`);
  const operation = spec.operation;
  if (typeof operation !== 'string' || !OPERATIONS.includes(operation)) fail(`"operation" must be one of ${OPERATIONS.join(', ')}, got ${JSON.stringify(operation)}`);
  const str = (k: string, required: boolean): string | undefined => {
    const v = spec[k];
    if (v === undefined || v === null || v === '') {
      if (required) fail(`"${operation as string}" needs "${k}"`);
      return undefined;
    }
    if (typeof v !== 'string') fail(`"${k}" must be a string`);
    return v as string;
  };
  const bool = (k: string): boolean => {
    const v = spec[k];
    if (v === undefined) return false;
    if (typeof v !== 'boolean') fail(`"${k}" must be true or false`);
    return v as boolean;
  };
  const common: Common = { ignoreHookError: bool('ignoreHookError') };
  const sub = str('subresource', false);
  if (sub) common.subresource = sub;
  switch (operation) {
    case 'Create':
    case 'CreateIfNotExists':
    case 'CreateOrUpdate': {
      const object = objectOrText(spec.object, 'object', fail);
      const meta = object.metadata;
      if (!isPlainObject(meta) || (typeof meta.name !== 'string' && typeof meta.generateName !== 'string')) fail('"object" needs metadata.name');
      if (typeof object.kind !== 'string' || typeof object.apiVersion !== 'string') fail('"object" needs apiVersion and kind');
      return { ...common, operation, object };
    }
  }
  const target: Target = { kind: str('kind', true)!, name: str('name', true)! };
  const apiVersion = str('apiVersion', false);
  const namespace = str('namespace', false);
  if (apiVersion) target.apiVersion = apiVersion;
  if (namespace) target.namespace = namespace;
  switch (operation) {
    case 'Delete':
    case 'DeleteInBackground':
    case 'DeleteNonCascading':
      return { ...common, ...target, operation };
    case 'JQPatch':
      return { ...common, ...target, operation, jqFilter: str('jqFilter', true)!, ignoreMissingObject: bool('ignoreMissingObject') };
    case 'MergePatch':
      return { ...common, ...target, operation, mergePatch: objectOrText(spec.mergePatch, 'mergePatch', fail), ignoreMissingObject: bool('ignoreMissingObject') };
    case 'JSONPatch': {
      let raw: JsonValue | undefined = spec.jsonPatch;
      if (typeof raw === 'string') {
        try {
          raw = JSON.parse(raw) as JsonValue;
        } catch {
          fail('"jsonPatch" is a string that is not JSON');
        }
      }
      if (!Array.isArray(raw) || raw.length === 0) fail('"JSONPatch" needs "jsonPatch": a non-empty list of operations');
      const ops = (raw as JsonValue[]).map((op, i) => toPatchOp(op, `${where}, jsonPatch[${i}]`));
      return { ...common, ...target, operation, jsonPatch: ops, ignoreMissingObject: bool('ignoreMissingObject') };
    }
  }
  throw new HookOutputError(`${where}: unsupported operation`);
}

export function parseKubernetesOperations(text: string, hook: string): KubeOperation[] {
  const source = `$KUBERNETES_PATCH_PATH of hook ${hook}`;
  const out: KubeOperation[] = [];
  for (const doc of parseDocs(text, source)) {
    const items = Array.isArray(doc.value) ? doc.value : [doc.value];
    items.forEach((item, idx) => out.push(toKubeOperation(item, items.length > 1 ? `${doc.where}, item ${idx}` : doc.where)));
  }
  return out;
}
