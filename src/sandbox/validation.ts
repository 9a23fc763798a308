/** Validation of names and objects (422 Invalid), and what the API server writes into a CRD's status. */
import { invalid } from './errors.js';
import { deepEqual, isObject } from './json.js';
import type { Registry, ResourceType } from './registry.js';
import { workloadCauses } from './workload-validation.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** The API server's messages for names (k8s.io/apimachinery/pkg/util/validation). */
const NAME_RULES = {
  subdomain: {
    re: DNS_SUBDOMAIN,
    max: 253,
    message:
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  },
  label: {
    re: DNS_LABEL,
    max: 63,
    message:
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  },
  dns1035: {
    re: DNS_1035_LABEL,
    max: 63,
    message:
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  },
};

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function validateName(t: ResourceType, name: string): void {
  if (t.group === 'rbac.authorization.k8s.io' || t.kind === 'Node') {
    if (name.includes('/') || name.includes('%') || name === '.' || name === '..') {
      throw invalid(t.group, t.kind, name, [{ field: 'metadata.name', message: `Invalid value: "${name}": may not contain '/' or '%'` }]);
    }
    return;
  }
  const rule = t.group === '' && t.kind === 'Namespace' ? NAME_RULES.label : t.group === '' && t.kind === 'Service' ? NAME_RULES.dns1035 : NAME_RULES.subdomain;
  const problems: string[] = [];
  if (name.length > rule.max) problems.push(`must be no more than ${rule.max} characters`);
  if (!rule.re.test(name)) problems.push(rule.message);
  if (problems.length) {
    throw invalid(t.group, t.kind, name, problems.map((p) => ({ field: 'metadata.name', message: `Invalid value: "${name}": ${p}` })));
  }
}

export function validateObject(t: ResourceType, o: any, registry: Registry): void {
  const meta = o.metadata ?? {};
  for (const f of ['labels', 'annotations']) {
    const m = meta[f];
    if (m === undefined || m === null) continue;
    if (!isObject(m)) throw invalid(t.group, t.kind, meta.name, [{ field: `metadata.${f}`, message: 'Invalid value: must be a map of strings' }]);
    for (const [k, v] of Object.entries(m)) {
      if (typeof v !== 'string') {
        throw invalid(t.group, t.kind, meta.name, [{ field: `metadata.${f}`, message: `Invalid value: ${JSON.stringify(v)}: value of "${k}" must be a string` }]);
      }
      if (f === 'labels' && (v.length > 63 || !/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(v))) {
        throw invalid(t.group, t.kind, meta.name, [{ field: `metadata.labels`, message: `Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character` }]);
      }
    }
  }
  if (t.kind === 'ConfigMap' || t.kind === 'Secret') {
    for (const f of ['data', 'binaryData', 'stringData']) {
      const d = o[f];
      if (d === undefined || d === null) continue;
      if (!isObject(d) || Object.values(d).some((v) => typeof v !== 'string')) {
        throw invalid(t.group, t.kind, meta.name, [{ field: f, message: 'Invalid value: must be a map of strings' }]);
      }
    }
  }
  if (t.group === 'apiextensions.k8s.io' && t.kind === 'CustomResourceDefinition') validateCrd(o, registry);
  if (t.builtin) {
    const causes = workloadCauses(t.group, t.kind, o);
    if (causes.length) throw invalid(t.group, t.kind, meta.name, causes);
  }
}

