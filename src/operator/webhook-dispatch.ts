/**
 * Answers the webhook requests of the admission server: an AdmissionReview posted to
 * `/<configurationId>/<webhookId>` runs the validating or mutating hook of that webhook, a
 * ConversionReview posted to `/<crdName>` runs the chain of conversion hooks that leads the objects to
 * the desired version (shell-operator's webhook_handlers.go and conversion/chain.go), and the hooks'
 * answers become the reviews' responses in the formats the API server reads. A hook that fails, times
 * out or answers badly answers as its binding's failurePolicy says; the log names the hook, the
 * binding and the request's UID.
 */
import type { Logger } from 'pino';
import type { AdmissionContext, ConversionContext } from '../hooks/binding-context.js';
import type { Hook } from '../hooks/hook.js';
import type { WebhookBinding } from '../hooks/config-types.js';
import type { HookRunOutcome } from '../modules/manager.js';
import { admissionReviewForHook, conversionReviewForHook } from '../hooks/webhook-reviews.js';
import { admissionSpecOf, conversionSpecOf, DEFAULT_CONFIGURATION_ID, type AdmissionWebhookSpec, type ConversionRule } from '../hooks/webhook-specs.js';
import { errorMessage } from '../util/errors.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { hookLabel, type BindingType } from './task-meta.js';

/** Runs a hook for one webhook request (HookRunner.runWebhookHook). */
export type WebhookHookRunner = (hook: Hook, contexts: Array<AdmissionContext | ConversionContext>, bindingType: BindingType, timeoutMs: number) => Promise<HookRunOutcome>;

/** One served binding of one hook. */
export interface WebhookEntry {
  hook: Hook;
  binding: WebhookBinding;
}

interface AdmissionEntry extends WebhookEntry {
  spec: AdmissionWebhookSpec;
}

interface ConversionLink extends WebhookEntry {
  rule: ConversionRule;
}

/** A reply: the HTTP status and the JSON body (a review, or an error text for a bad request). */
export interface WebhookReply {
  status: number;
  body: unknown;
}

/** How long a conversion hook may take (the API server waits 30 s for a conversion webhook). */
const CONVERSION_TIMEOUT_MS = 30_000;

/** `metav1.Status` as Go's encoding/json writes it (`metadata` is never omitted). */
const status = (fields: Record<string, unknown>) => ({ metadata: {}, ...fields });

/**
 * The review's kind and apiVersion as the answer carries them back: Go decodes the review into its
 * struct and writes it again, metav1.TypeMeta's `kind` before `apiVersion`, each left out when empty.
 */
const typeMeta = (review: JsonObject) => ({ ...(review.kind ? { kind: review.kind } : {}), ...(review.apiVersion ? { apiVersion: review.apiVersion } : {}) });

/** The version's part without the group (`stable.example.com/v1` → `v1`). */
const shortVersion = (v: string) => v.slice(v.indexOf('/') + 1);

/** shell-operator's VersionsMatched: equal, or equal once the group is dropped from the one that has it. */
export function versionsMatched(a: string, b: string): boolean {
  if (a === b) return true;
  const ia = a.includes('/');
  const ib = b.includes('/');
  if (ia === ib) return false;
  return shortVersion(a) === shortVersion(b);
}

export class WebhookDispatcher {
  private admission = new Map<string, AdmissionEntry>();
  /** crdName → the conversion rules of every hook. */
  private conversion = new Map<string, ConversionLink[]>();

  constructor(
    private readonly run: WebhookHookRunner,
    private readonly log: Logger,
  ) {}

