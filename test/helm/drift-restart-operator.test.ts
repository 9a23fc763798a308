// Drift made while `addon-operator start --sandbox` was stopped (issue 33): the sandbox keeps its
// objects in --sandbox-data-dir across the restart, the test edits two modules' objects while no
// operator runs (the sandbox alone on the same data), and the next start finds it before its first
// converge is done: taken back with --helm-drift fix, only reported with warn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../../src/kube/http.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { makeTree } from '../helpers/tree.js';
import { logRecords, startOperator, waitFor } from '../helpers/operator-process.js';

const chart = (name: string) => ({
  [`modules/${name}/Chart.yaml`]: `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`,
  [`modules/${name}/templates/cm.yaml`]: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  greeting: hello\n  mode: fast\n`,
});
const cmPath = (name: string) => `/api/v1/namespaces/addons/configmaps/${name}`;
type ConfigMap = { data: Record<string, string> };

test('drift made while the operator was stopped is fixed (fix) or reported (warn) at the next start, before its first converge is done', async () => {
  // two modules whose ConfigMaps share one watch: the second release's objects are listed before it is tracked
  const root = makeTree({ 'global-hooks/.keep': '', 'modules/values.yaml': 'echoEnabled: true\nechoTwoEnabled: true\n', ...chart('echo'), ...chart('echo-two') });
  const dataDir = join(root, 'state');
  const kubeconfig = join(root, 'kubeconfig');
  const flags = ['--sandbox-kubeconfig', kubeconfig, '--sandbox-data-dir', dataDir];

  /** One operator start until its first converge is done: what was logged before then, and the ConfigMaps then. */
  const start = async (extra: string[]) => {
    const { child, output, exited } = startOperator(root, [...flags, ...extra]);
    try {
      await waitFor(() => output().includes('startup converge done'), 'the first converge', 60_000);
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig);
      const before = output().slice(0, output().lastIndexOf('\n', output().indexOf('first converge done')) + 1);
      const drift = logRecords(before).map((r) => String(r.msg)).filter((m) => m.includes('drifted')).sort();
      const data = await Promise.all(['echo', 'echo-two'].map(async (n) => (await requestJson<ConfigMap>(kc, 'GET', cmPath(n))).data));
      return { drift, data };
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output());
    }
  };
  /** kubectl edit of both ConfigMaps with no operator running: the sandbox alone on the same data. */
  const editWhileDown = async () => {
    const sandbox = await startSandbox({ dataDir });
    try {
      const kc = new KubeConfig();
      kc.loadFromFile(sandbox.kubeconfigPath);
      for (const n of ['echo', 'echo-two']) {
        const cm = await requestJson<ConfigMap>(kc, 'GET', cmPath(n));
        cm.data.greeting = 'edited';
        delete cm.data.mode;
        await requestJson(kc, 'PUT', cmPath(n), { fieldManager: 'kubectl-edit' }, cm);
      }
    } finally {
      await sandbox.stop();
    }
  };
  const lines = (how: string) => ['echo', 'echo-two'].map((n) => `release ${n}: addons/ConfigMap/${n} drifted: .data.greeting, .data.mode changed by another field manager while the operator was not running${how}`).sort();

  const installed = await start([]);
  assert.deepEqual(installed, { drift: [], data: [{ greeting: 'hello', mode: 'fast' }, { greeting: 'hello', mode: 'fast' }] });

  await editWhileDown();
  const warned = await start(['--helm-drift', 'warn']);
  assert.deepEqual(warned.drift, lines(' (--helm-drift warn: not restored)'));
  assert.deepEqual(warned.data, [{ greeting: 'edited' }, { greeting: 'edited' }], 'warn changes nothing');

  const fixed = await start(['--helm-drift', 'fix']);
  assert.deepEqual(fixed.drift, lines('; applying it again'));
  assert.deepEqual(fixed.data, [{ greeting: 'hello', mode: 'fast' }, { greeting: 'hello', mode: 'fast' }], 'taken back before the first converge was done');
});