function validateCrd(o: any, registry: Registry): void {
  const name = o.metadata?.name ?? '';
  const spec = o.spec;
  const causes: { field: string; message: string }[] = [];
  if (!isObject(spec)) causes.push({ field: 'spec', message: 'Required value' });
  else {
    if (!spec.group) causes.push({ field: 'spec.group', message: 'Required value' });
    const n = spec.names ?? {};
    if (!n.plural) causes.push({ field: 'spec.names.plural', message: 'Required value' });
    if (!n.kind) causes.push({ field: 'spec.names.kind', message: 'Required value' });
    if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
      causes.push({ field: 'spec.scope', message: `Unsupported value: ${JSON.stringify(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"` });
    }
    const versions = Array.isArray(spec.versions) ? spec.versions : [];
    if (!versions.length) causes.push({ field: 'spec.versions', message: 'Invalid value: must have exactly one version marked as storage version' });
    else if (versions.filter((v: any) => v?.storage).length !== 1) {
      causes.push({ field: 'spec.versions', message: 'Invalid value: must have exactly one version marked as storage version' });
    }
    if (n.plural && spec.group && name !== `${n.plural}.${spec.group}`) {
      causes.push({ field: 'metadata.name', message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group` });
    }
    if (spec.group && n.plural) {
      const existing = registry.get(spec.group, n.plural);
      if (existing?.builtin) causes.push({ field: 'spec.group', message: `Invalid value: "${spec.group}": conflicts with a built-in resource` });
    }
  }
  if (causes.length) throw invalid('apiextensions.k8s.io', 'CustomResourceDefinition', name, causes);
}

/** The status an API server gives a CRD: names accepted, Established, stored versions. */
export function setCrdStatus(o: any, old?: any): void {
  const spec = o.spec ?? {};
  const n = spec.names ?? {};
  const ts = now();
  const prevConds: any[] = old?.status?.conditions ?? [];
  const cond = (type: string, reason: string, message: string): Record<string, string> => ({
    type,
    status: 'True',
    lastTransitionTime: prevConds.find((c) => c.type === type)?.lastTransitionTime ?? ts,
    reason,
    message,
  });
  const stored = new Set<string>(old?.status?.storedVersions ?? []);
  for (const v of spec.versions ?? []) if (v?.storage) stored.add(v.name);
  const accepted: Record<string, unknown> = {
    plural: n.plural,
    singular: n.singular ?? String(n.kind ?? '').toLowerCase(),
    kind: n.kind,
    listKind: n.listKind ?? `${n.kind}List`,
  };
  if (n.shortNames) accepted.shortNames = n.shortNames;
  if (n.categories) accepted.categories = n.categories;
  o.status = {
    conditions: [
      cond('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    acceptedNames: accepted,
    storedVersions: [...stored],
  };
}

/** Fields the API server refuses to change once set (422 Invalid, "field is immutable"). */
export function validateUpdate(t: ResourceType, old: any, next: any): void {
  const name = String(next?.metadata?.name ?? '');
  const refuse = (field: string, message = 'field is immutable'): never => {
    throw invalid(t.group, t.kind, name, [{ field, message: `Invalid value: ${message}` }]);
  };
  const same = deepEqual;
  if (old?.metadata?.deletionTimestamp) {
    const before = new Set<string>(Array.isArray(old.metadata.finalizers) ? old.metadata.finalizers : []);
    const added = (Array.isArray(next?.metadata?.finalizers) ? (next.metadata.finalizers as string[]) : []).filter((f) => !before.has(f));
    if (added.length) {
      throw invalid(t.group, t.kind, name, [
        {
          field: 'metadata.finalizers',
          type: 'FieldValueForbidden',
          message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${[...new Set(added)].sort().map((f) => JSON.stringify(f)).join(', ')}}`,
        },
      ]);
    }
  }
  if (t.group === '' && (t.kind === 'ConfigMap' || t.kind === 'Secret') && old?.immutable === true) {
    if (next?.immutable !== true) refuse('immutable', 'field is immutable when `immutable` is set');
    for (const f of ['data', 'binaryData']) if (!same(old[f], next[f])) refuse(f, 'field is immutable when `immutable` is set');
  }
  if (t.group === 'apps' && ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'].includes(t.kind)) {
    if (old?.spec?.selector !== undefined && !same(old.spec.selector, next?.spec?.selector)) refuse('spec.selector');
  }
  if (t.group === 'batch' && t.kind === 'Job') {
    if (old?.spec?.selector !== undefined && !same(old.spec.selector, next?.spec?.selector)) refuse('spec.selector');
    if (old?.spec?.template !== undefined && !same(old.spec.template, next?.spec?.template)) refuse('spec.template');
  }
  if (t.group === 'apiextensions.k8s.io' && t.kind === 'CustomResourceDefinition') {
    if (old?.spec?.group !== next?.spec?.group) refuse('spec.group');
    if (old?.spec?.names?.plural !== next?.spec?.names?.plural) refuse('spec.names.plural');
    if (old?.spec?.scope !== next?.spec?.scope) refuse('spec.scope');
  }
}
