// The release engine keeping releases true against the sandbox: no-change runs write nothing, the
// resources monitor's watches notice deleted objects (one event per burst, for the owning release
// only) and drifted managed fields (fix / warn / off), also drift made while the operator was down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestJson } from '../../src/kube/http.js';
import { HelmReleases } from '../../src/helm/release-engine.js';
import type { DriftMode, DriftReport } from '../../src/helm/release-object-monitor.js';
import { displayField, fieldSetOf } from '../../src/helm/release-object-monitor.js';
import type { JsonObject } from '../../src/util/json.js';
import { makeTree } from '../helpers/tree.js';
import { waitFor } from '../helpers/operator-process.js';
import { cluster, getObject } from './helpers.js';

const NS = 'apps';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function chart(name: string): string {
  return makeTree({
    'Chart.yaml': `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`,
    'templates/cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-config\n  labels:\n    app: ${name}\ndata:\n  replicas: {{ .Values.replicas | quote }}\n  mode: fast\n`,
    'templates/svc.yaml': `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\nspec:\n  ports:\n  - port: 80\n`,
    'templates/role.yaml': `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${name}-reader\nrules: []\n`,
    'templates/hook.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-hook\n  annotations:\n    helm.sh/hook: post-install\ndata: {}\n`,
  });
}

const cmPath = (name: string) => `/api/v1/namespaces/${NS}/configmaps/${name}`;

interface Events {
  absent: Array<{ release: string; resources: string[] }>;
  drift: DriftReport[];
}

async function setup(t: Parameters<typeof cluster>[0], drift: DriftMode = 'fix') {
  const c = await cluster(t, [NS]);
  const events: Events = { absent: [], drift: [] };
  const warnings: string[] = [];
  const helm = new HelmReleases({
    kc: c.kc,
    mapper: c.mapper,
    log: { info: () => {}, warn: (m) => warnings.push(m) },
    monitor: { drift, burstMs: 100, onAbsent: (release, resources) => events.absent.push({ release, resources }), onDrift: (r) => events.drift.push(r) },
  });
  t.after(() => helm.stop());
  const request = (name: string, replicas = 1) => ({ release: name, namespace: NS, chartDir: chart(name), values: { replicas } as JsonObject });
  return { ...c, helm, events, warnings, request };
}

/** Installs the release and waits until the monitor's watches have listed its objects. */
async function installWatched(helm: HelmReleases, req: { release: string; namespace: string; chartDir: string; values: JsonObject }) {
  assert.equal(await helm.upgradeInstall(req), 'installed');
  await waitFor(() => (helm.watched()[req.release]?.length ?? 0) > 0, 'the release to be watched', 10_000);
  await waitFor(async () => (await helm.absentObjects(req.release, req.namespace)).length === 0, 'the objects', 10_000);
}

test('a no-change run writes nothing: no release Secret, no apply, no annotation touched (with and without the monitor)', async (t) => {
  for (const monitored of [false, true]) {
    const { sandbox, kc, mapper } = await cluster(t, [NS]);
    const helm = new HelmReleases({ kc, mapper, ...(monitored ? { monitor: {} } : {}) });
    t.after(() => helm.stop());
    const chartDir = chart('demo');
    const req = (replicas: number) => ({ release: 'demo', namespace: NS, chartDir, values: { replicas } });
    assert.equal(await helm.upgradeInstall(req(1)), 'installed');
    const before = (await getObject(kc, cmPath('demo-config'))).metadata.resourceVersion;
    sandbox.clearRequestLog();
    for (let i = 0; i < 5; i++) assert.equal(await helm.upgradeInstall(req(1)), 'unchanged');
    const writes = sandbox.requests.filter((r) => WRITES.has(r.method));
    assert.deepEqual(writes.map((r) => `${r.method} ${r.path}`), [], `monitored=${monitored}`);
    assert.ok(sandbox.requests.length > 0, 'the request log records the reads');
    assert.equal((await getObject(kc, cmPath('demo-config'))).metadata.resourceVersion, before);
    // the counter can fail: a changed run writes
    sandbox.clearRequestLog();
    assert.equal(await helm.upgradeInstall(req(2)), 'upgraded');
    assert.ok(sandbox.requests.some((r) => r.method === 'PATCH' && r.path === cmPath('demo-config')));
    assert.ok(sandbox.requests.some((r) => r.method === 'POST' && r.path.endsWith('/secrets')));
  }
});

