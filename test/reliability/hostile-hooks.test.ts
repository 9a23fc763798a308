/**
 * Hooks that misbehave, run by the operator one after the other in its main queue: one hangs past its
 * timeout, one crashes, one prints 50 MB, one writes 10,000 Kubernetes operations, one forks a process
 * that outlives it. Each is handled as the hook engine promises (killed with its process group on
 * timeout, a failure for a crash, the log truncated, every operation applied, the leftover process
 * gone), memory stays bounded, and the queue moves on to the next hook every time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { pino } from 'pino';
import { ModuleManager } from '../../src/modules/manager.js';
import { Operator } from '../../src/operator/operator.js';
import { makeTree, writeTree } from '../helpers/tree.js';
import { MemoryConfig, MemoryHelm, MemoryKube, Trace, settle, traceHook } from '../operator/helpers.js';
import { waitFor } from '../helpers/wait.js';

const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \([^)]*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

test('hooks that hang, crash, print 50 MB, write 10,000 operations or leave a process behind: each handled, memory bounded, the queue moves on', async (t) => {
  const root = makeTree({ 'modules/.keep': '' });
  const trace = new Trace(join(root, 'trace.log'));
  const pidFile = join(root, 'orphan.pid');
  const ops = Array.from({ length: 10_000 }, (_, i) => ({ operation: 'CreateOrUpdate', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `op-${i}`, namespace: 'default' }, data: { i: String(i) } } }));
  const schedule = (name: string) => ({ configVersion: 'v1', schedule: [{ name, crontab: `0 0 ${['hang', 'crash', 'loud', 'ops', 'fork', 'canary'].indexOf(name) + 1} 1 *`, allowFailure: true }] });
  writeTree(root, {
    'global-hooks/hooks/1-hang': traceHook(trace, 'hang', schedule('hang'), "trap '' TERM\nsleep 600 &\nwait"),
    'global-hooks/hooks/2-crash': traceHook(trace, 'crash', schedule('crash'), 'kill -SEGV $$'),
    'global-hooks/hooks/3-loud': traceHook(trace, 'loud', schedule('loud'), 'head -c 50000000 /dev/zero | tr "\\0" "x" | fold -w 1000'),
    'global-hooks/hooks/4-ops': traceHook(trace, 'ops', schedule('ops'), `cat > "$KUBERNETES_PATCH_PATH" <<'EOF'\n${ops.map((o) => JSON.stringify(o)).join('\n')}\nEOF`),
    'global-hooks/hooks/5-fork': traceHook(trace, 'fork', schedule('fork'), `sleep 600 &\necho $! > '${pidFile}'\nexit 0`),
    'global-hooks/hooks/6-canary': traceHook(trace, 'canary', schedule('canary')),
  });
  const logs: string[] = [];
  const logger = pino({ level: 'info', base: undefined }, new Writable({ write: (c, _e, cb) => (logs.push(String(c)), cb()) }));
  // only the hanging hook has a short timeout: the others (50 MB through pipes, 10,000 operations)
  // may take seconds on a loaded machine and must not be killed for it
  const manager = await ModuleManager.load({
    modulesDir: join(root, 'modules'), globalHooksDir: join(root, 'global-hooks'), tmpDir: join(root, 'tmp'), hookTimeoutMs: 600_000,
    runtimeFor: (hook) => (hook.name === 'hooks/1-hang' ? { timeoutMs: 1000 } : {}),
  });
  const kube = new MemoryKube();
  const op = new Operator({ manager, namespace: 'test', kube, helm: new MemoryHelm(trace), config: new MemoryConfig(null), logger, timing: { backoff: () => 10, discoveryRetryMs: 10 } });
  t.after(() => op.stop());
  await op.start();
  await op.converge.whenFirstDone();
  await settle(op);

  const heapBefore = process.memoryUsage().heapUsed;
  for (const crontab of op.schedules.crontabs().sort()) op.schedules.fire(crontab);
  await waitFor(() => trace.lines().some((l) => l.startsWith('canary')), 'the canary hook, queued last');
  await settle(op);
  // (the hanging hook may be killed before it writes its trace line, on a loaded machine: its
  // timeout's log line tells that it ran, once)
  const ran = trace.lines().filter((l) => !l.startsWith('helm')).map((l) => l.split(' ')[0]);
  assert.deepEqual(ran.filter((h) => h !== 'hang'), ['crash', 'loud', 'ops', 'fork', 'canary'], 'each ran once (allowFailure: no retry) and the queue moved on');
  assert.ok(ran.indexOf('hang') <= 0 && ran.lastIndexOf('hang') <= 0, `the hanging hook first, once: ${ran.join(' ')}`);
  const text = logs.join('');
  assert.equal(logs.filter((l) => l.includes('hooks/1-hang') && /timed out after 1s and was killed/.test(l)).length, 1, text.slice(0, 2000));
  assert.match(text, /SIGSEGV|signal 11|killed by signal/i);
  assert.match(text, /hook output truncated/);
  // the 10,000 operations were all applied
  assert.equal([...kube.objects.values()].filter((o) => o.metadata.name.startsWith('op-')).length, 10_000);
  // the process the fork hook left behind (holding its output pipes) did not keep the run open, and is gone
  const pid = Number(readFileSync(pidFile, 'utf8'));
  await waitFor(() => !alive(pid), `the leftover sleep (pid ${pid}) to be gone`);
  const grown = process.memoryUsage().heapUsed - heapBefore;
  assert.ok(grown < 128 * 1024 * 1024, `heap grew by ${grown} bytes`);
});
