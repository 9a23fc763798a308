import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { runProcess } from '../../src/hooks/process.js';
import { spawnerPid } from '../../src/hooks/spawner.js';

test('processes start from the spawner helper: output, exit code, signal and start errors come back', async () => {
  const root = makeTree({ 'ok.sh': '#!/usr/bin/env bash\necho "out $X"\necho err >&2\nexit 3\n', 'self-kill.sh': '#!/usr/bin/env bash\nkill -TERM $$\n' });
  const lines: string[] = [];
  const r = await runProcess({ file: join(root, 'ok.sh'), env: { X: 'y' }, timeoutMs: 10_000, onStdoutLine: (l) => lines.push(l) });
  assert.deepEqual([r.exitCode, r.stdout, r.stderrTail, lines], [3, 'out y\n', ['err'], ['out y']]);
  const pid = spawnerPid();
  assert.ok(pid && pid !== process.pid, 'a helper process runs');
  const killed = await runProcess({ file: join(root, 'self-kill.sh'), timeoutMs: 10_000 });
  assert.deepEqual([killed.exitCode, killed.signal], [null, 'SIGTERM']);
  const missing = await runProcess({ file: join(root, 'nope.sh'), timeoutMs: 10_000 });
  assert.match(missing.spawnError?.message ?? '', /ENOENT/);
  assert.equal(spawnerPid(), pid, 'the same helper serves every run');
});

test('a helper that dies fails the runs in flight with a clear error; the next run starts a new helper', async () => {
  const root = makeTree({ 'wait.sh': '#!/usr/bin/env bash\nsleep 5\n', 'ok.sh': '#!/usr/bin/env bash\necho fine\n' });
  await runProcess({ file: join(root, 'ok.sh'), timeoutMs: 10_000 });
  const pid = spawnerPid()!;
  const running = runProcess({ file: join(root, 'wait.sh'), timeoutMs: 10_000 });
  await new Promise((r) => setTimeout(r, 200));
  process.kill(pid, 'SIGKILL');
  const r = await running;
  assert.match(r.spawnError?.message ?? '', /the process spawner exited \(SIGKILL\)/);
  const next = await runProcess({ file: join(root, 'ok.sh'), timeoutMs: 10_000 });
  assert.equal(next.stdout, 'fine\n');
  assert.notEqual(spawnerPid(), pid);
});
