/**
 * Monitors started ahead of the module runs (src/operator/prestart-monitors.ts), against the sandbox
 * API server and the real Kubernetes layer: bindings of several modules that watch one collection and
 * keep filter results only share one list (their informer keeps no objects, so a monitor starting at
 * a later module's run would list the collection again), and each hook's binding contexts stay as
 * they were: a Synchronization with every object at its module's run, then the events after it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startSandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { RestMapper } from '../../src/kube/mapper.js';
import { KubeMonitors } from '../../src/kube/binding-monitor.js';
import { HookBindings } from '../../src/operator/hook-bindings.js';
import { ScheduleManager } from '../../src/schedule/index.js';
import { parseHookConfigSync } from '../../src/hooks/config.js';
import type { Hook } from '../../src/hooks/hook.js';
import type { SnapshotItem } from '../../src/hooks/binding-context.js';
import { sandboxPorts } from '../helpers/sandbox-ports.js';
import { waitFor } from '../helpers/wait.js';
import { scenario, settle, traceHook } from './helpers.js';

const cm = (name: string, namespace = 'watched') => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { app: 'w' } } });
const binding = (namespace = 'watched') => ({
  name: 'cms',
  kind: 'ConfigMap',
  namespace: { nameSelector: { matchNames: [namespace] } },
  labelSelector: { matchLabels: { app: 'w' } },
  jqFilter: '.metadata.name',
  keepFullObjectsInMemory: false,
});

test('hooks of three modules watching one collection list it once; each gets its Synchronization, then the events', async (t) => {
  const sandbox = await startSandbox({
    seedObjects: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'addons' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: 'addons' }, data: {} },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } },
      cm('c1'),
      cm('c2'),
    ],
  });
  t.after(() => sandbox.stop());
  const { kc, kube, config } = sandboxPorts(sandbox.kubeconfigPath, 'addons');
  const modules = ['alpha', 'beta', 'gamma'];
  const hookConfig = { configVersion: 'v1', kubernetes: [binding()] };
  // every run appends its contexts: type, watchEvent, and the filter results it carries
  const body = (file: string) => `jq -c '[.[] | {type, watchEvent, objects: (if .objects then [.objects[].filterResult] else null end), filterResult}]' "$BINDING_CONTEXT_PATH" >> '${file}'`;
  const s = await scenario({
    files: (tr) => ({
      'modules/values.yaml': modules.map((m) => `${m}Enabled: true\n`).join(''),
      ...Object.fromEntries(modules.map((m, i) => [`modules/00${i + 1}-${m}/hooks/watch`, traceHook(tr, m, hookConfig, body(`${tr.path}.${m}.json`))])),
    }),
    operator: { kube, config, namespace: 'addons' },
  });
  t.after(() => s.op.stop());
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);

  const lists = () => sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/namespaces/watched/configmaps' && r.query.watch !== 'true' && r.query.watch !== '1');
  assert.equal(lists().length, 1, 'one list of the collection for the three modules\' bindings');

  await requestJson(kc, 'POST', '/api/v1/namespaces/watched/configmaps', {}, cm('c3'));
  await waitFor(() => modules.every((m) => s.trace.of(`${m} `).length >= 2), 'every hook\'s run of the Added event');
  await settle(s.op);
  for (const m of modules) {
    assert.deepEqual(s.trace.of(`${m} `), [`${m} cms:Synchronization`, `${m} cms:Event:Added`], m);
    const contexts = readFileSync(`${s.trace.path}.${m}.json`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(contexts, [
      [{ type: 'Synchronization', watchEvent: null, objects: ['c1', 'c2'], filterResult: null }],
      [{ type: 'Event', watchEvent: 'Added', objects: null, filterResult: 'c3' }],
    ], m);
  }
  assert.equal(lists().length, 1, 'the events came by the watch');
});

test('a monitor started ahead takes the changes before the run into its snapshot, not as events; one stopped ahead leaves its informer', async (t) => {
  const sandbox = await startSandbox({
    seedObjects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } }, cm('c1')],
  });
  t.after(() => sandbox.stop());
  const { kc } = sandboxPorts(sandbox.kubeconfigPath, 'default');
  const mapper = new RestMapper(kc, { minRefreshIntervalMs: 0 });
  const monitors = new KubeMonitors({ kc, resolve: (v, k) => mapper.resolve(v, k), backoff: { initialMs: 10, maxMs: 100 } });
  const kube = { createMonitor: monitors.createMonitor.bind(monitors), applyOperations: () => Promise.resolve() };
  const events: string[] = [];
  const errors: string[] = [];
  const hookOf = (namespace: string) => {
    const config = parseHookConfigSync({ configVersion: 'v1', kubernetes: [binding(namespace)] }, { hookPath: 'hooks/watch', kind: 'module' });
    return { id: `m/hooks/watch-${namespace}`, name: 'hooks/watch', path: '/nowhere', kind: 'module', module: 'm', runtime: 'process', config } as unknown as Hook;
  };
  const sink = {
    kubernetes: (_h: Hook, _b: unknown, ctx: { watchEvent?: string; item?: SnapshotItem | null }) => events.push(`${ctx.watchEvent} ${JSON.stringify(ctx.item?.filterResult)}`),
    schedule: () => undefined,
    monitorError: (_h: Hook, _b: unknown, e: Error) => errors.push(e.message),
  };
  const bindingsOf = (namespace: string) => new HookBindings(hookOf(namespace), { kube, schedules: new ScheduleManager(), sink: sink as never });

  const hb = bindingsOf('watched');
  hb.prestartKubernetes(() => true);
  assert.equal(hb.prestarted, 1);
  // another monitor of the collection: when it hears of a change, the one started ahead has it too (one informer hands it to both)
  const seen: string[] = [];
  const observer = monitors.createMonitor(hookOf('watched').config.kubernetes[0]!, { label: 'observer', onEvent: (e) => seen.push(String(e.item.filterResult)) });
  t.after(() => observer.stop());
  await observer.start();
  await requestJson(kc, 'POST', '/api/v1/namespaces/watched/configmaps', {}, cm('c2'));
  await waitFor(() => seen.includes('c2'), 'the observer hears of c2');

  const runs = await hb.enableKubernetes();
  t.after(() => hb.disable());
  assert.equal(hb.prestarted, 0);
  assert.deepEqual(runs.map((r) => r.context.objects?.map((o) => o.filterResult)), [['c1', 'c2']], 'the Synchronization has what changed before the run');
  hb.unlock('cms');
  await requestJson(kc, 'POST', '/api/v1/namespaces/watched/configmaps', {}, cm('c3'));
  await waitFor(() => events.length > 0, 'the event of c3');
  await waitFor(() => seen.includes('c3'), 'the observer hears of c3');
  assert.deepEqual(events, ['Added "c3"'], 'only the change after the run is an event');

  // a module disabled before its run: the monitors started ahead for it stop
  const before = monitors.sharedInformers;
  const other = bindingsOf('other');
  other.prestartKubernetes(() => true);
  await waitFor(() => monitors.sharedInformers === before + 1, 'the informer of the monitor started ahead');
  await other.stopPrestarted();
  assert.equal(other.prestarted, 0);
  assert.equal(monitors.sharedInformers, before);
  assert.deepEqual(errors, []);
});
