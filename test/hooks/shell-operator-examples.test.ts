// shell-operator's own example 104-secret-copier (four bash hooks that copy labelled Secrets with
// kubectl), run unchanged as global hooks on `start --sandbox` but for the /hooks path of its
// `source` line: the hooks' kubectl must find the sandbox through the inherited environment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { closeConnections } from '../../src/kube/connections.js';
import { requestJson } from '../../src/kube/http.js';
import { makeTree } from '../helpers/tree.js';
import { killChild, logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { findKubectl } from '../helpers/kubectl.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const EXAMPLE = join(FIXTURES, 'shell-operator-104-secret-copier/hooks');

const KUBECTL = findKubectl();
const skip = KUBECTL ? false : 'kubectl is not installed on this machine: the secret-copier example is not run';
if (skip) console.log(`# NOTICE: ${skip}`);

test('shell-operator example 104-secret-copier: a labelled Secret in default is copied into every namespace, and into one created later', { skip }, async (t) => {
  const root = makeTree({ 'modules/.keep': '' });
  const hooks = join(root, 'global-hooks/hooks');
  mkdirSync(hooks, { recursive: true });
  cpSync(EXAMPLE, hooks, { recursive: true });
  for (const file of readdirSync(hooks)) {
    if (file === 'common') continue;
    const path = join(hooks, file);
    writeFileSync(path, readFileSync(path, 'utf8').replace('source /hooks/common/functions.sh', `source ${hooks}/common/functions.sh`));
  }
  const kubeconfig = join(root, 'kubeconfig');
  // the operator's own environment names another cluster: on the sandbox the hooks must not see it
  // kubectl's cache outside the tree: a hook may still write it while the operator stops
  const cache = mkdtempSync(join(tmpdir(), 'ao-kubectl-cache-'));
  t.after(() => rmSync(cache, { recursive: true, force: true, maxRetries: 5 }));
  const env = { ...process.env, HOME: root, KUBECACHEDIR: cache, KUBECONFIG: join(root, 'elsewhere.yaml'), KUBERNETES_SERVICE_HOST: '10.255.0.1', KUBERNETES_SERVICE_PORT: '443' };
  const op = startOperator(root, ['--sandbox-kubeconfig', kubeconfig], env);
  await waitFor(() => logRecords(op.output()).some((r) => r.msg === 'first converge done'), 'the first converge', 120_000).catch((e: Error) => {
    throw new Error(`${e.message}:\n${op.output()}`);
  });
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  try {
    await requestJson(kc, 'POST', '/api/v1/namespaces', {}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } });
    await requestJson(kc, 'POST', '/api/v1/namespaces/default/secrets', {}, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'registry-auth', labels: { 'secret-copier': 'yes' } },
      stringData: { token: 's3cr3t' },
    });
    await requestJson(kc, 'POST', '/api/v1/namespaces', {}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    for (const ns of ['team-b', 'team-a']) {
      const copy = () => requestJson<{ data?: Record<string, string> }>(kc, 'GET', `/api/v1/namespaces/${ns}/secrets/registry-auth`);
      await waitFor(() => copy().then(() => true, () => false), `the Secret copied into ${ns}`, 60_000).catch((e: Error) => {
        throw new Error(`${e.message}:\n${op.output()}`);
      });
      assert.equal(Buffer.from((await copy()).data!.token!, 'base64').toString(), 's3cr3t');
    }
    assert.doesNotMatch(op.output(), /localhost:8080|10\.255\.0\.1/, "no hook's kubectl looked for another cluster");
  } finally {
    closeConnections(kc);
    // stopped before the tree goes, with the hooks it runs
    op.child.kill('SIGKILL');
    await op.exited;
  }
});

test('shell-operator examples 101-monitor-pods and 102-monitor-namespaces: their hooks see Pods and Namespaces come, change and go', async (t) => {
  const root = makeTree({ 'modules/.keep': '' });
  const hooks = join(root, 'global-hooks/hooks');
  for (const example of ['101-monitor-pods', '102-monitor-namespaces']) cpSync(join(FIXTURES, `shell-operator-${example}/hooks`), join(hooks, example), { recursive: true });
  const kubeconfig = join(root, 'kubeconfig');
  const op = startOperator(root, ['--sandbox-kubeconfig', kubeconfig]);
  t.after(() => killChild(op.child, op.exited));
  await waitFor(() => logRecords(op.output()).some((r) => r.msg === 'first converge done'), 'the first converge', 120_000);
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  t.after(() => closeConnections(kc));
  const said = (line: string) => waitFor(() => logRecords(op.output()).some((r) => r.msg === line), `the hook to say: ${line}`, 60_000).catch((e: Error) => {
    throw new Error(`${e.message}:\n${op.output()}`);
  });
  await requestJson(kc, 'POST', '/api/v1/namespaces', {}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } });
  await said('Namespace watched was created');
  await requestJson(kc, 'PATCH', '/api/v1/namespaces/watched', {}, { metadata: { labels: { team: 'a' } } }, 'application/merge-patch+json');
  await said('Namespace watched labels were modified');
  await requestJson(kc, 'POST', '/api/v1/namespaces/watched/pods', {}, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  await said("Pod 'p1' added");
  await requestJson(kc, 'DELETE', '/api/v1/namespaces/watched');
  await said('Namespace watched was deleted');
});
