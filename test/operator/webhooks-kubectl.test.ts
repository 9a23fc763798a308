// Webhook hooks end to end on `start --sandbox`: kubectl writes objects, the sandbox calls the
// operator's admission server as the operator registered it (a `url` clientConfig with its CA), and
// the hooks answer: a validating hook denies (kubectl shows its message), a mutating hook adds a
// label, a conversion hook lets kubectl read v1alpha1 objects as v1 and back; each with a bash hook
// and an in-process hook. Then shell-operator's examples 204, 206 and 210 as global hooks, their
// scripts unchanged but for the path of shell_lib.sh (fixtures/shell-operator-examples.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeTree } from '../helpers/tree.js';
import { bashHook, logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { findKubectl } from '../helpers/kubectl.js';

const run = promisify(execFile);
const KUBECTL = findKubectl();
const skip = KUBECTL ? false : 'kubectl is not installed on this machine: the webhook scenarios are not run';
if (skip) console.log(`# NOTICE: ${skip}`);

const FIXTURES = join(import.meta.dirname, '../hooks/fixtures');
const FRAMEWORK = join(FIXTURES, 'shell-operator-shell-framework');

const CRD = (group: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - {name: v1alpha1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
  - {name: v1, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`;

/** kubectl against the sandbox: stdout, or the error's stderr. */
async function kubectl(kubeconfig: string, args: string[], input?: string): Promise<{ ok: boolean; out: string }> {
  const child = run(KUBECTL!, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });
  if (input !== undefined) {
    child.child.stdin!.end(input);
  }
  try {
    const r = await child;
    return { ok: true, out: r.stdout + r.stderr };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return { ok: false, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

async function startWith(root: string, seeds: string[], env: NodeJS.ProcessEnv = process.env) {
  const kubeconfig = join(root, 'kubeconfig');
  const op = startOperator(root, ['--sandbox-kubeconfig', kubeconfig, '--admission-server-listen-port', '0', ...seeds.flatMap((s) => ['--sandbox-seed', s])], { ...env, HOME: root });
  await waitFor(() => logRecords(op.output()).some((r) => r.msg === 'first converge done'), 'the first converge', 120_000).catch((e: Error) => {
    throw new Error(`${e.message}:\n${op.output()}`);
  });
  return { op, kubeconfig };
}

const widget = (group: string, version: string, name: string, spec: object, labels: object = {}) =>
  JSON.stringify({ apiVersion: `${group}/${version}`, kind: 'Widget', metadata: { name, namespace: 'default', labels }, spec });

for (const runtime of ['bash', 'in-process'] as const) {
  test(`${runtime} webhook hooks: kubectl is denied with the hook's message, a label is added, v1alpha1 objects read as v1`, { skip }, async () => {
    const group = `${runtime === 'bash' ? 'bash' : 'js'}.example.com`;
    const root = makeTree({ 'modules/.keep': '', 'crd.yaml': CRD(group) });
    const hooks = join(root, 'global-hooks/hooks');
    mkdirSync(hooks, { recursive: true });
    const rules = [{ apiGroups: [group], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['widgets'] }];
    const config = {
      configVersion: 'v1',
      kubernetesValidating: [{ name: `size-policy.${group}`, rules }],
      kubernetesMutating: [{ name: 'add-label', rules }],
      kubernetesCustomResourceConversion: [
        { name: 'alpha_to_v1', crdName: `widgets.${group}`, conversions: [{ fromVersion: `${group}/v1alpha1`, toVersion: `${group}/v1` }] },
        { name: 'v1_to_alpha', crdName: `widgets.${group}`, conversions: [{ fromVersion: `${group}/v1`, toVersion: `${group}/v1alpha1` }] },
      ],
    };
    if (runtime === 'bash') {
      writeFileSync(
        join(hooks, 'webhooks.sh'),
        bashHook(
          config,
          `ctx=$(cat "$BINDING_CONTEXT_PATH")
type=$(jq -r '.[0].type' <<<"$ctx")
binding=$(jq -r '.[0].binding' <<<"$ctx")
if [[ $type == Validating ]]; then
  size=$(jq -r '.[0].review.request.object.spec.size // 0' <<<"$ctx")
  if (( size > 10 )); then echo '{"allowed":false,"message":"size '"$size"' is more than 10"}' > "$VALIDATING_RESPONSE_PATH"
  else echo '{"allowed":true}' > "$VALIDATING_RESPONSE_PATH"; fi
elif [[ $type == Mutating ]]; then
  patch=$(echo '[{"op":"add","path":"/metadata/labels/checked-by","value":"bash"}]' | base64 -w0)
  echo '{"allowed":true,"patch":"'"$patch"'"}' > "$VALIDATING_RESPONSE_PATH"
elif [[ $binding == alpha_to_v1 ]]; then
  jq '{convertedObjects: (.[0].review.request.objects | map(.apiVersion = "${group}/v1" | .spec.sizes = [.spec.size] | del(.spec.size)))}' <<<"$ctx" > "$CONVERSION_RESPONSE_PATH"
else
  jq '{convertedObjects: (.[0].review.request.objects | map(.apiVersion = "${group}/v1alpha1" | .spec.size = .spec.sizes[0] | del(.spec.sizes)))}' <<<"$ctx" > "$CONVERSION_RESPONSE_PATH"
fi`,
        ),
      );
      chmodSync(join(hooks, 'webhooks.sh'), 0o755);
    } else {
      writeFileSync(
        join(hooks, 'webhooks.hook.mjs'),
        `export const config = ${JSON.stringify(config)};
export function run(ctx) {
  const c = ctx.bindingContext[0];
  const req = c.review.request;
  if (c.type === 'Validating') {
    const size = req.object?.spec?.size ?? 0;
    ctx.admissionResponse(size > 10 ? { allowed: false, message: 'size ' + size + ' is more than 10' } : { allowed: true });
  } else if (c.type === 'Mutating') {
    ctx.admissionResponse({ allowed: true, patch: [{ op: 'add', path: '/metadata/labels/checked-by', value: 'in-process' }] });
  } else if (c.binding === 'alpha_to_v1') {
    ctx.conversionResponse({ convertedObjects: req.objects.map((o) => { const { size, ...rest } = o.spec; return { ...o, apiVersion: '${group}/v1', spec: { ...rest, sizes: [size] } }; }) });
  } else {
    ctx.conversionResponse({ convertedObjects: req.objects.map((o) => { const { sizes, ...rest } = o.spec; return { ...o, apiVersion: '${group}/v1alpha1', spec: { ...rest, size: sizes[0] } }; }) });
  }
}
`,
      );
    }
    const { kubeconfig, op } = await startWith(root, [join(root, 'crd.yaml')]);
    const fail = (what: string, r: { out: string }) => `${what}: ${r.out}\n${op.output()}`;

    // denied: kubectl shows the hook's message
    const denied = await kubectl(kubeconfig, ['create', '-f', '-'], widget(group, 'v1alpha1', 'big', { size: 20 }));
    assert.equal(denied.ok, false, fail('the big widget was created', denied));
    assert.match(denied.out, new RegExp(`admission webhook "size-policy.${group.replace(/\./g, '\\.')}" denied the request: size 20 is more than 10`));

    // allowed, and labelled by the mutating hook
    const created = await kubectl(kubeconfig, ['create', '-f', '-'], widget(group, 'v1alpha1', 'small', { size: 3 }));
    assert.ok(created.ok, fail('create', created));
    const stored = JSON.parse((await kubectl(kubeconfig, ['get', `widgets.v1alpha1.${group}`, 'small', '-o', 'json'])).out);
    assert.equal(stored.metadata.labels['checked-by'], runtime);
    assert.equal(stored.spec.size, 3);

    // read as v1 through the conversion hook, and written as v1 (stored as v1alpha1)
    const asV1 = await kubectl(kubeconfig, ['get', `widgets.v1.${group}`, 'small', '-o', 'json']);
    assert.ok(asV1.ok, fail('get v1', asV1));
    assert.deepEqual(JSON.parse(asV1.out).spec, { sizes: [3] });
    assert.equal(JSON.parse(asV1.out).apiVersion, `${group}/v1`);
    const list = JSON.parse((await kubectl(kubeconfig, ['get', `widgets.v1.${group}`, '-o', 'json'])).out);
    assert.deepEqual(list.items.map((i: any) => [i.apiVersion, i.spec]), [[`${group}/v1`, { sizes: [3] }]]);
    const v1 = await kubectl(kubeconfig, ['create', '-f', '-'], JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'from-v1', namespace: 'default', labels: {} }, spec: { sizes: [7] } }));
    assert.ok(v1.ok, fail('create v1', v1));
    const back = JSON.parse((await kubectl(kubeconfig, ['get', `widgets.v1alpha1.${group}`, 'from-v1', '-o', 'json'])).out);
    assert.deepEqual(back.spec, { size: 7 });
    assert.equal(back.metadata.labels['checked-by'], runtime);
  });
}

