/**
 * The sandbox calls admission webhooks as the API server does: the ValidatingWebhookConfigurations
 * and MutatingWebhookConfigurations stored in it are matched against each create, update, patch and
 * delete (rules with operations, groups, versions, resources and scope, and with matchPolicy
 * Equivalent the other served versions of a custom resource, whose object the webhook then gets in the
 * version it names; namespaceSelector; objectSelector; matchConditions in CEL), and a `url` webhook is
 * called over HTTPS with its caBundle and timeoutSeconds: mutating webhooks first, their JSON patches
 * applied in turn (those with reinvocationPolicy IfNeeded called once more when a later one changed
 * the object), then validating ones on the object as it would be stored. A denial is the API server's
 * error; a webhook that
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
  /** The object in another served version of its resource (a custom resource's conversion). */
  convert: (t: ResourceType, version: string, object: any) => Promise<any>;
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

function ruleMatches(rule: any, a: AdmissionAttributes, version: string): boolean {
  if (!matchesList(rule.operations, a.operation)) return false;
  if (!matchesList(rule.apiGroups, a.t.group) || !matchesList(rule.apiVersions, version)) return false;
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

/**
 * True when every condition holds, false when one does not (whatever the others gave); otherwise a
 * condition that does not compile or fails is an error (kube-apiserver's matchconditions matcher).
 */
function conditionsHold(conditions: any[], vars: Record<string, unknown>): boolean {
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(vars)) input[k] = toCel(v);
  const errors: string[] = [];
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
    const r = p instanceof Error ? p : p(input);
    if (r === false) return false;
    if (r instanceof Error) errors.push(`matchCondition ${c.name}: ${r.message}`);
    else if (r !== true) errors.push(`matchCondition ${c.name}: the expression did not give a boolean`);
  }
  if (errors.length) throw new Error(errors.join(', '));
  return true;
}

// ---- calling

/** A webhook that applies to a request, and the version of the resource it is called for. */
interface Invocation {
  webhook: any;
  version: string;
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

/** The Service a webhook's clientConfig points at, as `namespace/name`. */
function serviceOf(clientConfig: any): string {
  const svc = clientConfig?.service;
  return `${String(svc?.namespace ?? '')}/${String(svc?.name ?? '')}`;
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
    deps.warn(`sandbox: webhook ${name} is not called: it points at Service ${serviceOf(clientConfig)}, which has no server in the sandbox`);
    skipped();
    return undefined;
  }
  return post(String(clientConfig.url), clientConfig.caBundle, JSON.stringify(review), timeoutSeconds * 1000);
}

