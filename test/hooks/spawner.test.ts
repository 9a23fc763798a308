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

test('each run reports its own CPU seconds and maximum resident set size (hook-exec, wait4), its children included', async () => {
  const root = makeTree({
    // bash holds 40 MB of command output in a variable: its resident set grows past that
    'big.sh': '#!/usr/bin/env bash\nx=$(head -c 40000000 /dev/zero | tr "\\0" a)\necho ${#x}\n',
    'small.sh': '#!/usr/bin/env bash\necho small\n',
    'child.sh': '#!/usr/bin/env bash\nbash -c \'x=$(head -c 40000000 /dev/zero | tr "\\0" a); echo ${#x}\'\n',
    'plain.txt': 'not executable\n',
  });
  const big = await runProcess({ file: join(root, 'big.sh'), timeoutMs: 30_000 });
  const small = await runProcess({ file: join(root, 'small.sh'), timeoutMs: 30_000 });
  const child = await runProcess({ file: join(root, 'child.sh'), timeoutMs: 30_000 });
  assert.equal(big.stdout, '40000000\n');
  assert.ok(big.usage?.maxRssBytes !== undefined, `hook-exec reports the max RSS (built by npm run build with a C compiler): ${JSON.stringify(big.usage)}`);
  assert.ok(big.usage.maxRssBytes > 40_000_000, `max RSS ${big.usage.maxRssBytes}`);
  assert.ok(small.usage!.maxRssBytes! < 20_000_000, `a small hook's max RSS is its own, not the last big one's: ${small.usage!.maxRssBytes}`);
  assert.ok(child.usage!.maxRssBytes! > 40_000_000, `a child's memory counts: ${child.usage!.maxRssBytes}`);
  assert.ok(big.usage.user + big.usage.sys > 0, JSON.stringify(big.usage));
  const notExecutable = await runProcess({ file: join(root, 'plain.txt'), timeoutMs: 10_000 });
  assert.match(notExecutable.spawnError?.message ?? '', /^spawn \S+plain\.txt EACCES$/);
});
