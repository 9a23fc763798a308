/**
 * Scenarios of LIFECYCLE-STEPS: every hook appends a line to a trace file, and each test asserts the
 * exact trace of the lifecycle steps it triggers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scenario, settle, traceHook, type Scenario, type Trace } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

const CHART = { 'Chart.yaml': 'name: x\nversion: 0.1.0\n', 'templates/cm.yaml': 'kind: ConfigMap\n' };
const YEARLY = '0 0 1 1 *';

function chart(dir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(CHART).map(([k, v]) => [`${dir}/${k}`, v]));
}

/** One module `alpha` with beforeHelm/afterHelm tracing and global beforeAll/afterAll tracing. */
function base(t: Trace, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'modules/values.yaml': 'alphaEnabled: true\n',
    'global-hooks/hooks/all': traceHook(t, 'g-all', { configVersion: 'v1', beforeAll: 10, afterAll: 10 }),
    ...chart('modules/001-alpha'),
    'modules/001-alpha/hooks/helm': traceHook(t, 'alpha-helm', { configVersion: 'v1', beforeHelm: 1, afterHelm: 1 }),
    ...extra,
  };
}

const patch = (path: string, value: unknown, file = 'VALUES_JSON_PATCH_PATH') =>
  `echo '${JSON.stringify([{ op: 'add', path, value }])}' > "$${file}"`;

async function started(s: Scenario): Promise<Scenario> {
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  return s;
}

/** Runs `act`, waits for the queues to settle, and returns the trace lines it added. */
async function traceOf(s: Scenario, act: () => void | Promise<void>, minLines = 1): Promise<string[]> {
  const before = s.trace.lines().length;
  await act();
  await waitFor(() => s.trace.lines().length >= before + minLines, 'the trace to grow');
  await settle(s.op);
  return s.trace.lines().slice(before);
}

const CONVERGE_START = ['g-all beforeAll', 'alpha-helm beforeHelm', 'helm upgrade alpha', 'alpha-helm afterHelm', 'g-all afterAll'];

test('a global hook changing global values reloads all modules', async () => {
  const s = await started(
    await scenario({
      files: (t) => base(t, { 'global-hooks/hooks/cron': traceHook(t, 'g-cron', { configVersion: 'v1', schedule: [{ name: 'y', crontab: YEARLY }] }, patch('/global/x', 1)) }),
    }),
  );
  assert.deepEqual(s.trace.lines(), CONVERGE_START);
  const lines = await traceOf(s, () => s.op.schedules.fire(YEARLY), 6);
  // the module's Helm values hold the global values: the release is upgraded
  assert.deepEqual(lines, ['g-cron y:Schedule', ...CONVERGE_START]);
  assert.deepEqual(s.helm.releases.get('alpha')?.values.global, { x: 1 });
  await s.op.stop();
});

test('a module hook changing module values runs that module (beforeHelm, Helm, afterHelm)', async () => {
  const s = await started(
    await scenario({
      files: (t) =>
        base(t, {
          'modules/001-alpha/hooks/cron': traceHook(t, 'alpha-cron', { configVersion: 'v1', schedule: [{ name: 'y', crontab: YEARLY }] }, patch('/alpha/x', 'v')),
        }),
    }),
  );
  const lines = await traceOf(s, () => s.op.schedules.fire(YEARLY), 4);
  assert.deepEqual(lines, ['alpha-cron y:Schedule', 'alpha-helm beforeHelm', 'helm upgrade alpha', 'alpha-helm afterHelm']);
  assert.deepEqual(s.helm.releases.get('alpha')?.values.alpha, { x: 'v' });
  // the same values again: the module does not run
  const again = await traceOf(s, () => s.op.schedules.fire(YEARLY));
  assert.deepEqual(again, ['alpha-cron y:Schedule']);
  await s.op.stop();
});

