/**
 * Registers the served webhooks in the cluster as shell-operator does (pkg/webhook/admission/resource.go,
 * pkg/webhook/conversion/crd_client_config.go): one ValidatingWebhookConfiguration and one
 * MutatingWebhookConfiguration named `<configurationName>-hooks`, created or updated to list exactly
 * the served webhooks (deleted when none is left), and `spec.conversion` of each CRD of a conversion
 * binding set to the Webhook strategy (back to None when no hook converts it any more). The client
 * config is a Service with the CA bundle, or a URL (outside a cluster, and on the sandbox).
 */
import type { KubeConfig } from './kube-config.js';
import { isApiStatus, requestJson } from './http.js';
import { admissionWebhookObject, DEFAULT_CONFIGURATION_ID } from '../hooks/webhook-specs.js';
import type { Served, WebhookRegistration } from '../operator/ports.js';

/** Where the API server calls the operator: a path on its Service, or a URL base. */
export type WebhookEndpoint =
  | { kind: 'service'; namespace: string; admissionService: string; conversionService: string; port?: number; caBundle: string }
  | { kind: 'url'; base: string; caBundle: string };

export interface WebhookRegistrarOptions {
  kc: KubeConfig;
  /** shell-operator's --validating-webhook-configuration-name (`shell-operator-hooks`). */
  configurationName: string;
  endpoint: WebhookEndpoint;
}

const ADMISSION_API = '/apis/admissionregistration.k8s.io/v1';
const CRD_API = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

interface KubeObject {
  metadata?: { resourceVersion?: string };
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}

export class WebhookRegistrar {
  /** What was last written, per configuration or CRD: unchanged ones are not written again. */
  private readonly written = new Map<string, string>();
  /** CRDs whose conversion points at the operator. */
  private readonly converting = new Set<string>();
  /** CRDs last found missing. */
  private readonly missingCrds = new Set<string>();

  constructor(private readonly opts: WebhookRegistrarOptions) {}

  private clientConfig(path: string, which: 'admission' | 'conversion'): Record<string, unknown> {
    const e = this.opts.endpoint;
    const caBundle = Buffer.from(e.caBundle).toString('base64');
    if (e.kind === 'url') return { url: `${e.base.replace(/\/$/, '')}${path}`, caBundle };
    const name = which === 'admission' ? e.admissionService : e.conversionService;
    return { service: { namespace: e.namespace, name, path, ...(e.port ? { port: e.port } : {}) }, caBundle };
  }

  get configurationName(): string {
    return `${this.opts.configurationName}-${DEFAULT_CONFIGURATION_ID}`;
  }

  async register(w: WebhookRegistration, recheck?: ReadonlySet<string>): Promise<Array<Served<{ crdName: string; binding: string }>>> {
    const webhooks = (list: WebhookRegistration['validating']) =>
      list.map((s) => admissionWebhookObject(s.spec, this.clientConfig(`/${DEFAULT_CONFIGURATION_ID}/${s.spec.webhookId}`, 'admission')));
    await this.configuration('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', webhooks(w.validating));
    await this.configuration('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', webhooks(w.mutating));
    const missing: Array<Served<{ crdName: string; binding: string }>> = [];
    const wanted = new Set(w.conversions.map((c) => c.spec.crdName));
    for (const crdName of wanted) {
      // a CRD missing at the last look stays so until it is asked for again (a module's run asks for its
      // own: each run asked for every module's, a request per missing CRD and module run)
      const ok =
        (!this.missingCrds.has(crdName) || !recheck || recheck.has(crdName)) &&
        (await this.conversion(crdName, {
          strategy: 'Webhook',
          webhook: { clientConfig: this.clientConfig(`/${crdName}`, 'conversion'), conversionReviewVersions: ['v1', 'v1beta1'] },
        }));
      if (ok) {
        this.converting.add(crdName);
        this.missingCrds.delete(crdName);
      } else {
        this.missingCrds.add(crdName);
        missing.push(...w.conversions.filter((c) => c.spec.crdName === crdName));
      }
    }
    for (const crdName of this.missingCrds) if (!wanted.has(crdName)) this.missingCrds.delete(crdName);
    for (const crdName of [...this.converting].filter((n) => !wanted.has(n))) {
      await this.conversion(crdName, { strategy: 'None' });
      this.converting.delete(crdName);
    }
    return missing;
  }

  private async configuration(resource: string, kind: string, webhooks: unknown[]): Promise<void> {
    const name = this.configurationName;
    const path = `${ADMISSION_API}/${resource}/${name}`;
    const key = `${resource}/${name}`;
    const desired = JSON.stringify(webhooks);
    if (this.written.get(key) === desired) return;
    let current: KubeObject | undefined;
    try {
      current = await requestJson<KubeObject>(this.opts.kc, 'GET', path);
    } catch (e) {
      if (!isApiStatus(e, 404)) throw e;
    }
    if (!webhooks.length) {
      if (current) await requestJson(this.opts.kc, 'DELETE', path).catch((e: unknown) => (isApiStatus(e, 404) ? undefined : Promise.reject(e)));
    } else if (!current) {
      await requestJson(this.opts.kc, 'POST', `${ADMISSION_API}/${resource}`, {}, { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks });
    } else {
      await requestJson(this.opts.kc, 'PUT', path, {}, { ...current, webhooks });
    }
    this.written.set(key, desired);
  }

  /** Sets the CRD's spec.conversion; false when the CRD does not exist. */
  private async conversion(crdName: string, conversion: Record<string, unknown>): Promise<boolean> {
    const key = `crd/${crdName}`;
    const desired = JSON.stringify(conversion);
    if (this.written.get(key) === desired) return true;
    const path = `${CRD_API}/${crdName}`;
    let crd: KubeObject;
    try {
      crd = await requestJson<KubeObject>(this.opts.kc, 'GET', path);
    } catch (e) {
      if (isApiStatus(e, 404)) return false;
      throw e;
    }
    await requestJson(this.opts.kc, 'PUT', path, {}, { ...crd, spec: { ...crd.spec, conversion } });
    this.written.set(key, desired);
    return true;
  }
}
