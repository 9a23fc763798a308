/**
 * The sandbox calls admission webhooks as the API server does: the ValidatingWebhookConfigurations
 * and MutatingWebhookConfigurations stored in it are matched against each create, update, patch and
 * delete (rules with operations, groups, versions, resources and scope; namespaceSelector;
 * objectSelector; matchConditions in CEL), and a `url` webhook is called over HTTPS with its caBundle
 * and timeoutSeconds: mutating webhooks first, their JSON patches applied in turn, then validating
 * ones on the object as it would be stored. A denial is the API server's error; a webhook that
 * cannot be called fails the request or is ignored as its failurePolicy says. A webhook that points
 * at a Service has no server in the sandbox: it is skipped with a warning (logged, and an Event on
 * the object).
 */
import { request } from 'node:https';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { StatusError } from './errors.js';
import { applyJsonPatch } from './patch.js';
import { typeKey, type ResourceType } from './registry.js';
import type { Store } from './store.js';

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  t: ResourceType;
  version: string;
  ns: string;
  name: string;
  subresource?: string;
  dryRun: boolean;
  /** The stored object (update, delete). */
  oldObject?: any;
}

export interface AdmissionDeps {
  store: Store;
  /** A warning for the sandbox's log. */
  warn: (message: string) => void;
  /** Records an Event about the object (the skipped webhooks). */
  event: (attrs: AdmissionAttributes, reason: string, message: string) => void;
}

type Kind = 'validating' | 'mutating';

const CONFIG_TKEY: Record<Kind, string> = {
  validating: typeKey('admissionregistration.k8s.io', 'validatingwebhookconfigurations'),
  mutating: typeKey('admissionregistration.k8s.io', 'mutatingwebhookconfigurations'),
};
const NS_TKEY = typeKey('', 'namespaces');

const matchesList = (list: unknown, value: string) => Array.isArray(list) && (list.includes('*') || list.includes(value));

/** A rule's resources entry against `resource[/subresource]` (Kubernetes' rule matcher). */
function resourceMatches(entries: unknown, resource: string, sub: string | undefined): boolean {
  if (!Array.isArray(entries)) return false;
  const full = sub ? `${resource}/${sub}` : resource;
  return entries.some((e: string) => {
    if (e === '*/*' || e === full) return true;
    const [r, s] = e.split('/');
    if (s === undefined) return !sub && r === '*';
    return (r === '*' || r === resource) && (s === '*' || s === sub);
  });
}

function ruleMatches(rule: any, a: AdmissionAttributes): boolean {
  if (!matchesList(rule.operations, a.operation)) return false;
  if (!matchesList(rule.apiGroups, a.t.group) || !matchesList(rule.apiVersions, a.version)) return false;
  if (!resourceMatches(rule.resources, a.t.plural, a.subresource)) return false;
  const scope = rule.scope ?? '*';
  return scope === '*' || (scope === 'Namespaced') === a.t.namespaced;
}

/** A metav1.LabelSelector against labels; an absent or empty selector matches everything. */
export function selectorMatches(sel: any, labels: Record<string, string>): boolean {
  if (!sel) return true;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const ok =
      e.operator === 'In' ? has && (e.values ?? []).includes(labels[e.key]) :
      e.operator === 'NotIn' ? !has || !(e.values ?? []).includes(labels[e.key]) :
      e.operator === 'Exists' ? has :
      e.operator === 'DoesNotExist' ? !has : false;
    if (!ok) return false;
  }
  return true;
}

const labelsOf = (o: any): Record<string, string> => (o?.metadata?.labels ?? {}) as Record<string, string>;

// ---- matchConditions (CEL)

type Cel = typeof import('@bufbuild/cel');
let celModule: { cel: Cel; env: ReturnType<Cel['celEnv']> } | undefined;
const programs = new Map<string, ((ctx: Record<string, unknown>) => unknown) | Error>();

function cel(): NonNullable<typeof celModule> {
  if (!celModule) {
    const mod = createRequire(import.meta.url)('@bufbuild/cel') as Cel;
    celModule = { cel: mod, env: mod.celEnv() };
  }
  return celModule;
}

