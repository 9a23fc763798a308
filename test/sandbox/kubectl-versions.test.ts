// Every kubectl version on this machine against the sandbox: the machine carries kubectl.1.27 ...
// kubectl.1.33 beside the `kubectl` dispatcher. One sandbox, one namespace per version, the commands a
// user runs first: get, apply (client-side and server-side), get -o wide, scale, diff, explain,
// api-resources, delete. Versions absent here are skipped (with the reason printed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startSandbox } from '../../src/sandbox/index.js';
import { crd } from '../helpers/crd.js';
import { kubectlVersions } from './kubectl-versions.js';

const VERSIONS = kubectlVersions();
const skip = VERSIONS.size ? false : 'no versioned kubectl (kubectl.1.NN) on this machine: the per-version kubectl test is skipped';
if (skip) console.log(`# NOTICE: ${skip}`);
else console.log(`# kubectl versions: ${[...VERSIONS.keys()].join(' ')}`);

const DEPLOY = (ns: string, image: string, replicas: number): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${ns}
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
`;

const CM = (ns: string, value: string): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${ns}
data:
  mode: "${value}"
`;

test('every kubectl version present: get, apply, server-side apply, -o wide, scale, diff, explain, api-resources, delete', { skip }, async () => {
  const sb = await startSandbox({ logRequestBodies: true });
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-kubectl-versions-'));
  try {
    for (const [version, bin] of VERSIONS) {
      const home = join(dir, version);
      const env = { ...process.env, KUBECONFIG: sb.kubeconfigPath, HOME: home };
      const exec = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
        new Promise((resolve) => {
          execFile(bin, ['--cache-dir', join(home, 'cache'), ...args], { env, timeout: 60000 }, (err, stdout, stderr) => {
            resolve({ code: err ? (typeof (err as any).code === 'number' ? (err as any).code : 1) : 0, stdout, stderr });
          });
        });
      const run = async (args: string[]): Promise<string> => {
        const r = await exec(args);
        if (r.code !== 0) throw new Error(`kubectl ${version} ${args.join(' ')} failed (${r.code}): ${r.stderr}${r.stdout}`);
        return r.stdout;
      };
      const file = (name: string, text: string): string => {
        const p = join(dir, `${version}-${name}`);
        writeFileSync(p, text);
        return p;
      };
      const ns = `v${version.replace('.', '-')}`;
      const at = `kubectl ${version}`;

      assert.match(await run(['create', 'namespace', ns]), /created/, at);
      const deploy = file('deploy.yaml', DEPLOY(ns, 'nginx:1.25', 2));
      // client-side apply: create, then a strategic patch of the container by someone else, then a
      // changed apply: kubectl's three-way patch must merge the containers by name (the merge keys
      // of the OpenAPI schemas), keeping the other writer's env
      assert.match(await run(['apply', '-f', deploy]), /deployment.apps\/web created/, at);
      await run(['patch', 'deploy', 'web', '-n', ns, '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"X","value":"1"}]}]}}}}']);
      writeFileSync(deploy, DEPLOY(ns, 'nginx:1.26', 3));
      sb.clearRequestLog();
      assert.match(await run(['apply', '-f', deploy]), /deployment.apps\/web configured/, at);
      const applyPatch = sb.requests.find((r) => r.method === 'PATCH' && r.path.endsWith('/deployments/web'));
      assert.equal(applyPatch?.contentType, 'application/strategic-merge-patch+json', at);
      const got = parse(await run(['get', 'deploy', 'web', '-n', ns, '-o', 'yaml']));
      assert.deepEqual(got.spec.template.spec.containers.map((c: any) => [c.name, c.image, c.env]), [['nginx', 'nginx:1.26', [{ name: 'X', value: '1' }]]], at);
      assert.equal(got.spec.replicas, 3, at);

      // get (a table), -o wide (the priority-1 columns)
      assert.match(await run(['get', 'deploy', '-n', ns]), /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nweb\s+0\/3\s/, at);
      assert.match(
        await run(['get', 'deploy', '-n', ns, '-o', 'wide']),
        /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nweb\s+0\/3\s+0\s+0\s+\S+\s+nginx\s+nginx:1\.26\s+app=web\n$/,
        at,
      );

      // server-side apply, then diff (no change: exit 0; a change: exit 1 and the +/- lines)
      const cm = file('cm.yaml', CM(ns, 'a'));
      assert.match(await run(['apply', '--server-side', '-f', cm]), /configmap\/settings serverside-applied/, at);
      assert.equal((await run(['get', 'cm', 'settings', '-n', ns, '-o', 'jsonpath={.data.mode}'])).trim(), 'a', at);
      const same = await exec(['diff', '--server-side', '-f', cm]);
      assert.equal(same.code, 0, `${at}: diff of an unchanged object: ${same.stderr}${same.stdout}`);
      writeFileSync(cm, CM(ns, 'b'));
      const changed = await exec(['diff', '-f', cm]);
      assert.equal(changed.code, 1, `${at}: diff of a changed object exits 1: ${changed.stderr}`);
      assert.match(changed.stdout, /^-\s+mode: a$/m, at);
      assert.match(changed.stdout, /^\+\s+mode: b$/m, at);
      assert.match(await run(['apply', '--server-side', '-f', cm]), /serverside-applied/, at);
      assert.equal((await run(['get', 'cm', 'settings', '-n', ns, '-o', 'jsonpath={.data.mode}'])).trim(), 'b', at);

      // scale
      assert.match(await run(['scale', 'deploy', 'web', '-n', ns, '--replicas=1']), /scaled/, at);
      assert.equal((await run(['get', 'deploy', 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas}'])).trim(), '1', at);

      // explain: built-in kinds, nested fields with their descriptions
      const explained = await run(['explain', 'deployment.spec.replicas']);
      assert.match(explained, /KIND:\s+Deployment/, at);
      assert.match(explained, /replicas\s+<integer>/, at);
      assert.match(explained, /Number of desired pods/, at);
      assert.match(await run(['explain', 'pods.spec.containers']), /FIELDS:[\s\S]*image\s+<string>/, at);

      // api-resources
      assert.match(await run(['api-resources']), /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m, at);

      // delete: by file, by name, the namespace
      assert.match(await run(['delete', '-f', deploy]), /deployment.apps "web" deleted/, at);
      assert.match(await run(['delete', 'cm', 'settings', '-n', ns]), /configmap "settings" deleted/, at);
      assert.equal((await run(['get', 'deploy,cm', '-n', ns, '-o', 'name', '--ignore-not-found'])).includes('web'), false, at);
      assert.match(await run(['delete', 'namespace', ns, '--wait=false']), /deleted/, at);
    }
  } finally {
    await sb.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kubectl explain on a custom resource shows its CRD schema (newest kubectl present)', { skip }, async () => {
  const [version, bin] = [...VERSIONS].at(-1)!;
  const sb = await startSandbox({
    seedObjects: [
      crd('Widget', {
        schema: {
          type: 'object',
          properties: { spec: { type: 'object', properties: { size: { type: 'integer', description: 'How big the widget is.' } } } },
        },
      }),
    ],
  });
  const home = mkdtempSync(join(tmpdir(), 'sandbox-kubectl-explain-'));
  try {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(bin, ['--cache-dir', join(home, 'cache'), 'explain', 'widgets.spec.size'], { env: { ...process.env, KUBECONFIG: sb.kubeconfigPath, HOME: home }, timeout: 60000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`kubectl ${version} explain: ${stderr}`)) : resolve(stdout),
      ),
    );
    assert.match(out, /KIND:\s+Widget/);
    assert.match(out, /size\s+<integer>/);
    assert.match(out, /How big the widget is\./);
  } finally {
    await sb.stop();
    rmSync(home, { recursive: true, force: true });
  }
});
