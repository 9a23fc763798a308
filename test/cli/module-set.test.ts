/**
 * A module set of 20 modules with schemas in the style of a large real one (x-doc-* and x-examples
 * keys, a misspelt keyword, RE2 named groups, duplicate keys, null defaults, CEL rules with and
 * without oldSelf) loads with `start --sandbox`, converges, and rejects a bad ConfigMap edit while
 * keeping the previous values; a good edit after it is applied.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { makeTree } from '../helpers/tree.js';
import { requestJson } from '../../src/kube/http.js';
import { waitFor } from '../helpers/wait.js';

const MAIN = join(import.meta.dirname, '../../src/cli/main.ts');
const MODULES = 20;

const name = (i: number) => `svc${String(i).padStart(2, '0')}`;

function configSchema(key: string): string {
  return `type: object
x-doc-search: [${key}, service]
x-examples:
  - domain: ${key}.example.com
    replicas: 2
x-deckhouse-validations:
  - expression: "!has(self.replicas) || !has(self.maxReplicas) || self.replicas <= self.maxReplicas"
    message: "replicas must not exceed maxReplicas"
properties:
  domain:
    type: string
    x-doc-default: "<name>.example.com"
    pattern: "^(?P<host>[a-z0-9-]+)\\\\.(?P<zone>[a-z0-9.-]+)$"
    attern: "this misspelt keyword is ignored, as in Go"
    x-deckhouse-validations:
      - expression: "self == oldSelf"
        message: "domain is immutable"
  replicas:
    type: integer
    type: integer
    minimum: 1
    default: 1
  maxReplicas:
    type: integer
    default: 10
  storageClass:
    type: string
    default: null
    x-doc-d8Revision: ee
  version:
    type: string
    default: "1.0"
    pattern: "^(?P<major>\\\\d+)\\\\.(?P<minor>\\\\d+)$"
`;
}

const VALUES_SCHEMA = `x-extend:
  schema: config-values.yaml
type: object
x-required-for-helm: [internal]
properties:
  internal:
    type: object
    default: {}
    properties:
      ready: {type: boolean, default: true}
`;

function tree(): Record<string, string> {
  const files: Record<string, string> = {
    'global-hooks/openapi/config-values.yaml': `type: object
required: [clusterName]
properties:
  clusterName:
    type: string
    pattern: "^[a-z0-9-]+$"
    x-examples: [main]
`,
  };
  const flags: string[] = [];
  for (let i = 1; i <= MODULES; i++) {
    const key = name(i);
    const dir = `modules/${String(i).padStart(3, '0')}-${key}`;
    flags.push(`${key}Enabled: true`);
    files[`${dir}/values.yaml`] = `${key}:\n  domain: ${key}.example.com\n`;
    files[`${dir}/openapi/config-values.yaml`] = configSchema(key);
    files[`${dir}/openapi/values.yaml`] = VALUES_SCHEMA;
    files[`${dir}/Chart.yaml`] = `apiVersion: v2\nname: ${key}\nversion: 0.1.0\n`;
    files[`${dir}/templates/cm.yaml`] = `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${key}-settings
data:
  domain: {{ .Values.${key}.domain | quote }}
  replicas: {{ .Values.${key}.replicas | quote }}
  cluster: {{ .Values.global.clusterName | default "none" | quote }}
  storageClass: {{ hasKey .Values.${key} "storageClass" | quote }}
`;
  }
  files['modules/values.yaml'] = flags.join('\n') + '\n';
  return files;
}

function configMap(data: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: 'addons' }, data };
}

test('20 modules with real-style schemas load on the sandbox, converge, and a bad ConfigMap edit is rejected keeping the previous values', async () => {
  const root = makeTree(tree());
  const kubeconfig = join(root, 'kubeconfig');
  const seed = join(root, 'seed.json');
  const initial = { global: 'clusterName: main\n', svc01: 'domain: one.example.com\nreplicas: 2\n', svc02: 'replicas: 3\n' };
  writeFileSync(seed, JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'addons' } }) + '\n---\n' + JSON.stringify(configMap(initial)) + '\n');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', MAIN, 'start', '--sandbox', '--sandbox-kubeconfig', kubeconfig, '--sandbox-seed', seed, '--modules-dir', join(root, 'modules'), '--global-hooks-dir', join(root, 'global-hooks'), '--tmp-dir', join(root, 'tmp'), '--namespace', 'addons', '--log-type', 'json', '--listen-port', '0', '--debug-unix-socket', join(root, 'debug.socket')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await waitFor(() => out.includes('startup converge done') || child.exitCode !== null, 'the first converge', 150_000);
    assert.match(out, /startup converge done/, out.slice(-3000));
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const settings = (key: string) => requestJson<{ data: Record<string, string> }>(kc, 'GET', `/api/v1/namespaces/addons/configmaps/${key}-settings`).then((c) => c.data);
    for (let i = 1; i <= MODULES; i++) {
      const data = await settings(name(i));
      assert.equal(data.cluster, 'main');
      assert.equal(data.storageClass, 'false', 'default: null is no default');
    }
    assert.deepEqual(await settings('svc01'), { domain: 'one.example.com', replicas: '2', cluster: 'main', storageClass: 'false' });
    assert.equal((await settings('svc02')).replicas, '3');

    // a bad edit: svc01's domain is immutable (a transition rule), svc03's replicas exceed maxReplicas (a plain rule)
    const cmPath = '/api/v1/namespaces/addons/configmaps/addon-operator';
    const bad = { ...initial, svc01: 'domain: two.example.com\nreplicas: 2\n', svc02: 'replicas: 4\n', svc03: 'replicas: 50\nmaxReplicas: 5\n' };
    await requestJson(kc, 'PUT', cmPath, {}, configMap(bad));
    await waitFor(() => /keeps the last valid one/.test(out), 'the bad edit to be rejected');
    const rejection = out.split('\n').find((l) => l.includes('keeps the last valid one'))!;
    assert.match(rejection, /svc01\.domain: domain is immutable/);
    assert.match(rejection, /svc03: replicas must not exceed maxReplicas/);

    // a good edit afterwards is applied; svc01 kept its domain all along
    await requestJson(kc, 'PUT', cmPath, {}, configMap({ ...initial, svc02: 'replicas: 5\n' }));
    await waitFor(async () => (await settings('svc02')).replicas === '5', 'the good edit to reach svc02');
    assert.equal((await settings('svc01')).domain, 'one.example.com');
    assert.equal((await settings('svc03')).replicas, '1');
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, out.slice(-2000));
});
