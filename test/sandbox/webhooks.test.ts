// The sandbox calls admission webhooks as kube-apiserver does: a webhook server made in the test
// (HTTPS, its own CA in the configuration's caBundle) records what it gets and answers; the sandbox
// matches rules, selectors and matchConditions, applies failurePolicy and timeouts, and skips Service
// webhooks with a warning and an Event; matchPolicy Equivalent calls a webhook for another served
// version of a custom resource, reinvocationPolicy IfNeeded calls a mutating webhook again after a
// later one changed the object; watches in another version than the stored one get objects converted
// by the CRD's conversion webhook.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import { Watch } from '@kubernetes/client-node';
import type { AddressInfo } from 'node:net';
import { start } from './helpers.js';
import { requestJson, isApiStatus } from '../../src/kube/http.js';
import { generateTls } from '../../src/sandbox/tls.js';
import { waitFor } from '../helpers/wait.js';
import { crd } from '../helpers/crd.js';

interface Seen {
  path: string;
  review: any;
  /** The body as sent. */
  text: string;
}

/** A webhook server: `answer(path, request)` gives the review's response fields. */
async function webhookServer(answer: (path: string, request: any) => Record<string, unknown> | 'hang') {
  const tls = generateTls(['127.0.0.1']);
  const seen: Seen[] = [];
  const server: Server = createServer({ cert: tls.serverCert, key: tls.serverKey }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body);
      seen.push({ path: req.url ?? '', review, text: body });
      const a = answer(req.url ?? '', review.request);
      if (a === 'hang') return;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: review.kind, response: { uid: review.request.uid, ...a } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    url: (path: string) => ({ url: `https://127.0.0.1:${port}${path}`, caBundle: Buffer.from(tls.caCert).toString('base64') }),
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

const rule = (resources: string[], operations = ['CREATE', 'UPDATE', 'DELETE']) => ({ apiGroups: [''], apiVersions: ['v1'], resources, operations });
const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });

