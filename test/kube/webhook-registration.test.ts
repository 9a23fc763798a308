// The registrar asks again for a CRD it found missing only when told to: a module's run asks for its
// own CRDs, not for every module's (each run of a fleet asked for all of them, a request per missing CRD).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox } from '../../src/sandbox/index.js';
import { closeConnections } from '../../src/kube/connections.js';
import { requestJson } from '../../src/kube/http.js';
import { WebhookRegistrar } from '../../src/kube/webhook-registration.js';
import type { WebhookRegistration } from '../../src/operator/ports.js';
import { crd } from '../helpers/crd.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

test('a CRD found missing is asked for again only when a registration names it for a recheck, or names none', async () => {
  const sandbox = await startSandbox();
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  try {
    const registrar = new WebhookRegistrar({ kc, configurationName: 'shell-operator-hooks', endpoint: { kind: 'url', base: 'https://127.0.0.1:9680', caBundle: 'ca' } });
    const conversion = (module: string, kind: string) => ({ module, hook: `${module}/hooks/convert`, spec: { crdName: `${kind.toLowerCase()}s.example.com`, binding: `${kind}-convert` } });
    const w: WebhookRegistration = { validating: [], mutating: [], conversions: [conversion('a', 'Alpha'), conversion('b', 'Beta')] };
    const strategy = async (name: string) => (await requestJson<any>(kc, 'GET', `${CRDS}/${name}`)).spec.conversion?.strategy ?? 'None';
    const missingNames = (m: Array<{ spec: { crdName: string } }>) => m.map((x) => x.spec.crdName).sort();

    assert.deepEqual(missingNames(await registrar.register(w)), ['alphas.example.com', 'betas.example.com']);
    await requestJson(kc, 'POST', CRDS, {}, crd('Alpha'));
    await requestJson(kc, 'POST', CRDS, {}, crd('Beta'));

    // module b's run: b's CRD is asked for and patched; a's stays missing without a request
    assert.deepEqual(missingNames(await registrar.register(w, new Set(['betas.example.com']))), ['alphas.example.com']);
    assert.equal(await strategy('betas.example.com'), 'Webhook');
    assert.equal(await strategy('alphas.example.com'), 'None');

    // a registration without a recheck (the converge's, the retry's) asks for every missing one
    assert.deepEqual(await registrar.register(w), []);
    assert.equal(await strategy('alphas.example.com'), 'Webhook');
  } finally {
    closeConnections(kc);
    await sandbox.stop();
  }
});
