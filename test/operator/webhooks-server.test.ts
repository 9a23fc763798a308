// The admission server of `start --sandbox`: global hooks with kubernetesValidating,
// kubernetesMutating and kubernetesCustomResourceConversion bindings (bash hooks and an in-process
// one) answer AdmissionReviews and ConversionReviews posted straight to it over HTTPS, with a
// certificate from --admission-server-certs-dir signed by a CA made in the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { bashHook, logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { generateTls } from '../../src/sandbox/tls.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - {name: v1alpha1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
  - {name: v1, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`;

const RULES = [{ apiGroups: ['stable.example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['crontabs'] }];

function post(port: number, ca: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', ca, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text.startsWith('{') ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const review = (uid: string, object: unknown) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid, kind: { group: 'stable.example.com', version: 'v1', kind: 'CronTab' }, operation: 'CREATE', name: 'c', namespace: 'default', object },
});

test('webhook hooks answer AdmissionReviews and ConversionReviews on the admission server', async () => {
  const root = makeTree({ 'modules/.keep': '', 'crd.yaml': CRD });
  const hooks = join(root, 'global-hooks/hooks');
  mkdirSync(hooks, { recursive: true });
  const contexts = join(root, 'contexts.json');
  const write = (name: string, text: string) => {
    writeFileSync(join(hooks, name), text);
    chmodSync(join(hooks, name), 0o755);
  };
  write(
    'validating.sh',
    bashHook(
      { configVersion: 'v1', kubernetesValidating: [{ name: 'image-policy.example.com', rules: RULES }] },
      `cp "$BINDING_CONTEXT_PATH" ${contexts}
image=$(jq -r '.[0].review.request.object.spec.image' "$BINDING_CONTEXT_PATH")
if [[ $image == repo.example.com* ]]; then echo '{"allowed":true}' > "$VALIDATING_RESPONSE_PATH"
else echo '{"allowed":false, "message":"Only images from repo.example.com are allowed", "warnings":["checked"]}' > "$VALIDATING_RESPONSE_PATH"; fi`,
    ),
  );
  write('failing.sh', bashHook({ configVersion: 'v1', kubernetesValidating: [{ name: 'failing.example.com', rules: RULES }, { name: 'ignored.example.com', failurePolicy: 'Ignore', rules: RULES }] }, 'exit 3'));
  write('silent.sh', bashHook({ configVersion: 'v1', kubernetesValidating: [{ name: 'silent.example.com', rules: RULES }] }, 'true'));
  writeFileSync(
    join(hooks, 'mutating.hook.mjs'),
    `export const config = { configVersion: 'v1', kubernetesMutating: [{ name: 'add-label', rules: ${JSON.stringify(RULES)} }] };
export function run(ctx) {
  const req = ctx.bindingContext[0].review.request;
  ctx.admissionResponse({ allowed: true, patch: [{ op: 'add', path: '/metadata/labels', value: { mutated: req.uid } }] });
}
`,
  );
  write(
    'conversion.sh',
    bashHook(
      { configVersion: 'v1', kubernetesCustomResourceConversion: [{ name: 'alpha_to_v1', crdName: 'crontabs.stable.example.com', conversions: [{ fromVersion: 'stable.example.com/v1alpha1', toVersion: 'stable.example.com/v1' }] }] },
      `n=$(jq '.[0].review.request.objects | length' "$BINDING_CONTEXT_PATH")
if [[ $n == 3 ]]; then echo '{"convertedObjects":[]}' > "$CONVERSION_RESPONSE_PATH"; exit 0; fi
jq '{convertedObjects: (.[0].review.request.objects | map(.apiVersion = "stable.example.com/v1" | .spec.cron = (.spec.cron | join(" "))))}' "$BINDING_CONTEXT_PATH" > "$CONVERSION_RESPONSE_PATH"`,
    ),
  );
  const tls = generateTls(['127.0.0.1']);
  const certs = join(root, 'certs');
  mkdirSync(certs);
  writeFileSync(join(certs, 'tls.crt'), tls.serverCert);
  writeFileSync(join(certs, 'tls.key'), tls.serverKey);
  writeFileSync(join(certs, 'ca.crt'), tls.caCert);

  const op = startOperator(root, ['--admission-server-listen-port', '0', '--admission-server-certs-dir', certs, '--sandbox-seed', join(root, 'crd.yaml')]);
  const listening = () => logRecords(op.output()).find((r) => r.msg === 'admission server listening');
  await waitFor(() => listening() !== undefined && logRecords(op.output()).some((r) => r.msg === 'webhooks registered'), 'the admission server', 120_000).catch((e: Error) => {
    throw new Error(`${e.message}:\n${op.output()}`);
  });
  const port = Number(new URL(String(listening()!.address)).port);
  const ca = tls.caCert;

  // validating: denied with the hook's message, allowed otherwise; the context is shell-operator's
  const denied = await post(port, ca, '/hooks/image-policy-example-com', review('uid-1', { spec: { image: 'docker.io/x' } }));
  assert.equal(denied.status, 200);
  assert.deepEqual(denied.body, {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: 'uid-1', allowed: false, status: { metadata: {}, message: 'Only images from repo.example.com are allowed', code: 403 }, warnings: ['checked'] },
  });
  const ctx = JSON.parse(readFileSync(contexts, 'utf8')) as Array<Record<string, any>>;
  assert.equal(ctx.length, 1);
  assert.equal(ctx[0]!.binding, 'image-policy.example.com');
  assert.equal(ctx[0]!.type, 'Validating');
  assert.equal(ctx[0]!.review.request.uid, 'uid-1');
  const allowed = await post(port, ca, '/hooks/image-policy-example-com', review('uid-2', { spec: { image: 'repo.example.com/x' } }));
  assert.deepEqual(allowed.body.response, { uid: 'uid-2', allowed: true });

  // mutating, in-process: a base64 JSON patch
  const mutated = await post(port, ca, '/hooks/add-label', review('uid-3', { metadata: { name: 'c' } }));
  assert.equal(mutated.body.response.allowed, true);
  assert.equal(mutated.body.response.patchType, 'JSONPatch');
  assert.deepEqual(JSON.parse(Buffer.from(mutated.body.response.patch, 'base64').toString()), [{ op: 'add', path: '/metadata/labels', value: { mutated: 'uid-3' } }]);

  // a failing hook answers as its failurePolicy says; the log names hook, binding and request UID
  const failed = await post(port, ca, '/hooks/failing-example-com', review('uid-4', {}));
  assert.deepEqual(failed.body.response, { uid: 'uid-4', allowed: false, status: { metadata: {}, message: 'Hook failed', code: 403 } });
  const ignored = await post(port, ca, '/hooks/ignored-example-com', review('uid-5', {}));
  assert.equal(ignored.body.response.allowed, true);
  const silent = await post(port, ca, '/hooks/silent-example-com', review('uid-6', {}));
  assert.equal(silent.body.response.allowed, false);
  await waitFor(() => logRecords(op.output()).some((r) => r.msg === 'admission hook failed' && r.uid === 'uid-6' && r.binding === 'silent.example.com' && r.hook === 'hooks/silent.sh' && /no answer/.test(String(r.error))), 'the log of the silent hook');
  assert.ok(logRecords(op.output()).some((r) => r.msg === 'admission hook failed' && r.uid === 'uid-4' && r.hook === 'hooks/failing.sh' && r.binding === 'failing.example.com'));

  // conversion: v1alpha1 → v1 through the hook; a wrong count is a failed conversion naming it
  const obj = (name: string) => ({ apiVersion: 'stable.example.com/v1alpha1', kind: 'CronTab', metadata: { name }, spec: { cron: ['*', '*/5'] } });
  const conversion = (uid: string, objects: unknown[]) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid, desiredAPIVersion: 'stable.example.com/v1', objects } });
  const converted = await post(port, ca, '/crontabs.stable.example.com', conversion('c-1', [obj('a'), obj('b')]));
  assert.equal(converted.body.response.uid, 'c-1');
  assert.deepEqual(converted.body.response.result, { metadata: {}, status: 'Success' });
  assert.deepEqual(
    converted.body.response.convertedObjects.map((o: any) => [o.apiVersion, o.metadata.name, o.spec.cron]),
    [['stable.example.com/v1', 'a', '* */5'], ['stable.example.com/v1', 'b', '* */5']],
  );
  const wrong = await post(port, ca, '/crontabs.stable.example.com', conversion('c-2', [obj('a'), obj('b'), obj('c')]));
  assert.deepEqual(wrong.body.response.result, { metadata: {}, status: 'Failure', message: 'hook hooks/conversion.sh returned 0 objects instead of 3' });
  const noPath = await post(port, ca, '/crontabs.stable.example.com', { ...conversion('c-3', [obj('a')]), request: { uid: 'c-3', desiredAPIVersion: 'stable.example.com/v2', objects: [obj('a')] } });
  assert.equal(noPath.body.response.result.message, 'Conversion crontabs.stable.example.com to stable.example.com/v2 was not successful');

  // a bad body
  const bad = await post(port, ca, '/hooks/add-label', { nothing: true });
  assert.equal(bad.status, 400);
});