test("shell-operator's examples 204, 206 and 210 as global hooks: their webhooks deny, mutate and convert", { skip }, async () => {
  const framework = join(makeTree({ '.keep': '' }), 'framework');
  cpSync(FRAMEWORK, framework, { recursive: true });
  const lib = join(framework, 'shell_lib.sh');
  writeFileSync(lib, readFileSync(lib, 'utf8').replace('/frameworks/shell/', `${framework}/frameworks/shell/`));

  // 204 and 206 share their CRD (stable.example.com/v1)
  const root = makeTree({ 'modules/.keep': '' });
  const hooks = join(root, 'global-hooks/hooks');
  mkdirSync(hooks, { recursive: true });
  for (const [example, file] of [['204-validating-webhook', 'validating.sh'], ['206-mutating-webhook', 'mutating.sh']] as const) {
    const text = readFileSync(join(FIXTURES, `shell-operator-${example}/hooks/${file}`), 'utf8').replace('source /shell_lib.sh', `source ${lib}`);
    writeFileSync(join(hooks, file), text);
    chmodSync(join(hooks, file), 0o755);
  }
  const { kubeconfig, op } = await startWith(root, [join(FIXTURES, 'shell-operator-204-validating-webhook/crontab-crd.yaml')]);
  const fail = (what: string, r: { out: string }) => `${what}: ${r.out}\n${op.output()}`;
  for (const ns of ['example-204', 'example-206']) {
    const r = await kubectl(kubeconfig, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { name: ns } } }));
    assert.ok(r.ok, fail(ns, r));
  }
  const nonValid = await kubectl(kubeconfig, ['-n', 'example-204', 'create', '-f', join(FIXTURES, 'shell-operator-204-validating-webhook/crontab-non-valid.yaml')]);
  assert.equal(nonValid.ok, false, fail('the non-valid crontab was created', nonValid));
  assert.match(nonValid.out, /admission webhook "private-repo-policy\.example\.com" denied the request: Only images from repo\.example\.com are allowed/);
  const valid = await kubectl(kubeconfig, ['-n', 'example-204', 'create', '-f', join(FIXTURES, 'shell-operator-204-validating-webhook/crontab-valid.yaml')]);
  assert.ok(valid.ok, fail('the valid crontab', valid));
  const mutated = await kubectl(kubeconfig, ['-n', 'example-206', 'create', '-f', join(FIXTURES, 'shell-operator-206-mutating-webhook/crontab-valid.yaml')]);
  assert.ok(mutated.ok, fail('the 206 crontab', mutated));
  const got = JSON.parse((await kubectl(kubeconfig, ['-n', 'example-206', 'get', 'crontab', 'crontab-valid', '-o', 'json'])).out);
  assert.equal(got.spec.replicas, 333);
  // the namespace selector: outside example-206 nothing is mutated
  const plain = JSON.parse((await kubectl(kubeconfig, ['-n', 'example-204', 'get', 'crontab', 'crontab-valid', '-o', 'json'])).out);
  assert.equal(plain.spec.replicas, undefined);

  // 210: conversion v1alpha1 → v1alpha2, with $FRAMEWORK_DIR
  const root210 = makeTree({ 'modules/.keep': '' });
  const hooks210 = join(root210, 'global-hooks/hooks');
  mkdirSync(hooks210, { recursive: true });
  cpSync(join(FIXTURES, 'shell-operator-210-conversion-webhook/hooks'), hooks210, { recursive: true });
  const s210 = await startWith(root210, [join(FIXTURES, 'shell-operator-210-conversion-webhook/crontab-crd.yaml')], { ...process.env, FRAMEWORK_DIR: framework });
  const created = await kubectl(s210.kubeconfig, ['create', '-f', join(FIXTURES, 'shell-operator-210-conversion-webhook/crontab-v1alpha1.yaml')]);
  assert.ok(created.ok, `${created.out}\n${s210.op.output()}`);
  const alpha2 = await kubectl(s210.kubeconfig, ['get', 'crontabs.v1alpha2.stable.example.com', 'crontab-v1alpha1', '-o', 'json']);
  assert.ok(alpha2.ok, `${alpha2.out}\n${s210.op.output()}`);
  assert.equal(JSON.parse(alpha2.out).spec.cron, '* * * * */5');
  const alpha1 = JSON.parse((await kubectl(s210.kubeconfig, ['get', 'crontabs.v1alpha1.stable.example.com', 'crontab-v1alpha1', '-o', 'json'])).out);
  assert.deepEqual(alpha1.spec.cron, ['*', '*', '*', '*', '*/5']);
});
