/**
 * CRD conversion webhooks in the sandbox: a custom resource whose CRD says `conversion.strategy:
 * Webhook` is converted by its webhook (a ConversionReview posted to the `url` clientConfig) when it
 * is read in another version than the one it is stored in, and when it is written in a version other
 * than the storage version (converted to that first). Without a webhook (strategy None) only
 * `apiVersion` changes, as before. A webhook that points at a Service has no server in the sandbox: a
 * warning, and only `apiVersion` changes.
 */
import { randomUUID } from 'node:crypto';
import { StatusError } from './errors.js';
import { joinApiVersion, typeKey, type ResourceType } from './registry.js';
import type { Store } from './store.js';
import { callWebhook, gvkString } from './admission.js';

const CRD_TKEY = typeKey('apiextensions.k8s.io', 'customresourcedefinitions');

export class Conversion {
  /** Service webhooks already warned about (once each). */
  private readonly warned = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly warn: (message: string) => void,
  ) {}

  /** The conversion webhook read from each CRD, by CRD name, with the resourceVersion it was read at. */
  private readonly read = new Map<string, { rv: number; webhook: any }>();

  /** The CRD's conversion webhook (`spec.conversion.webhook`) when its strategy is Webhook. */
  webhookOf(t: ResourceType): any | undefined {
    if (t.builtin) return undefined;
    const name = `${t.plural}.${t.group}`;
    const crd = this.store.get(CRD_TKEY, '', name);
    if (!crd) return undefined;
    // asked for every watch event of a custom resource: the CRD is parsed again only when it changed
    const known = this.read.get(name);
    if (known?.rv === crd.rv) return known.webhook;
    const conversion = JSON.parse(crd.json).spec?.conversion;
    const webhook = conversion?.strategy === 'Webhook' ? (conversion.webhook ?? {}) : undefined;
    this.read.set(name, { rv: crd.rv, webhook });
    return webhook;
  }

  /**
   * The objects in `version`: those in another version go to the webhook in one ConversionReview.
   * Undefined entries mean "no webhook: rewrite apiVersion only".
   */
  async convert(t: ResourceType, version: string, objects: any[]): Promise<any[] | undefined> {
    const webhook = this.webhookOf(t);
    if (!webhook) return undefined;
    const desired = joinApiVersion(t.group, version);
    const todo = objects.map((o, i) => [o, i] as const).filter(([o]) => o.apiVersion !== desired);
    if (!todo.length) return objects;
    const crd = `${t.plural}.${t.group}`;
    // apiextensions/v1's field order, metav1.TypeMeta's kind first, as the API server writes it
    const review = { kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1', request: { uid: randomUUID(), desiredAPIVersion: desired, objects: todo.map(([o]) => o) } };
    let answer: any;
    try {
      answer = await callWebhook({ warn: (m) => (this.warned.has(crd) ? undefined : (this.warned.add(crd), this.warn(m))) }, webhook.clientConfig, `conversion of ${crd}`, review, 30, () => undefined);
    } catch (e) {
      throw new StatusError(500, 'InternalError', `conversion webhook for ${t.group}/${t.kind} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (answer === undefined) return undefined;
    const r = answer?.response;
    // checked as kube-apiserver checks a v1 ConversionReview's answer
    const problem =
      answer?.apiVersion !== 'apiextensions.k8s.io/v1' || answer?.kind !== 'ConversionReview'
        ? `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${gvkString(answer?.apiVersion, answer?.kind)}`
        : !r || typeof r !== 'object'
          ? 'no response provided'
          : r.uid !== review.request.uid
            ? `expected response.uid=${JSON.stringify(review.request.uid)}, got ${JSON.stringify(String(r.uid ?? ''))}`
            : r.result?.status !== 'Success'
              ? r.result?.message || `response.result.status was '${String(r.result?.status ?? '')}', not 'Success'`
              : undefined;
    if (problem) throw new StatusError(500, 'InternalError', `conversion webhook for ${t.group}/${t.kind} failed: ${problem}`);
    const converted: any[] = Array.isArray(r.convertedObjects) ? r.convertedObjects : [];
    if (converted.length !== todo.length) {
      throw new StatusError(500, 'InternalError', `conversion webhook for ${t.group}/${t.kind} returned ${converted.length} objects, expected ${todo.length}`);
    }
    const out = [...objects];
    todo.forEach(([, i], j) => {
      const c = converted[j];
      if (c?.apiVersion !== desired) throw new StatusError(500, 'InternalError', `conversion webhook for ${t.group}/${t.kind} returned an object of ${String(c?.apiVersion)}, expected ${desired}`);
      out[i] = c;
    });
    return out;
  }
}