test('afterHelm changing values runs the module once more, not forever', async () => {
  const s = await started(
    await scenario({
      files: (t) => ({
        'modules/values.yaml': 'alphaEnabled: true\n',
        ...chart('modules/001-alpha'),
        'modules/001-alpha/hooks/helm': traceHook(t, 'alpha-helm', { configVersion: 'v1', beforeHelm: 1, afterHelm: 1 }, `
if jq -e '.[0].binding == "afterHelm"' "$BINDING_CONTEXT_PATH" >/dev/null; then ${patch('/alpha/fromAfterHelm', true)}; fi`),
      }),
    }),
  );
  assert.deepEqual(s.trace.lines(), [
    'alpha-helm beforeHelm',
    'helm upgrade alpha',
    'alpha-helm afterHelm',
    'alpha-helm beforeHelm',
    'helm upgrade alpha',
    'alpha-helm afterHelm',
  ]);
  await s.op.stop();
});

test('afterAll changing global values re-runs the steps from beforeAll to afterAll once', async () => {
  const s = await started(
    await scenario({
      files: (t) =>
        base(t, {
          'global-hooks/hooks/all': traceHook(t, 'g-all', { configVersion: 'v1', beforeAll: 10, afterAll: 10 }, `
if jq -e '.[0].binding == "afterAll"' "$BINDING_CONTEXT_PATH" >/dev/null; then ${patch('/global/fromAfterAll', 1)}; fi`),
        }),
    }),
  );
  assert.deepEqual(s.trace.lines(), [...CONVERGE_START, ...CONVERGE_START]);
  await s.op.stop();
});

test('a failing hook is retried with growing delays while the queue waits behind it', async () => {
  const sleeps: number[] = [];
  const s = await scenario({
    files: (t) =>
      base(t, {
        'global-hooks/hooks/flaky': traceHook(t, 'g-flaky', { configVersion: 'v1', schedule: [{ name: 'y', crontab: YEARLY }] }, `
n=$(( $(cat "${t.path}.count" 2>/dev/null || echo 0) + 1 )); echo $n > "${t.path}.count"
if [ $n -le 3 ]; then echo "g-flaky fails ($n)" >> '${t.path}'; exit 1; fi`),
        'global-hooks/hooks/other': traceHook(t, 'g-other', { configVersion: 'v1', schedule: [{ name: 'y', crontab: YEARLY }] }),
      }),
    operator: {
      timing: {
        discoveryRetryMs: 10,
        sleep: async (ms) => {
          if (ms >= 1000) {
            sleeps.push(ms);
            s.trace.add(`sleep ${ms}`);
          }
          await new Promise((r) => setTimeout(r, 1));
        },
      },
    },
  });
  await started(s);
  const lines = await traceOf(s, () => s.op.schedules.fire(YEARLY), 10);
  // the failure count is part of the task description while it waits
  assert.deepEqual(
    lines.map((l) => l.replace(/^sleep \d+$/, 'sleep')),
    ['g-flaky y:Schedule', 'g-flaky fails (1)', 'sleep', 'g-flaky y:Schedule', 'g-flaky fails (2)', 'sleep', 'g-flaky y:Schedule', 'g-flaky fails (3)', 'sleep', 'g-flaky y:Schedule', 'g-other y:Schedule'],
  );
  // 5 s, then 5 s + 2^(n-1) s + jitter below 1 s (reference §5.1)
  assert.equal(sleeps[0], 5000);
  assert.ok(sleeps[1]! >= 6000 && sleeps[1]! < 7000, `second delay ${sleeps[1]}`);
  assert.ok(sleeps[2]! >= 7000 && sleeps[2]! < 8000, `third delay ${sleeps[2]}`);
  // each failure is logged once: the task by its name, the count and the error in fields of their own
  const failed = s.logs.map((l) => JSON.parse(l)).filter((r) => r.msg === 'task failed; it will be retried');
  assert.deepEqual(failed.map((r) => r.failures), [1, 2, 3]);
  for (const r of failed) {
    assert.match(r.task, /^GlobalHookRun:main:/);
    assert.doesNotMatch(r.task, /failures|exit/, 'the task field is the task, not its last error');
    assert.match(r.error, /exit status 1|exit code 1|exited with 1/);
  }
  await s.op.stop();
});

