// A module's health counts a Service with a selector ready only once one of its endpoints is ready
// (its EndpointSlices, from the sandbox's EndpointSlice controller following Pod readiness), on
// `addon-operator start --sandbox`: a Deployment and its Service becoming ready (module Ready); a
// Service that selects nothing (Progressing, naming the Service and why), then one whose only Pod
// never becomes Ready (still Progressing), then a Ready Pod (Ready: it recovers). A Service without
// a selector and an ExternalName one are ready as kstatus says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../../src/kube/http.js';
import { makeTree } from '../helpers/tree.js';
import { logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { CRASHING, deployment } from '../helpers/workloads.js';

const chart = (name: string, templates: Record<string, string>): Record<string, string> => ({
  [`modules/${name}/Chart.yaml`]: `apiVersion: v2\nname: ${name.replace(/^\d+-/, '')}\nversion: 0.1.0\n`,
  ...Object.fromEntries(Object.entries(templates).map(([file, text]) => [`modules/${name}/templates/${file}`, text])),
});

const service = (name: string, spec: string) => `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}}\nspec: ${spec}\n`;

/** A Pod the test makes (not the module's): `app: lonely`, Ready or never (CRASHING). */
const pod = (name: string, annotations = '') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'lonely' }, ...(annotations ? { annotations: { 'sandbox.addon-operator.io/fail': 'true' } } : {}) },
  spec: { containers: [{ name: 'main', image: 'nginx' }] },
});

test('module health: a Service is ready once one of its endpoints is; a Service without ready endpoints keeps its module Progressing until one is', async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'webEnabled: true\nlonelyEnabled: true\n',
    ...chart('001-web', {
      'deploy.yaml': deployment('web'),
      'svc.yaml': service('web', '{selector: {app: web}, ports: [{port: 80}]}'),
      // no selector (its endpoints are someone else's) and ExternalName: ready as kstatus says
      'manual.yaml': service('manual', '{ports: [{port: 80}]}'),
      'external.yaml': service('external', '{type: ExternalName, externalName: db.example.com}'),
    }),
    ...chart('002-lonely', { 'svc.yaml': service('lonely', '{selector: {app: lonely}, ports: [{port: 80}]}') }),
  });
  const kubeconfig = join(root, 'kubeconfig');
  const { child, output, exited } = startOperator(root, ['--sandbox-pod-start', '1s', '--sandbox-kubeconfig', kubeconfig]);
  const healthOf = (module: string) => logRecords(output()).filter((r) => r.module === module && typeof r.health === 'string');
  const last = (module: string) => healthOf(module).at(-1);
  try {
    await waitFor(() => last('web')?.health === 'Ready', 'web to become Ready', 60_000);
    assert.equal(last('web')!.reason, '4 object(s) ready');
    // on its way, the Service waited for its endpoints or the Deployment for its Pods
    assert.ok(healthOf('web').some((r) => r.health === 'Progressing'), output());

    // lonely: its Service selects no Pod
    const noEndpoints = 'waiting for Service addons/lonely: no ready endpoints (no Ready Pod matches its selector app=lonely)';
    await waitFor(() => last('lonely')?.health === 'Progressing', 'lonely to be Progressing', 60_000);
    assert.equal(last('lonely')!.reason, noEndpoints);

    // a Pod that never becomes Ready: an endpoint, not ready; still Progressing
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    await requestJson(kc, 'POST', '/api/v1/namespaces/addons/pods', {}, pod('lonely-a', CRASHING));
    const slices = async () => (await requestJson<{ items: { endpoints?: { conditions?: { ready?: boolean } }[] }[] }>(kc, 'GET', '/apis/discovery.k8s.io/v1/namespaces/addons/endpointslices', { labelSelector: 'kubernetes.io/service-name=lonely' })).items;
    await waitFor(async () => (await slices())[0]?.endpoints?.length === 1, 'the crashing Pod in the slice of lonely', 60_000);
    assert.equal((await slices())[0]!.endpoints![0]!.conditions?.ready, false);
    assert.equal(last('lonely')!.health, 'Progressing');
    assert.equal(last('lonely')!.reason, noEndpoints);

    // a Ready Pod: it recovers
    await requestJson(kc, 'POST', '/api/v1/namespaces/addons/pods', {}, pod('lonely-b'));
    await waitFor(() => last('lonely')?.health === 'Ready', 'lonely to become Ready', 60_000);
    assert.equal(last('lonely')!.reason, '1 object(s) ready');
    assert.equal(last('lonely')!.level, 'info');

    // the Ready Pod goes: Progressing again, naming the Service
    await requestJson(kc, 'DELETE', '/api/v1/namespaces/addons/pods/lonely-b');
    await waitFor(() => last('lonely')?.health === 'Progressing', 'lonely to be Progressing again', 60_000);
    assert.equal(last('lonely')!.reason, noEndpoints);
    const states = healthOf('lonely').map((r) => r.health).filter((h) => h !== 'Unknown');
    assert.deepEqual(states.filter((h, i) => h !== states[i - 1]), ['Progressing', 'Ready', 'Progressing']);

    const address = /"address":"(http:\/\/[^"]+)"/.exec(output())![1]!;
    const status = (await (await fetch(`${address}/status.json?module=lonely`)).json()) as { objects?: { object: string; status: string; message: string }[] };
    assert.deepEqual(status.objects?.map((o) => [o.object, o.status, o.message]), [['Service addons/lonely', 'InProgress', 'no ready endpoints (no Ready Pod matches its selector app=lonely)']]);
  } catch (e) {
    console.log(output().split('\n').filter((l) => /health|error|fail|warn/i.test(l)).slice(-60).join('\n'));
    throw e;
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output());
});
