/**
 * `start --log-file FILE`: the structured log goes to FILE, the console shows one short line per step
 * (hook output with its binding, module runs with outcome and duration, converges) and, once the first
 * converge is done, the block of things to try; its commands work against the running operator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { bashHook, logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { ConsoleProgress } from '../../src/cli/start-console.js';

test('the console shows steps, warnings and errors, and leaves out the rest of the log', () => {
  let out = '';
  const c = new ConsoleProgress((t) => (out += t));
  const time = '2026-11-26T10:20:30.000Z';
  c.record({ level: 'info', time, msg: 'debug socket listening', socket: 'x' });
  c.record({ level: 'info', time, msg: 'hello', output: 'stdout', hook: 'hooks/a.sh', binding: 'onStartup' });
  c.record({ level: 'info', time, msg: 'modules discovered', enabled: ['a', 'b'], disabled: [], 'event.type': 'Operator-Startup' });
  c.record({ level: 'info', time, msg: 'modules discovered', enabled: ['a'], disabled: ['b', 'c'], deleting: ['b'], 'event.type': 'Reload-All-Modules' });
  c.record({ level: 'info', time, msg: '[1/2] module a: run started', event: 'Reload-All-Modules' });
  c.record({ level: 'info', time, msg: '[1/2] module a: run started', event: 'KubeConfig-Changed-Modules' });
  c.record({ level: 'info', time, msg: 'x', output: 'stderr', hook: 'hooks/b.sh', module: 'a', binding: 'beforeHelm' });
  c.record({ level: 'info', time, msg: '[1/2] module a: installed in 0.50s' });
  c.record({ level: 'warn', time, msg: '[2/2] module b: failed after 0.10s', module: 'b', error: 'chart: bad' });
  c.record({ level: 'debug', time, msg: '[2/2] module b: installed in 0.10s' });
  c.record({ level: 'info', time, msg: 'converge #1 done in 1.00s: 2 of 2 modules enabled' });
  assert.equal(
    out,
    [
      '10:20:30 global hook hooks/a.sh (onStartup): hello',
      '10:20:30 modules discovered (Operator-Startup): enabled a, b',
      '10:20:30 modules discovered (Reload-All-Modules): enabled a; disabled b, c',
      '10:20:30 [1/2] module a: run started (KubeConfig-Changed-Modules)',
      '10:20:30 module a hook hooks/b.sh (beforeHelm): x',
      '10:20:30 [1/2] module a: installed in 0.50s',
      'WARN [2/2] module b: failed after 0.10s [module b]: chart: bad',
      '10:20:30 converge #1 done in 1.00s: 2 of 2 modules enabled',
      '',
    ].join('\n').replace('WARN', '10:20:30 WARN'),
  );
});

test('start --log-file: progress on stdout, the log in the file, then commands that work', async () => {
  const root = makeTree({
    'global-hooks/hooks/hello': bashHook({ configVersion: 'v1', onStartup: 1 }, 'echo "hello from a hook"'),
    'modules/values.yaml': 'echoEnabled: true\n',
    'modules/001-echo/Chart.yaml': 'apiVersion: v2\nname: echo\nversion: 0.1.0\n',
    'modules/001-echo/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo\ndata: {}\n',
  });
  const logFile = join(root, 'logs/operator.log');
  const kubeconfig = join(root, 'kubeconfig');
  const { child, output, exited } = startOperator(root, ['--log-file', logFile, '--sandbox-kubeconfig', kubeconfig]);
  try {
    await waitFor(() => output().includes('Ctrl-C stops the operator.'), 'the block of things to try');
    const out = output();
    assert.match(out, /^addon-operator starting; the full log is in .*logs\/operator\.log$/m);
    assert.match(out, /^\d\d:\d\d:\d\d global hook hooks\/hello \(onStartup\): hello from a hook$/m);
    assert.match(out, /^\d\d:\d\d:\d\d \[1\/1\] module echo: installed in \d+\.\d\ds$/m);
    assert.match(out, /^\d\d:\d\d:\d\d converge #1 done in /m);
    assert.doesNotMatch(out, /debug socket listening|^\{/m, 'the rest of the log is in the file');
    // the file holds the whole structured log (JSON, as --log-type asks)
    const records = logRecords(readFileSync(logFile, 'utf8'));
    assert.ok(records.some((r) => r.msg === 'debug socket listening'));
    assert.ok(records.some((r) => r.msg === 'hello from a hook' && r.hook === 'hooks/hello'));
    // the commands shown work as printed (run from the same directory)
    const kubectl = /^ {4}(kubectl .* get deployments,daemonsets,configmaps,secrets)$/m.exec(out)?.[1];
    assert.ok(kubectl, out);
    assert.ok(kubectl.includes(`--kubeconfig ${kubeconfig}`) && kubectl.includes('-n addons'), kubectl);
    if (spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0) {
      const got = spawnSync('bash', ['-c', kubectl], { encoding: 'utf8' });
      assert.equal(got.status, 0, got.stderr);
      assert.match(got.stdout, /configmap\/echo /);
    }
    const url = /Status page .*: (http:\/\/127\.0\.0\.1:\d+)\/$/m.exec(out)?.[1];
    assert.ok(url, out);
    assert.match(await (await fetch(`${url}/`)).text(), /<html/i);
    assert.match(await (await fetch(`${url}/metrics`)).text(), /addon_operator_live_ticks/);
    const moduleList = /^ {4}node (\S+) (module list -o text --debug-unix-socket \S+)$/m.exec(out);
    assert.ok(moduleList, out);
    const listed = spawnSync(process.execPath, ['--import', 'tsx', moduleList[1]!, ...moduleList[2]!.split(' ')], { encoding: 'utf8' });
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /^echo +Ready/m);
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, output());
  assert.match(output(), /operator stopped\n$/);
});
