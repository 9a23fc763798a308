/**
 * Test fixture: a CustomResourceDefinition as plain JSON, as the API server takes it. `crd('Widget')`
 * is widgets.example.com, the custom resource the tests of the client, the monitors, the patcher, the
 * release engine and kubectl against the API server create:
 * every version served, the first one stored, a status subresource, and a schema that keeps unknown
 * fields unless one is given.
 */
import type { JsonObject } from '../../src/util/json.js';

export interface CrdOptions {
  group?: string;
  scope?: 'Namespaced' | 'Cluster';
  /** Version names, the first one stored (default `['v1']`). */
  versions?: string[];
  shortNames?: string[];
  /** The openAPIV3Schema of every version (default: an object keeping unknown fields). */
  schema?: JsonObject;
  /** additionalPrinterColumns of every version. */
  printerColumns?: { name: string; type: string; jsonPath: string }[];
}

export function crd(kind: string, opts: CrdOptions = {}) {
  const group = opts.group ?? 'example.com';
  const plural = `${kind.toLowerCase()}s`;
  const versions = opts.versions ?? ['v1'];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: opts.scope ?? 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, shortNames: opts.shortNames ?? [] },
      versions: versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        subresources: { status: {} },
        ...(opts.printerColumns ? { additionalPrinterColumns: opts.printerColumns } : {}),
        schema: { openAPIV3Schema: opts.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
    },
  };
}
