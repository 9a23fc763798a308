import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scenario, settle, traceHook, type Trace } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

const CHART = { 'Chart.yaml': 'name: x\nversion: 0.1.0\n', 'templates/cm.yaml': 'kind: ConfigMap\n' };

function chart(dir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(CHART).map(([k, v]) => [`${dir}/${k}`, v]));
}

function startupFiles(t: Trace): Record<string, string> {
  return {
    'modules/values.yaml': 'alphaEnabled: true\nbetaEnabled: true\ngammaEnabled: true\n',
    'global-hooks/hooks/startup': traceHook(t, 'g-startup', { configVersion: 'v1', onStartup: 10 }),
    'global-hooks/hooks/cron': traceHook(t, 'g-cron', { configVersion: 'v1', schedule: [{ name: 'yearly', crontab: '0 0 1 1 *' }] }),
    'global-hooks/hooks/watch': traceHook(t, 'g-watch', {
      configVersion: 'v1',
      kubernetes: [{ name: 'cms', kind: 'ConfigMap', executeHookOnEvent: ['Added'] }],
    }),
    'global-hooks/hooks/all': traceHook(t, 'g-all', { configVersion: 'v1', beforeAll: 10, afterAll: 10 }),
    ...chart('modules/001-alpha'),
    'modules/001-alpha/hooks/startup': traceHook(t, 'alpha-startup', { configVersion: 'v1', onStartup: 1 }),
    'modules/001-alpha/hooks/pods': traceHook(t, 'alpha-pods', { configVersion: 'v1', kubernetes: [{ name: 'pods', kind: 'Pod' }] }),
    'modules/001-alpha/hooks/helm': traceHook(t, 'alpha-helm', { configVersion: 'v1', beforeHelm: 1, afterHelm: 1 }),
    ...chart('modules/002-beta'),
    'modules/002-beta/enabled': `#!/usr/bin/env bash\necho beta-enabled-script >> '${t.path}'\necho false > "$MODULE_ENABLED_RESULT"\n`,
    'modules/002-beta/hooks/startup': traceHook(t, 'beta-startup', { configVersion: 'v1', onStartup: 1 }),
    ...chart('modules/003-gamma'),
    'modules/003-gamma/enabled': `#!/usr/bin/env bash\necho gamma-enabled-script >> '${t.path}'\necho true > "$MODULE_ENABLED_RESULT"\n`,
    'modules/003-gamma/hooks/startup': traceHook(t, 'gamma-startup', { configVersion: 'v1', onStartup: 1 }),
  };
}

test('start-up: global hooks of every binding, three modules (one disabled by its enabled script, one by the ConfigMap)', async () => {
  const s = await scenario({ files: startupFiles, config: { gammaEnabled: 'false' } });
  s.kube.put({ kind: 'ConfigMap', metadata: { name: 'one', namespace: 'default' } });
  s.kube.put({ kind: 'Pod', metadata: { name: 'p1', namespace: 'default' } });
  await s.op.start();
  // a schedule event before the first converge is done is dropped
  s.op.schedules.fire('0 0 1 1 *');
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  assert.deepEqual(s.trace.lines(), [
    'g-startup onStartup',
    'g-watch cms:Synchronization',
    'g-all beforeAll',
    'beta-enabled-script',
    'alpha-startup onStartup',
    'alpha-pods pods:Synchronization',
    'alpha-helm beforeHelm',
    'helm upgrade alpha',
    'alpha-helm afterHelm',
    'g-all afterAll',
  ]);
  assert.deepEqual(s.op.manager.enabledModules, ['alpha']);
  // the log names the disabled modules (none was enabled before, so none is deleted)
  const discovered = s.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'modules discovered');
  assert.deepEqual(
    discovered.map((r) => [r.enabled, r.disabled, r.deleting]),
    [[['alpha'], ['beta', 'gamma'], []]],
  );
  assert.equal(s.op.converge.text(), 'STARTUP_CONVERGE_DONE\nCONVERGE_WAIT_TASK\nCONVERGE_COUNT: 1\nCONVERGE_RESTARTS: 0\n');

  // after the first converge: schedules run, kubernetes events run the hook
  s.op.schedules.fire('0 0 1 1 *');
  s.kube.put({ kind: 'ConfigMap', metadata: { name: 'two', namespace: 'default' } });
  await waitFor(() => s.trace.lines().length >= 12, 'the schedule and event runs');
  await settle(s.op);
  assert.deepEqual(s.trace.lines().slice(10).sort(), ['g-cron yearly:Schedule', 'g-watch cms:Event:Added']);
  await s.op.stop();
});
