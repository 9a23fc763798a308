/**
 * kubernetesValidating, kubernetesMutating and kubernetesCustomResourceConversion bindings, checked as
 * shell-operator checks them even before webhooks are served (pkg/hook/config config_v1.go and its v1
 * schema; pkg/webhook/validating/validation): known keys, types and enums, required rule fields, label
 * selectors; for validating webhooks Kubernetes' ValidateValidatingWebhooks (a fully qualified name of
 * at least three segments, unique; timeoutSeconds 1–30; rules); conversions with fromVersion and
 * toVersion.
 */
import { Checker, describe, joinKey } from './config-checks.js';
import type { WebhookBinding } from './config-types.js';

/** Readers shared with the kubernetes bindings' parser. */
export interface WebhookReaders {
  includes(obj: Record<string, unknown>, key: string): string[] | undefined;
  labelSelector(value: unknown, key: string): unknown;
}

const WEBHOOK_TYPES = ['kubernetesValidating', 'kubernetesMutating', 'kubernetesCustomResourceConversion'] as const;

const ADMISSION_KEYS = ['name', 'group', 'includeSnapshotsFrom', 'failurePolicy', 'sideEffects', 'timeoutSeconds', 'matchConditions', 'labelSelector', 'namespace', 'rules'];
const CONVERSION_KEYS = ['name', 'group', 'includeSnapshotsFrom', 'crdName', 'conversions'];
const RULE_KEYS = ['apiVersions', 'apiGroups', 'resources', 'operations', 'scope'];
const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];
const SCOPES = ['Cluster', 'Namespaced', '*'];

/** Kubernetes' IsFullyQualifiedName: a lowercase RFC 1123 subdomain of at least three segments. */
function fullyQualifiedNameProblem(name: string): string | null {
  if (name.length > 253) return 'must be no more than 253 characters';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com')";
  }
  if (name.split('.').length < 3) return 'should be a domain with at least three segments separated by dots';
  return null;
}

function enumValue(value: unknown, key: string, allowed: readonly string[], c: Checker): void {
  const s = c.string(value, key);
  if (s !== undefined && !allowed.includes(s)) c.add(key, `must be one of ${allowed.join(', ')}, got ${describe(s)}`);
}

/** A list of strings with at least one item where `*` stands alone (Kubernetes' validateRule). */
function ruleList(value: unknown, key: string, what: string, c: Checker): string[] | undefined {
  if (value === undefined) {
    c.add(key, 'is required');
    return undefined;
  }
  const list = c.stringArray(value, key, { minItems: 1 });
  if (list && list.length > 1 && list.includes('*')) c.add(key, `if '*' is present, must not specify other ${what}`);
  return list;
}

function checkRules(value: unknown, key: string, c: Checker): void {
  // without rules the webhook would never be called: an error, as the issue of a binding that names none
  if (value === undefined) return c.add(key, 'is required: a webhook without rules is never called');
  const rules = c.array(value, key, { minItems: 1 });
  rules?.forEach((item, i) => {
    const rk = joinKey(key, i);
    const rule = c.object(item, rk);
    if (!rule) return;
    c.onlyKeys(rule, rk, RULE_KEYS);
    ruleList(rule.apiGroups, joinKey(rk, 'apiGroups'), 'API groups', c);
    ruleList(rule.apiVersions, joinKey(rk, 'apiVersions'), 'API versions', c);
    const ops = ruleList(rule.operations, joinKey(rk, 'operations'), 'operations', c);
    ops?.forEach((op, j) => {
      if (!OPERATIONS.includes(op)) c.add(joinKey(joinKey(rk, 'operations'), j), `must be one of ${OPERATIONS.join(', ')}, got ${describe(op)}`);
    });
    const resources = rule.resources === undefined ? (c.add(joinKey(rk, 'resources'), 'is required'), undefined) : c.stringArray(rule.resources, joinKey(rk, 'resources'), { minItems: 1 });
    resources?.forEach((r, j) => {
      if (r === '') c.add(joinKey(joinKey(rk, 'resources'), j), 'must not be empty');
    });
    if (resources && resources.length > 1 && resources.includes('*/*')) c.add(joinKey(rk, 'resources'), "if '*/*' is present, must not specify other resources");
    if (resources && resources.includes('*') && resources.some((r) => r !== '*' && !r.includes('/'))) {
      c.add(joinKey(rk, 'resources'), "if '*' is present, must not specify other resources without subresources");
    }
    if (rule.scope !== undefined) enumValue(rule.scope, joinKey(rk, 'scope'), SCOPES, c);
  });
}

