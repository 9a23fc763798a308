/**
 * What a served webhook binding is, read from its checked config (config-webhooks.ts) with
 * shell-operator's defaults (config_v1.go convertValidating/convertMutating): failurePolicy Fail,
 * sideEffects None, timeoutSeconds 10; the webhook's id in the URL path is its name made URL-safe
 * (string_helper.SafeURLString), under the configuration id `hooks`. Conversion bindings give their
 * CRD and from→to rules.
 */
import type { WebhookBinding } from './config-types.js';

/** The configuration id of every webhook (shell-operator's DefaultConfigurationId). */
export const DEFAULT_CONFIGURATION_ID = 'hooks';

export interface AdmissionRule {
  apiGroups: string[];
  apiVersions: string[];
  operations: string[];
  resources: string[];
  scope?: string;
}

export interface AdmissionWebhookSpec {
  type: 'kubernetesValidating' | 'kubernetesMutating';
  /** The binding name: the webhook's name in its configuration. */
  name: string;
  /** `name` made URL-safe: `/hooks/<webhookId>`. */
  webhookId: string;
  failurePolicy: 'Fail' | 'Ignore';
  sideEffects: string;
  timeoutSeconds: number;
  rules: AdmissionRule[];
  namespaceSelector?: Record<string, unknown>;
  objectSelector?: Record<string, unknown>;
  matchConditions?: Array<{ name: string; expression: string }>;
}

export interface ConversionRule {
  fromVersion: string;
  toVersion: string;
}

export interface ConversionWebhookSpec {
  name: string;
  crdName: string;
  conversions: ConversionRule[];
}

/** shell-operator's SafeURLString: `fooBar.x_y` → `foo-bar-x-y`. */
export function safeUrlString(s: string): string {
  return s
    .replace(/([A-Z])/g, '-$1')
    .toLowerCase()
    .replace(/[^a-z0-9-/]/g, '-')
    .replace(/-+/g, '-');
}

export function admissionSpecOf(b: WebhookBinding): AdmissionWebhookSpec {
  if (b.type === 'kubernetesCustomResourceConversion') throw new Error(`binding ${b.name} is a conversion binding`);
  const raw = b.raw as Record<string, any>;
  return {
    type: b.type,
    name: b.name,
    webhookId: safeUrlString(b.name),
    failurePolicy: raw.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    sideEffects: typeof raw.sideEffects === 'string' ? raw.sideEffects : 'None',
    timeoutSeconds: typeof raw.timeoutSeconds === 'number' ? raw.timeoutSeconds : 10,
    rules: (raw.rules ?? []) as AdmissionRule[],
    ...(raw.namespace?.labelSelector ? { namespaceSelector: raw.namespace.labelSelector } : {}),
    ...(raw.labelSelector ? { objectSelector: raw.labelSelector } : {}),
    ...(Array.isArray(raw.matchConditions) && raw.matchConditions.length ? { matchConditions: raw.matchConditions } : {}),
  };
}

export function conversionSpecOf(b: WebhookBinding): ConversionWebhookSpec {
  const raw = b.raw as Record<string, any>;
  return { name: b.name, crdName: String(raw.crdName), conversions: (raw.conversions ?? []) as ConversionRule[] };
}

/**
 * The webhook as a ValidatingWebhookConfiguration or MutatingWebhookConfiguration lists it
 * (shell-operator's Register: matchPolicy Equivalent, admissionReviewVersions v1 and v1beta1).
 */
export function admissionWebhookObject(spec: AdmissionWebhookSpec, clientConfig: Record<string, unknown>): Record<string, unknown> {
  return {
    name: spec.name,
    admissionReviewVersions: ['v1', 'v1beta1'],
    clientConfig,
    failurePolicy: spec.failurePolicy,
    matchPolicy: 'Equivalent',
    rules: spec.rules,
    sideEffects: spec.sideEffects,
    timeoutSeconds: spec.timeoutSeconds,
    ...(spec.namespaceSelector ? { namespaceSelector: spec.namespaceSelector } : {}),
    ...(spec.objectSelector ? { objectSelector: spec.objectSelector } : {}),
    ...(spec.matchConditions ? { matchConditions: spec.matchConditions } : {}),
  };
}