test('an install and an upgrade list the release history once, pruning included (with and without the monitor); the monitor watches the deployed revision', async (t) => {
  for (const monitored of [false, true]) {
    const { sandbox, kc, mapper } = await cluster(t, [NS]);
    const helm = new HelmReleases({ kc, mapper, historyMax: 2, ...(monitored ? { monitor: {} } : {}) });
    t.after(() => helm.stop());
    const chartDir = chart('demo');
    const req = (replicas: number) => ({ release: 'demo', namespace: NS, chartDir, values: { replicas } });
    const historyLists = () => sandbox.requests.filter((r) => r.method === 'GET' && r.path === `/api/v1/namespaces/${NS}/secrets` && r.query.watch !== 'true').length;
    sandbox.clearRequestLog();
    assert.equal(await helm.upgradeInstall(req(1)), 'installed');
    assert.equal(historyLists(), 1, `install, monitored=${monitored}`);
    for (const replicas of [2, 3]) {
      sandbox.clearRequestLog();
      assert.equal(await helm.upgradeInstall(req(replicas)), 'upgraded');
      assert.equal(historyLists(), 1, `upgrade to ${replicas}, monitored=${monitored}`);
    }
    // historyMax 2: the first revision went with the third
    assert.deepEqual((await helm.absentObjects('demo', NS)).length, 0);
    const secrets = await requestJson<{ items: { metadata: { name: string } }[] }>(kc, 'GET', `/api/v1/namespaces/${NS}/secrets`, { labelSelector: 'owner=helm,name=demo' });
    assert.deepEqual(secrets.items.map((s) => s.metadata.name).sort(), ['sh.helm.release.v1.demo.v2', 'sh.helm.release.v1.demo.v3']);
    if (monitored) {
      await waitFor(() => (helm.watched().demo?.length ?? 0) > 0, 'the release to be watched', 10_000);
      assert.deepEqual(helm.watched().demo, ['/ClusterRole/demo-reader', `${NS}/ConfigMap/demo-config`, `${NS}/Service/demo`]);
    }
  }
});