  /** The bindings served from now on (global hooks and the enabled modules' hooks). */
  set(entries: readonly WebhookEntry[]): void {
    const admission = new Map<string, AdmissionEntry>();
    const conversion = new Map<string, ConversionLink[]>();
    // validating ones first: a validating and a mutating webhook with one id go to the validating hook, as in Go
    const ordered = [...entries].sort((a, b) => Number(a.binding.type === 'kubernetesMutating') - Number(b.binding.type === 'kubernetesMutating'));
    for (const e of ordered) {
      if (e.binding.type === 'kubernetesCustomResourceConversion') {
        const spec = conversionSpecOf(e.binding);
        const links = conversion.get(spec.crdName) ?? [];
        for (const rule of spec.conversions) links.push({ ...e, rule });
        conversion.set(spec.crdName, links);
        continue;
      }
      const spec = admissionSpecOf(e.binding);
      if (!admission.has(spec.webhookId)) admission.set(spec.webhookId, { ...e, spec });
    }
    this.admission = admission;
    this.conversion = conversion;
  }

  get size(): number {
    return this.admission.size + this.conversion.size;
  }

  /** POST `/<configurationId>/<webhookId>` with an AdmissionReview. */
  async admit(path: string, review: unknown): Promise<WebhookReply> {
    if (!isPlainObject(review) || !isPlainObject(review.request)) return { status: 400, body: 'Missing parameters: request' };
    const request = review.request;
    const uid = typeof request.uid === 'string' ? request.uid : '';
    const parts = path.split('/').filter(Boolean);
    const configurationId = parts[0] ?? '';
    const webhookId = parts.slice(1).join('/');
    const entry = configurationId === DEFAULT_CONFIGURATION_ID ? this.admission.get(webhookId) : undefined;
    const reply = (response: Record<string, unknown>): WebhookReply => ({
      status: 200,
      body: { ...typeMeta(review), response: { uid, ...response } },
    });
    if (!entry) {
      this.log.error({ configurationId, webhookId, uid }, 'AdmissionReview for a webhook no hook serves');
      return reply({ allowed: false, status: status({ message: `handle AdmissionReview: no hook found for '${configurationId}' '${webhookId}'`, code: 500 }) });
    }
    const { hook, spec } = entry;
    const labels = { hook: hookLabel(hook), binding: spec.name, uid, kind: (request.kind as JsonObject | undefined)?.kind, name: request.name, namespace: request.namespace };
    const ctx: AdmissionContext = {
      type: spec.type === 'kubernetesValidating' ? 'Validating' : 'Mutating',
      binding: spec.name,
      review: admissionReviewForHook(request),
      includeSnapshotsFrom: entry.binding.includeSnapshotsFrom,
      ...(entry.binding.group !== undefined ? { group: entry.binding.group } : {}),
    };
    let problem: string;
    try {
      const outcome = await this.run(hook, [ctx], spec.type, spec.timeoutSeconds * 1000);
      const answer = outcome.outputs.admission;
      if (answer) {
        this.log.info({ ...labels, allowed: answer.allowed }, 'AdmissionResponse from hook');
        return reply({
          allowed: answer.allowed,
          ...(answer.allowed ? {} : { status: status({ message: answer.message ?? '', code: 403 }) }),
          ...(answer.patch ? { patch: answer.patch, patchType: 'JSONPatch' } : {}),
          ...(answer.warnings ? { warnings: answer.warnings } : {}),
        });
      }
      problem = `hook ${hookLabel(hook)} wrote no answer to $VALIDATING_RESPONSE_PATH`;
    } catch (e) {
      problem = errorMessage(e);
    }
    this.log.error({ ...labels, failurePolicy: spec.failurePolicy, error: problem }, 'admission hook failed');
    if (spec.failurePolicy === 'Ignore') return reply({ allowed: true, warnings: [`webhook ${spec.name} failed and was ignored (failurePolicy Ignore)`] });
    return reply({ allowed: false, status: status({ message: 'Hook failed', code: 403 }) });
  }

