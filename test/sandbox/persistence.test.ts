import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as k8s from '@kubernetes/client-node';
import { cm, start, withSandbox } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

const CLI = join(import.meta.dirname, 'fixtures', 'run-cli.ts');

test('--data-dir keeps objects, CRDs, the resourceVersion, the token and the certificate across restarts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-data-'));
  try {
    let rv = '';
    let token = '';
    let ca: string | undefined;
    await withSandbox(
      async ({ core, custom, kc, sb }) => {
        token = sb.token;
        ca = sb.caCert;
        await core.createNamespace({ body: { metadata: { name: 'keep' } } });
        await core.createNamespacedConfigMap({ namespace: 'keep', body: cm('a', { x: '1' }, { l: 'v' }) });
        const b = await core.createNamespacedConfigMap({ namespace: 'keep', body: cm('b') });
        await core.replaceNamespacedConfigMap({ name: 'b', namespace: 'keep', body: { ...b, data: { y: '2' } } });
        await core.createNamespacedConfigMap({ namespace: 'keep', body: cm('gone') });
        await core.deleteNamespacedConfigMap({ name: 'gone', namespace: 'keep' });
        await kc.makeApiClient(k8s.ApiextensionsV1Api).createCustomResourceDefinition({
          body: {
            metadata: { name: 'things.example.com' },
            spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true }] },
          },
        });
        await custom.createNamespacedCustomObject({
          group: 'example.com', version: 'v1', namespace: 'keep', plural: 'things',
          body: { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec: { n: 1 } },
        });
        rv = sb.resourceVersion();
      },
      { dataDir: dir },
    );
    await withSandbox(
      async ({ core, custom, sb }) => {
        assert.equal(sb.token, token);
        assert.equal(sb.caCert, ca);
        assert.equal(sb.resourceVersion(), rv);
        const items = (await core.listNamespacedConfigMap({ namespace: 'keep', labelSelector: 'l=v' })).items;
        assert.deepEqual(items.map((i) => i.metadata!.name), ['a']);
        assert.deepEqual((await core.readNamespacedConfigMap({ name: 'b', namespace: 'keep' })).data, { y: '2' });
        const t = await custom.getNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'keep', plural: 'things', name: 't' });
        assert.equal(t.spec.n, 1);
        const c = await core.createNamespacedConfigMap({ namespace: 'keep', body: cm('c') });
        assert.ok(Number(c.metadata!.resourceVersion) > Number(rv), 'resourceVersions keep growing');
        sb.snapshot();
      },
      { dataDir: dir },
    );
    // after a snapshot, plus a torn (never acknowledged) tail in the log
    appendFileSync(join(dir, 'changes.log'), '{"rv":99999,"t":"/configmaps","ns":"keep","n":"torn","o":{"apiVer');
    await withSandbox(
      async ({ core }) => {
        const names = (await core.listNamespacedConfigMap({ namespace: 'keep' })).items.map((i) => i.metadata!.name).sort();
        assert.deepEqual(names, ['a', 'b', 'c']);
        await core.createNamespacedConfigMap({ namespace: 'keep', body: cm('d') });
      },
      { dataDir: dir },
    );
    await withSandbox(
      async ({ core }) => {
        const names = (await core.listNamespacedConfigMap({ namespace: 'keep' })).items.map((i) => i.metadata!.name).sort();
        assert.deepEqual(names, ['a', 'b', 'c', 'd']);
      },
      { dataDir: dir },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kill -9 in the middle of writes loses nothing that was acknowledged', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-crash-'));
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'sandbox', '--listen', '127.0.0.1:0', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    let kubeconfigPath = '';
    const rl = createInterface({ input: child.stdout! });
    for await (const line of rl) {
      const m = line.match(/^kubeconfig: (.*)$/);
      if (m) {
        kubeconfigPath = m[1];
        break;
      }
    }
    assert.ok(kubeconfigPath, 'the CLI printed the kubeconfig path');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const acked: string[] = [];
    let stop = false;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const name = `w${w}-${i}`;
        try {
          await core.createNamespacedConfigMap({ namespace: 'default', body: cm(name, { payload: 'x'.repeat(2000) }) });
          acked.push(name);
        } catch {
          return; // the server died under us: this one was never acknowledged
        }
      }
    };
    let running = 4;
    const writers = [0, 1, 2, 3].map((w) => writer(w).finally(() => running--));
    const deadline = Date.now() + 60000;
    while (acked.length < 60 && running > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await exited;
    assert.ok(acked.length >= 60);
    const env = await start({ dataDir: dir });
    try {
      const stored = new Set((await env.core.listNamespacedConfigMap({ namespace: 'default' })).items.map((i) => i.metadata!.name));
      const lost = acked.filter((n) => !stored.has(n));
      assert.deepEqual(lost, [], 'every acknowledged write survived');
      assert.equal(readFileSync(join(dir, 'kubeconfig'), 'utf8').includes(env.sb.token), true);
    } finally {
      await env.sb.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a data directory serves one sandbox at a time', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-lock-'));
  try {
    const first = await start({ dataDir: dir });
    try {
      await assert.rejects(start({ dataDir: dir }), /in use by another sandbox/);
    } finally {
      await first.sb.stop();
    }
    const again = await start({ dataDir: dir });
    await again.sb.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--data-dir: a dependent written before a restart is collected when its owner goes after it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-data-'));
  try {
    await withSandbox(
      async ({ core }) => {
        const owner = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('owner') });
        const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! };
        await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'dep', ownerReferences: [ref] } } });
      },
      { dataDir: dir },
    );
    await withSandbox(
      async ({ core }) => {
        await core.deleteNamespacedConfigMap({ name: 'owner', namespace: 'default' });
        await waitFor(async () => !(await core.listNamespacedSecret({ namespace: 'default' })).items.some((s) => s.metadata!.name === 'dep'), 'the dependent to be collected');
      },
      { dataDir: dir },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