test('absent objects: deleted by hand → one event per burst, for the owning release only; hook objects and other releases are not watched', async (t) => {
  const { kc, helm, events, request } = await setup(t);
  await installWatched(helm, request('one'));
  await installWatched(helm, request('two'));
  assert.deepEqual(helm.watched(), {
    one: [`/ClusterRole/one-reader`, `${NS}/ConfigMap/one-config`, `${NS}/Service/one`],
    two: [`/ClusterRole/two-reader`, `${NS}/ConfigMap/two-config`, `${NS}/Service/two`],
  });
  // one watch per resource and namespace (the cluster for cluster-scoped kinds), shared by the releases,
  // and one of the EndpointSlices of the namespace where they have Services (their health)
  assert.deepEqual((helm as unknown as { monitor: { watches(): string[] } }).monitor.watches(), [
    `/api/v1/namespaces/${NS}/configmaps`, `/api/v1/namespaces/${NS}/services`, `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`, '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  ]);

  // a burst of deletions of release one
  await requestJson(kc, 'DELETE', cmPath('one-config'));
  await requestJson(kc, 'DELETE', `/api/v1/namespaces/${NS}/services/one`);
  await waitFor(() => events.absent.length > 0, 'the absent event', 10_000);
  // a later deletion of the same release, before its next run: no second event
  await requestJson(kc, 'DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/one-reader');
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(events.absent.length, 1);
  assert.equal(events.absent[0]!.release, 'one');
  assert.ok(events.absent[0]!.resources.includes(`${NS}/ConfigMap/one-config`));
  assert.ok(events.absent[0]!.resources.includes(`${NS}/Service/one`));

  // the module run the event causes restores them (the watch tells the no-change check what is absent)
  assert.equal(await helm.upgradeInstall(request('one')), 'upgraded');
  assert.ok(await getObject(kc, cmPath('one-config')));
  assert.ok(await getObject(kc, `/api/v1/namespaces/${NS}/services/one`));
  assert.ok(await getObject(kc, '/apis/rbac.authorization.k8s.io/v1/clusterroles/one-reader'));
  // and its own applies raised nothing
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(events.absent.length, 1);

  // a new burst after the run is a new event
  await requestJson(kc, 'DELETE', cmPath('one-config'));
  await waitFor(() => events.absent.length === 2, 'the second absent event', 10_000);
  assert.deepEqual(events.absent[1], { release: 'one', resources: [`${NS}/ConfigMap/one-config`] });
  assert.ok(!events.absent.some((e) => e.release === 'two'));

  // uninstall ends the watches of what no release owns any more
  assert.equal(await helm.uninstall('one', NS), true);
  assert.ok((helm as unknown as { monitor: { watches(): string[] } }).monitor.watches().includes(`/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`), 'the EndpointSlice watch stays for the Services of two');
  assert.equal(await helm.uninstall('two', NS), true);
  assert.deepEqual(helm.watched(), {});
  assert.deepEqual((helm as unknown as { monitor: { watches(): string[] } }).monitor.watches(), []);
  assert.equal(events.absent.length, 2, 'uninstalling is no absent event');
});

test('drift fix: a managed field changed by another manager is restored by re-applying that object alone; fields of other managers stay', async (t) => {
  const { sandbox, kc, helm, events, warnings, request } = await setup(t, 'fix');
  await installWatched(helm, request('demo', 3));
  sandbox.clearRequestLog();
  // kubectl edit: a managed field changed, and a field of its own added
  const cm = await getObject(kc, cmPath('demo-config'));
  cm.data.replicas = '9';
  cm.data.extra = 'mine';
  await requestJson(kc, 'PUT', cmPath('demo-config'), { fieldManager: 'kubectl-edit' }, cm);
  await waitFor(async () => (await getObject(kc, cmPath('demo-config'))).data.replicas === '3', 'the field restored', 10_000);
  const fixed = await getObject(kc, cmPath('demo-config'));
  assert.deepEqual(fixed.data, { replicas: '3', mode: 'fast', extra: 'mine' });
  assert.deepEqual(events.drift, [{ release: 'demo', resource: `${NS}/ConfigMap/demo-config`, paths: ['.data.replicas'], action: 'fixed' }]);
  assert.ok(warnings.some((w) => w.includes(`${NS}/ConfigMap/demo-config drifted: .data.replicas`)), warnings.join('\n'));
  // that object alone was applied again; no release record written
  const writes = sandbox.requests.filter((r) => WRITES.has(r.method) && !(r.method === 'PUT' && r.path === cmPath('demo-config')));
  assert.deepEqual(writes.map((r) => `${r.method} ${r.path}`), [`PATCH ${cmPath('demo-config')}`]);
  // a label removed by hand (the object leaves the watch's selector): restored too
  const again = await getObject(kc, cmPath('demo-config'));
  delete again.metadata.labels.app;
  await requestJson(kc, 'PUT', cmPath('demo-config'), { fieldManager: 'kubectl-edit' }, again);
  await waitFor(async () => (await getObject(kc, cmPath('demo-config'))).metadata.labels?.app === 'demo', 'the label restored', 10_000);
  assert.equal(events.drift.length, 2);
  assert.deepEqual(events.drift[1]!.paths, ['.metadata.labels.app']);
  assert.equal(events.absent.length, 0, 'a drifted object is not absent');

  // an edit while the release is being upgraded (its events are not looked at then) is checked when the run ends
  const monitor = (helm as unknown as { monitor: { pause(r: string, n: string): void; resume(r: string, n: string): void; releases: Map<string, { seenWhilePaused: Map<string, unknown> }> } }).monitor;
  monitor.pause('demo', NS);
  const during = await getObject(kc, cmPath('demo-config'));
  during.data.mode = 'slow';
  await requestJson(kc, 'PUT', cmPath('demo-config'), { fieldManager: 'kubectl-edit' }, during);
  await waitFor(() => (monitor.releases.get(`${NS}/demo`)?.seenWhilePaused.size ?? 0) > 0, 'the edit to be seen', 10_000);
  assert.equal(events.drift.length, 2);
  monitor.resume('demo', NS);
  await waitFor(async () => (await getObject(kc, cmPath('demo-config'))).data.mode === 'fast', 'the field restored after the run', 10_000);
  assert.deepEqual(events.drift[2]!.paths, ['.data.mode']);
});

test('drift made while the operator was down is found at the next start: reported (warn) or taken back (fix); a start with nothing drifted sends no write and no dry run; a deleted object is re-installed', async (t) => {
  const { sandbox, kc, mapper } = await cluster(t, [NS]);
  const req = { release: 'demo', namespace: NS, chartDir: chart('demo'), values: { replicas: 3 } as JsonObject };
  assert.equal(await new HelmReleases({ kc, mapper }).upgradeInstall(req), 'installed');
  /** An operator start: the run finds the release unchanged, the monitor's watches list its objects. */
  const start = async (drift: DriftMode) => {
    const reports: DriftReport[] = [];
    const warnings: string[] = [];
    const helm = new HelmReleases({ kc, mapper, log: { info: () => {}, warn: (m) => warnings.push(m) }, monitor: { drift, onDrift: (r) => reports.push(r) } });
    t.after(() => helm.stop());
    assert.equal(await helm.upgradeInstall(req), 'unchanged');
    // its absent check came from the watches' lists, not from a read of each object
    const objectReads = sandbox.requests.filter((r) => r.method === 'GET' && /\/(configmaps|services|clusterroles)\/demo/.test(r.path)).map((r) => r.path);
    await waitFor(() => (helm.watched().demo?.length ?? 0) > 0, 'the release to be watched', 10_000);
    await waitFor(async () => (await helm.absentObjects('demo', NS)).length === 0, 'the objects', 10_000);
    return { helm, reports, warnings, objectReads };
  };
  // nothing drifted: the live values cover the manifest's, so not even a dry run is sent
  sandbox.clearRequestLog();
  const clean = await start('fix');
  await clean.helm.stop();
  assert.deepEqual(sandbox.requests.filter((r) => WRITES.has(r.method)).map((r) => `${r.method} ${r.path}`), []);
  assert.deepEqual(clean.reports, []);
  assert.deepEqual(clean.objectReads, []);

  // while down: kubectl edit changes a managed field and removes another, and adds one of its own
  const cm = await getObject(kc, cmPath('demo-config'));
  cm.data.replicas = '9';
  delete cm.data.mode;
  cm.data.extra = 'mine';
  await requestJson(kc, 'PUT', cmPath('demo-config'), { fieldManager: 'kubectl-edit' }, cm);
  const drifted = { release: 'demo', resource: `${NS}/ConfigMap/demo-config`, paths: ['.data.mode', '.data.replicas'] };

  // warn: reported, nothing written
  sandbox.clearRequestLog();
  const warn = await start('warn');
  await waitFor(() => warn.reports.length > 0, 'the drift report', 10_000);
  await warn.helm.stop();
  assert.deepEqual(warn.reports, [{ ...drifted, action: 'reported' }]);
  assert.ok(warn.warnings.some((w) => w === `release demo: ${NS}/ConfigMap/demo-config drifted: .data.mode, .data.replicas changed by another field manager while the operator was not running (--helm-drift warn: not restored)`), warn.warnings.join('\n'));
  assert.deepEqual(sandbox.requests.filter((r) => WRITES.has(r.method) && r.query.dryRun !== 'All').map((r) => `${r.method} ${r.path}`), []);
  assert.equal((await getObject(kc, cmPath('demo-config'))).data.replicas, '9');

  // fix: taken back by applying that object alone; the field kubectl added stays
  sandbox.clearRequestLog();
  const fix = await start('fix');
  await waitFor(async () => (await getObject(kc, cmPath('demo-config'))).data.replicas === '3', 'the field restored', 10_000);
  assert.deepEqual((await getObject(kc, cmPath('demo-config'))).data, { replicas: '3', mode: 'fast', extra: 'mine' });
  assert.deepEqual(fix.reports, [{ ...drifted, action: 'fixed' }]);
  assert.deepEqual(sandbox.requests.filter((r) => WRITES.has(r.method) && r.query.dryRun !== 'All').map((r) => `${r.method} ${r.path}`), [`PATCH ${cmPath('demo-config')}`]);
  await fix.helm.stop();

  // deleted while down: the next start's run upgrades, which applies every object again
  await requestJson(kc, 'DELETE', `/api/v1/namespaces/${NS}/services/demo`);
  assert.equal(await new HelmReleases({ kc, mapper }).upgradeInstall(req), 'upgraded');
  assert.ok(await getObject(kc, `/api/v1/namespaces/${NS}/services/demo`));
});

test('drift warn reports once and changes nothing; drift off ignores', async (t) => {
  await t.test('warn', async (t) => {
    const { kc, helm, events, warnings, request } = await setup(t, 'warn');
    await installWatched(helm, request('demo', 3));
    const cm = await getObject(kc, cmPath('demo-config'));
    cm.data.replicas = '9';
    await requestJson(kc, 'PUT', cmPath('demo-config'), { fieldManager: 'kubectl-edit' }, cm);
    await waitFor(() => events.drift.length > 0, 'the drift report', 10_000);
    assert.deepEqual(events.drift, [{ release: 'demo', resource: `${NS}/ConfigMap/demo-config`, paths: ['.data.replicas'], action: 'reported' }]);
    assert.ok(warnings.some((w) => w.includes('--helm-drift warn: not restored')));
    // another unrelated change of the object: the same drift is not reported again
    const cm2 = await getObject(kc, cmPath('demo-config'));
    cm2.data.other = 'x';
    await requestJson(kc, 'PUT', cmPath('demo-config'), { fieldManager: 'kubectl-edit' }, cm2);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(events.drift.length, 1);
    assert.equal((await getObject(kc, cmPath('demo-config'))).data.replicas, '9');
  });
  await t.test('off', async (t) => {
    const { kc, helm, events, request } = await setup(t, 'off');
    await installWatched(helm, request('demo', 3));
    const cm = await getObject(kc, cmPath('demo-config'));
    cm.data.replicas = '9';
    await requestJson(kc, 'PUT', cmPath('demo-config'), { fieldManager: 'kubectl-edit' }, cm);
    // a deletion afterwards is still noticed: the watch saw the edit before it
    await requestJson(kc, 'DELETE', `/api/v1/namespaces/${NS}/services/demo`);
    await waitFor(() => events.absent.length > 0, 'the absent event', 10_000);
    assert.deepEqual(events.drift, []);
    assert.equal((await getObject(kc, cmPath('demo-config'))).data.replicas, '9');
  });
});

test('field sets and their display', () => {
  const set = fieldSetOf({ 'f:data': { 'f:a': {}, '.': {} }, 'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} } } } });
  assert.deepEqual([...set].map(displayField).sort(), ['.data', '.data.a', '.spec.ports[port=80,protocol=TCP]', '.spec.ports[port=80,protocol=TCP].port']);
});
