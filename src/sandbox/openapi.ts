/**
 * OpenAPI documents for kubectl. It downloads /openapi/v3 and the document of the resource's group
 * version, and looks there for the resource's PATCH operation (found by its
 * x-kubernetes-group-version-kind) with a `fieldValidation` parameter: when present, kubectl leaves
 * validation to the server. The component schemas (built-in kinds from openapi-schemas.ts, custom
 * resources from their CRD) serve `kubectl explain` and the strategic merge patches kubectl computes.
 * /openapi/v2 is served as a tiny protobuf Document when asked for protobuf.
 */
import { createHash } from 'node:crypto';
import type { Registry } from './registry.js';
import { OBJECT_META, builtinComponentSchemas } from './openapi-schemas.js';

/** The documents of one registry generation, as JSON text, by `api/v1` / `apis/GROUP/VERSION`. */
const docCaches = new WeakMap<Registry, { generation: number; docs: Map<string, Promise<string | undefined>> }>();

/** The JSON text of the document of a group version (cached until the registry changes). */
export function openapiV3DocumentText(registry: Registry, group: string, version: string): Promise<string | undefined> {
  let docCache = docCaches.get(registry);
  if (!docCache || docCache.generation !== registry.generation) {
    docCache = { generation: registry.generation, docs: new Map() };
    docCaches.set(registry, docCache);
  }
  const key = group ? `apis/${group}/${version}` : `api/${version}`;
  let doc = docCache.docs.get(key);
  if (!doc) {
    doc = openapiV3Document(registry, group, version).then((d) => (d ? JSON.stringify(d) : undefined));
    docCache.docs.set(key, doc);
  }
  return doc;
}

/** The index; each document's hash is of its content, so that kubectl's disk cache never serves a stale one. */
export async function openapiV3Index(registry: Registry): Promise<Record<string, unknown>> {
  const paths: Record<string, unknown> = {};
  for (const [group, versions] of registry.groups()) {
    for (const v of versions) {
      const p = group ? `apis/${group}/${v}` : `api/${v}`;
      const text = (await openapiV3DocumentText(registry, group, v)) ?? '';
      const hash = createHash('sha512').update(text).digest('hex').slice(0, 128).toUpperCase();
      paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hash}` };
    }
  }
  return { paths };
}

const QUERY_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'];

export async function openapiV3Document(registry: Registry, group: string, version: string): Promise<Record<string, unknown> | undefined> {
  if (!registry.hasGroupVersion(group, version)) return undefined;
  const builtins: { group: string; version: string; kind: string }[] = [];
  const custom: Record<string, unknown> = {};
  const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const paths: Record<string, unknown> = {};
  for (const t of registry.all()) {
    if (t.group !== group || !t.versions.includes(version)) continue;
    const gvk = { group, version, kind: t.kind };
    if (t.builtin) builtins.push(gvk);
    else custom[customSchemaName(group, version, t.kind)] = customSchema(t.schemas?.[version], gvk);
    const base = t.namespaced ? `${prefix}/namespaces/{namespace}/${t.plural}` : `${prefix}/${t.plural}`;
    const nameParams = [
      { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
      ...(t.namespaced ? [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string' } }] : []),
    ];
    const content = (types: string[]): Record<string, unknown> =>
      Object.fromEntries(types.map((ct) => [ct, { schema: { type: 'object' } }]));
    const op = (action: string, bodyTypes?: string[]): Record<string, unknown> => ({
      operationId: `${action}${t.kind}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      parameters: QUERY_PARAMS.map((name) => ({ name, in: 'query', schema: { type: 'string', uniqueItems: true } })),
      ...(bodyTypes ? { requestBody: { content: content(bodyTypes), required: true } } : {}),
      responses: { '200': { description: 'OK', content: content(['application/json']) } },
    });
    paths[`${base}/{name}`] = {
      parameters: nameParams,
      get: op('get'),
      put: op('put', ['*/*']),
      // custom resources take no strategic merge patch (as in the API server)
      patch: op('patch', [
        'application/json-patch+json',
        'application/merge-patch+json',
        ...(t.builtin ? ['application/strategic-merge-patch+json'] : []),
        'application/apply-patch+yaml',
      ]),
      delete: op('delete'),
    };
    paths[base] = { post: op('post', ['*/*']), get: op('list') };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes (addon-operator sandbox)', version: 'v1.32.4' },
    paths,
    components: { schemas: { ...(await builtinComponentSchemas(builtins, Object.keys(custom).length ? ['V1ObjectMeta'] : [])), ...custom } },
  };
}

/** `example.com`, `v1`, `Widget` → `com.example.v1.Widget`, as the API server names CRD schemas. */
function customSchemaName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

/** A custom resource's schema: its openAPIV3Schema, with apiVersion, kind and metadata as the API server adds them. */
function customSchema(schema: unknown, gvk: { group: string; version: string; kind: string }): Record<string, unknown> {
  const base = schema && typeof schema === 'object' ? (schema as Record<string, unknown>) : { type: 'object' };
  const props = (base.properties ?? {}) as Record<string, unknown>;
  return {
    ...base,
    type: 'object',
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
      metadata: { allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }], description: "Standard object's metadata." },
      ...props,
    },
    'x-kubernetes-group-version-kind': [gvk],
  };
}

export function openapiV2Document(): Record<string, unknown> {
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes (addon-operator sandbox)', version: 'v1.32.4' },
    paths: {},
    definitions: {},
  };
}

function pbString(field: number, s: string): Buffer {
  const b = Buffer.from(s);
  return Buffer.concat([Buffer.from([(field << 3) | 2, b.length]), b]);
}

/** openapi_v2.Document { swagger = "2.0" (1); info (2) { title (1), version (2) } } in protobuf (gnostic's field numbers). */
export function openapiV2Protobuf(): Buffer {
  const info = Buffer.concat([pbString(1, 'Kubernetes (addon-operator sandbox)'), pbString(2, 'v1.32.4')]);
  return Buffer.concat([pbString(1, '2.0'), Buffer.from([(2 << 3) | 2, info.length]), info]);
}
