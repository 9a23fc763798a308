import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { Task, TASK_TYPES, isTaskType, newTask } from '../../src/queue/task.js';
import { TaskResults } from '../../src/queue/result.js';
import { defaultBackoff, defaultSleep, formatGoDuration } from '../../src/queue/timing.js';

test('task types are the addon-operator task types', () => {
  assert.deepEqual([...TASK_TYPES], [
    'GlobalHookRun',
    'GlobalHookEnableScheduleBindings',
    'GlobalHookEnableKubernetesBindings',
    'GlobalHookWaitKubernetesSynchronization',
    'ConvergeModules',
    'ModuleRun',
    'ParallelModuleRun',
    'ModuleHookRun',
    'ModuleDelete',
    'ModulePurge',
    'DiscoverHelmReleases',
    'ApplyKubeConfigValues',
    'ModuleEnsureCRDs',
    'ModuleEnsureHooks',
  ]);
  assert.equal(isTaskType('ModuleRun'), true);
  assert.equal(isTaskType('HookRun'), false);
});

test('description: <TaskType>:<queue>:<meta>[:failures N[:<last error>]]', () => {
  const t = new Task({
    type: 'ModuleHookRun',
    queue: 'main',
    metadata: { binding: 'kubernetes', hook: '001-a/hooks/pods' },
    describe: (m) => `${m.binding}:${m.hook}:Kubernetes`,
  });
  assert.equal(t.description(), 'ModuleHookRun:main:kubernetes:001-a/hooks/pods:Kubernetes');
  t.failureCount = 2;
  assert.equal(t.description(), 'ModuleHookRun:main:kubernetes:001-a/hooks/pods:Kubernetes:failures 2');
  t.failureMessage = 'exit status 1';
  assert.equal(t.description(), 'ModuleHookRun:main:kubernetes:001-a/hooks/pods:Kubernetes:failures 2:exit status 1');
  assert.equal(String(t), t.description());
});

test('description without a describer has no meta part; defaults: main queue, random ids', () => {
  const a = newTask({ type: 'ConvergeModules', metadata: null });
  const b = newTask({ type: 'ConvergeModules', metadata: null });
  assert.equal(a.description(), 'ConvergeModules:main');
  assert.equal(a.queueName, 'main');
  assert.notEqual(a.id, b.id);
  assert.match(a.id, /^[0-9a-f-]{36}$/);
  assert.equal(newTask({ type: 'ModulePurge', metadata: 1, id: 'x1', queue: 'q' }).description(), 'ModulePurge:q');
  assert.equal(a.failureCount, 0);
  assert.equal(a.failureMessage, '');
  assert.equal(a.processing, false);
});

test('result helpers', () => {
  assert.deepEqual(TaskResults.success(), { status: 'Success' });
  assert.deepEqual(TaskResults.keep({ delayBeforeNextTask: 5 }), { status: 'Keep', delayBeforeNextTask: 5 });
  assert.deepEqual(TaskResults.fail('boom'), { status: 'Fail', error: 'boom' });
  assert.deepEqual(TaskResults.repeat(), { status: 'Repeat' });
});

test('default backoff: 5 s, then 5 s + 2^(n-1) s + jitter (100 ms steps), at most 30 s', () => {
  const low = [0, 1, 2, 3, 4, 5, 6, 7, 20].map((n) => defaultBackoff(n, () => 0));
  assert.deepEqual(low, [5000, 6000, 7000, 9000, 13000, 21000, 30000, 30000, 30000]);
  const high = [0, 1, 2, 3, 4, 5, 6].map((n) => defaultBackoff(n, () => 0.9999));
  assert.deepEqual(high, [5000, 6900, 7900, 9900, 13900, 21900, 30000]);
  assert.equal(defaultBackoff(2, () => 0.55), 7500);
  for (let n = 0; n < 12; n++) {
    const d = defaultBackoff(n);
    assert.ok(d >= 5000 && d <= 30000 && d % 100 === 0, `delay ${d} for ${n}`);
  }
});

test('Go duration text', () => {
  const cases: [number, string][] = [
    [0, '0s'],
    [25, '25ms'],
    [1.5, '1.5ms'],
    [0.25, '250µs'],
    [1000, '1s'],
    [5000, '5s'],
    [6500, '6.5s'],
    [30000, '30s'],
    [60000, '1m0s'],
    [90500, '1m30.5s'],
    [3_600_000, '1h0m0s'],
    [3_723_000, '1h2m3s'],
    [-2000, '-2s'],
  ];
  for (const [ms, s] of cases) assert.equal(formatGoDuration(ms), s, `${ms}`);
});

test('default sleep waits on a timer and ends early on abort', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let done = false;
    const p = defaultSleep(5000, new AbortController().signal).then(() => (done = true));
    mock.timers.tick(4999);
    await Promise.resolve();
    assert.equal(done, false);
    mock.timers.tick(1);
    await p;
    assert.equal(done, true);

    const ctl = new AbortController();
    let aborted = false;
    const q = defaultSleep(30000, ctl.signal).then(() => (aborted = true));
    await Promise.resolve();
    assert.equal(aborted, false);
    ctl.abort();
    await q;
    assert.equal(aborted, true);
  } finally {
    mock.timers.reset();
  }
});
