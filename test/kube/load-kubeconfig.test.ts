import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/index.js';
import { kubeconfigYaml } from '../../src/sandbox/kubeconfig.js';
import { loadKubeConfig } from '../../src/kube/load-kubeconfig.js';
import { closeConnections } from '../../src/kube/connections.js';
import { requestJson } from '../../src/kube/http.js';
import * as k8s from '@kubernetes/client-node';

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

test('the operator reads a kubeconfig as client-node does: paths beside the file, data fields, TLS options, impersonation, basic auth', async (t) => {
  const f = await fixture(t);
  mkdirSync(join(f.dir, 'certs'));
  writeFileSync(join(f.dir, 'certs', 'ca.pem'), 'CA FILE');
  writeFileSync(join(f.dir, 'certs', 'client.pem'), 'CERT FILE');
  writeFileSync(join(f.dir, 'certs', 'client.key'), 'KEY FILE');
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const file = f.write(
    'full.yaml',
    `apiVersion: v1
kind: Config
current-context: files
clusters:
- name: files
  cluster: {server: 'https://127.0.0.1:1', certificate-authority: certs/ca.pem, tls-server-name: api.example, insecure-skip-tls-verify: true}
- name: data
  cluster: {server: 'https://127.0.0.1:2', certificate-authority-data: ${b64('CA DATA')}}
users:
- name: files
  user: {client-certificate: certs/client.pem, client-key: ${join(f.dir, 'certs', 'client.key')}, as: admin, token: t0k}
- name: data
  user: {client-certificate-data: ${b64('CERT DATA')}, client-key-data: ${b64('KEY DATA')}, username: u, password: p}
contexts:
- {name: files, context: {cluster: files, user: files}}
- {name: data, context: {cluster: data, user: data, namespace: ns}}
`,
  );
  const ours = loadKubeConfig({ file, env: {} }).kc;
  const theirs = new k8s.KubeConfig();
  theirs.loadFromFile(file);
  for (const context of ['data', 'files']) {
    ours.setCurrentContext(context);
    theirs.setCurrentContext(context);
    assert.deepEqual(ours.getCurrentCluster(), theirs.getCurrentCluster());
    assert.deepEqual(ours.getCurrentUser(), theirs.getCurrentUser());
    assert.deepEqual(ours.getContextObject(context), theirs.getContextObject(context));
    const a: Record<string, unknown> = { headers: {} };
    const b: Record<string, unknown> = { headers: {} };
    await ours.applyToHTTPSOptions(a);
    await theirs.applyToHTTPSOptions(b);
    delete b.agent;
    assert.deepEqual(a, b);
    if (context === 'data') {
      assert.equal(String(a.ca), 'CA DATA');
      assert.equal(a.auth, 'u:p');
    } else {
      assert.deepEqual([String(a.ca), String(a.cert), String(a.key), a.servername, a.rejectUnauthorized], ['CA FILE', 'CERT FILE', 'KEY FILE', 'api.example', false]);
      assert.deepEqual(a.headers, { 'Impersonate-User': 'admin', Authorization: 'Bearer t0k' });
    }
  }
  ours.setCurrentContext('files');
  assert.equal(ours.getCurrentCluster()?.caFile, join(f.dir, 'certs', 'ca.pem'));
  assert.equal(ours.getCurrentUser()?.certFile, join(f.dir, 'certs', 'client.pem'));
  // an entry without a name is refused as client-node refuses it
  const bad = f.write('bad-entry.yaml', 'clusters:\n- cluster: {server: https://x}\n');
  assert.throws(() => loadKubeConfig({ file: bad, env: {} }), /kubeconfig .*bad-entry.yaml: clusters\[0\]\.name is missing/);
});

test('an exec credential plugin gives the token (client-node authenticator, loaded when a user needs it)', async (t) => {
  const f = await fixture(t);
  const plugin = join(f.dir, 'credential.sh');
  writeFileSync(
    plugin,
    `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${f.sandbox.token}"}}'\n`,
    { mode: 0o755 },
  );
  const file = f.write(
    'exec.yaml',
    `apiVersion: v1
kind: Config
current-context: exec
clusters:
- name: exec
  cluster: {server: '${f.sandbox.url}', certificate-authority-data: ${Buffer.from(f.sandbox.caCert!).toString('base64')}}
users:
- name: exec
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: ${plugin}, interactiveMode: Never}
contexts:
- {name: exec, context: {cluster: exec, user: exec}}
`,
  );
  const { kc } = loadKubeConfig({ file, env: {} });
  assert.equal(await version(kc), 'v1.32.4');
});