test('validating and mutating webhooks: rules, selectors, matchConditions, patches, denials, failure policies, Service webhooks skipped', async (t) => {
  const warnings: string[] = [];
  const { kc } = await start({ onWarning: (m) => warnings.push(m) });
  const hook = await webhookServer((path, req) => {
    if (path === '/deny') return req.object?.data?.bad ? { allowed: false, status: { code: 403, message: 'bad data' } } : { allowed: true, warnings: ['looked at it'] };
    if (path === '/mutate') return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/data/added', value: 'yes' }])).toString('base64') };
    if (path === '/hang') return 'hang';
    return { allowed: true };
  });
  t.after(() => hook.close());
  await requestJson(kc, 'POST', '/api/v1/namespaces', {}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', labels: { watched: 'yes' } } });
  await requestJson(kc, 'POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {}, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'm' },
    webhooks: [
      { name: 'mutate.example.com', clientConfig: hook.url('/mutate'), rules: [rule(['configmaps'], ['CREATE'])], namespaceSelector: { matchLabels: { watched: 'yes' } }, sideEffects: 'None', admissionReviewVersions: ['v1'] },
    ],
  });
  await requestJson(kc, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {}, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'v' },
    webhooks: [
      { name: 'deny.example.com', clientConfig: hook.url('/deny'), rules: [rule(['configmaps'])], objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] }, matchConditions: [{ name: 'not-kube', expression: "request.operation == 'DELETE' || !object.metadata.name.startsWith('kube-')" }], sideEffects: 'None', admissionReviewVersions: ['v1'] },
      { name: 'hang.example.com', clientConfig: hook.url('/hang'), rules: [rule(['secrets'], ['CREATE'])], timeoutSeconds: 1, failurePolicy: 'Fail', sideEffects: 'None', admissionReviewVersions: ['v1'] },
      { name: 'ignored.example.com', clientConfig: hook.url('/hang'), rules: [rule(['serviceaccounts'], ['CREATE'])], timeoutSeconds: 1, failurePolicy: 'Ignore', sideEffects: 'None', admissionReviewVersions: ['v1'] },
      { name: 'service.example.com', clientConfig: { service: { namespace: 'monitoring', name: 'operator', path: '/admit' } }, rules: [rule(['services'], ['CREATE'])], sideEffects: 'None', admissionReviewVersions: ['v1'] },
      { name: 'service2.example.com', clientConfig: { service: { namespace: 'monitoring', name: 'operator', path: '/admit2' } }, rules: [rule(['services'], ['CREATE'])], sideEffects: 'None', admissionReviewVersions: ['v1'] },
    ],
  });

  // mutated in the selected namespace, then validated as stored
  const created = await requestJson<any>(kc, 'POST', '/api/v1/namespaces/team/configmaps', {}, cm('a', {}, { x: '1' }));
  assert.equal(created.data.added, 'yes');
  const validated = hook.seen.find((s) => s.path === '/deny')!;
  assert.equal(validated.review.request.operation, 'CREATE');
  assert.equal(validated.review.request.object.data.added, 'yes');
  assert.deepEqual(validated.review.request.resource, { group: '', version: 'v1', resource: 'configmaps' });
  // in admission/v1's field order, kind before apiVersion, omitempty fields left out, as kube-apiserver writes it
  assert.match(validated.text, /^\{"kind":"AdmissionReview","apiVersion":"admission\.k8s\.io\/v1","request":\{"uid":"[^"]+","kind":\{"group":"","version":"v1","kind":"ConfigMap"\},"resource":\{[^}]*\},"requestKind":\{[^}]*\},"requestResource":\{[^}]*\},"name":"a","namespace":"team","operation":"CREATE","userInfo":/);
  assert.match(validated.text, /"object":\{.*\},"oldObject":null,"dryRun":false,"options":\{"kind":"CreateOptions","apiVersion":"meta\.k8s\.io\/v1"\}\}\}$/);
  // not mutated elsewhere
  const plain = await requestJson<any>(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, cm('b'));
  assert.equal(plain.data?.added, undefined);

  // denied: the API server's error
  const denied = await requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, cm('c', {}, { bad: '1' })).catch((e: unknown) => e);
  assert.ok(isApiStatus(denied, 403), String(denied));
  assert.match((denied as Error).message, /admission webhook "deny\.example\.com" denied the request: bad data/);
  // the object selector and the match condition keep the webhook out
  await requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, cm('d', { skip: 'yes' }, { bad: '1' }));
  await requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, cm('kube-e', {}, { bad: '1' }));
  // update and delete are reviewed with the old object
  const updateDenied = await requestJson(kc, 'PATCH', '/api/v1/namespaces/default/configmaps/b', {}, { data: { bad: '1' } }, 'application/merge-patch+json').catch((e: unknown) => e);
  assert.ok(isApiStatus(updateDenied, 403));
  await requestJson(kc, 'DELETE', '/api/v1/namespaces/default/configmaps/b');
  const del = hook.seen.filter((s) => s.path === '/deny').at(-1)!.review.request;
  assert.equal(del.operation, 'DELETE');
  assert.equal(del.oldObject.metadata.name, 'b');
  assert.equal(del.object, null);

  // a webhook that does not answer in time: Fail fails the request, Ignore lets it through
  const timedOut = await requestJson(kc, 'POST', '/api/v1/namespaces/default/secrets', {}, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }).catch((e: unknown) => e);
  assert.ok(isApiStatus(timedOut, 500), String(timedOut));
  assert.match((timedOut as Error).message, /failed calling webhook "hang\.example\.com"/);
  await requestJson(kc, 'POST', '/api/v1/namespaces/default/serviceaccounts', {}, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } });
  assert.ok(warnings.some((w) => w.includes('ignored.example.com') && w.includes('failurePolicy Ignore')), warnings.join('\n'));

  // Service webhooks: skipped with one warning for the configuration and the Service (naming its
  // webhooks), however many requests they skip, and an Event on each object for each webhook
  for (const name of ['web', 'api', 'db']) await requestJson(kc, 'POST', '/api/v1/namespaces/default/services', {}, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }] } });
  const skipped = warnings.filter((w) => w.includes('monitoring/operator'));
  assert.equal(skipped.length, 1, warnings.join('\n'));
  assert.match(skipped[0]!, /webhooks service\.example\.com, service2\.example\.com of ValidatingWebhookConfiguration v are not called: they point at Service monitoring\/operator, which has no server in the sandbox/);
  const events = await requestJson<any>(kc, 'GET', '/api/v1/namespaces/default/events');
  for (const name of ['web', 'api', 'db']) {
    for (const webhook of ['service', 'service2']) assert.ok(events.items.some((e: any) => e.reason === 'WebhookSkipped' && e.involvedObject.name === name && e.message.startsWith(`webhook ${webhook}.example.com `)), `${name} ${webhook}`);
  }
});

