// The fleet of bench/fleet (issue 16's headline): the generated set has every binding kind, loaded by
// the operator's own hook loader, half bash with jq and half in-process; and it converges on the
// sandbox (dist/ built, as `npm ci` leaves it), takes object events, and deletes the modules it disables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFleet, GLOBAL_KINDS, MODULE_KINDS, WATCH_BINDING, watchForm } from '../../bench/fleet/generate.js';
import { runFleet } from '../../bench/fleet/run.js';
import { disableModules, objectEvents, parseSamples, spreadModules, sumOf } from '../../bench/fleet-report.js';
import { loadHooks, type Hook } from '../../src/hooks/hook.js';
import { lifecycleOrder, MODULE_LIFECYCLE_BINDINGS, GLOBAL_LIFECYCLE_BINDINGS } from '../../src/hooks/config-types.js';

/** The binding kinds a hook has, as the operator parsed its config. */
function kindsOf(hook: Hook): string[] {
  const c = hook.config;
  const kinds: string[] = [];
  if (c.onStartup !== undefined) kinds.push('onStartup');
  for (const b of [...GLOBAL_LIFECYCLE_BINDINGS, ...MODULE_LIFECYCLE_BINDINGS]) if (lifecycleOrder(c, b) !== undefined) kinds.push(b);
  if (c.schedule.length) kinds.push('schedule');
  if (c.kubernetes.length) kinds.push('kubernetes');
  for (const w of c.webhooks) kinds.push(w.type);
  return kinds;
}

