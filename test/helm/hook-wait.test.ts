// Helm hooks waited for as Helm 3 waits for them, on the sandbox's simulated kubelet (issue 39): a hook
// Pod that the kubelet runs to Succeeded, one that fails (the sandbox's documented fail annotation)
// with Helm's message and a failed revision, and a hook Job nothing completes: its progress logged
// while waited for, then the hook's timeout with Helm's text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox } from '../../src/sandbox/index.js';
import { FAIL_ANNOTATION } from '../../src/sandbox/controllers/pod.js';
import { requestJson } from '../../src/kube/http.js';
import { RestMapper } from '../../src/kube/mapper.js';
import { HelmReleases } from '../../src/helm/release-engine.js';
import { makeTree } from '../helpers/tree.js';
import { waitFor } from '../helpers/wait.js';
import { getObject, releaseSecrets, secretPayload } from './helpers.js';

const NS = 'apps';

async function sandboxCluster(t: { after: (fn: () => Promise<void>) => void }, controllers: boolean) {
  const sandbox = await startSandbox({ controllers, podStartMs: 100 });
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  await requestJson(kc, 'POST', '/api/v1/namespaces', {}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  return { kc, mapper: new RestMapper(kc) };
}

const hookPod = (name: string, events: string, fail: boolean, policy = 'before-hook-creation') =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  annotations:\n    "helm.sh/hook": ${events}\n    "helm.sh/hook-delete-policy": ${policy}\n` +
  (fail ? `    "${FAIL_ANNOTATION}": "true"\n` : '') +
  'spec:\n  restartPolicy: Never\n  containers:\n  - name: run\n    image: busybox\n';

const chart = (templates: Record<string, string>) =>
  makeTree({ 'Chart.yaml': 'apiVersion: v2\nname: hooked\nversion: 0.1.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hooked\ndata:\n  v: {{ .Values.v | default 1 | quote }}\n', ...templates });

test('hook Pods run by the simulated kubelet: one that succeeds lets the install go on (deleted by hook-succeeded); one that fails fails the upgrade with Helm\'s message', async (t) => {
  const { kc, mapper } = await sandboxCluster(t, true);
  const helm = new HelmReleases({ kc, mapper, hookTimeoutMs: 60_000 });
  const dir = chart({
    'templates/pre.yaml': hookPod('pre-ok', 'pre-install', false, 'hook-succeeded'),
    'templates/post.yaml': hookPod('post-bad', 'post-upgrade', true),
  });
  assert.equal(await helm.upgradeInstall({ release: 'hooked', namespace: NS, chartDir: dir, values: {} }), 'installed');
  assert.equal(await getObject(kc, `/api/v1/namespaces/${NS}/pods/pre-ok`), undefined, 'hook-succeeded deleted the Pod');
  const installed = secretPayload((await releaseSecrets(kc, NS, 'hooked'))[0]).release;
  assert.equal(installed.hooks.find((h: { name: string }) => h.name === 'pre-ok').last_run.phase, 'Succeeded');

  await assert.rejects(helm.upgradeInstall({ release: 'hooked', namespace: NS, chartDir: dir, values: { v: 2 } }), /^Error: release hooked: post-upgrade hooks failed: pod post-bad failed \(hook hooked\/templates\/post\.yaml\)$/);
  const records = (await releaseSecrets(kc, NS, 'hooked')).map((s) => secretPayload(s).release).sort((a, b) => a.version - b.version);
  assert.equal(records[1].info.status, 'failed');
  assert.equal(records[1].info.description, 'Upgrade "hooked" failed: post-upgrade hooks failed: 1 error occurred:\n\t* pod post-bad failed\n\n');
  assert.equal((await getObject(kc, `/api/v1/namespaces/${NS}/pods/post-bad`)).status.phase, 'Failed', 'kept: no hook-failed policy');
});

test('a hook Job nothing completes: its progress is logged while it is waited for, then the hook timeout fails the install with Helm\'s text', async (t) => {
  const { kc, mapper } = await sandboxCluster(t, false);
  const logs: string[] = [];
  const helm = new HelmReleases({ kc, mapper, hookTimeoutMs: 2_000, hookProgressMs: 200, log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) } });
  const dir = chart({
    'templates/job.yaml':
      'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: slow\n  annotations:\n    "helm.sh/hook": pre-install\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: run\n        image: busybox\n',
  });
  const install = helm.upgradeInstall({ release: 'slow', namespace: NS, chartDir: dir, values: {} });
  await waitFor(() => logs.includes('release slow: waiting for hook Job slow: 0/1 succeeded, 0 active, 0 failed'), 'the progress line');
  await assert.rejects(install, /^Error: release slow: failed pre-install: timed out waiting for the condition \(hook hooked\/templates\/job\.yaml\)$/);
  assert.equal(secretPayload((await releaseSecrets(kc, NS, 'slow'))[0]).release.info.status, 'failed');
  assert.equal(await getObject(kc, `/api/v1/namespaces/${NS}/configmaps/hooked`), undefined, 'nothing of the release was applied');
});
