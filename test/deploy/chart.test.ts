// deploy/chart rendered by our own `helm template`, applied to the sandbox (server-side apply), and
// the operator started as its Deployment starts it (the container's args and env, the image's ENV
// from deploy/Dockerfile) against that sandbox: it converges, takes
// the HA Lease, and every request it makes is one the chart's Role allows. deploy/manifests/ is the
// chart rendered by scripts/gen-manifests.mjs and must be up to date.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { runHelmTemplate } from '../../src/cli/helm-template.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { RestMapper } from '../../src/kube/mapper.js';
import { requestJson } from '../../src/kube/http.js';
import { MAIN, bashHook, waitFor } from '../helpers/operator-process.js';

const root = join(import.meta.dirname, '..', '..');
const chart = join(root, 'deploy/chart');
const NS = 'addon-operator';
type Obj = Record<string, any>;

function render(flags: string[] = []): Obj[] {
  let out = '';
  let err = '';
  const code = runHelmTemplate(['addon-operator', chart, '--namespace', NS, ...flags], { out: (t) => (out += t), err: (t) => (err += t), readStdin: () => Buffer.alloc(0) });
  assert.equal(code, 0, err);
  return parseAllDocuments(out).map((d) => d.toJS() as Obj).filter(Boolean);
}
const find = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind);
const one = (objs: Obj[], kind: string) => {
  const found = find(objs, kind);
  assert.equal(found.length, 1, `one ${kind}`);
  return found[0]!;
};

void test('defaults: one replica replaced with Recreate, probes on /healthz and /readyz, a read-only root with /tmp writable, no Lease rights', () => {
  const objs = render();
  assert.deepEqual(objs.map((o) => o.kind).sort(), ['ConfigMap', 'Deployment', 'Role', 'RoleBinding', 'Service', 'ServiceAccount']);
  const d = one(objs, 'Deployment');
  assert.equal(d.spec.replicas, 1);
  assert.equal(d.spec.strategy.type, 'Recreate');
  const pod = d.spec.template.spec;
  const c = pod.containers[0];
  assert.equal(pod.serviceAccountName, one(objs, 'ServiceAccount').metadata.name);
  assert.deepEqual(c.livenessProbe.httpGet, { path: '/healthz', port: 'http-metrics' });
  assert.deepEqual(c.readinessProbe.httpGet, { path: '/readyz', port: 'http-metrics' });
  assert.deepEqual(c.ports, [{ name: 'http-metrics', containerPort: 9650, protocol: 'TCP' }]);
  assert.equal(c.securityContext.readOnlyRootFilesystem, true);
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.deepEqual(c.volumeMounts, [{ name: 'tmp', mountPath: '/tmp' }]);
  assert.ok(!c.env.some((e: Obj) => e.name === 'ADDON_OPERATOR_HA'));
  const role = one(objs, 'Role');
  assert.ok(!role.rules.some((r: Obj) => r.resources.includes('leases')));
  const svc = one(objs, 'Service');
  assert.deepEqual(svc.spec.selector, d.spec.selector.matchLabels);
  assert.deepEqual(svc.spec.ports, [{ name: 'http-metrics', port: 9650, targetPort: 'http-metrics', protocol: 'TCP' }]);
  assert.equal(one(objs, 'ConfigMap').metadata.annotations['helm.sh/resource-policy'], 'keep');
});