test('the generated fleet has every binding kind, as the operator loads it, and the kubernetes binding in each of its forms', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fleet-kinds-'));
  try {
    const fleet = generateFleet(root, { modules: 4, objects: 3 });
    const moduleHooks: Hook[] = [];
    for (const dir of readdirSync(fleet.modulesDir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      moduleHooks.push(...(await loadHooks(join(fleet.modulesDir, dir.name, 'hooks'), { kind: 'module', module: dir.name.replace(/^\d+-/, ''), timeoutMs: 30_000 })));
    }
    const globalHooks = await loadHooks(join(fleet.globalHooksDir, 'hooks'), { kind: 'global', timeoutMs: 30_000 });
    assert.equal(moduleHooks.length, 4 * 5);
    assert.deepEqual([...new Set(moduleHooks.flatMap(kindsOf))].sort(), [...MODULE_KINDS].sort());
    assert.deepEqual([...new Set(globalHooks.flatMap(kindsOf))].sort(), [...GLOBAL_KINDS].sort());
    // half bash, half in-process
    const shell = moduleHooks.filter((h) => h.runtime === 'process').length;
    assert.deepEqual([shell, moduleHooks.length - shell], [fleet.hooks.shell, fleet.hooks.inProcess]);
    assert.deepEqual([fleet.hooks.shell, fleet.hooks.inProcess], [10, 10]);
    // the watching binding: with and without a jqFilter, without its Synchronization run, in a group,
    // its snapshot included by another binding
    const watches = moduleHooks.flatMap((h) => h.config.kubernetes.filter((k) => k.name === WATCH_BINDING).map((k) => ({ k, schedule: h.config.schedule })));
    assert.equal(watches.length, 4, 'one watching binding a module');
    assert.ok(watches.some((w) => w.k.jqFilter !== undefined) && watches.some((w) => w.k.jqFilter === undefined), 'with and without a jqFilter');
    assert.ok(watches.some((w) => !w.k.executeHookOnSynchronization), 'executeHookOnSynchronization false');
    assert.ok(watches.some((w) => w.k.group !== undefined && w.schedule.some((s) => s.group === w.k.group && s.includeSnapshotsFrom.includes(WATCH_BINDING))), 'a group');
    assert.ok(watches.some((w) => w.k.group === undefined && w.schedule.some((s) => s.includeSnapshotsFrom.includes(WATCH_BINDING))), 'includeSnapshotsFrom');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the 100-module fleet: 500 hooks, 250 bash hooks that all run jq and 250 in-process; 3,000 objects', () => {
  const root = mkdtempSync(join(tmpdir(), 'fleet-full-'));
  try {
    const fleet = generateFleet(root);
    const files = fleet.names.map((_, i) => readdirSync(fleet.modulesDir).find((d) => d.endsWith(`-${fleet.names[i]}`))!).flatMap((d) => readdirSync(join(fleet.modulesDir, d, 'hooks')).map((f) => join(fleet.modulesDir, d, 'hooks', f)));
    const bash = files.filter((f) => f.endsWith('.sh'));
    const inProcess = files.filter((f) => f.endsWith('.hook.mjs'));
    assert.deepEqual([files.length, bash.length, inProcess.length], [500, 250, 250]);
    assert.deepEqual(fleet.hooks, { shell: 250, inProcess: 250, global: 3 });
    for (const f of bash) assert.match(readFileSync(f, 'utf8').split('CONFIG\n  exit 0\nfi\n')[1]!, /^jq /m, `${f} runs jq`);
    assert.equal(fleet.shape.modules * fleet.shape.objects, 3000);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a small fleet converges on the sandbox, runs every startup kind, handles events, and deletes the modules it disables', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fleet-run-'));
  try {
    const fleet = generateFleet(root, { modules: 4, objects: 3 });
    const off = spreadModules(fleet, 1);
    let runs: Record<string, number> = {};
    let disabled: Awaited<ReturnType<typeof disableModules>> | undefined;
    let events: Awaited<ReturnType<typeof objectEvents>> | undefined;
    const r = await runFleet(fleet, root, {
      parallel: 1,
      kubeClientQps: 0,
      timeoutMs: 240_000,
      afterConverge: async (op) => {
        const metrics = async () => parseSamples(await (await fetch(`${op.httpUrl}/metrics`)).text());
        const m = await metrics();
        const count = (scope: 'module' | 'global', binding: string) => sumOf(m, `addon_operator_${scope}_hook_run_seconds_count`, (l) => l.binding === binding && l.activation === 'OperatorStartup');
        runs = {
          onStartup: count('module', 'onStartup'),
          beforeHelm: count('module', 'beforeHelm'),
          afterHelm: count('module', 'afterHelm'),
          kubernetes: count('module', 'kubernetes'),
          globalOnStartup: count('global', 'onStartup'),
          beforeAll: count('global', 'beforeAll'),
          afterAll: count('global', 'afterAll'),
          globalKubernetes: count('global', 'kubernetes'),
        };
        events = await objectEvents(fleet, op, 8, 120_000);
        disabled = await disableModules(fleet, op, off, 120_000);
        const after = await metrics();
        const deleteRuns = (binding: string) => sumOf(after, 'addon_operator_module_hook_run_seconds_count', (l) => l.binding === binding && l.module === off[0]);
        assert.deepEqual([deleteRuns('beforeDeleteHelm'), deleteRuns('afterDeleteHelm')], [1, 1]);
      },
    });
    assert.equal(r.objects, 12);
    // 4 modules: every onStartup, beforeHelm and afterHelm; 3 Synchronization runs (one module's binding
    // has executeHookOnSynchronization false); the global hooks' onStartup, beforeAll, afterAll and
    // the Namespace binding's Synchronization
    assert.deepEqual(runs, { onStartup: 4, beforeHelm: 4, afterHelm: 4, kubernetes: 3, globalOnStartup: 1, beforeAll: 1, afterAll: 1, globalKubernetes: 1 });
    assert.equal(events!.handled, 8);
    assert.ok(events!.hookRuns >= 1 && events!.hookRuns <= 8, `${events!.hookRuns} runs for 8 events`);
    assert.deepEqual(disabled!.modules, off);
    assert.equal(off.length, 1);
    assert.ok(disabled!.untilDeletedMs > 0);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the modules the fleet report disables are spread over the fleet and carry every form of the kubernetes binding', () => {
  const names = Array.from({ length: 100 }, (_, i) => `m${i}`);
  const picked = spreadModules({ names } as Parameters<typeof spreadModules>[0], 5).map((n) => Number(n.slice(1)));
  assert.equal(picked.length, 5);
  picked.forEach((i, k) => assert.ok(i >= k * 20 && i < (k + 1) * 20, `pick ${k} (${i}) is in its fifth of the fleet`));
  assert.deepEqual([...new Set(picked.map(watchForm))].sort(), ['filter', 'group', 'includeSnapshots', 'noSync']);
  assert.deepEqual(spreadModules({ names: names.slice(0, 4) } as Parameters<typeof spreadModules>[0], 1), ['m2']);
});