test("a watch in another version than the stored one gets its objects converted by the CRD's webhook, in order; a failed conversion ends it", async (t) => {
  const warnings: string[] = [];
  const { kc } = await start({ onWarning: (m) => warnings.push(m) });
  let mode: 'convert' | 'refuse' | 'wrong-uid' = 'convert';
  const hook = await webhookServer((_path, req) =>
    mode === 'refuse'
      ? { convertedObjects: null, result: { status: 'Failure', message: 'refused by the test' } }
      : {
          ...(mode === 'wrong-uid' ? { uid: 'nope' } : {}),
          convertedObjects: req.objects.map((o: any) => ({ ...o, apiVersion: req.desiredAPIVersion, spec: { ...o.spec, via: 'webhook' } })),
          result: { status: 'Success' },
        },
  );
  t.after(() => hook.close());
  const gadgets = crd('Gadget', { group: 'ex.example.com', versions: ['v1', 'v2'] });
  const conversion = { strategy: 'Webhook', webhook: { clientConfig: hook.url('/gadgets.ex.example.com'), conversionReviewVersions: ['v1'] } };
  await requestJson(kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {}, { ...gadgets, spec: { ...gadgets.spec, conversion } });
  const V1 = '/apis/ex.example.com/v1/namespaces/default/gadgets';
  const gadget = (name: string) => ({ apiVersion: 'ex.example.com/v1', kind: 'Gadget', metadata: { name }, spec: { size: 1 } });
  await waitFor(async () => !!(await requestJson(kc, 'GET', V1).catch(() => undefined)), 'the CRD served');
  await requestJson(kc, 'POST', V1, {}, gadget('a'));
  const list = await requestJson<any>(kc, 'GET', '/apis/ex.example.com/v2/namespaces/default/gadgets');

  const events: Array<[string, string, string, unknown]> = [];
  let ended: unknown = 'open';
  await new Watch(kc).watch(
    '/apis/ex.example.com/v2/namespaces/default/gadgets',
    { resourceVersion: list.metadata.resourceVersion },
    (type: string, o: any) => events.push([type, o.metadata.name, o.apiVersion, o.spec?.via]),
    (err: unknown) => (ended = err ?? null),
  );
  await requestJson(kc, 'PATCH', `${V1}/a`, {}, { spec: { size: 2 } }, 'application/merge-patch+json');
  await requestJson(kc, 'POST', V1, {}, gadget('b'));
  await requestJson(kc, 'DELETE', `${V1}/a`);
  await waitFor(() => events.length === 3, 'three watch events');
  assert.deepEqual(events, [
    ['MODIFIED', 'a', 'ex.example.com/v2', 'webhook'],
    ['ADDED', 'b', 'ex.example.com/v2', 'webhook'],
    ['DELETED', 'a', 'ex.example.com/v2', 'webhook'],
  ]);
  // the ConversionReview as kube-apiserver writes it: kind first, apiextensions/v1's field order
  assert.match(hook.seen.at(-1)!.text, /^\{"kind":"ConversionReview","apiVersion":"apiextensions\.k8s\.io\/v1","request":\{"uid":"[^"]+","desiredAPIVersion":"ex\.example\.com\/v2","objects":\[\{/);

  mode = 'refuse';
  await requestJson(kc, 'PATCH', `${V1}/b`, {}, { spec: { size: 3 } }, 'application/merge-patch+json');
  await waitFor(() => ended !== 'open', 'the watch ended');
  assert.equal(events.length, 3);
  assert.ok(warnings.some((w) => /watch of gadgets\.ex\.example\.com ended: .*refused by the test/.test(w)), warnings.join('\n'));
  // an answer for another request is a failed conversion, as kube-apiserver checks the uid
  mode = 'wrong-uid';
  const wrong = await requestJson(kc, 'GET', '/apis/ex.example.com/v2/namespaces/default/gadgets/b').catch((e: unknown) => e);
  assert.ok(isApiStatus(wrong, 500), String(wrong));
  assert.match((wrong as Error).message, /conversion webhook for ex\.example\.com\/Gadget failed: expected response\.uid="[^"]+", got "nope"/);
});

test('matchPolicy Equivalent calls a webhook of another served version with the object in it; reinvocationPolicy IfNeeded calls again after a later change; a matchCondition error fails closed; answers are checked as kube-apiserver checks them', async (t) => {
  const { kc } = await start();
  const calls: Array<[string, Record<string, string>]> = [];
  const addLabel = (req: any, key: string) => {
    const labels = req.object.metadata.labels ?? {};
    if (labels[key]) return { allowed: true };
    return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'add', path: `/metadata/labels/${key}`, value: 'yes' }])).toString('base64') };
  };
  const hook = await webhookServer((path, req) => {
    calls.push([path, { ...(req.object?.metadata?.labels ?? {}) }]);
    if (path.startsWith('/first')) return addLabel(req, 'first');
    if (path === '/second') return addLabel(req, 'second');
    if (path === '/wrong-uid') return { allowed: true, uid: 'nope' };
    if (path === '/patching') return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from('[]').toString('base64') };
    if (path === '/old') return { allowed: true, uid: 'not checked in v1beta1' };
    return { allowed: true };
  });
  t.after(() => hook.close());
  await requestJson(kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {}, crd('Thing', { group: 'eq.example.com', versions: ['v1', 'v2'] }));
  const v2Rule = [{ apiGroups: ['eq.example.com'], apiVersions: ['v2'], resources: ['things'], operations: ['CREATE'] }];
  const webhook = (name: string, path: string, rules: unknown[], extra: Record<string, unknown> = {}) => ({ name, clientConfig: hook.url(path), rules, sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra });
  await requestJson(kc, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {}, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'versions' },
    webhooks: [
      webhook('equivalent.example.com', '/equivalent', v2Rule),
      webhook('exact.example.com', '/exact', v2Rule, { matchPolicy: 'Exact' }),
      webhook('broken-condition.example.com', '/broken', [rule(['secrets'], ['CREATE'])], { matchConditions: [{ name: 'bad', expression: 'object.nope == 1' }] }),
      webhook('broken-ignored.example.com', '/broken-ignored', [rule(['services'], ['CREATE'])], { failurePolicy: 'Ignore', matchConditions: [{ name: 'bad', expression: 'object.nope == 1' }] }),
    ],
  });
  await requestJson(kc, 'POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {}, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'labels' },
    webhooks: [
      webhook('first-if-needed.example.com', '/first-if-needed', [rule(['configmaps'], ['CREATE'])], { reinvocationPolicy: 'IfNeeded' }),
      webhook('second-cm.example.com', '/second', [rule(['configmaps'], ['CREATE'])]),
      webhook('first-never.example.com', '/first-never', [rule(['persistentvolumeclaims'], ['CREATE'])]),
      webhook('second-pvc.example.com', '/second', [rule(['persistentvolumeclaims'], ['CREATE'])]),
    ],
  });
  const stored = await requestJson<any>(kc, 'GET', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/labels');
  assert.deepEqual(stored.webhooks.map((w: any) => [w.matchPolicy, w.reinvocationPolicy]), [['Equivalent', 'IfNeeded'], ['Equivalent', 'Never'], ['Equivalent', 'Never'], ['Equivalent', 'Never']]);

  // a v1 request: the Equivalent webhook gets the object as v2, the Exact one is not called
  await waitFor(async () => !!(await requestJson(kc, 'GET', '/apis/eq.example.com/v1/namespaces/default/things').catch(() => undefined)), 'the CRD served');
  await requestJson(kc, 'POST', '/apis/eq.example.com/v1/namespaces/default/things', {}, { apiVersion: 'eq.example.com/v1', kind: 'Thing', metadata: { name: 'x' } });
  assert.deepEqual(hook.seen.filter((x) => x.path === '/exact'), []);
  const eq = hook.seen.find((x) => x.path === '/equivalent')!.review.request;
  assert.deepEqual([eq.kind.version, eq.resource.version, eq.requestKind.version, eq.requestResource.version, eq.object.apiVersion], ['v2', 'v2', 'v1', 'v1', 'eq.example.com/v2']);

  // IfNeeded: called again once the later webhook added its label; Never: once
  calls.length = 0;
  const made = await requestJson<any>(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, cm('twice'));
  assert.deepEqual(made.metadata.labels, { first: 'yes', second: 'yes' });
  assert.deepEqual(calls, [
    ['/first-if-needed', {}],
    ['/second', { first: 'yes' }],
    ['/first-if-needed', { first: 'yes', second: 'yes' }],
  ]);
  calls.length = 0;
  await requestJson(kc, 'POST', '/api/v1/namespaces/default/persistentvolumeclaims', {}, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'once', labels: {} },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  assert.deepEqual(calls, [
    ['/first-never', {}],
    ['/second', { first: 'yes' }],
  ]);

  // a matchCondition that fails to evaluate: Forbidden under Fail, the webhook skipped under Ignore
  const forbidden = await requestJson(kc, 'POST', '/api/v1/namespaces/default/secrets', {}, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' } }).catch((e: unknown) => e);
  assert.ok(isApiStatus(forbidden, 403), String(forbidden));
  assert.match((forbidden as Error).message, /secrets "s1" is forbidden: matchCondition bad: /);
  await requestJson(kc, 'POST', '/api/v1/namespaces/default/services', {}, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } });
  assert.deepEqual(hook.seen.filter((x) => x.path.startsWith('/broken')), []);

  // answers checked as kube-apiserver checks them: a v1 review's uid, no patch from a validating
  // webhook; a webhook that takes only v1beta1 gets a v1beta1 review, whose uid is not checked
  const only = (value: string) => ({ objectSelector: { matchLabels: { case: value } } });
  await requestJson(kc, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {}, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'answers' },
    webhooks: [
      webhook('wrong-uid.example.com', '/wrong-uid', [rule(['configmaps'], ['CREATE'])], only('wrong-uid')),
      webhook('patching.example.com', '/patching', [rule(['configmaps'], ['CREATE'])], only('patching')),
      webhook('old-review.example.com', '/old', [rule(['configmaps'], ['CREATE'])], { ...only('old'), admissionReviewVersions: ['v1beta1'] }),
    ],
  });
  const failed = async (name: string) => {
    const e = await requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, cm(name, { case: name })).catch((x: unknown) => x);
    assert.ok(isApiStatus(e, 500), String(e));
    return (e as Error).message;
  };
  assert.match(await failed('wrong-uid'), /failed calling webhook "wrong-uid\.example\.com": received invalid webhook response: expected response\.uid="[^"]+", got "nope"/);
  assert.match(await failed('patching'), /failed calling webhook "patching\.example\.com": received invalid webhook response: validating webhook may not return response\.patch/);
  await requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, cm('old', { case: 'old' }));
  assert.equal(hook.seen.find((x) => x.path === '/old')!.review.apiVersion, 'admission.k8s.io/v1beta1');
});

