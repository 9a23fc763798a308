// Drives the real kubectl against the sandbox. Skipped (with the reason printed) where kubectl is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { findKubectl } from '../helpers/kubectl.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { waitFor } from '../helpers/wait.js';
import { crd as widgetCrd } from '../helpers/crd.js';

const KUBECTL = findKubectl();
const skip = KUBECTL ? false : 'kubectl is not installed on this machine: the kubectl end-to-end test is skipped';
if (skip) console.log(`# NOTICE: ${skip}`);

interface Ctx {
  sb: Sandbox;
  dir: string;
  run(args: string[], input?: string): Promise<string>;
  fail(args: string[]): Promise<string>;
  file(name: string, text: string): string;
}

async function withKubectl(fn: (c: Ctx) => Promise<void>): Promise<void> {
  const sb = await startSandbox();
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-kubectl-'));
  const env = { ...process.env, KUBECONFIG: sb.kubeconfigPath, HOME: dir, KUBECACHEDIR: join(dir, 'cache') };
  const exec = (args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = execFile(KUBECTL!, ['--cache-dir', join(dir, 'cache'), ...args], { env, timeout: 60000 }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as any).code ?? 1) : 0, stdout, stderr });
      });
      if (input !== undefined) child.stdin!.end(input);
    });
  const ctx: Ctx = {
    sb,
    dir,
    async run(args, input) {
      const r = await exec(args, input);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}${r.stdout}`);
      return r.stdout;
    },
    async fail(args) {
      const r = await exec(args);
      assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} should fail`);
      return r.stderr;
    },
    file(name, text) {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    },
  };
  try {
    await fn(ctx);
  } finally {
    await sb.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const DEPLOY = (image: string, replicas = 2): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: ${image}
        ports: [{containerPort: 80}]
        env: [{name: A, value: "1"}]
`;

test('kubectl: create, apply, get -o yaml, label, annotate, patch (all types), replace, scale, delete', { skip }, async () => {
  await withKubectl(async ({ run, fail, file }) => {
    assert.match(await run(['version', '-o', 'json']), /"gitVersion": "v1\.32/);
    // imperative generators send protobuf
    assert.match(await run(['create', 'namespace', 'team']), /namespace\/team created/);
    assert.match(await run(['create', 'configmap', 'cfg', '-n', 'team', '--from-literal=a=b']), /configmap\/cfg created/);
    assert.match(await run(['create', 'secret', 'generic', 'sec', '-n', 'team', '--from-literal=p=q']), /secret\/sec created/);
    assert.match(await run(['create', 'serviceaccount', 'bot', '-n', 'team']), /serviceaccount\/bot created/);
    assert.match(await run(['create', 'deployment', 'gen', '-n', 'team', '--image=nginx', '--port=80', '--replicas=2']), /deployment.apps\/gen created/);
    const gen = parse(await run(['get', 'deploy', 'gen', '-n', 'team', '-o', 'yaml']));
    // with the API server's defaults, as a real cluster shows them
    assert.deepEqual(gen.spec.template.spec.containers, [
      { name: 'nginx', image: 'nginx', imagePullPolicy: 'Always', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' },
    ]);
    assert.deepEqual(gen.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    assert.equal(gen.spec.replicas, 2);
    assert.match(await run(['create', 'service', 'clusterip', 'svc', '-n', 'team', '--tcp=80:8080']), /service\/svc created/);
    assert.equal((await run(['get', 'svc', 'svc', '-n', 'team', '-o', 'jsonpath={.spec.ports[0].targetPort}'])).trim(), '8080');
    assert.match(await run(['create', 'role', 'reader', '-n', 'team', '--verb=get', '--resource=pods']), /created/);
    assert.match(await run(['get', 'ns']), /team\s+Active/);
    assert.equal((await run(['auth', 'can-i', 'create', 'deployments'])).trim(), 'yes');
    // create -f (JSON on the wire)
    const cmFile = file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-file\ndata:\n  x: "1"\n');
    assert.match(await run(['create', '-f', cmFile]), /configmap\/from-file created/);
    assert.match(await fail(['create', '-f', cmFile]), /AlreadyExists|already exists/);

    const deploy = file('deploy.yaml', DEPLOY('nginx:1.25'));
    assert.match(await run(['apply', '-f', deploy]), /deployment.apps\/web created/);
    writeFileSync(deploy, DEPLOY('nginx:1.26', 3));
    assert.match(await run(['apply', '-f', deploy]), /deployment.apps\/web configured/);
    assert.match(await run(['apply', '-f', deploy]), /deployment.apps\/web unchanged/);
    const got = parse(await run(['get', 'deployment', 'web', '-o', 'yaml']));
    assert.equal(got.spec.replicas, 3);
    assert.equal(got.spec.template.spec.containers[0].image, 'nginx:1.26');
    assert.equal(got.metadata.generation, 2);
    assert.ok(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.match(await run(['get', 'deploy']), /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nweb\s+0\/3/);

    assert.match(await run(['label', 'deploy', 'web', 'tier=front']), /labeled/);
    assert.match(await run(['annotate', 'deploy', 'web', 'note=hello']), /annotated/);
    assert.match(await run(['get', 'deploy', '-l', 'tier=front', '-o', 'name']), /deployment.apps\/web/);
    assert.equal((await run(['get', 'deploy', '-l', 'tier!=front', '-o', 'name'])).trim(), '');
    // strategic (default), merge and json patches
    await run(['patch', 'deploy', 'web', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox"}]}}}}']);
    await run(['patch', 'deploy', 'web', '--type=merge', '-p', '{"spec":{"minReadySeconds":5}}']);
    await run(['patch', 'deploy', 'web', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":4}]']);
    const patched = parse(await run(['get', 'deploy', 'web', '-o', 'yaml']));
    assert.deepEqual(patched.spec.template.spec.containers.map((c: any) => c.name), ['nginx', 'side']);
    assert.equal(patched.spec.minReadySeconds, 5);
    assert.equal(patched.spec.replicas, 4);
    assert.equal(patched.metadata.labels.tier, 'front');
    assert.equal(patched.metadata.annotations.note, 'hello');
    assert.match(await run(['describe', 'deploy', 'web']), /Replicas:\s+4 desired/);
    assert.match(await run(['diff', '-f', deploy]).catch((e: Error) => e.message), /^\+ {2}replicas: 3$/m);
    assert.match(await run(['apply', '--dry-run=server', '-f', deploy]), /server dry run/);
    assert.match(await run(['scale', 'deploy', 'web', '--replicas=1']), /scaled/);
    assert.equal((await run(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}'])).trim(), '1');
    // replace
    const current = parse(await run(['get', 'configmap', 'from-file', '-o', 'yaml']));
    current.data.x = '2';
    const replaceFile = file('replace.yaml', JSON.stringify(current));
    assert.match(await run(['replace', '-f', replaceFile]), /replaced/);
    assert.match(await fail(['replace', '-f', replaceFile]), /Conflict|modified/);
    assert.equal((await run(['get', 'cm', 'from-file', '-o', 'jsonpath={.data.x}'])).trim(), '2');
    // server-side apply with conflicts
    writeFileSync(deploy, DEPLOY('nginx:1.27', 2));
    assert.match(await fail(['apply', '--server-side', '-f', deploy]), /conflict/i);
    assert.match(await run(['apply', '--server-side', '--force-conflicts', '-f', deploy]), /serverside-applied/);
    assert.equal((await run(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).trim(), 'nginx:1.27');
    // delete
    assert.match(await run(['delete', 'deploy', 'web']), /deleted/);
    assert.match(await fail(['get', 'deploy', 'web']), /NotFound|not found/);
    assert.match(await run(['delete', 'namespace', 'team']), /deleted/);
    await waitFor(async () => (await run(['get', 'ns', '-o', 'name'])).includes('team') === false, 'namespace removal');
  });
});

test('kubectl: get -w streams changes', { skip }, async () => {
  await withKubectl(async ({ run, sb, dir }) => {
    await run(['create', 'configmap', 'first', '--from-literal=a=1']);
    const child = spawn(KUBECTL!, ['--cache-dir', join(dir, 'cache'), 'get', 'configmaps', '-w'], {
      env: { ...process.env, KUBECONFIG: sb.kubeconfigPath, HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      await waitFor(() => /first/.test(out), `the initial listing (${out}${err})`, 30000);
      await waitFor(() => sb.watchCount() > 0, 'kubectl to open its watch', 30000);
      await run(['create', 'configmap', 'second', '--from-literal=b=2']);
      await waitFor(() => /second/.test(out), `the streamed change (${out}${err})`, 30000);
      assert.match(out, /^NAME\s+DATA\s+AGE/);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});

test('kubectl: CRD, then custom resources; kubectl wait', { skip }, async () => {
  await withKubectl(async ({ run, fail, file, sb }) => {
    const crd = file('crd.json', JSON.stringify(widgetCrd('Widget', { shortNames: ['wd'], printerColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }] })));
    assert.match(await run(['apply', '-f', crd]), /created/);
    assert.match(await run(['wait', '--for', 'condition=established', 'crd/widgets.example.com', '--timeout=30s']), /condition met/);
    assert.match(await run(['api-resources', '--api-group=example.com']), /widgets\s+wd\s+example.com\/v1\s+true\s+Widget/);
    const w = file('w.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: 3\n');
    assert.match(await run(['apply', '-f', w]), /widget.example.com\/w1 created/);
    assert.match(await run(['get', 'wd']), /^NAME\s+SIZE\s+AGE\nw1\s+3\s+/);
    assert.match(await fail(['patch', 'wd', 'w1', '-p', '{"spec":{"size":4}}']), /strategic-merge-patch\+json is not supported by example\.com\/v1, Kind=Widget: the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/);
    await run(['patch', 'wd', 'w1', '--type=merge', '-p', '{"spec":{"size":5}}']);
    await run(['patch', 'wd', 'w1', '--type=json', '-p', '[{"op":"add","path":"/spec/color","value":"red"}]']);
    await run(['label', 'wd', 'w1', 'x=y']);
    await run(['patch', 'wd', 'w1', '--subresource=status', '--type=merge', '-p', '{"status":{"ready":true}}']);
    assert.match(await run(['wait', '--for=jsonpath={.status.ready}=true', 'wd/w1', '--timeout=30s']), /condition met/);
    const got = parse(await run(['get', 'widget', 'w1', '-o', 'yaml']));
    assert.deepEqual(got.spec, { size: 5, color: 'red' });
    assert.equal(got.metadata.labels.x, 'y');
    assert.equal(got.status.ready, true);
    assert.equal(got.metadata.generation, 3);
    const waiting = run(['wait', '--for=delete', 'wd/w1', '--timeout=30s']);
    await waitFor(() => sb.watchCount() > 0, 'kubectl wait to watch the object');
    assert.match(await run(['delete', 'wd', 'w1']), /deleted/);
    assert.match(await waiting, /condition met|deleted/);
    assert.match(await run(['delete', '-f', crd]), /deleted/);
    assert.match(await fail(['get', 'widgets']), /doesn't have a resource type|the server could not find|NotFound/);
  });
});
