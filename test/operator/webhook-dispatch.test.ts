// The webhook dispatcher with in-process hooks loaded from files: conversion chains across hooks
// (v1alpha1 → v1alpha2 → v1, versions with and without their group), and the bad answers of
// conversion and admission hooks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { makeTree } from '../helpers/tree.js';
import { bashHook } from '../helpers/operator-process.js';
import { loadHooks } from '../../src/hooks/hook.js';
import { WebhookDispatcher, versionsMatched } from '../../src/operator/webhook-dispatch.js';

const G = 'stable.example.com';

async function dispatcher(files: Record<string, string>) {
  const root = makeTree({ '.keep': '' });
  const dir = join(root, 'hooks');
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(dir, name), text);
    if (name.endsWith('.sh')) chmodSync(join(dir, name), 0o755);
  }
  const hooks = await loadHooks(dir, { kind: 'global', timeoutMs: 10_000 });
  const d = new WebhookDispatcher(
    async (hook, contexts, _type, timeoutMs) => ({ outputs: await hook.run({ contexts, values: {}, configValues: {} }, { tmpDir: join(root, 'tmp'), timeoutMs }), valuesChanged: false, enabledFlagsChanged: false }),
    pino({ level: 'silent' }),
  );
  d.set(hooks.flatMap((hook) => hook.config.webhooks.map((binding) => ({ hook, binding }))));
  return d;
}

const converter = (name: string, from: string, to: string, body: string) => `export const config = { configVersion: 'v1', kubernetesCustomResourceConversion: [{ name: '${name}', crdName: 'crontabs.${G}', conversions: [{ fromVersion: '${from}', toVersion: '${to}' }] }] };
export function run(ctx) {
  const c = ctx.bindingContext[0];
  const objects = c.review.request.objects;
  ${body}
}
`;

const review = (desired: string, objects: unknown[]) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u', desiredAPIVersion: desired, objects } });
const obj = (version: string, name: string) => ({ apiVersion: `${G}/${version}`, kind: 'CronTab', metadata: { name }, spec: { steps: [] as string[] } });

test('versions match with or without their group, never across groups', () => {
  assert.ok(versionsMatched('v1', `${G}/v1`));
  assert.ok(versionsMatched(`${G}/v1`, 'v1'));
  assert.ok(!versionsMatched('other.io/v1', `${G}/v1`));
  assert.ok(!versionsMatched('v1', 'v2'));
});

test('a conversion runs the chain of hooks that leads to the desired version, each hook once, in order', async () => {
  const d = await dispatcher({
    'a.hook.mjs': converter('a', 'v1alpha1', `${G}/v1alpha2`, `ctx.conversionResponse({ convertedObjects: objects.map((o) => ({ ...o, apiVersion: '${G}/v1alpha2', spec: { steps: [...o.spec.steps, c.fromVersion + '>' + c.toVersion] } })) });`),
    'b.hook.mjs': converter('b', `${G}/v1alpha2`, 'v1', `ctx.conversionResponse({ convertedObjects: objects.map((o) => ({ ...o, apiVersion: '${G}/v1', spec: { steps: [...o.spec.steps, c.fromVersion + '>' + c.toVersion] } })) });`),
  });
  const r = (await d.convert('/crontabs.stable.example.com', review(`${G}/v1`, [obj('v1alpha1', 'x'), obj('v1', 'y')]))).body as any;
  assert.deepEqual(r.response.result, { metadata: {}, status: 'Success' });
  assert.deepEqual(
    r.response.convertedObjects.map((o: any) => [o.apiVersion, o.metadata.name, o.spec.steps]),
    [[`${G}/v1`, 'x', [`v1alpha1>${G}/v1alpha2`, `${G}/v1alpha2>v1`]], [`${G}/v1`, 'y', [`v1alpha1>${G}/v1alpha2`, `${G}/v1alpha2>v1`]]],
  );
});

test('bad conversion answers: failedMessage, a wrong version, no answer, a failing hook', async () => {
  const d = await dispatcher({
    'fail.hook.mjs': converter('fail', 'v1alpha1', 'v1', `ctx.conversionResponse({ failedMessage: 'cannot convert ' + objects.length });`),
    'wrong.hook.mjs': converter('wrong', 'v1alpha2', 'v1', `ctx.conversionResponse({ convertedObjects: objects });`),
    'silent.hook.mjs': converter('silent', 'v1beta1', 'v1', ``),
    'throws.hook.mjs': converter('throws', 'v1beta2', 'v1', `throw new Error('boom');`),
  });
  const message = async (version: string) => ((await d.convert(`/crontabs.${G}`, review(`${G}/v1`, [obj(version, 'x')]))).body as any).response.result.message;
  assert.equal(await message('v1alpha1'), 'cannot convert 1');
  assert.equal(await message('v1alpha2'), `Conversion crontabs.${G} to ${G}/v1 was not successful`);
  assert.equal(await message('v1beta1'), 'hook hooks/silent.hook.mjs wrote no answer to $CONVERSION_RESPONSE_PATH');
  assert.equal(await message('v1beta2'), `Hook failed to convert to ${G}/v1`);
});