test('allowFailure: a failed schedule run is not retried', async () => {
  const s = await started(
    await scenario({
      files: (t) =>
        base(t, {
          'global-hooks/hooks/bad': traceHook(t, 'g-bad', { configVersion: 'v1', schedule: [{ name: 'y', crontab: YEARLY, allowFailure: true }] }, 'exit 3'),
          'global-hooks/hooks/other': traceHook(t, 'g-other', { configVersion: 'v1', schedule: [{ name: 'y', crontab: YEARLY }] }),
        }),
    }),
  );
  const lines = await traceOf(s, () => s.op.schedules.fire(YEARLY), 2);
  assert.deepEqual(lines, ['g-bad y:Schedule', 'g-other y:Schedule']);
  assert.ok(s.logs.some((l) => l.includes('allowFailure')));
  await s.op.stop();
});

test('a module disabled at run time: uninstall, afterDeleteHelm, its schedules and monitors stop', async () => {
  const s = await started(
    await scenario({
      files: (t) =>
        base(t, {
          'modules/001-alpha/hooks/delete': traceHook(t, 'alpha-delete', { configVersion: 'v1', afterDeleteHelm: 1 }),
          'modules/001-alpha/hooks/cron': traceHook(t, 'alpha-cron', { configVersion: 'v1', schedule: [{ name: 'y', crontab: YEARLY }] }),
          'modules/001-alpha/hooks/pods': traceHook(t, 'alpha-pods', { configVersion: 'v1', kubernetes: [{ name: 'pods', kind: 'Pod', executeHookOnSynchronization: false }] }),
        }),
    }),
  );
  assert.equal(s.kube.activeMonitors, 1);
  assert.deepEqual(s.op.schedules.crontabs(), [YEARLY]);
  const lines = await traceOf(s, () => s.config.set({ alphaEnabled: 'false' }), 4);
  assert.deepEqual(lines, ['g-all beforeAll', 'helm uninstall alpha', 'alpha-delete afterDeleteHelm', 'g-all afterAll']);
  assert.deepEqual(s.op.manager.enabledModules, []);
  const discovered = s.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'modules discovered');
  assert.deepEqual(discovered.at(-1) && [discovered.at(-1)!.disabled, discovered.at(-1)!.deleting], [['alpha'], ['alpha']]);
  assert.equal(s.kube.activeMonitors, 0);
  assert.deepEqual(s.op.schedules.crontabs(), []);
  // re-enabled: onStartup runs again (module just became enabled), schedules come back
  const back = await traceOf(s, () => s.config.set({ alphaEnabled: 'true' }), 5);
  assert.deepEqual(back, CONVERGE_START);
  assert.deepEqual(s.op.schedules.crontabs(), [YEARLY]);
  await s.op.stop();
});

test('a release without a module is purged after the first converge; HELM_IGNORE_RELEASE is kept', async () => {
  const s = await scenario({ files: (t) => base(t), operator: { helmIgnoreRelease: 'operator-itself' } });
  for (const r of ['orphan', 'operator-itself']) s.helm.releases.set(r, { checksum: '', revision: 1, values: {} });
  await started(s);
  await waitFor(() => s.trace.lines().includes('helm uninstall orphan'), 'the purge');
  assert.deepEqual(s.trace.lines(), [...CONVERGE_START, 'helm uninstall orphan']);
  assert.deepEqual([...s.helm.releases.keys()].sort(), ['alpha', 'operator-itself']);
  await s.op.stop();
});

