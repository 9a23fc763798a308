import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as k8s from '@kubernetes/client-node';
import { parse } from 'yaml';
import { kubeconfigYaml, parseManifests } from '../../src/sandbox/index.js';
import { accepts } from './helpers.js';
import { isApiStatus, requestJson } from '../../src/kube/http.js';

const CLI = join(import.meta.dirname, 'fixtures', 'run-cli.ts');
// the real entry point (`addon-operator ...`), for the test of the command as users run it
const MAIN = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

test('addon-operator sandbox (the real entry point): --kubeconfig, --seed; prints URL and kubeconfig; 127.0.0.1 by default; stops on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
  try {
    const seed1 = join(dir, 'a.yaml');
    const seed2 = join(dir, 'b.yaml');
    writeFileSync(seed1, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-seed\n  namespace: apps\ndata:\n  k: v\n---\n# empty\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n');
    writeFileSync(seed2, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'apps' }, stringData: { p: 'q' } }] }));
    const kubeconfig = join(dir, 'kube', 'config');
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'sandbox', '--kubeconfig', kubeconfig, '--seed', seed1, '--seed', seed2, '--watch-history', '3'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const out: string[] = [];
    const rl = createInterface({ input: child.stdout! });
    for await (const line of rl) {
      out.push(line);
      if (line.startsWith('kubeconfig:')) break;
    }
    // the default --listen is 127.0.0.1 and a free port: loopback only
    const m = out[0].match(/^url: https:\/\/127\.0\.0\.1:(\d+)$/);
    assert.ok(m, out[0]);
    assert.equal(await accepts('127.0.0.2', Number(m[1])), false, 'not listening beyond 127.0.0.1');
    assert.equal(out[1], `kubeconfig: ${kubeconfig}`);
    assert.equal(statSync(kubeconfig).mode & 0o777, 0o600);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    assert.equal((await core.readNamespacedConfigMap({ name: 'from-seed', namespace: 'apps' })).data!.k, 'v');
    assert.equal(Buffer.from((await core.readNamespacedSecret({ name: 's', namespace: 'apps' })).data!.p, 'base64').toString(), 'q');
    // --watch-history 3: a resourceVersion more than a few changes old is gone (16 are kept beyond the limit before trimming)
    const rv = (await core.readNamespacedConfigMap({ name: 'from-seed', namespace: 'apps' })).metadata!.resourceVersion!;
    const at = (v: string) => requestJson(kc, 'GET', '/api/v1/namespaces/apps/configmaps', { resourceVersion: v, resourceVersionMatch: 'Exact' }).then(() => 200, (e: unknown) => (isApiStatus(e, 410) ? 410 : e));
    assert.equal(await at(rv), 200);
    for (let i = 0; i < 20; i++) await core.createNamespacedConfigMap({ namespace: 'apps', body: { metadata: { name: `c${i}` } } });
    assert.equal(await at(rv), 410);
    child.kill('SIGTERM');
    assert.equal(await exit, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kubeconfig writer and manifest parser', () => {
  const y = parse(kubeconfigYaml({ server: 'https://127.0.0.1:1', token: 't', caCert: 'PEM' }));
  assert.equal(y['current-context'], 'sandbox');
  assert.equal(y.contexts[0].context.namespace, 'default');
  assert.equal(Buffer.from(y.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), 'PEM');
  const docs = parseManifests('a: 1\nkind: X\n---\n---\nkind: List\napiVersion: v1\nitems: [{kind: Y}]\n');
  assert.deepEqual(docs.map((d) => d.kind), ['X', 'Y']);
});

test('addon-operator sandbox: a bad seed file or --listen value is a clear error and exit code 1', async () => {
  const run = (args: string[]): Promise<{ code: number | null; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'sandbox', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('exit', (code) => resolve({ code, stderr }));
    });
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-bad-'));
  try {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: missing\n');
    const [r1, r2] = await Promise.all([run(['--seed', bad]), run(['--listen', 'nope'])]);
    assert.equal(r1.code, 1);
    assert.match(r1.stderr, /bad\.yaml: ConfigMap missing\/x: namespaces "missing" not found/);
    assert.equal(r2.code, 1);
    assert.match(r2.stderr, /--listen: expected HOST:PORT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
