// A module's webhook hooks are served while the module is enabled: its validating webhook joins the
// operator's ValidatingWebhookConfiguration (beside a global hook's), denies what its hook denies,
// and leaves the configuration when the module is disabled; the CRD its chart brings gets the
// conversion webhook of its conversion hook after the module's run; a CRD that does not exist is an
// error that stops nothing, and gets its webhook once it is made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { isApiStatus, requestJson } from '../../src/kube/http.js';
import { makeTree } from '../helpers/tree.js';
import { crd } from '../helpers/crd.js';
import { bashHook, logRecords, waitFor, withOperator } from '../helpers/operator-process.js';

const CONFIGMAP = '/api/v1/namespaces/addons/configmaps/addon-operator';
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/shell-operator-hooks-hooks';
const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.guard.example.com';
const rules = (resources: string[]) => [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources }];

test("a module's webhooks are served while it is enabled and leave the configuration when it is disabled", async () => {
  const deny = `echo '{"allowed":false,"message":"guarded by the module"}' > "$VALIDATING_RESPONSE_PATH"`;
  const root = makeTree({
    'global-hooks/hooks/global.sh': bashHook({ configVersion: 'v1', kubernetesValidating: [{ name: 'global.guard.example.com', rules: rules(['secrets']) }] }, `echo '{"allowed":true}' > "$VALIDATING_RESPONSE_PATH"`),
    'modules/values.yaml': 'guardEnabled: true\n',
    'modules/001-guard/Chart.yaml': 'apiVersion: v2\nname: guard\nversion: 0.1.0\n',
    'modules/001-guard/values.yaml': 'guard: {}\n',
    'modules/001-guard/crds/gadgets.yaml':
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.guard.example.com\nspec:\n  group: guard.example.com\n  scope: Namespaced\n  names: {plural: gadgets, singular: gadget, kind: Gadget}\n  versions:\n  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}\n  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}\n',
    'modules/001-guard/hooks/guard.sh': bashHook(
      {
        configVersion: 'v1',
        kubernetesValidating: [{ name: 'module.guard.example.com', rules: rules(['serviceaccounts']) }],
        kubernetesCustomResourceConversion: [{ name: 'v1-to-v2', crdName: 'gadgets.guard.example.com', conversions: [{ fromVersion: 'v1', toVersion: 'v2' }] }],
      },
      deny,
    ),
    'seed.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: addons\n',
  });
  const kubeconfig = join(root, 'kubeconfig');
  await withOperator(root, ['--sandbox-seed', join(root, 'seed.yaml'), '--sandbox-kubeconfig', kubeconfig], async ({ output }) => {
    await waitFor(() => output().includes('startup converge done'), 'the first converge');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const names = async () => ((await requestJson<{ webhooks: Array<{ name: string }> }>(kc, 'GET', VWC)).webhooks ?? []).map((w) => w.name).sort();
    assert.deepEqual(await names(), ['global.guard.example.com', 'module.guard.example.com']);
    const crd = await requestJson<any>(kc, 'GET', CRD);
    assert.equal(crd.spec.conversion.strategy, 'Webhook');
    assert.match(crd.spec.conversion.webhook.clientConfig.url, /^https:\/\/127\.0\.0\.1:\d+\/gadgets\.guard\.example\.com$/);
    const sa = () => requestJson(kc, 'POST', '/api/v1/namespaces/addons/serviceaccounts', {}, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { generateName: 'sa-' } });
    const denied = await sa().catch((e: unknown) => e);
    assert.ok(isApiStatus(denied, 403), String(denied));
    assert.match((denied as Error).message, /guarded by the module/);

    await requestJson(kc, 'PATCH', CONFIGMAP, {}, { data: { guardEnabled: 'false' } }, 'application/merge-patch+json').catch(async (e: unknown) => {
      if (!isApiStatus(e, 404)) throw e;
      await requestJson(kc, 'POST', '/api/v1/namespaces/addons/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator' }, data: { guardEnabled: 'false' } });
    });
    await waitFor(async () => JSON.stringify(await names()) === JSON.stringify(['global.guard.example.com']), "the module's webhook gone", 60_000);
    await sa();
    // the CRD's conversion goes back to None after the configuration is updated: waited for
    const strategy = async () => (await requestJson<any>(kc, 'GET', CRD).catch(() => undefined))?.spec?.conversion?.strategy ?? 'None';
    await waitFor(async () => (await strategy()) === 'None', "the CRD's conversion webhook gone", 60_000);
  });
});

test("a module's conversion binding for a CRD that does not exist is an error naming module, hook, binding and CRD; the operator goes on, and the CRD made later gets its webhook", async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'lateEnabled: true\n',
    'modules/001-late/values.yaml': 'late: {}\n',
    'modules/001-late/hooks/convert.sh': bashHook(
      { configVersion: 'v1', kubernetesCustomResourceConversion: [{ name: 'widgets-v1-to-v2', crdName: 'widgets.late.example.com', conversions: [{ fromVersion: 'v1', toVersion: 'v2' }] }] },
      'exit 0',
    ),
    'seed.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: addons\n',
  });
  const kubeconfig = join(root, 'kubeconfig');
  await withOperator(root, ['--sandbox-seed', join(root, 'seed.yaml'), '--sandbox-kubeconfig', kubeconfig], async ({ output, child }) => {
    await waitFor(() => output().includes('startup converge done'), 'the first converge');
    const errors = logRecords(output()).filter((r) => r.msg === 'conversion webhooks not registered; tried again after 15 s, then less often, while the module is enabled');
    assert.equal(errors.length, 1, output().slice(-3000));
    assert.match(String(errors[0]!.error), /module late, hook late\/\S*convert\.sh, binding widgets-v1-to-v2: kubernetesCustomResourceConversion for CRD widgets\.late\.example\.com, which does not exist/);
    assert.equal(child.exitCode, null, 'the operator goes on');

    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    await requestJson(kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {}, crd('Widget', { group: 'late.example.com', versions: ['v1', 'v2'] }));
    const strategy = async () => (await requestJson<any>(kc, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.late.example.com')).spec?.conversion?.strategy;
    await waitFor(async () => (await strategy()) === 'Webhook', "the late CRD's conversion webhook", 60_000);
    await waitFor(() => output().includes('conversion webhook registered: its CRD exists now'), 'the log of it');
  });
});
