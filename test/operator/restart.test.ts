/**
 * Converge restarts (issue 21) on the sandbox with the real Kubernetes and Helm layers and real hook
 * processes: a ConfigMap edit lands while a chosen hook run (or Helm apply) is paused, in each phase of
 * the first converge and of a later one; a burst of 20 edits; a module-only edit; a global hook
 * enabling a module mid-converge. Each is checked against the invariants on the trace of hook runs and
 * on the objects the charts left in the sandbox.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { settle } from './helpers.js';
import { bare, checkInvariants, started, world, type World } from './restart-world.js';
import { statusJson } from '../../src/operator/status.js';
import { waitFor } from '../helpers/wait.js';

const MODULES = ['alpha', 'beta', 'gamma'];

async function expectFinal(w: World, x: string, modules = MODULES): Promise<void> {
  const objects = await w.objects();
  assert.deepEqual(Object.keys(objects).sort(), [...modules].sort());
  for (const m of modules) assert.deepEqual(objects[m], { x, synced: 'yes', v: 'init' }, `the values Helm got for ${m}`);
  assert.deepEqual(await w.releases(), [...modules].sort());
}

/** Pauses `label`, edits the global section when it is reached, lets it go, and settles. */
async function editDuring(w: World, label: string, x: number): Promise<void> {
  await w.reached(label);
  await w.edit({ global: `x: ${x}\n` });
  w.resume(label);
  await w.s.op.converge.whenFirstDone();
  await settle(w.s.op);
}

const PHASES = ['g beforeAll', 'beta onStartup', 'beta objs:Synchronization', 'beta beforeHelm', 'helm beta', 'beta afterHelm', 'g afterAll'];

/** The paused run itself completes: an afterAll paused when the edit came is in the trace. */
const afterAlls = (lines: readonly string[]) => bare(lines).filter((l) => l.startsWith('g afterAll'));

describe('restarts of the first converge', { concurrency: 4 }, () => {
  for (const label of PHASES) {
    test(`a global edit while the first converge is at "${label}" restarts it; every invariant holds`, async (t) => {
      const w = await world({ modules: MODULES });
      t.after(() => w.stop());
      w.pause(label);
      await w.s.op.start();
      await editDuring(w, label, 1);
      const lines = w.s.trace.lines();
      checkInvariants(lines, MODULES);
      assert.equal(w.s.op.converge.restarts, 1, lines.join('\n'));
      assert.equal(w.s.op.converge.lastRestart?.cause, 'ReloadAll-After-KubeConfigChange');
      assert.ok(w.maxPendingConverges <= 1);
      // the converge that finished began with the new config, and is the only one that finished
      assert.equal(w.s.op.converge.convergeCount, 1);
      assert.deepEqual(afterAlls(lines), label === 'g afterAll' ? ['g afterAll x=0', 'g afterAll x=1'] : ['g afterAll x=1']);
      await expectFinal(w, '1');
      assert.ok(w.s.logs.some((l) => l.includes('converge restarted: ReloadAll-After-KubeConfigChange arrived in phase')));
    });
  }
});

describe('restarts of a later converge', { concurrency: 4 }, () => {
  for (const label of ['g beforeAll', 'beta beforeHelm', 'helm beta', 'g afterAll']) {
    test(`a global edit while a later converge is at "${label}" restarts that one`, async (t) => {
      const w = await started(await world({ modules: MODULES }));
      t.after(() => w.stop());
      const from = w.s.trace.lines().length;
      w.pause(label);
      await w.edit({ global: 'x: 1\n' });
      await editDuring(w, label, 2);
      const lines = w.s.trace.lines().slice(from);
      checkInvariants(w.s.trace.lines(), MODULES);
      assert.equal(w.s.op.converge.restarts, 1, lines.join('\n'));
      assert.deepEqual(afterAlls(lines), label === 'g afterAll' ? ['g afterAll x=1', 'g afterAll x=2'] : ['g afterAll x=2']);
      // no module starts again: onStartup and Synchronization ran once, in the first converge
      assert.deepEqual(lines.filter((l) => / (onStartup|objs:Synchronization) /.test(l)), []);
      await expectFinal(w, '2');
    });
  }
});