function toCel(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object') return v;
  if (Array.isArray(v)) return cel().cel.celList(v.map(toCel) as never);
  const m = new Map<string, unknown>();
  for (const [k, x] of Object.entries(v)) m.set(k, toCel(x));
  return cel().cel.celMap(m as never);
}

/** True when every condition holds; a condition that does not compile or fails is an error. */
function conditionsHold(conditions: any[], vars: Record<string, unknown>): boolean {
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(vars)) input[k] = toCel(v);
  for (const c of conditions) {
    let p = programs.get(c.expression);
    if (!p) {
      try {
        const { cel: m, env } = cel();
        p = m.plan(env, m.parse(String(c.expression))) as unknown as (ctx: Record<string, unknown>) => unknown;
      } catch (e) {
        p = e as Error;
      }
      programs.set(c.expression, p);
    }
    if (p instanceof Error) throw new Error(`matchCondition ${c.name}: ${p.message}`);
    const r = p(input);
    if (r instanceof Error) throw new Error(`matchCondition ${c.name}: ${r.message}`);
    if (r !== true) {
      if (r === false) return false;
      throw new Error(`matchCondition ${c.name}: the expression did not give a boolean`);
    }
  }
  return true;
}

// ---- calling

interface Matched {
  config: string;
  webhook: any;
}

