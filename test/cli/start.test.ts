/**
 * `addon-operator start --sandbox` as a process: a bad global hook stops it with exit code 1 and every
 * problem listed; SIGTERM lets the running hook finish, starts nothing new and exits 0; a module's
 * chart becomes a release in the embedded API server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { makeTree, writeTree } from '../helpers/tree.js';
import { requestJson } from '../../src/kube/http.js';
import { bashHook, startArgs, startOperator, waitFor } from '../helpers/operator-process.js';
import { parseExtraLabels } from '../../src/cli/start-run.js';

const args = startArgs;
const hook = bashHook;

test('a global hook with a bad config stops start with exit code 1 and lists every problem', () => {
  const root = makeTree({
    'modules/.keep': '',
    'global-hooks/hooks/bad-cron': hook({ configVersion: 'v1', schedule: [{ crontab: 'every day' }] }, ''),
    'global-hooks/hooks/bad-kind': hook({ configVersion: 'v1', kubernetes: [{ name: 'x' }] }, ''),
    'global-hooks/hooks/good': hook({ configVersion: 'v1', onStartup: 1 }, ''),
  });
  const r = spawnSync(process.execPath, args(root), { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /hooks\/bad-cron/);
  assert.match(r.stderr, /hooks\/bad-kind/);
  assert.match(r.stderr, /every day/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});

test('SIGTERM: the running hook finishes, nothing new starts, exit code 0', async () => {
  const root = makeTree({ 'modules/.keep': '' });
  const trace = join(root, 'trace');
  const release = join(root, 'release');
  writeTree(root, {
    'global-hooks/hooks/slow': hook({ configVersion: 'v1', onStartup: 1 }, `echo started >> '${trace}'
while [ ! -e '${release}' ]; do sleep 0.05; done
echo finished >> '${trace}'`),
    'global-hooks/hooks/next': hook({ configVersion: 'v1', onStartup: 2, beforeAll: 1 }, `echo "next $(jq -r '.[0].binding' "$BINDING_CONTEXT_PATH")" >> '${trace}'`),
  });
  const { child, output, exited } = startOperator(root);
  await waitFor(() => existsSync(trace) && readFileSync(trace, 'utf8').includes('started'), 'the slow hook to start');
  child.kill('SIGTERM');
  await waitFor(() => output().includes('stopping'), 'the stop to begin');
  writeFileSync(release, '');
  assert.equal(await exited, 0, output());
  assert.deepEqual(readFileSync(trace, 'utf8').trim().split('\n'), ['started', 'finished']);
});

test('start --sandbox installs an enabled module as a Helm release in the embedded API server', async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'echoEnabled: true\n',
    'modules/001-echo/Chart.yaml': 'apiVersion: v2\nname: echo\nversion: 0.1.0\n',
    'modules/001-echo/values.yaml': 'echo:\n  greeting: hello\n',
    'modules/001-echo/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo\ndata:\n  greeting: {{ .Values.echo.greeting | quote }}\n',
    'modules/001-echo/templates/hook.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo-hook\n  annotations:\n    "helm.sh/hook": post-install\n',
  });
  const kubeconfig = join(root, 'kubeconfig');
  const { child, output, exited } = startOperator(root, ['--sandbox-kubeconfig', kubeconfig]);
  try {
    await waitFor(() => output().includes('startup converge done'), 'the first converge');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const cm = await requestJson<{ data: Record<string, string> }>(kc, 'GET', '/api/v1/namespaces/addons/configmaps/echo');
    assert.deepEqual(cm.data, { greeting: 'hello' });
    const secrets = await requestJson<{ items: Array<{ metadata: { name: string } }> }>(kc, 'GET', '/api/v1/namespaces/addons/secrets', { labelSelector: 'owner=helm' });
    assert.deepEqual(secrets.items.map((s) => s.metadata.name), ['sh.helm.release.v1.echo.v1']);
    // as the Go operator's Helm client labels them: heritage on release objects (not on Helm hooks),
    // the maintenance label beside the checksum on the release Secret
    const labelsOf = async (path: string) => (await requestJson<{ metadata: { labels?: Record<string, string> } }>(kc, 'GET', path)).metadata.labels;
    assert.deepEqual(await labelsOf('/api/v1/namespaces/addons/configmaps/echo'), { heritage: 'addon-operator', 'app.kubernetes.io/managed-by': 'Helm' });
    assert.equal(await labelsOf('/api/v1/namespaces/addons/configmaps/echo-hook'), undefined);
    const secretLabels = { ...(await labelsOf('/api/v1/namespaces/addons/secrets/sh.helm.release.v1.echo.v1')) };
    assert.match(secretLabels.moduleChecksum ?? '', /^\w+$/);
    delete secretLabels.moduleChecksum;
    delete secretLabels.createdAt;
    delete secretLabels.modifiedAt;
    assert.deepEqual(secretLabels, { 'maintenance.deckhouse.io/no-resource-reconciliation': 'false', name: 'echo', owner: 'helm', status: 'deployed', version: '1' });
    // every request went through the pool: one TLS handshake per socket, shown on /metrics
    const address = /"address":"(http:\/\/[^"]+)"/.exec(output())![1]!;
    const text = await (await fetch(`${address}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^addon_operator_${name}\\{host="127\\.0\\.0\\.1:\\d+"\\} (\\d+)$`, 'm').exec(text)?.[1]);
    assert.ok(value('kubernetes_client_tls_handshakes_total') >= 1, text);
    assert.equal(value('kubernetes_client_tls_handshakes_total'), value('kubernetes_client_connections_total'));
    // at most the pool's 16 request sockets plus the watches' own, whatever the number of requests
    assert.ok(value('kubernetes_client_connections_total') <= 20, text);
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output());
});

test('--sandbox-data-dir: the sandbox keeps its objects across operator restarts, so the restart finds the release deployed and leaves it alone', async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'echoEnabled: true\n',
    'modules/001-echo/Chart.yaml': 'apiVersion: v2\nname: echo\nversion: 0.1.0\n',
    'modules/001-echo/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo\ndata:\n  a: "1"\n',
  });
  const kubeconfig = join(root, 'kubeconfig');
  const flags = ['--sandbox-kubeconfig', kubeconfig, '--sandbox-data-dir', join(root, 'state')];
  const converge = async () => {
    const { child, output, exited } = startOperator(root, flags);
    try {
      await waitFor(() => output().includes('startup converge done'), 'the converge');
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig);
      const cm = await requestJson<{ metadata: { resourceVersion: string; uid: string } }>(kc, 'GET', '/api/v1/namespaces/addons/configmaps/echo');
      const secrets = await requestJson<{ items: Array<{ metadata: { name: string } }> }>(kc, 'GET', '/api/v1/namespaces/addons/secrets', { labelSelector: 'owner=helm' });
      return { cm: cm.metadata, releases: secrets.items.map((x) => x.metadata.name) };
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output());
    }
  };
  const first = await converge();
  const second = await converge();
  assert.deepEqual(second, first, 'the same object, not written again; no new revision');
  assert.deepEqual(second.releases, ['sh.helm.release.v1.echo.v1']);
  const refused = spawnSync(process.execPath, args(root, ['--sandbox-data-dir', join(root, 'x')]).filter((a) => a !== '--sandbox'), { encoding: 'utf8', timeout: 60_000 });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /--sandbox-seed, --sandbox-kubeconfig and --sandbox-data-dir need --sandbox/);
});

test('--crd-extra-labels: key=value pairs, heritage=addon-operator unless another heritage is given; anything else is an error naming it', async () => {
  assert.deepEqual(parseExtraLabels('heritage=addon-operator'), { heritage: 'addon-operator' });
  assert.deepEqual(parseExtraLabels(''), { heritage: 'addon-operator' });
  assert.deepEqual(parseExtraLabels('team=core, example.com/tier==infra'), { team: 'core', 'example.com/tier': 'infra', heritage: 'addon-operator' });
  assert.deepEqual(parseExtraLabels('heritage=deckhouse'), { heritage: 'deckhouse' });
  assert.throws(() => parseExtraLabels('tier in (a,b)'), /^UserError: --crd-extra-labels: "tier in \(a" is not key=value \(in "tier in \(a,b\)"\)$/);
  assert.throws(() => parseExtraLabels('tier!=a'), /"tier!=a" is not key=value/);
  assert.throws(() => parseExtraLabels('bad key=x'), /is not key=value/);
  assert.throws(() => parseExtraLabels('team=a b'), /is not key=value/);
  assert.throws(() => parseExtraLabels('team=-x'), /--crd-extra-labels: invalid label value "-x"/);
  const root = makeTree({ 'global-hooks/.keep': '', 'modules/.keep': '' });
  const { output, exited } = startOperator(root, ['--crd-extra-labels', 'tier!=a']);
  assert.equal(await exited, 1);
  assert.match(output(), /--crd-extra-labels: "tier!=a" is not key=value/);
  assert.doesNotMatch(output(), /\n\s+at /, 'no stack trace');
});
