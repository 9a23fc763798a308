/**
 * Query parameters as kube-apiserver decodes and validates them: booleans, integers, list and watch
 * options (`resourceVersionMatch`, `sendInitialEvents`, ...), `dryRun`, `force` and `pretty`.
 */
import { StatusError, badRequest, invalid, type StatusCause } from './errors.js';
import type { ResourceType } from './registry.js';
import { parseFieldSelector, parseLabelSelector, type FieldSelector, type LabelSelector } from './selectors.js';

/**
 * A boolean parameter as the API server's parameter codec reads it: absent is false; present, it is
 * false only for `0` and `false` (in any case) and true for anything else, the empty string included.
 */
export function queryBool(q: URLSearchParams, key: string): boolean {
  return queryOptionalBool(q, key) ?? false;
}

/** A `*bool` parameter: undefined when absent, else as queryBool. */
export function queryOptionalBool(q: URLSearchParams, key: string): boolean | undefined {
  const v = q.get(key);
  if (v === null) return undefined;
  const l = v.toLowerCase();
  return !(l === '0' || l === 'false');
}

/** An int64 parameter (undefined when absent); Go's strconv message on a bad value. */
export function queryInt(q: URLSearchParams, key: string): number | undefined {
  const v = q.get(key);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return n;
}

/** `pretty`: strconv.ParseBool of the parameter when given, else on for curl, Wget and browsers. */
export function wantsPretty(q: URLSearchParams, userAgent: string | undefined): boolean {
  const v = q.get('pretty');
  if (v) return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

function optionsInvalid(kind: string, causes: StatusCause[]): StatusError {
  return invalid('meta.k8s.io', kind, '', causes);
}

const forbidden = (field: string, detail: string): StatusCause => ({ type: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
const notSupported = (field: string, value: string, supported: string[]): StatusCause => ({
  type: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${value}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
});

/** Which options object a verb's query parameters fill (named in validation errors). */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/** `dryRun` is a list whose only allowed value is `All`: true when it holds it, a 422 for other values. */
export function parseDryRun(q: URLSearchParams, kind: OptionsKind): boolean {
  const values = q.getAll('dryRun');
  if (values.some((v) => v !== 'All')) throw optionsInvalid(kind, [notSupported('dryRun', JSON.stringify(values), ['All'])]);
  return values.length > 0;
}

/** `force` is for apply patches only (PatchOptions validation). */
export function checkForce(q: URLSearchParams, isApply: boolean): void {
  if (!isApply && q.has('force')) throw optionsInvalid('PatchOptions', [forbidden('force', 'may not be specified for non-apply patch')]);
}

export interface ListOptions {
  watch: boolean;
  resourceVersion: string;
  resourceVersionMatch: string;
  /** undefined when not given (after the WatchList defaulting of a legacy watch: true). */
  sendInitialEvents?: boolean;
  allowWatchBookmarks: boolean;
  timeoutSeconds?: number;
  limit: number;
  continue: string;
  labelSelector?: LabelSelector;
  fieldSelector?: FieldSelector;
  includeObject?: string;
}

/**
 * List and watch options: decoded (400 on a bad value), defaulted as with the WatchList feature (on
 * since Kubernetes 1.34: a watch from no or "0" resourceVersion sends its initial events and, with
 * bookmarks, the bookmark that ends them) and validated (422 ListOptions.meta.k8s.io).
 */
export function parseListOptions(q: URLSearchParams, t: ResourceType, watch: boolean, name?: string): ListOptions {
  const o: ListOptions = {
    watch,
    resourceVersion: q.get('resourceVersion') ?? '',
    resourceVersionMatch: q.get('resourceVersionMatch') ?? '',
    sendInitialEvents: queryOptionalBool(q, 'sendInitialEvents'),
    allowWatchBookmarks: queryBool(q, 'allowWatchBookmarks'),
    timeoutSeconds: queryInt(q, 'timeoutSeconds'),
    limit: queryInt(q, 'limit') ?? 0,
    continue: q.get('continue') ?? '',
    includeObject: q.get('includeObject') ?? undefined,
  };
  const fieldSel = [q.get('fieldSelector') ?? '', name ? `metadata.name=${name}` : ''].filter(Boolean).join(',');
  o.labelSelector = parseLabelSelector(q.get('labelSelector'));
  o.fieldSelector = parseFieldSelector(fieldSel, (label) => fieldLabelError(t, label));
  if (watch && o.sendInitialEvents === undefined && !o.resourceVersionMatch && (o.resourceVersion === '' || o.resourceVersion === '0')) {
    o.sendInitialEvents = true;
    o.resourceVersionMatch = 'NotOlderThan';
  }
  const causes = validateListOptions(o);
  if (causes.length) throw optionsInvalid('ListOptions', causes);
  return o;
}

function validateListOptions(o: ListOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  const match = o.resourceVersionMatch;
  if (o.watch) {
    if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      causes.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match) {
      if (o.sendInitialEvents === undefined) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', JSON.stringify(match), ['NotOlderThan']));
      if (o.continue) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    return causes;
  }
  if (match) {
    if (!o.resourceVersion) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (o.continue) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', JSON.stringify(match), ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && o.resourceVersion === '0') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (o.sendInitialEvents !== undefined) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return causes;
}

/** The fields a field selector may name beyond metadata.name and metadata.namespace, per kind (the API server's field label conversions). */
const FIELD_LABELS: Record<string, string[]> = {
  '/Pod': ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.podIPs', 'status.nominatedNodeName'],
  '/Event': ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'],
  '/Namespace': ['status.phase'],
  '/Secret': ['type'],
  '/Service': ['spec.clusterIP', 'spec.type'],
  '/Node': ['spec.unschedulable'],
  'apps/ReplicaSet': ['status.replicas'],
  'batch/Job': ['status.successful'],
};

/** Kinds whose field label conversion is their own (message "field label not supported"). */
const OWN_CONVERSION = new Set(Object.keys(FIELD_LABELS));

/** Why a field selector may not name `label` for this kind, or undefined when it may. */
export function fieldLabelError(t: ResourceType, label: string): string | undefined {
  const key = `${t.group}/${t.kind}`;
  if (label === 'metadata.name') return undefined;
  // nodes and namespaces have no namespace field
  if (label === 'metadata.namespace' && !(t.group === '' && (t.kind === 'Node' || t.kind === 'Namespace'))) return undefined;
  if (FIELD_LABELS[key]?.includes(label)) return undefined;
  if (t.selectableFields?.includes(label)) return undefined;
  if (OWN_CONVERSION.has(key)) return `field label not supported: ${label}`;
  return `${JSON.stringify(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
}
