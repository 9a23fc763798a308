// The Go operator's newer start settings (issue 34): SHELL_CHROOT_DIR is refused with the reason,
// APPLIED_MODULE_EXTENDERS with an unknown name stops the start naming it, and
// STRICT_CHECK_VALUES_MODE_ENABLED names every values.yaml that is missing; no stack traces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { bashHook, logRecords, startArgs, waitFor, withOperator } from '../helpers/operator-process.js';

function start(root: string, extra: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, startArgs(root, extra), { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  return r;
}

test('SHELL_CHROOT_DIR, a bad APPLIED_MODULE_EXTENDERS and STRICT_CHECK_VALUES_MODE_ENABLED stop the start with what is wrong', () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/001-with/values.yaml': 'with: {}\n',
    'modules/002-without/Chart.yaml': 'name: without\n',
  });
  const chroot = start(root, [], { SHELL_CHROOT_DIR: '/jail' });
  assert.equal(chroot.status, 1);
  assert.match(chroot.stderr, /--shell-chroot-dir \(env SHELL_CHROOT_DIR\): "\/jail": running hooks in a chroot is not supported/);
  const extenders = start(root, [], { ADDON_OPERATOR_APPLIED_MODULE_EXTENDERS: 'Static,Unknown' });
  assert.equal(extenders.status, 1);
  assert.match(extenders.stderr, /--applied-module-extenders: couldn't find Unknown extender in the list of available extenders/);
  const strict = start(root, ['--strict-check-values-mode-enabled']);
  assert.equal(strict.status, 1);
  assert.ok(strict.stderr.includes(`${join(root, 'modules/values.yaml')} does not exist`), strict.stderr);
  assert.ok(strict.stderr.includes(`${join(root, 'modules/002-without/values.yaml')} does not exist`), strict.stderr);
  assert.ok(!strict.stderr.includes('001-with/values.yaml'), strict.stderr);
});

test('--kube-snapshot-memory-limit: a size that does not parse stops the start; a limit the snapshots pass logs a warning naming the binding', { timeout: 120_000 }, async () => {
  const root = makeTree({
    'modules/.keep': '',
    'global-hooks/hooks/watch.sh': bashHook({ configVersion: 'v1', kubernetes: [{ name: 'namespaces', kind: 'Namespace' }] }, 'exit 0'),
  });
  const bad = start(root, [], { KUBE_SNAPSHOT_MEMORY_LIMIT: 'lots' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--kube-snapshot-memory-limit: "lots" is not a size \(bytes, or a number with Ki, Mi, Gi, Ti, k, M, G or T: 512Mi\)/);
  await withOperator(root, ['--kube-snapshot-memory-limit', '1Ki'], async (op) => {
    await waitFor(() => logRecords(op.output()).some((r) => String(r.msg).includes('--kube-snapshot-memory-limit')), 'the warning', 60_000);
    const warning = logRecords(op.output()).find((r) => String(r.msg).includes('--kube-snapshot-memory-limit'))!;
    assert.equal(warning.level, 'warn');
    assert.match(String(warning.msg), /^kubernetes bindings' snapshots retain [\d.]+ KiB, over --kube-snapshot-memory-limit 1 KiB; largest: hooks\/watch\.sh namespaces: [\d.]+ KiB$/);
    assert.equal(warning.limitBytes, 1024);
  });
});
