/** The resource types the sandbox serves: the built-in kinds and the ones CRDs add; discovery documents. */

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  format?: string;
  description?: string;
  priority?: number;
}

export interface ResourceType {
  group: string;
  /** The versions this resource is served in; the first is the storage (and preferred) version. */
  versions: string[];
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Subresources, e.g. `status`, `scale`. For CRDs, per version (versionSubresources). */
  subresources: string[];
  versionSubresources?: Record<string, string[]>;
  builtin: boolean;
  /** Printer columns for custom resources, per version. */
  printerColumns?: Record<string, PrinterColumn[]>;
  /** openAPIV3Schema of each version of a custom resource (for defaulting). */
  schemas?: Record<string, unknown>;
  /** Verbs when not the standard set (namespaces, create-only review resources). */
  verbs?: string[];
  /** x-kubernetes-list-map-keys found in a CRD's schema, by dotted field path (for server-side apply). */
  listMapKeys?: Record<string, string[]>;
  /** A custom resource's selectableFields (field paths without the leading dot), of all its versions. */
  selectableFields?: string[];
}

/** Key of a resource type in maps: `group/plural` (`/pods` for the core group). */
export function typeKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

export const STANDARD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

type B = [group: string, version: string, plural: string, kind: string, namespaced: boolean, shortNames: string[], subresources: string[]];

