import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { startSandbox } from '../../src/sandbox/index.js';
import { generateTls } from '../../src/sandbox/tls.js';
import { closeConnections, configureConnections, connectionStats } from '../../src/kube/connections.js';
import { requestJson, watchStream } from '../../src/kube/http.js';
import { Registry } from 'prom-client';
import { registerKubeConnectionMetrics } from '../../src/metrics/kube-connection-metrics.js';
import { waitFor } from '../helpers/wait.js';

function stats(server: string) {
  return connectionStats().find((s) => s.server === server) ?? { server, handshakes: 0, sockets: 0 };
}

const CM_PATH = '/api/v1/namespaces/default/configmaps';

test('requests to the sandbox reuse connections: sequential ones one socket, concurrent ones at most maxSockets', async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  t.after(() => closeConnections(kc));

  for (let i = 0; i < 30; i++) {
    await requestJson(kc, 'POST', CM_PATH, {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { i: String(i) } });
    await requestJson(kc, 'GET', `${CM_PATH}/cm-${i}`);
  }
  assert.deepEqual(stats(sandbox.url), { server: sandbox.url, handshakes: 1, sockets: 1 }, '60 sequential requests: one TLS handshake');

  // 200 concurrent requests: the pool opens at most 16 sockets (the default bound), each with one handshake
  const lists = await Promise.all(Array.from({ length: 200 }, () => requestJson<{ items: unknown[] }>(kc, 'GET', CM_PATH)));
  assert.ok(lists.every((l) => l.items.length === 30));
  const after = stats(sandbox.url);
  assert.ok(after.sockets > 1 && after.sockets <= 16, `sockets: ${after.sockets}`);
  assert.equal(after.handshakes, after.sockets);

  // a watch has its own socket; requests meanwhile keep using the pool
  const ac = new AbortController();
  const events: string[] = [];
  const watching = watchStream(kc, CM_PATH, { resourceVersion: sandbox.resourceVersion() }, (e) => events.push(`${e.type} ${(e.object.metadata as { name: string }).name}`), ac.signal);
  await requestJson(kc, 'POST', CM_PATH, {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } });
  await waitFor(() => events.length > 0, 'the watch to see the ConfigMap');
  ac.abort();
  await watching;
  assert.deepEqual(events, ['ADDED late']);
  const final = stats(sandbox.url);
  assert.equal(final.sockets, after.sockets + 1, 'the watch opened one socket, the request reused one');
  assert.equal(final.handshakes, final.sockets);

  const registry = new Registry();
  registerKubeConnectionMetrics(registry, 'addon_operator_', connectionStats);
  const text = await registry.metrics();
  const host = new URL(sandbox.url).host;
  assert.ok(text.includes(`addon_operator_kubernetes_client_tls_handshakes_total{host="${host}"} ${final.handshakes}\n`), text);
  assert.ok(text.includes(`addon_operator_kubernetes_client_connections_total{host="${host}"} ${final.sockets}\n`), text);
});

test('the handshake count is what the server sees', async (t) => {
  const tls = generateTls(['127.0.0.1']);
  let serverHandshakes = 0;
  const server = createServer({ cert: tls.serverCert, key: tls.serverKey }, (_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end('{"ok":true}');
  });
  server.on('secureConnection', () => serverHandshakes++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig(url, { 'certificate-authority-data': Buffer.from(tls.caCert).toString('base64') }));
  t.after(() => closeConnections(kc));
  for (let i = 0; i < 20; i++) await requestJson(kc, 'GET', '/version');
  await Promise.all(Array.from({ length: 50 }, () => requestJson(kc, 'GET', '/version')));
  assert.ok(serverHandshakes >= 1 && serverHandshakes <= 16, `server saw ${serverHandshakes}`);
  assert.equal(stats(url).handshakes, serverHandshakes);
});

function kubeconfig(server: string, cluster: Record<string, string>): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server, ...cluster } }],
    users: [{ name: 'u', user: { token: 'x' } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'c',
  });
}

test('a changed certificate file of the kubeconfig is picked up without a restart', async (t) => {
  configureConnections({ fileCheckMs: 0 });
  t.after(() => configureConnections({ fileCheckMs: 2000 }));
  const sandbox = await startSandbox();
  t.after(() => sandbox.stop());
  const dir = mkdtempSync(join(tmpdir(), 'kube-connections-'));
  const caFile = join(dir, 'ca.crt');
  // first a CA that did not sign the sandbox's certificate
  writeFileSync(caFile, generateTls(['127.0.0.1']).caCert);
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig(sandbox.url, { 'certificate-authority': caFile }).replace('token: x', `token: ${sandbox.token}`));
  t.after(() => closeConnections(kc));
  await assert.rejects(requestJson(kc, 'GET', '/version'), /certificate/);
  writeFileSync(caFile, sandbox.caCert!);
  const v = await requestJson<{ gitVersion: string }>(kc, 'GET', '/version');
  assert.match(v.gitVersion, /^v1\./);
  // unchanged files: the pool stays
  const before = stats(sandbox.url).handshakes;
  for (let i = 0; i < 5; i++) await requestJson(kc, 'GET', '/version');
  assert.equal(stats(sandbox.url).handshakes, before);
});
