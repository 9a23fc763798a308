import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyHookFileName, discoverHooks, globalHooksRoot, type SkippedEntry } from '../../src/hooks/discovery.js';

function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'hooks-discovery-'));
  const file = (rel: string, mode: number): void => {
    const p = join(root, rel);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, '#!/bin/bash\n');
    chmodSync(p, mode);
  };
  file('b.sh', 0o755);
  file('a.sh', 0o700);
  file('002-dir/hook.sh', 0o755);
  file('002-dir/sub/deep.py', 0o750);
  file('10-z.sh', 0o755);
  file('not-exec.sh', 0o644);
  file('README.md', 0o755);
  file('values.yaml', 0o644);
  file('config.json', 0o755);
  file('notes.txt', 0o755);
  file('lib/helper.sh', 0o755);
  file('002-dir/lib/x.sh', 0o755);
  file('.hidden.sh', 0o755);
  file('.git/hooks/pre-commit', 0o755);
  file('venv/bin/python3', 0o755);
  file('ts/set-values.hook.js', 0o644);
  file('ts/other.hook.mjs', 0o644);
  file('ts/helper.js', 0o644);
  mkdirSync(join(root, 'real'));
  file('real/linked.sh', 0o755);
  symlinkSync(join(root, 'real'), join(root, 'via-link'));
  symlinkSync(join(root, 'b.sh'), join(root, 'c-link.sh'));
  symlinkSync(join(root, 'missing'), join(root, 'dangling.sh'));
  symlinkSync(root, join(root, 'real', 'loop'));
  return root;
}

void test('discoverHooks finds executables and in-process hooks, sorted, following symlinks', async (t) => {
  const root = tree();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const skipped: SkippedEntry[] = [];
  const hooks = await discoverHooks(root, { onSkip: (s) => skipped.push(s), skipDirNames: ['venv'] });
  assert.deepEqual(
    hooks.map((h) => `${h.kind}:${h.relativePath}`),
    [
      'executable:002-dir/hook.sh',
      'executable:002-dir/sub/deep.py',
      'executable:10-z.sh',
      'executable:a.sh',
      'executable:b.sh',
      'executable:c-link.sh',
      'executable:real/linked.sh',
      'inProcess:ts/other.hook.mjs',
      'inProcess:ts/set-values.hook.js',
      'executable:via-link/linked.sh',
    ],
  );
  assert.equal(hooks[0]!.path, join(root, '002-dir/hook.sh'));
  const reasons = Object.fromEntries(skipped.map((s) => [s.relativePath, s.reason]));
  assert.equal(reasons['not-exec.sh'], 'not-executable');
  assert.equal(reasons['ts/helper.js'], 'not-executable');
  assert.equal(reasons['README.md'], 'ignored-extension');
  assert.equal(reasons['values.yaml'], 'ignored-extension');
  assert.equal(reasons['dangling.sh'], 'broken-symlink');
  assert.ok(skipped.some((s) => s.reason === 'directory-loop'), 'the symlink loop is reported');
  assert.ok(!skipped.some((s) => s.relativePath.startsWith('lib') || s.relativePath.includes('.git')), 'lib and hidden entries are skipped silently');
});

void test('venv is only skipped when asked', async (t) => {
  const root = tree();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const hooks = await discoverHooks(root);
  assert.ok(hooks.some((h) => h.relativePath === 'venv/bin/python3'));
});

void test('a missing hooks dir gives no hooks; a file instead of a dir is an error', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'hooks-discovery-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  assert.deepEqual(await discoverHooks(join(root, 'nope')), []);
  writeFileSync(join(root, 'file'), '');
  await assert.rejects(discoverHooks(join(root, 'file')), /is not a directory/);
});

void test('globalHooksRoot prefers <dir>/hooks', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'hooks-discovery-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  assert.equal(await globalHooksRoot(root), root);
  mkdirSync(join(root, 'hooks'));
  assert.equal(await globalHooksRoot(root), join(root, 'hooks'));
});

void test('classifyHookFileName', () => {
  assert.equal(classifyHookFileName('x.hook.js'), 'inProcess');
  assert.equal(classifyHookFileName('x.hook.mjs'), 'inProcess');
  assert.equal(classifyHookFileName('x.js'), 'executable');
  assert.equal(classifyHookFileName('x.hook.ts'), 'executable');
  assert.equal(classifyHookFileName('x.json'), 'ignored');
});
