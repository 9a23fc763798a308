// The rules of a module's health: a failed hook or run first, then the worst of its objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeModuleHealth } from '../../src/operator/module-health.js';

const ok = { result: 'success' as const };
const obj = (object: string, status: 'Current' | 'InProgress' | 'Failed' | 'Unknown', message: string = status) => ({ object, status, message });

test('a module health: Failed, Degraded, Progressing, Unknown, Ready in that order', () => {
  const objects = [obj('Deployment a/web', 'InProgress', 'Available: 0/2'), obj('Job a/migrate', 'Failed', 'Job Failed'), obj('ConfigMap a/c', 'Current')];
  assert.deepEqual(computeModuleHealth({ lastRun: ok, failingHooks: [{ hook: 'hooks/x', error: 'exit code 1' }], hasChart: true, objects }).reason, 'hook hooks/x failed: exit code 1');
  assert.deepEqual(computeModuleHealth({ lastRun: { result: 'error', error: 'helm: boom' }, failingHooks: [], hasChart: true }), { health: 'Failed', reason: 'module run failed: helm: boom' });
  assert.deepEqual(computeModuleHealth({ lastRun: ok, failingHooks: [], hasChart: true, objects }), {
    health: 'Degraded', reason: 'Job a/migrate: Job Failed', objects: { Current: 1, InProgress: 1, Failed: 1, Unknown: 0 },
  });
  assert.equal(computeModuleHealth({ lastRun: ok, failingHooks: [], hasChart: true, objects: objects.filter((o) => o.status !== 'Failed') }).reason, 'waiting for Deployment a/web: Available: 0/2');
  assert.equal(computeModuleHealth({ lastRun: ok, failingHooks: [], hasChart: true, objects: [obj('A a/x', 'InProgress'), obj('A a/y', 'InProgress')] }).reason, 'waiting for A a/x: InProgress (and 1 more)');
  assert.equal(computeModuleHealth({ lastRun: ok, failingHooks: [], hasChart: true, objects: [obj('A a/x', 'Unknown', 'cannot read status')] }).health, 'Unknown');
  assert.equal(computeModuleHealth({ lastRun: ok, failingHooks: [], hasChart: true, objects: [obj('A a/x', 'Current')] }).health, 'Ready');
  assert.deepEqual(computeModuleHealth({ lastRun: ok, failingHooks: [], hasChart: false }), { health: 'Ready', reason: 'ran successfully (no chart)' });
  assert.deepEqual(computeModuleHealth({ lastRun: ok, failingHooks: [], hasChart: true }), { health: 'Unknown', reason: 'its release objects are not watched' });
  assert.deepEqual(computeModuleHealth({ failingHooks: [], hasChart: true }), { health: 'Unknown', reason: 'not run yet' });
});
