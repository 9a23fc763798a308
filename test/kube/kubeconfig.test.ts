import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/index.js';
import { kubeconfigYaml } from '../../src/sandbox/kubeconfig.js';
import { loadKubeConfig } from '../../src/kube/kubeconfig.js';
import { closeConnections } from '../../src/kube/connections.js';
import { requestJson } from '../../src/kube/http.js';

async function fixture(t: { after: (fn: () => unknown) => void }) {
  const sandbox = await startSandbox();
  t.after(() => sandbox.stop());
  const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const good = kubeconfigYaml({ server: sandbox.url, token: sandbox.token, caCert: sandbox.caCert, name: 'good' });
  // a context whose token the sandbox refuses
  const bad = kubeconfigYaml({ server: sandbox.url, token: 'wrong', caCert: sandbox.caCert, name: 'bad' });
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  return { sandbox, dir, goodFile: write('good.yaml', good), badFile: write('bad.yaml', bad), write };
}

const version = async (kc: Parameters<typeof requestJson>[0]) => {
  try {
    return (await requestJson<{ gitVersion: string }>(kc, 'GET', '/version')).gitVersion;
  } finally {
    closeConnections(kc);
  }
};

test('--kube-config and --kube-context: the file, then the context named', async (t) => {
  const f = await fixture(t);
  const { kc, source } = loadKubeConfig({ file: f.goodFile, env: {} });
  assert.equal(source, f.goodFile);
  assert.equal(await version(kc), 'v1.32.4');

  // KUBECONFIG lists two files: merged, the first file's current context, --kube-context picks another
  const env = { KUBECONFIG: `${f.badFile}:${f.goodFile}` };
  const merged = loadKubeConfig({ env });
  assert.equal(merged.kc.currentContext, 'bad');
  await assert.rejects(version(merged.kc), /401/);
  const chosen = loadKubeConfig({ env, context: 'good' });
  assert.equal(await version(chosen.kc), 'v1.32.4');
  // --kube-config wins over KUBECONFIG
  assert.equal(loadKubeConfig({ file: f.goodFile, env }).kc.currentContext, 'good');
});

test('a missing context, file or cluster is a clear error', async (t) => {
  const f = await fixture(t);
  assert.throws(() => loadKubeConfig({ file: f.goodFile, context: 'nope', env: {} }), {
    message: `--kube-context: the kubeconfig (${f.goodFile}) has no context "nope"; it has: good`,
  });
  assert.throws(() => loadKubeConfig({ file: join(f.dir, 'missing.yaml'), env: {} }), { message: `kubeconfig ${join(f.dir, 'missing.yaml')} does not exist` });
  assert.throws(() => loadKubeConfig({ env: { KUBECONFIG: join(f.dir, 'x') } }), /none of the KUBECONFIG files exists/);
  // no file anywhere and not in a pod: no silent http://localhost:8080
  assert.throws(() => loadKubeConfig({ env: {}, home: f.dir, inClusterPrefix: f.dir }), /no Kubernetes cluster configured: give --kube-config \(env KUBE_CONFIG\), set KUBECONFIG, write .*, or run in a pod with a service account/);
  const noContext = f.write('empty.yaml', 'apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts: []\n');
  assert.throws(() => loadKubeConfig({ file: noContext, env: {} }), /has no current context with a cluster/);
});

test('~/.kube/config, then the in-cluster service account (token file, CA, KUBERNETES_SERVICE_HOST)', async (t) => {
  const f = await fixture(t);
  const home = join(f.dir, 'home');
  mkdirSync(join(home, '.kube'), { recursive: true });
  writeFileSync(join(home, '.kube', 'config'), kubeconfigYaml({ server: f.sandbox.url, token: f.sandbox.token, caCert: f.sandbox.caCert, name: 'home' }));
  assert.equal(loadKubeConfig({ env: {}, home }).kc.currentContext, 'home');

  const prefix = join(f.dir, 'pod');
  const sa = join(prefix, 'var/run/secrets/kubernetes.io/serviceaccount');
  mkdirSync(sa, { recursive: true });
  writeFileSync(join(sa, 'token'), f.sandbox.token);
  writeFileSync(join(sa, 'ca.crt'), f.sandbox.caCert!);
  writeFileSync(join(sa, 'namespace'), 'addons');
  const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(f.sandbox.port) };
  const inCluster = loadKubeConfig({ env, home: join(f.dir, 'nohome'), inClusterPrefix: prefix });
  assert.equal(inCluster.source, 'in-cluster service account');
  assert.equal(await version(inCluster.kc), 'v1.32.4');
  assert.equal(process.env.KUBERNETES_SERVICE_HOST, undefined, 'process.env left as it was');
});