/**
 * kubernetesValidating / kubernetesMutating entries, checked as shell-operator checks them even
 * before webhooks are served: its v1 schema (keys, types, enums, required rule fields), label
 * selectors, and for validating webhooks Kubernetes' ValidateValidatingWebhooks (a fully qualified
 * name of at least three segments, unique; timeoutSeconds 1–30; rules).
 */
function checkAdmission(type: 'kubernetesValidating' | 'kubernetesMutating', obj: Record<string, unknown>, key: string, c: Checker, r: WebhookReaders): void {
  c.onlyKeys(obj, key, ADMISSION_KEYS);
  enumValue(obj.failurePolicy, joinKey(key, 'failurePolicy'), ['Ignore', 'Fail'], c);
  enumValue(obj.sideEffects, joinKey(key, 'sideEffects'), ['None', 'NoneOnDryRun'], c);
  const timeout = c.integer(obj.timeoutSeconds, joinKey(key, 'timeoutSeconds'));
  if (type === 'kubernetesValidating' && timeout !== undefined && (timeout < 1 || timeout > 30)) {
    c.add(joinKey(key, 'timeoutSeconds'), `the timeout value must be between 1 and 30 seconds, got ${timeout}`);
  }
  const conditions = c.array(obj.matchConditions, joinKey(key, 'matchConditions'));
  conditions?.forEach((item, i) => {
    const mk = joinKey(joinKey(key, 'matchConditions'), i);
    const cond = c.object(item, mk);
    if (!cond) return;
    for (const r of ['expression', 'name']) {
      if (cond[r] === undefined) c.add(joinKey(mk, r), 'is required');
      else c.string(cond[r], joinKey(mk, r));
    }
  });
  r.labelSelector(obj.labelSelector, joinKey(key, 'labelSelector'));
  const ns = c.object(obj.namespace, joinKey(key, 'namespace'));
  if (ns) {
    c.onlyKeys(ns, joinKey(key, 'namespace'), ['labelSelector']);
    if (ns.labelSelector === undefined) c.add(joinKey(key, 'namespace.labelSelector'), 'is required');
    else r.labelSelector(ns.labelSelector, joinKey(key, 'namespace.labelSelector'));
  }
  checkRules(obj.rules, joinKey(key, 'rules'), c);
}

function checkConversion(obj: Record<string, unknown>, key: string, c: Checker): void {
  c.onlyKeys(obj, key, CONVERSION_KEYS);
  if (obj.crdName === undefined) c.add(joinKey(key, 'crdName'), 'is required');
  else c.string(obj.crdName, joinKey(key, 'crdName'));
  if (obj.conversions === undefined) {
    c.add(joinKey(key, 'conversions'), 'is required');
    return;
  }
  const rules = c.array(obj.conversions, joinKey(key, 'conversions'), { minItems: 1 });
  rules?.forEach((item, i) => {
    const rk = joinKey(joinKey(key, 'conversions'), i);
    const rule = c.object(item, rk);
    if (!rule) return;
    c.onlyKeys(rule, rk, ['fromVersion', 'toVersion']);
    for (const r of ['fromVersion', 'toVersion']) {
      if (rule[r] === undefined) c.add(joinKey(rk, r), 'is required');
      else c.string(rule[r], joinKey(rk, r));
    }
  });
}

export function parseWebhooks(data: Record<string, unknown>, c: Checker, r: WebhookReaders): WebhookBinding[] {
  const out: WebhookBinding[] = [];
  for (const type of WEBHOOK_TYPES) {
    const list = c.array(data[type], type, { minItems: 1 });
    const seen = new Set<string>();
    list?.forEach((item, i) => {
      const key = joinKey(type, i);
      const obj = c.object(item, key);
      if (!obj) return;
      if (obj.name === undefined) c.add(joinKey(key, 'name'), 'is required');
      const name = c.string(obj.name, joinKey(key, 'name'), { nonEmpty: true });
      const group = c.string(obj.group, joinKey(key, 'group'), { nonEmpty: true });
      const includes = r.includes(obj, key);
      if (type === 'kubernetesCustomResourceConversion') checkConversion(obj, key, c);
      else checkAdmission(type, obj, key, c, r);
      if (type === 'kubernetesValidating' && name !== undefined) {
        const bad = fullyQualifiedNameProblem(name);
        if (bad) c.add(joinKey(key, 'name'), `${bad}, got ${describe(name)}`);
        if (seen.has(name)) c.add(joinKey(key, 'name'), `duplicate value ${describe(name)}: webhook names must be unique`);
        seen.add(name);
      }
      if (name === undefined) return;
      out.push({ type, name, ...(group !== undefined ? { group } : {}), includeSnapshotsFrom: includes ?? [], raw: obj });
    });
  }
  return out;
}
