// `addon-operator start --sandbox` keeping a module's release true: an object deleted by hand comes
// back through a ModuleRun (LIFECYCLE-STEPS step 15), a managed field edited by hand is restored
// (`--helm-drift fix`, the default), `module resource-monitor` shows what is watched, and /metrics
// counts both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { debugRequest } from '../../src/cli/debug.js';
import { requestJson } from '../../src/kube/http.js';
import { makeTree } from '../helpers/tree.js';
import { logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { RestMapper } from '../../src/kube/mapper.js';
import { HelmReleases } from '../../src/helm/release-engine.js';
import type { Operator } from '../../src/operator/operator.js';
import { operatorSeed, sandboxPorts } from '../helpers/sandbox-ports.js';
import { scenario, settle } from '../operator/helpers.js';
import { getObject, releaseSecrets, setReleaseStatus } from './helpers.js';

test('the operator restores an object deleted by hand and a managed field edited by hand', async (t) => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'echoEnabled: true\n',
    'modules/001-echo/Chart.yaml': 'apiVersion: v2\nname: echo\nversion: 0.1.0\n',
    'modules/001-echo/values.yaml': 'echo:\n  greeting: hello\n',
    'modules/001-echo/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo\ndata:\n  greeting: {{ .Values.echo.greeting | quote }}\n',
    'modules/001-echo/templates/svc.yaml': 'apiVersion: v1\nkind: Service\nmetadata:\n  name: echo\nspec:\n  ports:\n  - port: 80\n',
  });
  const kubeconfig = join(root, 'kubeconfig');
  const socket = join(root, 'debug.socket');
  const { child, output, exited } = startOperator(root, ['--sandbox-kubeconfig', kubeconfig]);
  try {
    await waitFor(() => output().includes('startup converge done'), 'the first converge');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const watched = async () => JSON.parse((await debugRequest(socket, 'GET', '/module/resource-monitor.json')).body) as Record<string, unknown>;
    await waitFor(async () => Array.isArray((await watched()).echo), 'the release to be watched', 30_000);
    assert.deepEqual(await watched(), { echo: ['addons/ConfigMap/echo', 'addons/Service/echo'] });

    // deleted by hand: back through a ModuleRun, which upgrades the release
    const cm = '/api/v1/namespaces/addons/configmaps/echo';
    await requestJson(kc, 'DELETE', cm);
    const deleted = performance.now();
    await waitFor(async () => (await getObject(kc, cm)) !== undefined, 'the ConfigMap to come back', 30_000);
    const restoredMs = performance.now() - deleted;
    const records = logRecords(output());
    assert.ok(records.some((r) => r.msg === 'helm resources absent, the module will run again' && r.module === 'echo'), output());
    const secrets = await requestJson<{ items: Array<{ metadata: { name: string } }> }>(kc, 'GET', '/api/v1/namespaces/addons/secrets', { labelSelector: 'owner=helm' });
    assert.deepEqual(secrets.items.map((s) => s.metadata.name).sort(), ['sh.helm.release.v1.echo.v1', 'sh.helm.release.v1.echo.v2']);
    t.diagnostic(`restored ${Math.round(restoredMs)} ms after the delete`);

    // a managed field edited by hand: restored by applying that object again (no new revision)
    const live = await requestJson<{ data: Record<string, string> }>(kc, 'GET', cm);
    live.data.greeting = 'edited';
    await requestJson(kc, 'PUT', cm, { fieldManager: 'kubectl-edit' }, live);
    await waitFor(async () => (await requestJson<{ data: Record<string, string> }>(kc, 'GET', cm)).data.greeting === 'hello', 'the field restored', 30_000);
    assert.ok(logRecords(output()).some((r) => String(r.msg).includes('addons/ConfigMap/echo drifted: .data.greeting')), output());
    const after = await requestJson<{ items: unknown[] }>(kc, 'GET', '/api/v1/namespaces/addons/secrets', { labelSelector: 'owner=helm' });
    assert.equal(after.items.length, 2);

    const address = /"address":"(http:\/\/[^"]+)"/.exec(output())![1]!;
    const metrics = await (await fetch(`${address}/metrics`)).text();
    assert.match(metrics, /^addon_operator_modules_absent_resources_total\{module="echo",resource="addons\/ConfigMap\/echo"\} 1$/m);
    assert.match(metrics, /^addon_operator_modules_helm_drift_total\{module="echo",resource="addons\/ConfigMap\/echo",action="fixed"\} 1$/m);
  } catch (e) {
    console.log(output().split('\n').filter((l) => /drift|release|absent|monitor/.test(l)).join('\n'));
    throw e;
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output());
});

test('--helm-drift must be fix, warn or off', async () => {
  const root = makeTree({ 'global-hooks/.keep': '', 'modules/.keep': '' });
  const { output, exited } = startOperator(root, ['--helm-drift', 'sometimes']);
  assert.equal(await exited, 1);
  assert.match(output(), /--helm-drift: "sometimes" is not one of fix, warn, off/);
});

test("the monitor's status check (Go's HelmReleaseUnexpectedStatus): a release left failed, or with no revision left, is upgraded by a ModuleRun", async (t) => {
  const NS = 'addons';
  const sandbox = await startSandbox({ seedObjects: operatorSeed(NS) });
  t.after(() => sandbox.stop());
  const ports = sandboxPorts(sandbox.kubeconfigPath, NS);
  const ref: { op?: Operator } = {};
  const reported: string[] = [];
  const helm = new HelmReleases({
    kc: ports.kc,
    mapper: new RestMapper(ports.kc),
    monitor: {
      statusCheckMs: 50,
      onUnexpectedStatus: (release, status) => {
        reported.push(`${release}:${status}`);
        ref.op?.helmReleaseUnexpectedStatus(release, status);
      },
    },
  });
  const s = await scenario({
    files: () => ({
      'modules/values.yaml': 'alphaEnabled: true\n',
      'modules/001-alpha/Chart.yaml': 'name: alpha\nversion: 0.1.0\n',
      'modules/001-alpha/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: alpha-out\ndata:\n  x: "1"\n',
    }),
    operator: { kube: ports.kube, helm, config: ports.config, namespace: NS },
  });
  ref.op = s.op;
  t.after(async () => {
    await s.op.stop();
    await helm.stop();
  });
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  const revisions = async () => (await releaseSecrets(ports.kc, NS, 'alpha')).map((r) => `${r.metadata.labels.version}:${r.metadata.labels.status}`);
  assert.deepEqual(await revisions(), ['1:deployed']);
  assert.equal(reported.length, 0, 'a deployed release is not reported');

  // left failed (a helm command from outside, say): reported, the ModuleRun upgrades it
  await setReleaseStatus(ports.kc, NS, 'alpha', 1, 'failed');
  await waitFor(async () => (await revisions()).join() === '1:failed,2:deployed', 'the release upgraded');
  assert.ok(reported.includes('alpha:failed'), reported.join());
  const runs = s.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'helm release not deployed, the module will run again');
  assert.ok(runs.length >= 1 && runs.every((r) => r.module === 'alpha'));

  // every revision deleted: installed again
  for (const v of [1, 2]) await requestJson(ports.kc, 'DELETE', `/api/v1/namespaces/${NS}/secrets/sh.helm.release.v1.alpha.v${v}`);
  await waitFor(async () => (await revisions()).join() === '1:deployed', 'the release installed again');
  assert.ok(reported.includes('alpha:'), reported.join());
});