test('named queues run beside main', async () => {
  const s = await started(
    await scenario({
      files: (t) =>
        base(t, {
          'global-hooks/hooks/slow': traceHook(t, 'g-slow', { configVersion: 'v1', schedule: [{ name: 'y', crontab: YEARLY, queue: 'slow' }] }, `
while [ ! -e "${t.path}.go" ]; do sleep 0.02; done; echo 'g-slow done' >> '${t.path}'`),
          'global-hooks/hooks/fast': traceHook(t, 'g-fast', { configVersion: 'v1', schedule: [{ name: 'z', crontab: '0 0 2 1 *' }] }),
        }),
    }),
  );
  s.op.schedules.fire(YEARLY);
  await waitFor(() => s.trace.lines().includes('g-slow y:Schedule'), 'the slow hook to start');
  s.op.schedules.fire('0 0 2 1 *');
  await waitFor(() => s.trace.lines().includes('g-fast z:Schedule'), 'the main queue to run while slow is busy');
  s.trace.add('release');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${s.trace.path}.go`, '');
  await waitFor(() => s.trace.lines().includes('g-slow done'), 'the slow hook to end');
  assert.deepEqual(s.trace.lines().slice(CONVERGE_START.length), ['g-slow y:Schedule', 'g-fast z:Schedule', 'release', 'g-slow done']);
  assert.deepEqual(s.op.queues.names().sort(), ['main', 'slow']);
  await s.op.stop();
});

test('500 events queued for one hook are compacted into few runs that see every event', async () => {
  const s = await started(
    await scenario({
      files: (t) =>
        base(t, {
          'modules/001-alpha/hooks/cms': traceHook(
            t,
            'alpha-cms',
            { configVersion: 'v1', kubernetes: [{ name: 'cms', kind: 'ConfigMap', executeHookOnSynchronization: false, queue: 'events' }] },
            `echo "alpha-cms contexts $(jq length "$BINDING_CONTEXT_PATH")" >> '${t.path}'
while [ ! -e "${t.path}.go" ]; do sleep 0.02; done`,
          ),
        }),
    }),
  );
  s.kube.put({ kind: 'ConfigMap', metadata: { name: 'first', namespace: 'default' } });
  await waitFor(() => s.trace.lines().includes('alpha-cms contexts 1'), 'the first event run');
  for (let i = 0; i < 500; i++) s.kube.put({ kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' } });
  const events = s.op.queues.get('events')!;
  assert.ok(events.length <= 101, `queue length ${events.length}`);
  assert.ok((events.compactionCounts().size ?? 0) > 0, 'compaction happened');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${s.trace.path}.go`, '');
  await waitFor(() => s.trace.lines().filter((l) => l.startsWith('alpha-cms contexts')).reduce((n, l) => n + Number(l.split(' ')[2]), 0) >= 501, 'all events');
  await settle(s.op);
  const runs = s.trace.lines().filter((l) => l.startsWith('alpha-cms contexts'));
  assert.equal(runs.reduce((n, l) => n + Number(l.split(' ')[2]), 0), 501, 'every event reaches the hook once');
  assert.ok(runs.length <= 3, `runs: ${runs.join(' | ')}`);
  await s.op.stop();
});