test('admission answers that are not valid follow the failure policy', async () => {
  const hook = (name: string, policy: string, body: string) => `export const config = { configVersion: 'v1', kubernetesValidating: [{ name: '${name}', failurePolicy: '${policy}', rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }] };
export function run(ctx) { ${body} }
`;
  const d = await dispatcher({
    'badpatch.hook.mjs': hook('bad-patch.example.com', 'Fail', `ctx.admissionResponse({ allowed: true, patch: 'not base64 !' });`),
    'ignored.hook.mjs': hook('ignored.example.com', 'Ignore', `throw new Error('boom');`),
  });
  const admit = async (id: string) => ((await d.admit(`/hooks/${id}`, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u1', object: {} } })).body as any).response;
  assert.deepEqual(await admit('bad-patch-example-com'), { uid: 'u1', allowed: false, status: { metadata: {}, message: 'Hook failed', code: 403 } });
  const ignored = await admit('ignored-example-com');
  assert.equal(ignored.allowed, true);
  assert.match(ignored.warnings[0], /ignored\.example\.com failed/);
  const unknown = await admit('nobody');
  assert.equal(unknown.allowed, false);
  assert.equal(unknown.status.code, 500);
});

test("a hook's review is written in Go's struct order and the answer carries kind before apiVersion, as shell-operator's", async () => {
  const out = join(makeTree({ '.keep': '' }), 'contexts');
  const rules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }];
  const d = await dispatcher({
    'copy.sh': bashHook({ configVersion: 'v1', kubernetesValidating: [{ name: 'copy.example.com', rules }] }, `cat "$BINDING_CONTEXT_PATH" >> ${out}; echo '{"allowed":true}' > "$VALIDATING_RESPONSE_PATH"`),
    'convert.sh': bashHook(
      { configVersion: 'v1', kubernetesCustomResourceConversion: [{ name: 'alpha', crdName: `crontabs.${G}`, conversions: [{ fromVersion: `${G}/v1alpha1`, toVersion: `${G}/v1` }] }] },
      `cat "$BINDING_CONTEXT_PATH" >> ${out}; echo '{"convertedObjects":[{"apiVersion":"${G}/v1","kind":"CronTab","metadata":{"name":"x"}}]}' > "$CONVERSION_RESPONSE_PATH"`,
    ),
  });
  // the keys in another order than Go's, an unknown one, and empty omitempty fields
  const request = {
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    userInfo: { groups: ['g'], extra: { z: ['1'], a: ['2'] }, username: 'u' },
    operation: 'CREATE',
    namespace: 'ns',
    name: '',
    object: { metadata: { name: 'p' }, kind: 'Pod', apiVersion: 'v1' },
    requestKind: { kind: 'Pod', version: 'v1', group: '' },
    resource: { resource: 'pods', version: 'v1', group: '' },
    kind: { kind: 'Pod', version: 'v1', group: '' },
    uid: 'u1',
    dryRun: false,
    unknownField: 1,
  };
  const reply = (await d.admit('/hooks/copy-example-com', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request })).body as Record<string, unknown>;
  assert.deepEqual(Object.keys(reply), ['kind', 'apiVersion', 'response']);
  const converted = (await d.convert(`/crontabs.${G}`, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { objects: [{ kind: 'CronTab', apiVersion: `${G}/v1alpha1`, metadata: { name: 'x' } }], desiredAPIVersion: `${G}/v1`, uid: 'u2' } })).body as Record<string, unknown>;
  assert.deepEqual(Object.keys(converted), ['kind', 'apiVersion', 'response']);
  const [admission, conversion] = readFileSync(out, 'utf8').trim().split('\n');
  assert.equal(
    admission,
    '[{"binding":"copy.example.com","review":{"request":{"uid":"u1","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},' +
      '"requestKind":{"group":"","version":"v1","kind":"Pod"},"namespace":"ns","operation":"CREATE","userInfo":{"username":"u","groups":["g"],"extra":{"a":["2"],"z":["1"]}},' +
      '"object":{"metadata":{"name":"p"},"kind":"Pod","apiVersion":"v1"},"oldObject":null,"dryRun":false,"options":{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}}},"type":"Validating"}]',
  );
  assert.equal(
    conversion,
    `[{"binding":"alpha","fromVersion":"${G}/v1alpha1","review":{"request":{"uid":"u2","desiredAPIVersion":"${G}/v1","objects":[{"kind":"CronTab","apiVersion":"${G}/v1alpha1","metadata":{"name":"x"}}]}},"toVersion":"${G}/v1","type":"Conversion"}]`,
  );
});