test('a configuration changed, removed or added takes effect at the next write (the parsed webhooks are read again)', async (t) => {
  const { kc } = await start();
  const hook = await webhookServer((path) => (path === '/deny' ? { allowed: false, status: { code: 403, message: 'no' } } : { allowed: true }));
  t.after(() => hook.close());
  const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
  const config = (path: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'v' }, webhooks: [{ name: 'w.example.com', clientConfig: hook.url(path), rules: [rule(['configmaps'])], sideEffects: 'None', admissionReviewVersions: ['v1'] }] });
  const create = (name: string) => requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, cm(name)).then(() => 'created', (e: unknown) => (isApiStatus(e, 403) ? 'denied' : Promise.reject(e)));

  await requestJson(kc, 'POST', VWC, {}, config('/deny'));
  assert.equal(await create('a'), 'denied');
  const current = await requestJson<any>(kc, 'GET', `${VWC}/v`);
  await requestJson(kc, 'PUT', `${VWC}/v`, {}, { ...current, webhooks: config('/allow').webhooks });
  assert.equal(await create('b'), 'created');
  await requestJson(kc, 'DELETE', `${VWC}/v`);
  await requestJson(kc, 'POST', VWC, {}, config('/deny'));
  assert.equal(await create('c'), 'denied');
  await requestJson(kc, 'DELETE', `${VWC}/v`);
  assert.equal(await create('d'), 'created');
});