void test('options: HA (two replicas, the Lease rights, the pod IP), ServiceMonitor, cluster rules, cluster-admin, ConfigMap data', () => {
  const objs = render(['--set', 'ha.enabled=true,serviceMonitor.enabled=true', '--set-json', 'rbac.clusterRules=[{"apiGroups":["apps"],"resources":["deployments"],"verbs":["get"]}]', '--set-json', 'configMap.data={"global":{"a":1},"fooEnabled":"true"}']);
  const d = one(objs, 'Deployment');
  assert.equal(d.spec.replicas, 2);
  assert.equal(d.spec.strategy.type, 'RollingUpdate');
  const env = d.spec.template.spec.containers[0].env as Obj[];
  assert.equal(env.find((e) => e.name === 'ADDON_OPERATOR_HA')?.value, 'true');
  assert.deepEqual(env.find((e) => e.name === 'ADDON_OPERATOR_LISTEN_ADDRESS')?.valueFrom, { fieldRef: { fieldPath: 'status.podIP' } });
  assert.deepEqual(one(objs, 'Role').rules.find((r: Obj) => r.resources.includes('leases')), { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] });
  const sm = one(objs, 'ServiceMonitor');
  assert.deepEqual(sm.spec.endpoints.map((e: Obj) => e.path), ['/metrics', '/metrics/hooks']);
  assert.deepEqual(one(objs, 'ClusterRole').rules, [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }]);
  assert.equal(one(objs, 'ClusterRoleBinding').roleRef.name, 'addon-operator');
  assert.deepEqual(one(objs, 'ConfigMap').data, { global: 'a: 1', fooEnabled: 'true' });
  const admin = render(['--set', 'rbac.clusterAdmin=true']);
  assert.equal(find(admin, 'ClusterRole').length, 0);
  assert.equal(one(admin, 'ClusterRoleBinding').roleRef.name, 'cluster-admin');
  const none = render(['--set', 'rbac.create=false,serviceAccount.create=false,serviceAccount.name=ops']);
  assert.equal(find(none, 'Role').length + find(none, 'ServiceAccount').length, 0);
  assert.equal(one(none, 'Deployment').spec.template.spec.serviceAccountName, 'ops');
});

