import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSamples, phaseSeconds, sumOf, wallShares } from '../../bench/fleet-report.js';

const EXPOSITION = [
  '# HELP addon_operator_module_hook_run_seconds Duration of module hook runs',
  '# TYPE addon_operator_module_hook_run_seconds histogram',
  'addon_operator_module_hook_run_seconds_bucket{module="a",hook="010-a/hooks/before.sh",binding="beforeHelm",queue="main",activation="OperatorStartup",le="+Inf"} 2',
  'addon_operator_module_hook_run_seconds_sum{module="a",hook="010-a/hooks/before.sh",binding="beforeHelm",queue="main",activation="OperatorStartup"} 1.5',
  'addon_operator_module_hook_run_seconds_count{module="a",hook="010-a/hooks/before.sh",binding="beforeHelm",queue="main",activation="OperatorStartup"} 2',
  'addon_operator_module_hook_run_seconds_sum{module="a",hook="010-a/hooks/after.hook.mjs",binding="afterHelm",queue="main",activation="OperatorStartup"} 0.25',
  'addon_operator_module_hook_run_seconds_count{module="a",hook="010-a/hooks/after.hook.mjs",binding="afterHelm",queue="main",activation="OperatorStartup"} 1',
  // after the first converge: not the converge's
  'addon_operator_module_hook_run_seconds_sum{module="a",hook="010-a/hooks/watch.sh",binding="kubernetes",queue="main",activation=""} 9',
  'addon_operator_module_hook_run_seconds_count{module="a",hook="010-a/hooks/watch.sh",binding="kubernetes",queue="main",activation=""} 3',
  'addon_operator_global_hook_run_seconds_sum{hook="g.sh",binding="onStartup",queue="main",activation="OperatorStartup"} 0.5',
  'addon_operator_global_hook_run_seconds_count{hook="g.sh",binding="onStartup",queue="main",activation="OperatorStartup"} 1',
  'addon_operator_module_hook_run_user_cpu_seconds_sum{module="a",hook="010-a/hooks/before.sh",binding="beforeHelm",queue="main",activation="OperatorStartup"} 0.03',
  'addon_operator_module_hook_run_sys_cpu_seconds_sum{module="a",hook="010-a/hooks/before.sh",binding="beforeHelm",queue="main",activation="OperatorStartup"} 0.01',
  'addon_operator_module_helm_seconds_sum{module="a",activation="OperatorStartup"} 2.75',
  'addon_operator_module_helm_seconds_sum{module="a",activation=""} 100',
  'addon_operator_module_run_seconds_sum{module="a",activation="OperatorStartup"} 6',
  'odd_label{path="C:\\\\dir \\"x\\"\\nnext"} 7',
].join('\n');

test('samples of an exposition: names, unescaped labels, values; comments skipped', () => {
  const s = parseSamples(EXPOSITION);
  assert.equal(s.length, 15);
  assert.deepEqual(s.at(-1), { name: 'odd_label', labels: { path: 'C:\\dir "x"\nnext' }, value: 7 });
  assert.equal(sumOf(s, 'addon_operator_module_helm_seconds_sum'), 102.75);
  assert.equal(sumOf(s, 'addon_operator_module_helm_seconds_sum', (l) => l.activation === ''), 100);
});

test('the first converge in hooks (shell and in-process apart, global hooks counted) and in Helm', () => {
  const p = phaseSeconds(parseSamples(EXPOSITION), (l) => l.activation === 'OperatorStartup');
  assert.deepEqual(p, { shellHooks: 2, inProcessHooks: 0.25, globalHooks: 0.5, helm: 2.75, moduleRuns: 6, hookRuns: 4, shellHookCpu: 0.04 });
  const s = wallShares(10, p);
  assert.ok(Math.abs(s.hooks - 0.225) < 1e-12 && Math.abs(s.helm - 0.275) < 1e-12, JSON.stringify(s));
  assert.ok(Math.abs(s.engine - 0.5) < 1e-12, 'the engine has what hooks and Helm do not');
});
