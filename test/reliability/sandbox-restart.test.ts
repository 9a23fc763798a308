/**
 * The API server goes away in the middle of a converge and comes back (the sandbox stopped and started
 * again on the same --data-dir and port, so the same kubeconfig works): the operator, wired as
 * `start` wires it (real Kubernetes and Helm layers), reconnects its watches, finishes the converge,
 * installs the release, and reacts to changes made after the restart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { scenario, settle, traceHook } from '../operator/helpers.js';
import { sandboxPorts } from '../helpers/sandbox-ports.js';
import { waitFor } from '../helpers/wait.js';

test('the API server restarted in the middle of a converge: the operator reconnects and converges', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'reliability-restart-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const seed = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'addons' } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: 'addons' }, data: { alphaEnabled: 'true' } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first', namespace: 'default', labels: { app: 'demo' } } },
  ];
  let sandbox: Sandbox = await startSandbox({ dataDir, seedObjects: seed });
  const port = sandbox.port;
  t.after(() => sandbox.stop());
  const ports = sandboxPorts(sandbox.kubeconfigPath, 'addons', { backoff: { initialMs: 20, maxMs: 200 } });
  const gate = join(dataDir, 'gate');

  const s = await scenario({
    files: (tr) => ({
      'modules/values.yaml': 'alphaEnabled: false\n',
      'modules/001-alpha/Chart.yaml': 'name: alpha\nversion: 0.1.0\n',
      'modules/001-alpha/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: alpha-out\ndata:\n  x: "{{ .Values.alpha.x }}"\n',
      'modules/001-alpha/values.yaml': 'alpha:\n  x: one\n',
      // the converge stops here until the test opens the gate
      'modules/001-alpha/hooks/wait': traceHook(tr, 'alpha-wait', { configVersion: 'v1', beforeHelm: 1 }, `while [ ! -e '${gate}' ]; do sleep 0.05; done`),
      'global-hooks/hooks/watch': traceHook(tr, 'g-watch', {
        configVersion: 'v1',
        kubernetes: [{ name: 'demo', kind: 'ConfigMap', labelSelector: { matchLabels: { app: 'demo' } }, namespace: { nameSelector: { matchNames: ['default'] } }, executeHookOnSynchronization: false }],
      }),
    }),
    operator: { kube: ports.kube, helm: ports.helm, config: ports.config, namespace: 'addons' },
  });
  t.after(() => s.op.stop());
  await s.op.start();
  await waitFor(() => s.trace.lines().some((l) => l.startsWith('alpha-wait')), 'the converge to reach the module hook');

  // the API server goes away (every connection cut) and comes back on the same port and data
  await sandbox.stop();
  sandbox = await startSandbox({ dataDir, port });
  assert.equal(sandbox.port, port);
  writeFileSync(gate, '');

  await s.op.converge.whenFirstDone();
  await settle(s.op);
  // Helm's release went through the restarted server
  await waitFor(async () => {
    const cm = await requestJson<{ data?: Record<string, string> }>(ports.kc, 'GET', '/api/v1/namespaces/addons/configmaps/alpha-out').catch(() => undefined);
    return cm?.data?.x === 'one';
  }, 'the release object');
  // the watches were re-established: a change after the restart reaches the hook
  await requestJson(ports.kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after', namespace: 'default', labels: { app: 'demo' } } });
  await waitFor(() => s.trace.lines().includes('g-watch demo:Event:Added'), 'the event of a change made after the restart');
  assert.ok(existsSync(join(dataDir, 'changes.log')) || existsSync(join(dataDir, 'snapshot.json')));
});