function post(url: string, caBundle: string | undefined, body: string, timeoutMs: number): Promise<any> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname,
        port: u.port || 443,
        path: `${u.pathname}${u.search}`,
        method: 'POST',
        ...(caBundle ? { ca: Buffer.from(caBundle, 'base64').toString('utf8') } : {}),
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300) return reject(new Error(`the server responded with status ${res.statusCode}: ${text.slice(0, 200)}`));
          try {
            resolve(JSON.parse(text));
          } catch {
            reject(new Error(`the response is not JSON: ${text.slice(0, 200)}`));
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`context deadline exceeded (timeoutSeconds ${timeoutMs / 1000})`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends a review to a webhook's URL; undefined (with a warning) for a Service webhook the sandbox cannot reach. */
export async function callWebhook(
  deps: Pick<AdmissionDeps, 'warn'>,
  clientConfig: any,
  name: string,
  review: unknown,
  timeoutSeconds: number,
  skipped: () => void,
): Promise<any | undefined> {
  if (!clientConfig?.url) {
    const svc = clientConfig?.service;
    deps.warn(`sandbox: webhook ${name} is not called: it points at Service ${svc?.namespace ?? ''}/${svc?.name ?? ''}, which has no server in the sandbox`);
    skipped();
    return undefined;
  }
  return post(String(clientConfig.url), clientConfig.caBundle, JSON.stringify(review), timeoutSeconds * 1000);
}

export interface AdmissionOutcome {
  object: any;
  warnings: string[];
}

export class Admission {
  constructor(private readonly d: AdmissionDeps) {}

  /** Whether any webhook configuration of that kind is stored (the fast path: none). */
  has(kind: Kind): boolean {
    return this.d.store.count(CONFIG_TKEY[kind]) > 0;
  }

  private matching(kind: Kind, a: AdmissionAttributes, object: any): Matched[] {
    const out: Matched[] = [];
    const entries = this.d.store.list(CONFIG_TKEY[kind]).sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    for (const e of entries) {
      const config = JSON.parse(e.json);
      for (const webhook of config.webhooks ?? []) {
        if (!(webhook.rules ?? []).some((r: any) => ruleMatches(r, a))) continue;
        if (!this.namespaceMatches(webhook.namespaceSelector, a, object)) continue;
        const os = webhook.objectSelector;
        if (os && !selectorMatches(os, labelsOf(object)) && !(a.oldObject && selectorMatches(os, labelsOf(a.oldObject)))) continue;
        out.push({ config: String(config.metadata?.name ?? ''), webhook });
      }
    }
    return out;
  }

  private namespaceMatches(sel: any, a: AdmissionAttributes, object: any): boolean {
    if (!sel || (!sel.matchLabels && !sel.matchExpressions)) return true;
    if (a.t.group === '' && a.t.plural === 'namespaces') return selectorMatches(sel, labelsOf(object ?? a.oldObject));
    if (!a.t.namespaced) return true;
    const ns = this.d.store.get(NS_TKEY, '', a.ns);
    return selectorMatches(sel, ns ? labelsOf(JSON.parse(ns.json)) : {});
  }

  /** The AdmissionReview in admission/v1's field order (metav1.TypeMeta's kind first), as the API server writes it. */
  private review(a: AdmissionAttributes, object: any): Record<string, unknown> {
    const gvk = { group: a.t.group, version: a.version, kind: a.t.kind };
    const gvr = { group: a.t.group, version: a.version, resource: a.t.plural };
    return {
      kind: 'AdmissionReview',
      apiVersion: 'admission.k8s.io/v1',
      request: {
        uid: randomUUID(),
        kind: gvk,
        resource: gvr,
        ...(a.subresource ? { subResource: a.subresource } : {}),
        requestKind: gvk,
        requestResource: gvr,
        ...(a.subresource ? { requestSubResource: a.subresource } : {}),
        ...(a.name ? { name: a.name } : {}),
        ...(a.t.namespaced && a.ns ? { namespace: a.ns } : {}),
        operation: a.operation,
        userInfo: { username: 'sandbox', groups: ['system:masters', 'system:authenticated'] },
        object: object ?? null,
        oldObject: a.oldObject ?? null,
        dryRun: a.dryRun,
        options: { kind: a.operation === 'CREATE' ? 'CreateOptions' : a.operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' },
      },
    };
  }

  /**
   * Calls the webhooks of one kind that match; mutating answers' patches are applied in turn. Throws
   * the API server's error for a denial, or for a failed call under failurePolicy Fail.
   */
  async run(kind: Kind, a: AdmissionAttributes, object: any): Promise<AdmissionOutcome> {
    const warnings: string[] = [];
    if (!this.has(kind)) return { object, warnings };
    let current = object;
    for (const { webhook } of this.matching(kind, a, current)) {
      const name = String(webhook.name);
      const review = this.review(a, current);
      const request = review.request as Record<string, unknown>;
      const failurePolicy = webhook.failurePolicy ?? 'Fail';
      let answer: any;
      try {
        if (Array.isArray(webhook.matchConditions) && webhook.matchConditions.length) {
          const vars = { object: current ?? null, oldObject: a.oldObject ?? null, request };
          if (!conditionsHold(webhook.matchConditions, vars)) continue;
        }
        answer = await callWebhook(this.d, webhook.clientConfig, name, review, Number(webhook.timeoutSeconds ?? 10), () =>
          this.d.event(a, 'WebhookSkipped', `webhook ${name} is not called: its Service has no server in the sandbox`),
        );
        if (answer === undefined) continue;
        const response = answer?.response;
        if (!response || typeof response !== 'object') throw new Error('the response has no "response"');
        if (response.allowed !== true) {
          const status = response.status ?? {};
          const denied = `admission webhook "${name}" denied the request`;
          const message = status.message ? `${denied}: ${status.message}` : status.reason ? `${denied}: ${status.reason}` : `${denied} without explanation`;
          const code = Number(status.code) || 403;
          throw new StatusError(code, status.reason ?? (code === 403 ? 'Forbidden' : 'BadRequest'), message);
        }
        if (Array.isArray(response.warnings)) warnings.push(...response.warnings.map(String));
        if (kind === 'mutating' && response.patch) {
          if (response.patchType !== 'JSONPatch') throw new Error(`the patchType is ${JSON.stringify(response.patchType)}, not JSONPatch`);
          try {
            current = applyJsonPatch(current, JSON.parse(Buffer.from(String(response.patch), 'base64').toString('utf8')));
          } catch (e) {
            // a patch that does not apply is the webhook's failure: its failurePolicy decides
            throw new Error(`the patch does not apply: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
          }
        }
      } catch (e) {
        if (e instanceof StatusError) throw e;
        const why = e instanceof Error ? e.message : String(e);
        if (failurePolicy === 'Ignore') {
          this.d.warn(`sandbox: webhook ${name} failed and is ignored (failurePolicy Ignore): ${why}`);
          continue;
        }
        throw new StatusError(500, 'InternalError', `Internal error occurred: failed calling webhook "${name}": ${why}`);
      }
    }
    return { object: current, warnings };
  }
}

