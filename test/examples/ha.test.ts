/**
 * examples/ha: run.sh starts the API server and two replicas; one leads and installs the module, the
 * other stands by; stopping the leader makes the other lead and converge; Ctrl-C stops everything.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { closeConnections } from '../../src/kube/connections.js';
import { requestJson } from '../../src/kube/http.js';
import { waitFor } from '../helpers/operator-process.js';
import { OPERATOR, REPO } from './helpers.js';

/** A port free on 127.0.0.1 and 127.0.0.2. */
async function freePort(): Promise<number> {
  const listen = (port: number, host: string) =>
    new Promise<number | undefined>((resolve) => {
      const s = createServer().listen(port, host, () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
      s.on('error', () => resolve(undefined));
    });
  for (;;) {
    const port = (await listen(0, '127.0.0.1'))!;
    if (await listen(port, '127.0.0.2')) return port;
  }
}

test('examples/ha', async () => {
  const state = mkdtempSync(join(tmpdir(), 'ao-example-ha-'));
  const child = spawn('bash', [join(REPO, 'examples/ha/run.sh'), '--log-type', 'json'], {
    env: {
      ...process.env,
      ADDON_OPERATOR: OPERATOR,
      EXAMPLE_STATE_DIR: state,
      HA_PORT: String(await freePort()),
      ADDON_OPERATOR_HA_LEASE_DURATION: '4s',
      ADDON_OPERATOR_HA_RENEW_DEADLINE: '3s',
      ADDON_OPERATOR_HA_RETRY_PERIOD: '1s',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (out += c));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const kc = new KubeConfig();
  after(() => {
    child.kill('SIGKILL');
    for (const i of [1, 2]) {
      try {
        process.kill(Number(readFileSync(join(state, `replica-${i}.pid`), 'utf8')), 'SIGKILL');
      } catch {
        // gone
      }
    }
    closeConnections(kc);
    rmSync(state, { recursive: true, force: true });
  });

  const leaderOf = () => /^\[replica-(\d)\] \S+ converge #1 done/m.exec(out)?.[1];
  await waitFor(() => leaderOf() !== undefined, 'a replica to lead and converge', 180_000);
  const leader = leaderOf()!;
  const standby = leader === '1' ? '2' : '1';
  await waitFor(() => new RegExp(`^\\[replica-${standby}\\] \\S+ HA mode: waiting for the leader lease$`, 'm').test(out), 'the other replica to stand by');
  assert.doesNotMatch(out, new RegExp(`^\\[replica-${standby}\\] \\S+ HA mode: leading$`, 'm'), 'one leader at a time');
  kc.loadFromFile(join(state, 'kubeconfig'));
  const cm = await requestJson<{ data: Record<string, string> }>(kc, 'GET', '/api/v1/namespaces/addons/configmaps/hello');
  assert.deepEqual(cm.data, { greeting: 'installed by the leader' });
  const lease = await requestJson<{ spec: { holderIdentity: string } }>(kc, 'GET', '/apis/coordination.k8s.io/v1/namespaces/addons/leases/addon-operator-leader-election');
  assert.match(lease.spec.holderIdentity, new RegExp(`^replica-${leader}\\.`));

  // the leader stops: the standby takes over and converges
  process.kill(Number(readFileSync(join(state, `replica-${leader}.pid`), 'utf8')), 'SIGTERM');
  await waitFor(() => new RegExp(`^\\[replica-${leader}\\] \\S+ operator stopped$`, 'm').test(out), 'the leader to stop');
  await waitFor(() => new RegExp(`^\\[replica-${standby}\\] \\S+ converge #1 done`, 'm').test(out), 'the standby to take over', 120_000);
  assert.match(out, new RegExp(`^\\[replica-${standby}\\] \\S+ \\[1/1\\] module hello: release up to date`, 'm'));

  // Ctrl-C (to the script): the last replica stops cleanly, then the API server
  child.kill('SIGINT');
  assert.equal(await closed, 0, out);
  assert.match(out, new RegExp(`^\\[replica-${standby}\\] \\S+ operator stopped$`, 'm'));
});