describe('edits of other kinds during a converge', { concurrency: 4 }, () => {

  test('a burst of 20 edits during a converge: one restart, with the last config', async (t) => {
  const w = await world({ modules: MODULES });
  t.after(() => w.stop());
  w.pause('beta beforeHelm');
  await w.s.op.start();
  await w.reached('beta beforeHelm');
  for (let i = 1; i <= 20; i++) await w.edit({ global: `x: ${i}\n` });
  w.resume('beta beforeHelm');
  await w.s.op.converge.whenFirstDone();
  await settle(w.s.op);
  checkInvariants(w.s.trace.lines(), MODULES);
  assert.equal(w.s.op.converge.restarts, 1);
  assert.ok(w.maxPendingConverges <= 1, `${w.maxPendingConverges} converges waited at once`);
  assert.deepEqual(afterAlls(w.s.trace.lines()), ['g afterAll x=20']);
  await expectFinal(w, '20');
  });

  test('an edit during a restarted converge restarts it again; the last config wins', async (t) => {
    const w = await world({ modules: MODULES });
    t.after(() => w.stop());
    w.pause('beta beforeHelm');
    await w.s.op.start();
    await w.reached('beta beforeHelm');
    w.pause('gamma beforeHelm');
    await w.edit({ global: 'x: 1\n' });
    w.resume('beta beforeHelm');
    await w.reached('gamma beforeHelm');
    await editDuring(w, 'gamma beforeHelm', 2);
    checkInvariants(w.s.trace.lines(), MODULES);
    assert.equal(w.s.op.converge.restarts, 2);
    assert.deepEqual(afterAlls(w.s.trace.lines()), ['g afterAll x=2']);
    await expectFinal(w, '2');
  });

  test('with parallel module runs: a module run in flight in a parallel queue finishes its step, then the restart runs every module once more', async (t) => {
    // beta and gamma share an order number: they run side by side in parallel queues
    const w = await world({ modules: MODULES, order: [1, 2, 2], parallelModuleRuns: 2 });
    t.after(() => w.stop());
    w.pause('beta beforeHelm');
    await w.s.op.start();
    await w.reached('beta beforeHelm');
    await w.edit({ global: 'x: 1\n' });
    w.resume('beta beforeHelm');
    await w.s.op.converge.whenFirstDone();
    await settle(w.s.op);
    const lines = w.s.trace.lines();
    checkInvariants(lines, MODULES);
    assert.equal(w.s.op.converge.restarts, 1, lines.join('\n'));
    assert.deepEqual(afterAlls(lines), ['g afterAll x=1']);
    assert.ok(w.s.op.queues.queues().every((q) => q.length === 0), 'no task left behind in any queue');
    await expectFinal(w, '1');
    // status.json (the status page's source) shows the restart, its cause and the converge count
    const status = statusJson(w.s.op.runtime).converge;
    assert.equal(status.count, 1);
    assert.equal(status.restarts, 1);
    assert.equal(status.lastRestart?.cause, 'ReloadAll-After-KubeConfigChange');
    assert.ok(status.lastRestart && ['WaitDeleteAndRunModules'].includes(status.lastRestart.phase), JSON.stringify(status));
  });

  test('a module-only edit during a converge runs that module after its run in the converge, never before, and reloads nothing', async (t) => {
  const w = await world({ modules: MODULES });
  t.after(() => w.stop());
  // alpha has run, gamma has not: both get an edit while beta's beforeHelm is paused
  w.pause('beta beforeHelm');
  await w.s.op.start();
  await w.reached('beta beforeHelm');
  await w.edit({ alpha: 'v: a2\n', gamma: 'v: g2\n' });
  w.resume('beta beforeHelm');
  await w.s.op.converge.whenFirstDone();
  await settle(w.s.op);
  const lines = w.s.trace.lines();
  checkInvariants(lines, MODULES);
  assert.equal(w.s.op.converge.restarts, 0);
  assert.equal(lines.filter((l) => l.startsWith('g beforeAll')).length, 1, 'no reload');
  const helms = (m: string) => lines.filter((l) => l.startsWith(`${m} beforeHelm`));
  // alpha: its converge run (old values), then one more run with the new values
  assert.deepEqual(helms('alpha'), ['alpha beforeHelm synced=yes x=0 v=init', 'alpha beforeHelm synced=yes x=0 v=a2']);
  // gamma: no run before its converge run; that one has the new values, and one more follows it
  assert.deepEqual(helms('gamma'), ['gamma beforeHelm synced=yes x=0 v=g2', 'gamma beforeHelm synced=yes x=0 v=g2']);
  const objects = await w.objects();
  assert.equal(objects.alpha?.v, 'a2');
  assert.equal(objects.gamma?.v, 'g2');
  });

  test('a global hook enabling a module mid-converge: the restart runs it with onStartup and Synchronization', async (t) => {
    // a kubernetes hook in a queue of its own sets gammaEnabled while the converge is at beta's beforeHelm
    const enabler = (tr: { path: string }) => `#!/usr/bin/env bash
  if [[ "$1" == "--config" ]]; then echo '${JSON.stringify({ configVersion: 'v1', kubernetes: [{ name: 'switch', kind: 'ConfigMap', queue: 'side', executeHookOnSynchronization: false, labelSelector: { matchLabels: { app: 'switch' } }, namespace: { nameSelector: { matchNames: ['default'] } } }] })}'; exit 0; fi
  echo "g-switch" >> '${tr.path}'
  echo '[{"op":"add","path":"/gammaEnabled","value":true}]' > "$VALUES_JSON_PATCH_PATH"
  `;
    const w = await world({ modules: MODULES, enabled: ['alpha', 'beta'], files: (tr) => ({ 'global-hooks/hooks/switch': enabler(tr) }) });
    t.after(() => w.stop());
    w.pause('beta beforeHelm');
    await w.s.op.start();
    await w.reached('beta beforeHelm');
    const { requestJson } = await import('../../src/kube/http.js');
    await requestJson(w.kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'on', namespace: 'default', labels: { app: 'switch' } } });
    await waitFor(() => w.s.trace.lines().includes('g-switch'), 'the switch hook');
    await waitFor(() => w.s.op.queues.main.tasks().some((x) => x.metadata.kind === 'ConvergeModules' && x.metadata.restart === true), 'the restart to be queued');
    w.resume('beta beforeHelm');
    await w.s.op.converge.whenFirstDone();
    await settle(w.s.op);
    const lines = w.s.trace.lines();
    checkInvariants(lines, MODULES);
    assert.equal(w.s.op.converge.restarts, 1);
    assert.equal(w.s.op.converge.lastRestart?.cause, 'ReloadAll-After-GlobalHookDynamicUpdate');
    assert.deepEqual(w.s.op.manager.enabledModules, MODULES);
    await expectFinal(w, '0');
  });

  test("a module-section edit that turns the module's enabled script to false mid-converge: the restart disables it", async (t) => {
    const enabledScript = `#!/usr/bin/env bash
if [[ "$(jq -r '.gamma.disable // false' "$CONFIG_VALUES_PATH")" == "true" ]]; then echo false; else echo true; fi > "$MODULE_ENABLED_RESULT"
`;
    const w = await world({ modules: MODULES, files: () => ({ 'modules/003-gamma/enabled': enabledScript }) });
    t.after(() => w.stop());
    w.pause('beta beforeHelm');
    await w.s.op.start();
    await w.reached('beta beforeHelm');
    await w.edit({ gamma: 'disable: true\n' });
    w.resume('beta beforeHelm');
    await w.s.op.converge.whenFirstDone();
    await settle(w.s.op);
    const lines = w.s.trace.lines();
    checkInvariants(lines, ['alpha', 'beta']);
    assert.equal(w.s.op.converge.restarts, 1, lines.join('\n'));
    assert.deepEqual(w.s.op.manager.enabledModules, ['alpha', 'beta']);
    // gamma never started; its deletion (enabled at the first discovery) runs afterDeleteHelm only
    assert.deepEqual(
      lines.filter((l) => l.startsWith('gamma ')),
      ['gamma afterDeleteHelm synced=no x=0 v=init'],
    );
    await expectFinal(w, '0', ['alpha', 'beta']);
  });

  test('a ConfigMap edit disabling a module mid-converge: the restart deletes it, nothing half-applied', async (t) => {
    const w = await world({ modules: MODULES });
    t.after(() => w.stop());
    w.pause('beta beforeHelm');
    await w.s.op.start();
    await w.reached('beta beforeHelm');
    await w.edit({ alphaEnabled: 'false' });
    w.resume('beta beforeHelm');
    await w.s.op.converge.whenFirstDone();
    await settle(w.s.op);
    const lines = w.s.trace.lines();
    checkInvariants(lines, ['beta', 'gamma']);
    assert.equal(w.s.op.converge.restarts, 1);
    assert.deepEqual(w.s.op.manager.enabledModules, ['beta', 'gamma']);
    assert.ok(lines.includes('helm-uninstall alpha'));
    await expectFinal(w, '0', ['beta', 'gamma']);
  });
});