const BUILTINS: B[] = [
  ['', 'v1', 'namespaces', 'Namespace', false, ['ns'], ['status', 'finalize']],
  ['', 'v1', 'configmaps', 'ConfigMap', true, ['cm'], []],
  ['', 'v1', 'secrets', 'Secret', true, [], []],
  ['', 'v1', 'services', 'Service', true, ['svc'], ['status']],
  ['', 'v1', 'serviceaccounts', 'ServiceAccount', true, ['sa'], []],
  ['', 'v1', 'pods', 'Pod', true, ['po'], ['status']],
  ['', 'v1', 'nodes', 'Node', false, ['no'], ['status']],
  ['', 'v1', 'events', 'Event', true, ['ev'], []],
  ['', 'v1', 'endpoints', 'Endpoints', true, ['ep'], []],
  ['', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, ['pvc'], ['status']],
  ['', 'v1', 'persistentvolumes', 'PersistentVolume', false, ['pv'], ['status']],
  ['', 'v1', 'limitranges', 'LimitRange', true, ['limits'], []],
  ['', 'v1', 'resourcequotas', 'ResourceQuota', true, ['quota'], ['status']],
  ['apps', 'v1', 'deployments', 'Deployment', true, ['deploy'], ['status', 'scale']],
  ['apps', 'v1', 'daemonsets', 'DaemonSet', true, ['ds'], ['status']],
  ['apps', 'v1', 'statefulsets', 'StatefulSet', true, ['sts'], ['status', 'scale']],
  ['apps', 'v1', 'replicasets', 'ReplicaSet', true, ['rs'], ['status', 'scale']],
  ['apps', 'v1', 'controllerrevisions', 'ControllerRevision', true, [], []],
  ['batch', 'v1', 'jobs', 'Job', true, [], ['status']],
  ['batch', 'v1', 'cronjobs', 'CronJob', true, ['cj'], ['status']],
  ['rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true, [], []],
  ['rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true, [], []],
  ['rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false, [], []],
  ['rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false, [], []],
  ['coordination.k8s.io', 'v1', 'leases', 'Lease', true, [], []],
  ['apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false, ['crd', 'crds'], ['status']],
  ['discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true, [], []],
  ['networking.k8s.io', 'v1', 'ingresses', 'Ingress', true, ['ing'], ['status']],
  ['networking.k8s.io', 'v1', 'ingressclasses', 'IngressClass', false, [], []],
  ['networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true, ['netpol'], []],
  ['policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true, ['pdb'], ['status']],
  ['admissionregistration.k8s.io', 'v1', 'mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false, [], []],
  ['admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false, [], []],
  ['apiregistration.k8s.io', 'v1', 'apiservices', 'APIService', false, [], ['status']],
  ['storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false, ['sc'], []],
  ['storage.k8s.io', 'v1', 'csidrivers', 'CSIDriver', false, [], []],
  ['storage.k8s.io', 'v1', 'csinodes', 'CSINode', false, [], []],
  ['storage.k8s.io', 'v1', 'volumeattachments', 'VolumeAttachment', false, [], ['status']],
  ['scheduling.k8s.io', 'v1', 'priorityclasses', 'PriorityClass', false, ['pc'], []],
  ['autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, ['hpa'], ['status']],
];

const CATEGORY_ALL = new Set([
  'pods', 'services', 'deployments', 'daemonsets', 'statefulsets', 'replicasets', 'jobs', 'cronjobs',
  'horizontalpodautoscalers',
]);

export class Registry {
  private readonly types = new Map<string, ResourceType>();
  /** Bumped on every change, so that cached discovery documents can be invalidated. */
  generation = 0;

  constructor() {
    for (const [group, version, plural, kind, namespaced, shortNames, subresources] of BUILTINS) {
      this.add({
        group,
        versions: [version],
        plural,
        singular: kind.toLowerCase(),
        kind,
        listKind: `${kind}List`,
        namespaced,
        shortNames,
        categories: CATEGORY_ALL.has(plural) ? ['all'] : [],
        subresources,
        builtin: true,
        // as in the API server: namespaces have no deletecollection
        ...(group === '' && plural === 'namespaces' ? { verbs: STANDARD_VERBS.filter((v) => v !== 'deletecollection') } : {}),
      });
    }
    this.addReviews();
  }

  private addReviews(): void {
    for (const [group, plural, kind] of [
      ['authorization.k8s.io', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview'],
      ['authorization.k8s.io', 'subjectaccessreviews', 'SubjectAccessReview'],
    ]) {
      this.add({
        group, versions: ['v1'], plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`,
        namespaced: false, shortNames: [], categories: [], subresources: [], builtin: true, verbs: ['create'],
      });
    }
  }

  add(t: ResourceType): void {
    this.types.set(typeKey(t.group, t.plural), t);
    this.generation++;
  }

  remove(group: string, plural: string): ResourceType | undefined {
    const key = typeKey(group, plural);
    const t = this.types.get(key);
    if (t && !t.builtin) {
      this.types.delete(key);
      this.generation++;
      return t;
    }
    return undefined;
  }

  byKey(key: string): ResourceType | undefined {
    return this.types.get(key);
  }

  get(group: string, plural: string): ResourceType | undefined {
    return this.types.get(typeKey(group, plural));
  }

  /** A served resource type for group/version/plural, or undefined. */
  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    const t = this.types.get(typeKey(group, plural));
    return t && t.versions.includes(version) ? t : undefined;
  }

  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    const [group, version] = splitApiVersion(apiVersion);
    for (const t of this.types.values()) {
      if (t.group === group && t.kind === kind && t.versions.includes(version)) return t;
    }
    return undefined;
  }

  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** Served group versions: `{group: [versions...]}` (order: preferred first). */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const t of this.types.values()) {
      const vs = out.get(t.group) ?? [];
      for (const v of t.versions) if (!vs.includes(v)) vs.push(v);
      out.set(t.group, vs);
    }
    return out;
  }

  hasGroupVersion(group: string, version: string): boolean {
    for (const t of this.types.values()) if (t.group === group && t.versions.includes(version)) return true;
    return false;
  }

  subresourcesFor(t: ResourceType, version: string): string[] {
    return t.versionSubresources?.[version] ?? t.subresources;
  }

  /** `GET /api/v1` or `/apis/G/V`. */
  resourceList(group: string, version: string): Record<string, unknown> {
    const resources: Record<string, unknown>[] = [];
    for (const t of this.types.values()) {
      if (t.group !== group || !t.versions.includes(version)) continue;
      const r: Record<string, unknown> = {
        name: t.plural,
        singularName: t.singular,
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: t.verbs ?? STANDARD_VERBS,
      };
      if (t.shortNames.length) r.shortNames = t.shortNames;
      if (t.categories.length) r.categories = t.categories;
      r.storageVersionHash = hashString(`${group}/${t.versions[0]}/${t.kind}`);
      resources.push(r);
      for (const sub of this.subresourcesFor(t, version)) {
        if (sub === 'finalize') {
          resources.push({ name: `${t.plural}/finalize`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['update'] });
        } else if (sub === 'scale') {
          resources.push({ name: `${t.plural}/scale`, singularName: '', namespaced: t.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
        } else {
          resources.push({ name: `${t.plural}/${sub}`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] });
        }
      }
    }
    return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
  }

  apiGroup(group: string): Record<string, unknown> | undefined {
    const vs = this.groups().get(group);
    if (!vs || !group) return undefined;
    const versions = vs.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
    return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions, preferredVersion: versions[0] };
  }

  apiGroupList(): Record<string, unknown> {
    const groups: Record<string, unknown>[] = [];
    const names = [...this.groups().keys()].filter((g) => g !== '');
    for (const g of names) {
      const { kind: _k, apiVersion: _a, ...rest } = this.apiGroup(g)!;
      groups.push(rest);
    }
    return { kind: 'APIGroupList', apiVersion: 'v1', groups };
  }
}

export function splitApiVersion(apiVersion: string): [group: string, version: string] {
  const i = apiVersion.indexOf('/');
  return i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
}

export function joinApiVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

function hashString(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return Buffer.from((h >>> 0).toString(16).padStart(8, '0')).toString('base64').slice(0, 11);
}

/** The resource type a CustomResourceDefinition object describes, or an error message. */
export function typeFromCrd(crd: any): ResourceType {
  const spec = crd?.spec ?? {};
  const names = spec.names ?? {};
  const versions: any[] = Array.isArray(spec.versions) ? spec.versions : [];
  const served = versions.filter((v) => v && v.served !== false);
  const storage = served.find((v) => v.storage) ?? served[0];
  const ordered = storage ? [storage, ...served.filter((v) => v !== storage)] : served;
  const versionSubresources: Record<string, string[]> = {};
  const printerColumns: Record<string, PrinterColumn[]> = {};
  const listMapKeys: Record<string, string[]> = {};
  const schemas: Record<string, unknown> = {};
  const selectableFields = new Set<string>();
  for (const v of ordered) {
    for (const f of Array.isArray(v.selectableFields) ? v.selectableFields : []) {
      if (typeof f?.jsonPath === 'string') selectableFields.add(f.jsonPath.replace(/^\./, ''));
    }
    if (v.schema?.openAPIV3Schema) schemas[v.name] = v.schema.openAPIV3Schema;
    const subs: string[] = [];
    const sr = v.subresources ?? spec.subresources;
    if (sr?.status) subs.push('status');
    if (sr?.scale) subs.push('scale');
    versionSubresources[v.name] = subs;
    printerColumns[v.name] = Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : [];
    collectListMapKeys(v.schema?.openAPIV3Schema, '', listMapKeys);
  }
  return {
    group: String(spec.group ?? ''),
    versions: ordered.map((v) => String(v.name)),
    plural: String(names.plural ?? ''),
    singular: String(names.singular ?? String(names.kind ?? '').toLowerCase()),
    kind: String(names.kind ?? ''),
    listKind: String(names.listKind ?? `${names.kind}List`),
    namespaced: spec.scope !== 'Cluster',
    shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(String) : [],
    categories: Array.isArray(names.categories) ? names.categories.map(String) : [],
    subresources: versionSubresources[ordered[0]?.name] ?? [],
    versionSubresources,
    builtin: false,
    printerColumns,
    listMapKeys,
    schemas,
    selectableFields: [...selectableFields],
  };
}

function collectListMapKeys(schema: any, path: string, out: Record<string, string[]>): void {
  if (!schema || typeof schema !== 'object') return;
  if (schema.type === 'array') {
    if (schema['x-kubernetes-list-type'] === 'map' && Array.isArray(schema['x-kubernetes-list-map-keys'])) {
      out[path] = schema['x-kubernetes-list-map-keys'].map(String);
    }
    collectListMapKeys(schema.items, path, out);
    return;
  }
  if (schema.properties && typeof schema.properties === 'object') {
    for (const [k, v] of Object.entries(schema.properties)) collectListMapKeys(v, path ? `${path}.${k}` : k, out);
  }
}

/** Fills in the `default`s of a structural schema, as the API server does for custom resources. */
export function applySchemaDefaults(value: unknown, schema: any): void {
  if (!schema || typeof schema !== 'object' || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) applySchemaDefaults(item, schema.items);
    return;
  }
  const obj = value as Record<string, unknown>;
  const props = schema.properties;
  if (props && typeof props === 'object') {
    for (const [k, sub] of Object.entries<any>(props)) {
      if (obj[k] === undefined && sub && sub.default !== undefined) obj[k] = JSON.parse(JSON.stringify(sub.default));
      if (obj[k] !== undefined) applySchemaDefaults(obj[k], sub);
    }
  } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    for (const v of Object.values(obj)) applySchemaDefaults(v, schema.additionalProperties);
  }
}
