// The Go operator's pkg/task/functional/scheduler_test.go cases, as fixtures: Go's `Done(Root)` is kick(),
// `Done(name)` is markDone(name), and the queued tasks are the modules passed to `start`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FunctionalScheduler, type FunctionalRequest } from '../../src/operator/functional-scheduler.js';

function scheduler() {
  const queued: string[] = [];
  return { s: new FunctionalScheduler((r) => queued.push(r.module)), queued };
}
const req = (module: string, ...requires: string[]): FunctionalRequest => ({ module, doStartup: true, requires: requires.map((m) => ({ module: m.replace(/\?$/, ''), optional: m.endsWith('?') })) });
// `X?` is an optional requirement on X

test('Go TestScheduler_MissingDependencyLaterAdded: D waits for X until X is added and done', () => {
  const { s, queued } = scheduler();
  s.add(req('D', 'X'));
  s.kick();
  assert.deepEqual(queued, []);
  assert.deepEqual(s.waitsFor('D'), ['X']);
  s.add(req('X'));
  s.kick();
  assert.deepEqual(queued, ['X']);
  s.markDone('X');
  assert.deepEqual(queued, ['X', 'D']);
  s.markDone('D');
  assert.equal(s.finished(), true);
});

test('Go TestScheduler_DuplicateAddIgnored: the same request added twice is queued once', () => {
  const { s, queued } = scheduler();
  const r = req('uniq');
  s.add(r);
  s.add(r);
  s.kick();
  assert.deepEqual(queued, ['uniq']);
  s.markDone('uniq');
  assert.equal(s.finished(), true);
});

test('Go TestScheduler_LinearDependencies: A → B', () => {
  const { s, queued } = scheduler();
  s.add(req('A'), req('B', 'A'));
  s.kick();
  assert.deepEqual(queued, ['A']);
  s.markDone('A');
  assert.deepEqual(queued, ['A', 'B']);
  s.markDone('B');
  assert.deepEqual(queued, ['A', 'B']);
  assert.equal(s.finished(), true);
});

test('Go TestScheduler_MultipleDependencies: A, B → C; C waits for B after A is done', () => {
  const { s, queued } = scheduler();
  s.add(req('A'), req('B'), req('C', 'A', 'B'));
  s.kick();
  assert.deepEqual(queued, ['A', 'B']);
  s.markDone('A');
  assert.deepEqual(queued, ['A', 'B'], 'C must wait for B');
  assert.deepEqual(s.waitsFor('C'), ['B']);
  s.markDone('B');
  assert.deepEqual(queued, ['A', 'B', 'C']);
  s.markDone('C');
  assert.equal(s.finished(), true);
});

test('Go TestScheduler_MissingDependencyBlocks: D never runs while X is never added; an optional X does not block', () => {
  const { s, queued } = scheduler();
  s.add(req('D', 'X'), req('E', 'X?'));
  s.kick();
  assert.deepEqual(queued, ['E']);
  assert.equal(s.finished(), false);
});

test('Go TestScheduler_RemoveClearsDone: a chain, then a removed module schedules nothing more', () => {
  const { s, queued } = scheduler();
  s.add(req('operator-prometheus'), req('prometheus', 'operator-prometheus'), req('monitoring-application', 'prometheus'));
  s.kick();
  assert.deepEqual(queued, ['operator-prometheus']);
  s.markDone('operator-prometheus');
  assert.deepEqual(queued, ['operator-prometheus', 'prometheus']);
  s.markDone('prometheus');
  assert.deepEqual(queued, ['operator-prometheus', 'prometheus', 'monitoring-application']);
  s.markDone('monitoring-application');
  assert.equal(s.finished(), true);
  s.remove('operator-prometheus');
  s.markDone('prometheus');
  assert.equal(queued.length, 3, 'no new tasks when the chain is broken');
});

test('nothing starts before the kick (the critical modules run first); waitsFor says so; reset forgets all', () => {
  const { s, queued } = scheduler();
  s.add(req('a'), req('b', 'a'));
  assert.deepEqual(s.waitsFor('a'), ['critical modules']);
  assert.deepEqual(s.waitsFor('b'), ['critical modules', 'a']);
  assert.deepEqual(queued, []);
  assert.deepEqual(s.kick(), ['a']);
  assert.deepEqual(s.waitsFor('a'), [], 'running: waits for nothing');
  assert.equal(s.has('b'), true);
  s.reset();
  assert.equal(s.has('b'), false);
  assert.equal(s.finished(), true);
});
