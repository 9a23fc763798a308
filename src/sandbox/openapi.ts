/**
 * Minimal OpenAPI documents: enough for kubectl. It downloads /openapi/v3 and the document of the
 * resource's group version, and looks there for the resource's PATCH operation (found by its
 * x-kubernetes-group-version-kind) with a `fieldValidation` parameter: when present, kubectl leaves
 * validation to the server and computes strategic merge patches from its built-in types.
 * /openapi/v2 is served as a tiny protobuf Document when asked for protobuf.
 */
import type { Registry } from './registry.js';

export function openapiV3Index(registry: Registry): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [group, versions] of registry.groups()) {
    for (const v of versions) {
      const p = group ? `apis/${group}/${v}` : `api/${v}`;
      paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${registry.generation}` };
    }
  }
  return { paths };
}

const QUERY_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'];

export function openapiV3Document(registry: Registry, group: string, version: string): Record<string, unknown> | undefined {
  if (!registry.hasGroupVersion(group, version)) return undefined;
  const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const paths: Record<string, unknown> = {};
  for (const t of registry.all()) {
    if (t.group !== group || !t.versions.includes(version)) continue;
    const gvk = { group, version, kind: t.kind };
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
      patch: op('patch', ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']),
      delete: op('delete'),
    };
    paths[base] = { post: op('post', ['*/*']), get: op('list') };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes (addon-operator sandbox)', version: 'v1.32.4' },
    paths,
    components: { schemas: {} },
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

/** openapi_v2.Document { swagger = "2.0"; info { title, version } } in protobuf. */
export function openapiV2Protobuf(): Buffer {
  const info = Buffer.concat([pbString(1, 'Kubernetes (addon-operator sandbox)'), pbString(5, 'v1.32.4')]);
  return Buffer.concat([pbString(1, '2.0'), Buffer.from([(2 << 3) | 2, info.length]), info]);
}