void test('deploy/manifests/ is the chart rendered by scripts/gen-manifests.mjs', () => {
  try {
    execFileSync(process.execPath, [join(root, 'scripts/gen-manifests.mjs'), '--check'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    assert.fail(`deploy/manifests/ is stale: ${(e as { stderr: string }).stderr}`);
  }
  const ha = parseAllDocuments(readFileSync(join(root, 'deploy/manifests/addon-operator-ha.yaml'), 'utf8')).map((d) => d.toJS() as Obj);
  assert.deepEqual(ha[0], { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  assert.equal(one(ha, 'Deployment').spec.replicas, 2);
});

/** Server-side apply of each object, as `kubectl apply --server-side` sends it. */
async function apply(kc: KubeConfig, objs: Obj[]): Promise<void> {
  const mapper = new RestMapper(kc);
  for (const o of objs) {
    const info = await mapper.resolve(o.apiVersion, o.kind);
    const path = mapper.objectPath(info, info.namespaced ? (o.metadata.namespace ?? NS) : undefined, o.metadata.name);
    await requestJson(kc, 'PATCH', path, { fieldManager: 'chart-test', force: 'true' }, JSON.stringify(o), 'application/apply-patch+yaml');
  }
}

/** What RBAC verb and resource a request needs; undefined for discovery (allowed to every authenticated user). */
function needs(method: string, path: string, query: Record<string, string>): { group: string; resource: string; verb: string; namespace?: string } | undefined {
  const m = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)(?:\/namespaces\/([^/]+))?\/([^/]+)(?:\/([^/]+))?/.exec(path);
  if (!m) return undefined;
  const [, group = '', namespace, resource, name] = m;
  if (!namespace && resource === 'namespaces' && name === undefined && method === 'GET' && !query.watch) return { group, resource: resource!, verb: 'list' };
  const verb =
    method === 'GET' ? (name ? 'get' : query.watch === 'true' || query.watch === '1' ? 'watch' : 'list') : ({ POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: name ? 'delete' : 'deletecollection' } as Record<string, string>)[method]!;
  return { group, resource: resource!, verb, ...(namespace ? { namespace } : {}) };
}

function fakeRoot(): { dir: string; remap: (v: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), 'chart-pod-'));
  for (const d of ['tmp', 'modules/001-demo/templates', 'modules/001-demo/hooks', 'global-hooks']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'modules/001-demo/Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.1.0\n');
  writeFileSync(join(dir, 'modules/001-demo/values.yaml'), 'demo:\n  message: default\n');
  writeFileSync(join(dir, 'modules/001-demo/templates/cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo-out\ndata:\n  message: {{ .Values.demo.message | quote }}\n');
  const hook = bashHook({ configVersion: 'v1', kubernetes: [{ name: 'cms', apiVersion: 'v1', kind: 'ConfigMap', namespace: { nameSelector: { matchNames: [NS] } } }] }, 'true');
  writeFileSync(join(dir, 'modules/001-demo/hooks/watch.sh'), hook, { mode: 0o755 });
  // the container's paths (the image's /modules, /global-hooks and the emptyDir at /tmp) inside dir
  const remap = (v: string) => v.replace(/(^|=)\/(tmp|modules|global-hooks)(?=\/|$)/, (_all, pre: string, p: string) => `${pre}${join(dir, p)}`);
  return { dir, remap };
}

/** The image's ENV lines (deploy/Dockerfile's last stage). */
function imageEnv(): Record<string, string> {
  const text = readFileSync(join(root, 'deploy/Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const last = text.slice(text.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const line of last.split('\n').filter((l) => l.startsWith('ENV '))) {
    for (const m of line.matchAll(/(\w+)=(\S+)/g)) env[m[1]!] = m[2]!;
  }
  return env;
}

void test('applied to the sandbox, the HA Deployment\'s container converges as the chart runs it, with only the rights of its Role', async () => {
  const values = join(mkdtempSync(join(tmpdir(), 'chart-values-')), 'values.yaml');
  writeFileSync(values, 'ha:\n  enabled: true\nconfigMap:\n  data:\n    demoEnabled: "true"\n    demo:\n      message: from the chart\n');
  const objs = render(['-f', values]);
  const sb: Sandbox = await startSandbox({ seedObjects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }] });
  const kc = new KubeConfig();
  kc.loadFromFile(sb.kubeconfigPath);
  const { dir, remap } = fakeRoot();
  let child: ReturnType<typeof spawn> | undefined;
  try {
    await apply(kc, objs);
    for (const o of objs) assert.ok(sb.getObject(o.apiVersion, o.kind, o.metadata.namespace ?? '', o.metadata.name), `${o.kind} ${o.metadata.name} stored`);
    const d = one(objs, 'Deployment');

    const c = d.spec.template.spec.containers[0];
    const fieldRefs: Record<string, string> = { 'metadata.namespace': NS, 'metadata.name': 'addon-operator-7d9f-abcde', 'status.podIP': '127.0.0.1' };
    const env: Record<string, string> = { PATH: process.env.PATH!, KUBE_CONFIG: sb.kubeconfigPath };
    for (const [k, v] of Object.entries(imageEnv())) env[k] = remap(v);
    for (const e of c.env as Obj[]) env[e.name] = e.value ?? fieldRefs[e.valueFrom.fieldRef.fieldPath]!;
    env.ADDON_OPERATOR_HA_LEASE_DURATION = '6s';
    env.ADDON_OPERATOR_HA_RENEW_DEADLINE = '4s';
    env.ADDON_OPERATOR_HA_RETRY_PERIOD = '1s';
    // the container's port is fixed; here any free one
    const args = (c.args as string[]).map((a) => (a.startsWith('--listen-port=') ? '--listen-port=0' : remap(a)));
    sb.clearRequestLog();
    child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'start', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (b: Buffer) => (out += b));
    child.stderr!.on('data', (b: Buffer) => (out += b));
    let port = 0;
    await waitFor(() => {
      port ||= Number(/"address":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(out)?.[1] ?? 0);
      return port > 0;
    }, `the HTTP server (output: ${out})`);
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200, 'readyz');
    assert.match(out, /"level":"info"/, 'JSON logs, as the chart sets');
    assert.equal(sb.getObject('v1', 'ConfigMap', NS, 'demo-out')?.data?.message, 'from the chart', "the module's values come from the chart's ConfigMap");
    const lease = sb.getObject('coordination.k8s.io/v1', 'Lease', NS, 'addon-operator-leader-election');
    assert.equal(lease?.spec?.holderIdentity, `addon-operator-7d9f-abcde.127-0-0-1.${NS}.pod`);

    const role = sb.getObject('rbac.authorization.k8s.io/v1', 'Role', NS, one(objs, 'Role').metadata.name)!;
    const allowed = (n: NonNullable<ReturnType<typeof needs>>) =>
      n.namespace === NS && (role.rules as Obj[]).some((r) => r.apiGroups.includes(n.group) && r.resources.includes(n.resource) && r.verbs.includes(n.verb));
    const requests = sb.requests.map((r) => ({ r, n: needs(r.method, r.path, r.query) })).filter((x) => x.n);
    assert.ok(requests.length > 5, 'the operator made requests');
    for (const verb of ['list', 'watch', 'create', 'get']) assert.ok(requests.some((x) => x.n!.verb === verb), `a ${verb} was made`);
    const denied = requests.filter((x) => !allowed(x.n!)).map((x) => `${x.r.method} ${x.r.path}`);
    assert.deepEqual(denied, [], "requests the chart's Role does not allow");
  } finally {
    child?.kill('SIGTERM');
    if (child && child.exitCode === null) await new Promise((r) => child!.once('exit', r));
    await sb.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
