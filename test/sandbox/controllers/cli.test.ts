// `addon-operator sandbox` runs the simulated controllers by default, none with --controllers none;
// --pod-start sets the Pods' start delay; bad values are clear errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as k8s from '@kubernetes/client-node';
import { waitFor } from '../../helpers/wait.js';

const CLI = join(import.meta.dirname, '..', 'fixtures', 'run-cli.ts');

/** Starts `addon-operator sandbox ARGS`; resolves with a client of it and a stop function. */
async function sandbox(args: string[]): Promise<{ kc: k8s.KubeConfig; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'sandbox', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let kubeconfig = '';
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line.startsWith('kubeconfig: ')) {
      kubeconfig = line.slice('kubeconfig: '.length);
      break;
    }
  }
  assert.ok(kubeconfig, 'the sandbox printed its kubeconfig');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  return {
    kc,
    stop: async () => {
      child.kill('SIGTERM');
      return exit;
    },
  };
}

const DEPLOY = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
};

test('addon-operator sandbox: controllers on by default (--pod-start 0s), off with --controllers none', async () => {
  const on = await sandbox(['--pod-start', '0s']);
  try {
    const apps = on.kc.makeApiClient(k8s.AppsV1Api);
    await apps.createNamespacedDeployment({ namespace: 'default', body: DEPLOY as k8s.V1Deployment });
    await waitFor(async () => (await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' })).status?.availableReplicas === 2, 'the Deployment Available');
    const nodes = await on.kc.makeApiClient(k8s.CoreV1Api).listNode();
    assert.deepEqual(nodes.items.map((n) => n.metadata?.name), ['sandbox-node']);
  } finally {
    assert.equal(await on.stop(), 0);
  }
  const off = await sandbox(['--controllers', 'none']);
  try {
    const core = off.kc.makeApiClient(k8s.CoreV1Api);
    assert.equal((await core.listNode()).items.length, 0);
  } finally {
    assert.equal(await off.stop(), 0);
  }
});

test('addon-operator sandbox: a bad --controllers or --pod-start is a clear error and exit code 1', async () => {
  const run = (args: string[]): Promise<{ code: number | null; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'sandbox', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('exit', (code) => resolve({ code, stderr }));
    });
  const [a, b] = await Promise.all([run(['--controllers', 'some']), run(['--pod-start', 'soon'])]);
  assert.equal(a.code, 1);
  assert.match(a.stderr, /--controllers: "some" is not one of all, none/);
  assert.doesNotMatch(a.stderr, /\n\s+at /);
  assert.equal(b.code, 1);
  assert.match(b.stderr, /--pod-start: .*soon/);
});
