// Critical and functional modules (issue 34, the Go operator's pkg/task/functional) with
// `addon-operator start --sandbox` and real bash hooks: the critical modules (no module.yaml, or
// `critical: true`) converge first, in order, in main; then the functional ones (module.yaml without
// `critical: true`) run in at most --parallel-module-runs parallel queues, each once every module it
// requires is done. `module list` and the status page say what a waiting module waits for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { debugRequest } from '../../src/cli/debug.js';
import { makeTree, writeTree } from '../helpers/tree.js';
import { bashHook, waitFor, withOperator } from '../helpers/operator-process.js';

/** The lines of the trace file, none before it exists. */
function traceLines(trace: string): string[] {
  try {
    return readFileSync(trace, 'utf8').trim().split('\n');
  } catch {
    return [];
  }
}

/** A module whose beforeHelm hook traces its start and end; with `gate`, it waits for that file in between. */
function mod(dir: string, name: string, trace: string, moduleYaml?: string, gate?: string): Record<string, string> {
  const wait = gate ? `while [[ ! -e '${gate}' ]]; do sleep 0.05; done` : '';
  return {
    [`modules/${dir}/hooks/before`]: bashHook({ configVersion: 'v1', beforeHelm: 1 }, `echo "${name} start" >> '${trace}'\nsleep 0.3\n${wait}\necho "${name} end" >> '${trace}'`),
    ...(moduleYaml === undefined ? {} : { [`modules/${dir}/module.yaml`]: moduleYaml }),
  };
}

test('critical modules first in order, then functional modules in parallel queues as their requirements are done; module list shows what each waits for', async () => {
  const root = makeTree({ 'global-hooks/.keep': '', 'trace/.keep': '' });
  const trace = join(root, 'trace/lines');
  const gate = join(root, 'trace/gate');
  const requires = (...m: string[]) => `requirements:\n  modules:\n${m.map((x) => `    ${x}: ">= 0.0.0"\n`).join('')}`;
  const files = {
    'modules/values.yaml': ['base', 'fOne', 'fTwo', 'fThree', 'fFour', 'critTwo'].map((k) => `${k}Enabled: true\n`).join(''),
    ...mod('010-base', 'base', trace),
    ...mod('020-f-one', 'f-one', trace, 'weight: 20\n'),
    ...mod('030-f-two', 'f-two', trace, 'tags: [x]\n'),
    ...mod('040-f-three', 'f-three', trace, requires('f-one', 'f-two'), gate),
    // weight 5 puts f-four first in module order: it still waits for f-three
    ...mod('050-f-four', 'f-four', trace, `weight: 5\n${requires('f-three', 'base')}`),
    ...mod('060-crit-two', 'crit-two', trace, 'critical: true\n'),
  };
  writeTree(root, files);
  const socket = join(root, 'debug.socket');
  const lines = () => traceLines(trace);
  await withOperator(root, ['--parallel-module-runs', '2'], async ({ output }) => {
    await waitFor(() => lines().includes('f-three start'), 'f-three to start');
    // f-three waits at its gate: f-four waits for it
    const list = JSON.parse((await debugRequest(socket, 'GET', '/module/list.json')).body) as { modules: { name: string; critical: boolean; waitsFor?: string[] }[] };
    const byName = new Map(list.modules.map((m) => [m.name, m]));
    assert.deepEqual(byName.get('f-four')!.waitsFor, ['f-three']);
    assert.equal(byName.get('f-three')!.waitsFor, undefined, 'running: waits for nothing');
    assert.deepEqual(list.modules.map((m) => [m.name, m.critical]), [['f-four', false], ['base', true], ['f-one', false], ['f-two', false], ['f-three', false], ['crit-two', true]]);
    const text = (await debugRequest(socket, 'GET', '/module/list.text')).body;
    assert.match(text, /^MODULE\s+STATE\s+HEALTH\s+WAITS FOR\s+REASON$/m);
    assert.match(text, /^f-four\s+Startup\s+Unknown: not run yet\s+f-three\s+fFourEnabled/m);
    const address = /"address":"(http:\/\/[^"]+)"/.exec(output())![1]!;
    const status = (await (await fetch(`${address}/status.json`)).json()) as { modules: { name: string; waitsFor?: string[] }[] };
    assert.deepEqual(status.modules.find((m) => m.name === 'f-four')!.waitsFor, ['f-three']);
    assert.match(await (await fetch(`${address}/metrics`)).text(), /^addon_operator_mm_module_info\{module="f-one",enabled="true",critical="false"\} 1$/m);

    writeFileSync(gate, '');
    await waitFor(() => output().includes('startup converge done'), 'the first converge', 60_000);
    const l = lines();
    const at = (s: string) => {
      const i = l.indexOf(s);
      assert.notEqual(i, -1, `${s} in\n${l.join('\n')}`);
      return i;
    };
    // the critical modules, in order, before any functional one
    assert.deepEqual(l.slice(0, 4), ['base start', 'base end', 'crit-two start', 'crit-two end']);
    // f-one and f-two ran at the same time (two queues)
    assert.ok(at('f-one start') < at('f-two end') && at('f-two start') < at('f-one end'), l.join('\n'));
    // f-three after both, f-four after f-three
    assert.ok(at('f-three start') > at('f-one end') && at('f-three start') > at('f-two end'), l.join('\n'));
    assert.ok(at('f-four start') > at('f-three end'), l.join('\n'));
    assert.equal(l.length, 12, l.join('\n'));
    const after = JSON.parse((await debugRequest(socket, 'GET', '/module/list.json')).body) as { modules: { waitsFor?: string[] }[] };
    assert.ok(after.modules.every((m) => m.waitsFor === undefined));
  });
});

test('a failed functional module run goes behind the modules queued after it in its parallel queue (as in Go): they run while it fails', async () => {
  const root = makeTree({ 'global-hooks/.keep': '', 'trace/.keep': '' });
  const trace = join(root, 'trace/lines');
  const gate = join(root, 'trace/gate');
  writeTree(root, {
    'modules/values.yaml': 'fBadEnabled: true\nfGoodEnabled: true\n',
    // queued first (weight 10): fails until the gate exists
    'modules/010-f-bad/hooks/before': bashHook({ configVersion: 'v1', beforeHelm: 1 }, `echo "f-bad run" >> '${trace}'\n[[ -e '${gate}' ]] || { echo "f-bad: no gate" >&2; exit 1; }`),
    'modules/010-f-bad/module.yaml': 'weight: 10\n',
    'modules/020-f-good/hooks/before': bashHook({ configVersion: 'v1', beforeHelm: 1 }, `echo "f-good run" >> '${trace}'`),
    'modules/020-f-good/module.yaml': 'weight: 20\n',
  });
  const lines = () => traceLines(trace);
  // one parallel queue: f-good is queued behind f-bad
  await withOperator(root, ['--parallel-module-runs', '1'], async ({ output }) => {
    await waitFor(() => lines().includes('f-good run'), 'f-good to run while f-bad fails', 30_000);
    assert.equal(lines()[0], 'f-bad run', lines().join('\n'));
    assert.match(output(), /module f-bad: failed after/);
    assert.doesNotMatch(output(), /startup converge done/);
    writeFileSync(gate, '');
    await waitFor(() => output().includes('startup converge done'), 'the first converge once f-bad succeeds', 60_000);
    assert.equal(lines().filter((l) => l === 'f-good run').length, 1, lines().join('\n'));
  });
});