/** Go's GroupVersionKind.String() of a review's apiVersion and kind. */
export function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = av.indexOf('/');
  return `${slash < 0 ? '' : av.slice(0, slash)}/${slash < 0 ? av : av.slice(slash + 1)}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/**
 * The webhook's answer checked as kube-apiserver checks it (VerifyAdmissionResponse): a v1 review must
 * come back as an admission.k8s.io/v1 AdmissionReview with the request's uid, a patch with its
 * patchType and only from a mutating webhook; a v1beta1 one is taken as it comes (a patch is a JSON
 * patch). Gives the response, with `patchType` set when there is a patch.
 */
function verifiedResponse(reviewVersion: string, uid: string, mutating: boolean, answer: any): any {
  const invalid = (why: string) => new Error(`received invalid webhook response: ${why}`);
  const response = answer?.response;
  if (!response || typeof response !== 'object') throw invalid('webhook response was absent');
  const hasPatch = typeof response.patch === 'string' && response.patch !== '';
  if (reviewVersion === 'v1beta1') return mutating && hasPatch ? { ...response, patchType: 'JSONPatch' } : { ...response, patch: undefined };
  if (response.uid !== uid) throw invalid(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(String(response.uid ?? ''))}`);
  if (answer.apiVersion !== 'admission.k8s.io/v1' || answer.kind !== 'AdmissionReview') {
    throw invalid(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gvkString(answer.apiVersion, answer.kind)}`);
  }
  const hasType = response.patchType !== undefined && response.patchType !== null;
  if (mutating) {
    if (hasPatch && !hasType) throw invalid('webhook returned response.patch but not response.patchType');
    if (!hasPatch && hasType) throw invalid('webhook returned response.patchType but not response.patch');
    if (hasType && response.patchType === '') throw invalid('webhook returned invalid response.patchType of ""');
  } else {
    if (hasPatch) throw invalid('validating webhook may not return response.patch');
    if (hasType) throw invalid('validating webhook may not return response.patchType');
  }
  return response;
}

/** The review version kube-apiserver sends: the first of the webhook's admissionReviewVersions it knows. */
function reviewVersionOf(webhook: any): string | undefined {
  const versions: unknown[] = Array.isArray(webhook.admissionReviewVersions) ? webhook.admissionReviewVersions : ['v1'];
  return versions.find((v): v is string => v === 'v1' || v === 'v1beta1');
}

export interface AdmissionOutcome {
  object: any;
  warnings: string[];
}

export class Admission {
  /** The configurations (uid) and Services whose skipped webhooks were warned about: once each; every skipped call is an Event. */
  private readonly warnedSkips = new Set<string>();
  /** Each webhook's configuration, as `webhooks` read it. */
  private readonly configOf = new WeakMap<object, { kind: string; name: string; uid: string; webhooks: any[] }>();
  /** The webhooks of each kind as last read, with the resourceVersions of the configurations they came from. */
  private readonly parsed = new Map<Kind, { rvs: string; webhooks: any[] }>();

  constructor(private readonly d: AdmissionDeps) {}

  /**
   * The sandbox's warning of a skipped Service webhook: once per configuration and Service, naming
   * every webhook of the configuration that points at that Service (the operator registers one
   * configuration with a webhook per hook binding: one line, not one per webhook or request).
   */
  private warnSkipOnce(webhook: any): (message: string) => void {
    const target = serviceOf(webhook.clientConfig);
    const config = this.configOf.get(webhook);
    return (message) => {
      const key = config ? `${config.uid}\0${target}` : `${String(webhook.name)}\0${target}`;
      if (this.warnedSkips.has(key)) return;
      this.warnedSkips.add(key);
      if (!config) return this.d.warn(`${message} (said once; each skipped call is a WebhookSkipped Event on its object)`);
      const names = config.webhooks.filter((w) => !w?.clientConfig?.url && serviceOf(w?.clientConfig) === target).map((w) => String(w.name));
      const shown = names.length > 10 ? `${names.slice(0, 10).join(', ')}, ... (${names.length})` : names.join(', ');
      const which = names.length === 1 ? `webhook ${shown} of ${config.kind} ${config.name} is` : `webhooks ${shown} of ${config.kind} ${config.name} are`;
      this.d.warn(`sandbox: ${which} not called: ${names.length === 1 ? 'it points' : 'they point'} at Service ${target}, which has no server in the sandbox (said once for the configuration; each skipped call is a WebhookSkipped Event on its object)`);
    };
  }

  /** Whether any webhook configuration of that kind is stored (the fast path: none). */
  has(kind: Kind): boolean {
    return this.d.store.count(CONFIG_TKEY[kind]) > 0;
  }

  /**
   * The webhooks of that kind in the API server's order: configurations by name, then as listed. Read
   * again only when a configuration changed (the resourceVersions of them all): each write a webhook
   * could match parsed every configuration, 20 KB each for a fleet's 34 webhooks, and the Events of
   * skipped calls are such writes too.
   */
  private webhooks(kind: Kind): any[] {
    const entries = this.d.store.list(CONFIG_TKEY[kind]).sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    const rvs = entries.map((e) => e.rv).join(',');
    const kept = this.parsed.get(kind);
    if (kept?.rvs === rvs) return kept.webhooks;
    const all = entries.flatMap((e) => {
      const config = JSON.parse(e.json);
      const webhooks = (Array.isArray(config.webhooks) ? config.webhooks : []) as any[];
      const info = { kind: String(config.kind ?? kind), name: String(config.metadata?.name ?? e.name), uid: String(config.metadata?.uid ?? e.name), webhooks };
      for (const w of webhooks) if (w && typeof w === 'object') this.configOf.set(w, info);
      return webhooks;
    });
    this.parsed.set(kind, { rvs, webhooks: all });
    return all;
  }

  /**
   * The webhook's invocation for the request with the object as it is now (kube-apiserver's
   * ShouldCallHook): the selectors, then a rule of the request's version or, with matchPolicy
   * Equivalent (the default), of another served version of the resource, earlier rules first.
   */
  private invocation(webhook: any, a: AdmissionAttributes, object: any): Invocation | undefined {
    if (!this.namespaceMatches(webhook.namespaceSelector, a, object)) return undefined;
    const os = webhook.objectSelector;
    if (os && !selectorMatches(os, labelsOf(object)) && !(a.oldObject && selectorMatches(os, labelsOf(a.oldObject)))) return undefined;
    const rules: any[] = webhook.rules ?? [];
    if (rules.some((r) => ruleMatches(r, a, a.version))) return { webhook, version: a.version };
    if ((webhook.matchPolicy ?? 'Equivalent') !== 'Equivalent') return undefined;
    for (const r of rules) {
      const version = a.t.versions.find((v) => v !== a.version && ruleMatches(r, a, v));
      if (version) return { webhook, version };
    }
    return undefined;
  }

  private namespaceMatches(sel: any, a: AdmissionAttributes, object: any): boolean {
    if (!sel || (!sel.matchLabels && !sel.matchExpressions)) return true;
    if (a.t.group === '' && a.t.plural === 'namespaces') return selectorMatches(sel, labelsOf(object ?? a.oldObject));
    if (!a.t.namespaced) return true;
    const ns = this.d.store.get(NS_TKEY, '', a.ns);
    return selectorMatches(sel, ns ? labelsOf(JSON.parse(ns.json)) : {});
  }

  /**
   * The AdmissionReview in admission/v1's field order (metav1.TypeMeta's kind first), as the API server
   * writes it: `kind` and `resource` in the version the webhook is called for, `requestKind` and
   * `requestResource` in the request's.
   */
  private review(a: AdmissionAttributes, version: string, object: any, oldObject: any): Record<string, unknown> {
    const gvk = { group: a.t.group, version, kind: a.t.kind };
    const gvr = { group: a.t.group, version, resource: a.t.plural };
    return {
      kind: 'AdmissionReview',
      apiVersion: 'admission.k8s.io/v1',
      request: {
        uid: randomUUID(),
        kind: gvk,
        resource: gvr,
        ...(a.subresource ? { subResource: a.subresource } : {}),
        requestKind: { ...gvk, version: a.version },
        requestResource: { ...gvr, version: a.version },
        ...(a.subresource ? { requestSubResource: a.subresource } : {}),
        ...(a.name ? { name: a.name } : {}),
        ...(a.t.namespaced && a.ns ? { namespace: a.ns } : {}),
        operation: a.operation,
        userInfo: { username: 'sandbox', groups: ['system:masters', 'system:authenticated'] },
        object: object ?? null,
        oldObject: oldObject ?? null,
        dryRun: a.dryRun,
        options: { kind: a.operation === 'CREATE' ? 'CreateOptions' : a.operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' },
      },
    };
  }

  /** The object in `version` (unchanged in the request's own version; null stays null). */
  private async inVersion(a: AdmissionAttributes, version: string, object: any): Promise<any> {
    if (version === a.version || object === null || object === undefined) return object;
    try {
      return await this.d.convert(a.t, version, object);
    } catch (e) {
      throw new StatusError(500, 'InternalError', `Internal error occurred: converting to ${a.t.group}/${version}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /**
   * Calls the webhooks of one kind that apply; mutating answers' patches are applied in turn, and the
   * mutating webhooks with reinvocationPolicy IfNeeded that ran before a later one changed the object
   * are called once more, in order (kube-apiserver's reinvocation). Throws the API server's error for a
   * denial, or for a failed call under failurePolicy Fail.
   */
  async run(kind: Kind, a: AdmissionAttributes, object: any): Promise<AdmissionOutcome> {
    const warnings: string[] = [];
    if (!this.has(kind)) return { object, warnings };
    const webhooks = this.webhooks(kind);
    let current = object;
    let reinvocable = new Set<any>();
    const reinvoke = new Set<any>();
    for (const round of [0, 1]) {
      if (round === 1 && !reinvoke.size) break;
      for (const webhook of webhooks) {
        if (round === 1 && !reinvoke.has(webhook)) continue;
        const inv = this.invocation(webhook, a, current);
        if (!inv) continue;
        const next = await this.call(kind, a, inv, current, warnings);
        if (kind !== 'mutating') continue;
        if (next !== current) {
          // a change: every reinvocable webhook called before it is called again
          for (const w of reinvocable) reinvoke.add(w);
          reinvocable = new Set();
          current = next;
        }
        if (webhook.reinvocationPolicy === 'IfNeeded') reinvocable.add(webhook);
      }
    }
    return { object: current, warnings };
  }

  /** One webhook call: the object after its patch (the same object when it changed nothing). */
  private async call(kind: Kind, a: AdmissionAttributes, inv: Invocation, current: any, warnings: string[]): Promise<any> {
    const { webhook, version } = inv;
    const name = String(webhook.name);
    const failurePolicy = webhook.failurePolicy ?? 'Fail';
    const object = await this.inVersion(a, version, current);
    const oldObject = await this.inVersion(a, version, a.oldObject);
    const review = this.review(a, version, object, oldObject);
    if (Array.isArray(webhook.matchConditions) && webhook.matchConditions.length) {
      let hold: boolean;
      try {
        hold = conditionsHold(webhook.matchConditions, { object: object ?? null, oldObject: oldObject ?? null, request: review.request });
      } catch (e) {
        // an error fails closed with Fail, and skips the webhook with Ignore (kube-apiserver's matcher)
        if (failurePolicy === 'Ignore') return current;
        const what = a.t.group ? `${a.t.plural}.${a.t.group}` : a.t.plural;
        throw new StatusError(403, 'Forbidden', `${what} "${a.name}" is forbidden: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (!hold) return current;
    }
    try {
      const reviewVersion = reviewVersionOf(webhook);
      if (!reviewVersion) throw new Error('could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
      review.apiVersion = `admission.k8s.io/${reviewVersion}`;
      const answer = await callWebhook({ warn: this.warnSkipOnce(webhook) }, webhook.clientConfig, name, review, Number(webhook.timeoutSeconds ?? 10), () =>
        this.d.event(a, 'WebhookSkipped', `webhook ${name} is not called: its Service has no server in the sandbox`),
      );
      if (answer === undefined) return current;
      const response = verifiedResponse(reviewVersion, String((review.request as { uid: string }).uid), kind === 'mutating', answer);
      if (response.allowed !== true) {
        const status = response.status ?? {};
        const denied = `admission webhook "${name}" denied the request`;
        const message = status.message ? `${denied}: ${status.message}` : status.reason ? `${denied}: ${status.reason}` : `${denied} without explanation`;
        const code = Number(status.code) || 403;
        throw new StatusError(code, status.reason ?? (code === 403 ? 'Forbidden' : 'BadRequest'), message);
      }
      if (Array.isArray(response.warnings)) warnings.push(...response.warnings.map(String));
      if (kind !== 'mutating' || !response.patch) return current;
      if (response.patchType !== 'JSONPatch') throw new Error(`unsupported patch type ${JSON.stringify(response.patchType)}`);
      let patched: any;
      try {
        patched = applyJsonPatch(object, JSON.parse(Buffer.from(String(response.patch), 'base64').toString('utf8')));
      } catch (e) {
        // a patch that does not apply is the webhook's failure: its failurePolicy decides
        throw new Error(`the patch does not apply: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      if (JSON.stringify(patched) === JSON.stringify(object)) return current;
      return await this.inVersion(a, a.version, patched);
    } catch (e) {
      if (e instanceof StatusError) throw e;
      const why = e instanceof Error ? e.message : String(e);
      if (failurePolicy === 'Ignore') {
        this.d.warn(`sandbox: webhook ${name} failed and is ignored (failurePolicy Ignore): ${why}`);
        return current;
      }
      throw new StatusError(500, 'InternalError', `Internal error occurred: failed calling webhook "${name}": ${why}`);
    }
  }
}