  /** POST `/<crdName>` with a ConversionReview. */
  async convert(path: string, review: unknown): Promise<WebhookReply> {
    if (!isPlainObject(review) || !isPlainObject(review.request)) return { status: 400, body: 'Missing parameters: request' };
    const request = review.request;
    const uid = typeof request.uid === 'string' ? request.uid : '';
    const crdName = path.replace(/^\//, '');
    const desired = typeof request.desiredAPIVersion === 'string' ? request.desiredAPIVersion : '';
    const objects = Array.isArray(request.objects) ? (request.objects as JsonObject[]) : [];
    const reply = (response: Record<string, unknown>): WebhookReply => ({
      status: 200,
      body: { ...typeMeta(review), response: { uid, ...response } },
    });
    const failed = (message: string) => {
      this.log.error({ crd: crdName, uid, desiredAPIVersion: desired, error: message }, 'conversion failed');
      return reply({ convertedObjects: null, result: status({ status: 'Failure', message }) });
    };
    try {
      const converted = await this.chain(crdName, desired, objects, request, uid);
      return reply({ convertedObjects: converted, result: status({ status: 'Success' }) });
    } catch (e) {
      return failed(errorMessage(e));
    }
  }

  /** Runs hooks along the conversion path of each source version until every object has the desired version. */
  private async chain(crdName: string, desired: string, input: JsonObject[], request: JsonObject, uid: string): Promise<JsonObject[]> {
    const links = this.conversion.get(crdName) ?? [];
    let objects = input;
    const versions = () => [...new Set(objects.map((o) => String(o.apiVersion ?? '')))];
    const done = () => versions().every((v) => v === desired);
    for (const from of versions()) {
      if (done()) break;
      const path = findPath(links, from, desired);
      if (!path) continue;
      for (const link of path) {
        const ctx: ConversionContext = {
          type: 'Conversion',
          binding: link.binding.name,
          fromVersion: link.rule.fromVersion,
          toVersion: link.rule.toVersion,
          review: conversionReviewForHook(request, objects),
          includeSnapshotsFrom: link.binding.includeSnapshotsFrom,
          ...(link.binding.group !== undefined ? { group: link.binding.group } : {}),
        };
        const label = hookLabel(link.hook);
        let outcome: HookRunOutcome;
        try {
          outcome = await this.run(link.hook, [ctx], 'kubernetesCustomResourceConversion', CONVERSION_TIMEOUT_MS);
        } catch (e) {
          this.log.error({ hook: label, binding: link.binding.name, uid, crd: crdName, error: errorMessage(e) }, 'conversion hook failed');
          throw new Error(`Hook failed to convert to ${desired}`, { cause: e });
        }
        const answer = outcome.outputs.conversion;
        if (!answer) throw new Error(`hook ${label} wrote no answer to $CONVERSION_RESPONSE_PATH`);
        if (answer.failedMessage) throw new Error(answer.failedMessage);
        const converted = answer.convertedObjects ?? [];
        if (converted.length !== objects.length) throw new Error(`hook ${label} returned ${converted.length} objects instead of ${objects.length}`);
        objects = converted;
        if (done()) break;
      }
    }
    if (!done()) throw new Error(`Conversion ${crdName} to ${desired} was not successful`);
    return objects;
  }
}

/** The shortest sequence of rules from `from` to `to` (versions compared with or without their group). */
function findPath(links: readonly ConversionLink[], from: string, to: string): ConversionLink[] | undefined {
  const queue: Array<{ at: string; path: ConversionLink[] }> = [{ at: from, path: [] }];
  const seen = new Set<string>([shortVersion(from)]);
  while (queue.length) {
    const { at, path } = queue.shift()!;
    for (const link of links) {
      if (!versionsMatched(link.rule.fromVersion, at)) continue;
      const next = [...path, link];
      if (versionsMatched(link.rule.toVersion, to)) return next;
      const key = shortVersion(link.rule.toVersion);
      if (seen.has(key)) continue;
      seen.add(key);
      queue.push({ at: link.rule.toVersion, path: next });
    }
  }
  return undefined;
}
