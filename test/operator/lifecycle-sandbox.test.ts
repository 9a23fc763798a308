/**
 * Lifecycle scenarios of lifecycle.test.ts run again over the layers `start` wires (REST mapper,
 * monitors with real selectors, object patcher, ConfigMap source, Helm releases stored as Secrets and
 * applied to the API) against the sandbox API server, instead of the in-memory fakes: a module disabled
 * at run time, the purge of releases without a module, the compaction of many queued events, the
 * waits for Synchronization runs in other queues.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { isApiStatus, requestJson } from '../../src/kube/http.js';
import { makeTree } from '../helpers/tree.js';
import { sandboxPorts } from '../helpers/sandbox-ports.js';
import { scenario, settle, traceHook, type Scenario, type Trace } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

const NS = 'addons';
const YEARLY = '0 0 1 1 *';

function chart(dir: string, name: string): Record<string, string> {
  return {
    [`${dir}/Chart.yaml`]: `name: ${name}\nversion: 0.1.0\n`,
    [`${dir}/templates/cm.yaml`]: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-out\ndata:\n  x: "1"\n`,
  };
}

function base(t: Trace, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'modules/values.yaml': 'alphaEnabled: true\n',
    'global-hooks/hooks/all': traceHook(t, 'g-all', { configVersion: 'v1', beforeAll: 10, afterAll: 10 }),
    ...chart('modules/001-alpha', 'alpha'),
    'modules/001-alpha/hooks/helm': traceHook(t, 'alpha-helm', { configVersion: 'v1', beforeHelm: 1, afterHelm: 1 }),
    ...extra,
  };
}

interface Env {
  sandbox: Sandbox;
  s: Scenario;
  ports: ReturnType<typeof sandboxPorts>;
}

async function setup(t: { after: (fn: () => Promise<void>) => void }, files: (tr: Trace) => Record<string, string>, options: { configData?: Record<string, string>; before?: (ports: ReturnType<typeof sandboxPorts>) => Promise<void>; helmIgnoreRelease?: string } = {}): Promise<Env> {
  const sandbox = await startSandbox({
    seedObjects: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: NS }, data: options.configData ?? {} },
    ],
  });
  t.after(() => sandbox.stop());
  const ports = sandboxPorts(sandbox.kubeconfigPath, NS, { backoff: { initialMs: 20, maxMs: 200 } });
  await options.before?.(ports);
  const s = await scenario({
    files,
    operator: { kube: ports.kube, helm: ports.helm, config: ports.config, namespace: NS, ...(options.helmIgnoreRelease ? { helmIgnoreRelease: options.helmIgnoreRelease } : {}) },
  });
  t.after(() => s.op.stop());
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  return { sandbox, s, ports };
}

async function exists(env: Env, path: string): Promise<boolean> {
  try {
    await requestJson(env.ports.kc, 'GET', path);
    return true;
  } catch (e) {
    if (isApiStatus(e, 404)) return false;
    throw e;
  }
}

/** Release names that have Helm's release Secrets in the namespace. */
async function releases(env: Env): Promise<string[]> {
  const list = await requestJson<{ items: { metadata: { labels?: Record<string, string> } }[] }>(env.ports.kc, 'GET', `/api/v1/namespaces/${NS}/secrets`, { labelSelector: 'owner=helm' });
  return [...new Set(list.items.map((s) => s.metadata.labels?.name ?? ''))].sort();
}

const cmPath = (name: string, ns = NS) => `/api/v1/namespaces/${ns}/configmaps/${name}`;
const setConfig = (env: Env, data: Record<string, string>) =>
  requestJson(env.ports.kc, 'PATCH', cmPath('addon-operator'), {}, { data }, 'application/merge-patch+json');

test('a module disabled by a ConfigMap edit: release uninstalled, its objects deleted, afterDeleteHelm, its watches and schedules stop; enabled again: back', async (t) => {
  const env = await setup(t, (tr) =>
    base(tr, {
      'modules/001-alpha/hooks/delete': traceHook(tr, 'alpha-delete', { configVersion: 'v1', afterDeleteHelm: 1 }),
      'modules/001-alpha/hooks/cron': traceHook(tr, 'alpha-cron', { configVersion: 'v1', schedule: [{ name: 'y', crontab: YEARLY }] }),
      'modules/001-alpha/hooks/pods': traceHook(tr, 'alpha-pods', { configVersion: 'v1', kubernetes: [{ name: 'pods', kind: 'Pod', namespace: { nameSelector: { matchNames: ['default'] } }, executeHookOnSynchronization: false }] }),
    }),
  );
  const { s, sandbox } = env;
  assert.deepEqual(await releases(env), ['alpha']);
  assert.ok(await exists(env, cmPath('alpha-out')));
  const podWatches = () => sandbox.watchCount();
  const watchesBefore = podWatches();
  assert.ok(watchesBefore >= 1);
  assert.deepEqual(s.op.schedules.crontabs(), [YEARLY]);

  const before = s.trace.lines().length;
  await setConfig(env, { alphaEnabled: 'false' });
  await waitFor(() => s.trace.lines().includes('alpha-delete afterDeleteHelm'), 'afterDeleteHelm');
  await settle(s.op);
  assert.deepEqual(s.trace.lines().slice(before), ['g-all beforeAll', 'alpha-delete afterDeleteHelm', 'g-all afterAll']);
  assert.deepEqual(s.op.manager.enabledModules, []);
  assert.deepEqual(await releases(env), []);
  assert.equal(await exists(env, cmPath('alpha-out')), false, 'the release object is deleted');
  await waitFor(() => podWatches() < watchesBefore, 'the module\'s watch to end');
  assert.deepEqual(s.op.schedules.crontabs(), []);
  // a Pod event no longer reaches the disabled module
  await requestJson(env.ports.kc, 'POST', '/api/v1/namespaces/default/pods', {}, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'x' }] } });

  await setConfig(env, { alphaEnabled: 'true' });
  await waitFor(() => s.op.manager.enabledModules.includes('alpha'), 'the module to come back');
  await s.op.converge.whenFirstDone();
  await waitFor(async () => (await releases(env)).includes('alpha'), 'the release to come back');
  await settle(s.op);
  assert.ok(await exists(env, cmPath('alpha-out')));
  assert.deepEqual(s.op.schedules.crontabs(), [YEARLY]);
  assert.ok(!s.trace.lines().some((l) => l.startsWith('alpha-pods pods:Event')), 'no event reached the disabled module');
  // its watch works again
  await requestJson(env.ports.kc, 'POST', '/api/v1/namespaces/default/pods', {}, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p2' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  await waitFor(() => s.trace.lines().includes('alpha-pods pods:Event:Added'), 'the event of the module enabled again');
});

