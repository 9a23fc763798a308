import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactContexts, makeTask, type TaskMeta } from '../../src/operator/task-meta.js';
import { ConvergeStatus } from '../../src/operator/converge-status.js';
import { onStartupContext, scheduleContext, lifecycleContext, type BindingContext } from '../../src/hooks/binding-context.js';
import type { Hook } from '../../src/hooks/hook.js';
import type { ScheduleBinding } from '../../src/hooks/config-types.js';

function fakeHook(name: string, module?: string): Hook {
  return { name, module, path: `/x/${name}`, id: `${module ?? '(global)'}:${name}`, kind: module ? 'module' : 'global', runtime: 'process', config: { kubernetes: [] } } as unknown as Hook;
}

const sched = (name: string, group?: string): ScheduleBinding => ({ type: 'schedule', name, crontab: '* * * * *', allowFailure: false, queue: 'main', includeSnapshotsFrom: [], ...(group ? { group } : {}) });

test('task descriptions are those of Go HookMetadata.GetDescription', () => {
  const d = (meta: TaskMeta, queue?: string) => makeTask(meta, queue).description();
  const g = fakeHook('hooks/startup.sh');
  const m = fakeHook('hooks/pods.sh', 'echo');
  assert.equal(d({ kind: 'ConvergeModules', convergeEvent: 'OperatorStartup', event: 'Operator-Startup' }), 'ConvergeModules:main:::Operator-Startup');
  assert.equal(
    d({ kind: 'GlobalHookRun', hook: g, bindingType: 'onStartup', contexts: [onStartupContext()], event: 'Operator-Startup', allowFailure: false, reloadAllOnValuesChanges: false }),
    'GlobalHookRun:main:onStartup:hooks/startup.sh:onStartup:Operator-Startup',
  );
  assert.equal(
    d(
      { kind: 'ModuleHookRun', module: 'echo', hook: m, bindingType: 'schedule', contexts: [scheduleContext(sched('b')), scheduleContext(sched('a')), scheduleContext(sched('a'))], event: 'Schedule', allowFailure: false },
      'cron',
    ),
    'ModuleHookRun:cron:schedule:echo/hooks/pods.sh:a,b in 3 contexts:Schedule',
  );
  assert.equal(d({ kind: 'ModuleRun', module: 'echo', doStartup: true, reloadAll: true, event: 'Reload-All-Modules' }), 'ModuleRun:main:echo:doStartup:Reload-All-Modules');
  assert.equal(d({ kind: 'ModuleRun', module: 'echo', doStartup: false, reloadAll: false, event: 'AfterHelm-Hooks-Change-Values' }), 'ModuleRun:main:echo:AfterHelm-Hooks-Change-Values');
  assert.equal(d({ kind: 'ModuleDelete', module: 'echo', event: 'Reload-All-Modules' }), 'ModuleDelete:main:echo:Reload-All-Modules');
  assert.equal(d({ kind: 'GlobalHookWaitKubernetesSynchronization', event: 'Operator-Startup' }), 'GlobalHookWaitKubernetesSynchronization:main:::Operator-Startup');
  const failing = makeTask({ kind: 'ModulePurge', release: 'old', event: 'Discover-Helm-Releases' });
  failing.failureCount = 2;
  failing.failureMessage = 'boom';
  assert.equal(failing.description(), 'ModulePurge:main:old:Discover-Helm-Releases:failures 2:boom');
});

test('only non-synchronization hook runs are compactable, by (module, hook)', () => {
  const h = fakeHook('hooks/a', 'one');
  const run = makeTask({ kind: 'ModuleHookRun', module: 'one', hook: h, bindingType: 'kubernetes', contexts: [], event: 'Kubernetes', allowFailure: false });
  const sync = makeTask({ kind: 'ModuleHookRun', module: 'one', hook: h, bindingType: 'kubernetes', contexts: [], event: 'Kubernetes', allowFailure: false, sync: { binding: 'b', wait: true } });
  assert.equal(run.compactionId, 'one:hooks/a');
  assert.equal(sync.compactionId, undefined);
  assert.notEqual(makeTask({ ...(run.metadata as TaskMeta & { kind: 'ModuleHookRun' }), module: 'two', hook: fakeHook('hooks/a', 'two') }).compactionId, run.compactionId);
});

test('compacted contexts: ungrouped ones in order, then the last of each group', () => {
  const a1 = scheduleContext(sched('a'));
  const g1 = scheduleContext(sched('g1', 'G'));
  const b = scheduleContext(sched('b'));
  const g2 = scheduleContext(sched('g2', 'G'));
  const h = scheduleContext(sched('h', 'H'));
  const life: BindingContext = lifecycleContext({ kubernetes: [] }, 'beforeHelm');
  assert.deepEqual(compactContexts([a1, g1, b, h, g2, life]), [a1, b, life, g2, h]);
});

test('converge status: not started, in progress with the count of converge tasks, done', () => {
  let now = 1000;
  const s = new ConvergeStatus(() => now);
  assert.equal(s.text(), 'STARTUP_CONVERGE_NOT_STARTED\nCONVERGE_COUNT: 0\nCONVERGE_RESTARTS: 0\n');
  const converge = makeTask({ kind: 'ConvergeModules', convergeEvent: 'OperatorStartup', event: 'Operator-Startup' });
  const run = makeTask({ kind: 'ModuleRun', module: 'a', doStartup: true, reloadAll: true, event: 'x' });
  const other = makeTask({ kind: 'ModuleRun', module: 'a', doStartup: false, reloadAll: false, event: 'y' });
  assert.equal(s.update([run, converge, other]), false);
  assert.equal(s.text(), 'STARTUP_CONVERGE_IN_PROGRESS: 2 tasks\nCONVERGE_COUNT: 0\nCONVERGE_RESTARTS: 0\n');
  assert.equal(s.ready, false);
  now = 3500;
  assert.equal(s.update([other]), true);
  assert.equal(s.ready, true);
  assert.equal(s.lastDurationMs, 2500);
  assert.equal(s.text(), 'STARTUP_CONVERGE_DONE\nCONVERGE_WAIT_TASK\nCONVERGE_COUNT: 1\nCONVERGE_RESTARTS: 0\n');
  s.update([converge]);
  now = Date.UTC(2026, 0, 2, 3, 4, 5);
  s.restarted('ReloadAll-After-KubeConfigChange', 'WaitDeleteAndRunModules');
  assert.equal(
    s.text(),
    'STARTUP_CONVERGE_DONE\nCONVERGE_IN_PROGRESS: 1 tasks\nCONVERGE_COUNT: 1\nCONVERGE_RESTARTS: 1\n' +
      'LAST_CONVERGE_RESTART: ReloadAll-After-KubeConfigChange in phase WaitDeleteAndRunModules at 2026-01-02T03:04:05.000Z\n',
  );
  assert.deepEqual(s.json(), {
    CONVERGE_IN_PROGRESS: 1,
    CONVERGE_WAIT_TASK: false,
    STARTUP_CONVERGE_DONE: true,
    STARTUP_CONVERGE_IN_PROGRESS: 0,
    STARTUP_CONVERGE_NOT_STARTED: false,
    CONVERGE_COUNT: 1,
    CONVERGE_RESTARTS: 1,
    LAST_CONVERGE_RESTART: { cause: 'ReloadAll-After-KubeConfigChange', phase: 'WaitDeleteAndRunModules', at: now },
  });
});
