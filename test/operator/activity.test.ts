import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Activity } from '../../src/operator/activity.js';

void test('the last 50 hook runs, newest first, each with only the fields its run had, also once the ring wraps', () => {
  const a = new Activity();
  assert.deepEqual(a.lastHookRuns(), []);
  a.hookRun({ at: 1, durationMs: 5, hook: 'hooks/g.sh', binding: 'onStartup', queue: 'main', result: 'error', error: 'exit 1' });
  a.hookRun({ at: 2, durationMs: 6, hook: 'hooks/m.sh', module: 'm', binding: 'pods', queue: 'main', result: 'success' });
  assert.deepEqual(a.lastHookRuns(), [
    { at: 2, durationMs: 6, hook: 'hooks/m.sh', module: 'm', binding: 'pods', queue: 'main', result: 'success' },
    { at: 1, durationMs: 5, hook: 'hooks/g.sh', binding: 'onStartup', queue: 'main', result: 'error', error: 'exit 1' },
  ]);
  for (let i = 3; i <= 51; i++) a.hookRun({ at: i, durationMs: i, hook: 'hooks/g.sh', binding: 'b', queue: 'main', result: 'success' });
  const runs = a.lastHookRuns();
  assert.equal(runs.length, 50);
  assert.deepEqual(
    runs.map((r) => r.at),
    Array.from({ length: 50 }, (_, i) => 51 - i),
  );
  // the run at 51 took the slot of the failed run at 1: nothing of it is left
  assert.deepEqual(runs[0], { at: 51, durationMs: 51, hook: 'hooks/g.sh', binding: 'b', queue: 'main', result: 'success' });
  assert.equal(runs.at(-1)!.module, 'm');
  runs[0]!.hook = 'changed';
  assert.equal(a.lastHookRuns()[0]!.hook, 'hooks/g.sh', 'copies are given out');
});

void test('a module is told about only when its failing hooks change: a failure, another error, the recovery; not a success after a success', () => {
  const a = new Activity();
  const told: string[] = [];
  a.onModuleActivity = (m) => void told.push(`${m} ${a.failingHooks(m).map((f) => `${f.hook}:${f.error}`).join(',')}`);
  const run = (error?: string) => a.hookRun({ at: 1, durationMs: 1, hook: 'hooks/w.sh', module: 'm', binding: 'pods', queue: 'main', result: error ? 'error' : 'success', ...(error ? { error } : {}) });
  run();
  run();
  run('exit 1');
  run('exit 1');
  run('exit 2');
  run();
  run();
  assert.deepEqual(told, ['m hooks/w.sh:exit 1', 'm hooks/w.sh:exit 2', 'm ']);
});