test('releases without a module are purged after the first converge (objects and history); HELM_IGNORE_RELEASE is kept', async (t) => {
  const orphanChart = makeTree({ 'Chart.yaml': 'name: orphan\nversion: 0.1.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: orphan-out\ndata: {}\n' });
  const selfChart = makeTree({ 'Chart.yaml': 'name: itself\nversion: 0.1.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: itself-out\ndata: {}\n' });
  const env = await setup(t, (tr) => base(tr), {
    helmIgnoreRelease: 'operator-itself',
    before: async (ports) => {
      // releases installed earlier (by a former version of the operator, or its own release)
      await ports.helm.upgradeInstall({ release: 'orphan', namespace: NS, chartDir: orphanChart, values: {} });
      await ports.helm.upgradeInstall({ release: 'operator-itself', namespace: NS, chartDir: selfChart, values: {} });
    },
  });
  await waitFor(async () => !(await releases(env)).includes('orphan'), 'the purge of the orphan release');
  assert.deepEqual(await releases(env), ['alpha', 'operator-itself']);
  assert.equal(await exists(env, cmPath('orphan-out')), false, 'the orphan release\'s object is deleted');
  assert.ok(await exists(env, cmPath('itself-out')));
  assert.ok(await exists(env, cmPath('alpha-out')));
});

test('hundreds of events from the API for one busy hook are compacted into few runs that see every event', async (t) => {
  const N = 300;
  let gate = '';
  const env = await setup(t, (tr) => {
    gate = `${tr.path}.go`;
    return base(tr, {
      'modules/001-alpha/hooks/cms': traceHook(
        tr,
        'alpha-cms',
        { configVersion: 'v1', kubernetes: [{ name: 'cms', kind: 'ConfigMap', namespace: { nameSelector: { matchNames: ['burst'] } }, executeHookOnSynchronization: false, queue: 'events' }] },
        `echo "alpha-cms contexts $(jq length "$BINDING_CONTEXT_PATH")" >> '${tr.path}'
while [ ! -e '${tr.path}.go' ]; do sleep 0.02; done`,
      ),
    });
  });
  const { s, ports } = env;
  await requestJson(ports.kc, 'POST', '/api/v1/namespaces', {}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'burst' } });
  const create = (name: string) => requestJson(ports.kc, 'POST', '/api/v1/namespaces/burst/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  await create('first');
  await waitFor(() => s.trace.lines().includes('alpha-cms contexts 1'), 'the first event run (which then waits)');
  for (let i = 0; i < N; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => create(`cm-${i + j}`)));
  await waitFor(() => s.op.queues.get('events')!.length > 0, 'events queued');
  writeFileSync(gate, '');
  const seen = () => s.trace.lines().filter((l) => l.startsWith('alpha-cms contexts')).reduce((n, l) => n + Number(l.split(' ')[2]), 0);
  await waitFor(() => seen() >= N + 1, 'every event to reach the hook');
  await settle(s.op);
  const runs = s.trace.lines().filter((l) => l.startsWith('alpha-cms contexts'));
  assert.equal(seen(), N + 1, 'every event reaches the hook once');
  assert.ok(runs.length <= 10, `compacted into few runs: ${runs.join(' | ')}`);
});

test('Synchronization runs in other queues are waited for (global before the converge, module before beforeHelm)', async (t) => {
  const env = await setup(t, (tr) =>
    base(tr, {
      'global-hooks/hooks/side': traceHook(tr, 'g-side', { configVersion: 'v1', kubernetes: [{ name: 'cms', kind: 'ConfigMap', namespace: { nameSelector: { matchNames: ['default'] } }, queue: 'side' }] }, 'sleep 0.3'),
      'modules/001-alpha/hooks/side': traceHook(tr, 'alpha-side', { configVersion: 'v1', kubernetes: [{ name: 'pods', kind: 'Pod', namespace: { nameSelector: { matchNames: ['default'] } }, queue: 'mside' }] }, 'sleep 0.3'),
    }),
  );
  const { s, ports } = env;
  assert.deepEqual(s.trace.lines(), ['g-side cms:Synchronization', 'g-all beforeAll', 'alpha-side pods:Synchronization', 'alpha-helm beforeHelm', 'alpha-helm afterHelm', 'g-all afterAll']);
  assert.deepEqual(await releases(env), ['alpha']);
  const before = s.trace.lines().length;
  await requestJson(ports.kc, 'POST', '/api/v1/namespaces/default/pods', {}, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  await waitFor(() => s.trace.lines().length > before, 'the event run');
  await settle(s.op);
  assert.deepEqual(s.trace.lines().slice(before), ['alpha-side pods:Event:Added']);
});