test('config changes: a module section runs the module, the global section reloads all, own writes change nothing', async () => {
  const s = await started(
    await scenario({
      files: (t) =>
        base(t, {
          'modules/001-alpha/hooks/cron': traceHook(t, 'alpha-cron', { configVersion: 'v1', schedule: [{ name: 'y', crontab: YEARLY }] }, patch('/alpha/saved', 1, 'CONFIG_VALUES_JSON_PATCH_PATH')),
        }),
      config: { alphaEnabled: 'true' },
    }),
  );
  const moduleLines = await traceOf(s, () => s.config.set({ alphaEnabled: 'true', alpha: 'param: 1\n' }), 3);
  assert.deepEqual(moduleLines, ['alpha-helm beforeHelm', 'helm upgrade alpha', 'alpha-helm afterHelm']);
  const globalLines = await traceOf(s, () => s.config.set({ alphaEnabled: 'true', alpha: 'param: 1\n', global: 'a: b\n' }), 5);
  assert.deepEqual(globalLines, CONVERGE_START);
  // a config patch from a hook is written to the ConfigMap; the module runs once (values changed), not twice
  const own = await traceOf(s, () => s.op.schedules.fire(YEARLY), 4);
  assert.deepEqual(own, ['alpha-cron y:Schedule', 'alpha-helm beforeHelm', 'helm upgrade alpha', 'alpha-helm afterHelm']);
  assert.deepEqual(s.config.writes, [{ key: 'alpha', values: { param: 1, saved: 1 } }]);
  await s.op.stop();
});

test('module discovery errors are retried until they pass, blocking main meanwhile', async () => {
  const s = await started(
    await scenario({
      files: (t) =>
        base(t, {
          'modules/001-alpha/enabled': `#!/usr/bin/env bash
n=$(( $(cat "${t.path}.count" 2>/dev/null || echo 0) + 1 )); echo $n > "${t.path}.count"
echo "alpha-enabled $n" >> '${t.path}'
[ $n -le 2 ] && exit 1
echo true > "$MODULE_ENABLED_RESULT"
`,
        }),
    }),
  );
  assert.deepEqual(s.trace.lines(), ['g-all beforeAll', 'alpha-enabled 1', 'alpha-enabled 2', 'alpha-enabled 3', ...CONVERGE_START.slice(1)]);
  assert.ok(s.logs.some((l) => l.includes('module discovery failed')));
  await s.op.stop();
});

test('a module hook with a bad config fails discovery with a message naming the hook; fixing it lets the converge finish', async () => {
  const s = await scenario({
    files: (t) => base(t, { 'modules/001-alpha/hooks/bad': traceHook(t, 'alpha-bad', { configVersion: 'v1', schedule: [{ name: 'y', crontab: 'not a crontab' }] }) }),
  });
  await s.op.start();
  await waitFor(() => s.logs.some((l) => l.includes('module discovery failed')), 'the discovery error');
  const log = s.logs.find((l) => l.includes('module discovery failed'))!;
  assert.match(log, /alpha\/hooks\/bad/);
  assert.equal(s.op.converge.ready, false);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${s.root}/modules/001-alpha/hooks/bad`, traceHook(s.trace, 'alpha-bad', { configVersion: 'v1', onStartup: 1 }), { mode: 0o755 });
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  assert.ok(s.trace.lines().includes('alpha-bad onStartup'));
  await s.op.stop();
});

test('Synchronization runs in other queues are waited for (global before the converge, module before beforeHelm)', async () => {
  const s = await scenario({
    files: (t) =>
      base(t, {
        'global-hooks/hooks/side': traceHook(t, 'g-side', { configVersion: 'v1', kubernetes: [{ name: 'cms', kind: 'ConfigMap', queue: 'side' }] }, 'sleep 0.3'),
        'modules/001-alpha/hooks/side': traceHook(t, 'alpha-side', { configVersion: 'v1', kubernetes: [{ name: 'pods', kind: 'Pod', queue: 'mside' }] }, 'sleep 0.3'),
      }),
  });
  s.kube.put({ kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } });
  await started(s);
  assert.deepEqual(s.trace.lines(), ['g-side cms:Synchronization', 'g-all beforeAll', 'alpha-side pods:Synchronization', ...CONVERGE_START.slice(1)]);
  // events after the sync run go to the binding's queue
  const lines = await traceOf(s, () => s.kube.put({ kind: 'Pod', metadata: { name: 'p', namespace: 'default' } }));
  assert.deepEqual(lines, ['alpha-side pods:Event:Added']);
  await s.op.stop();
});
