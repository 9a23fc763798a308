import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURES = 'test/scripts/fixtures/run-tests';

test('a file killed on its timeout fails the run and shows its tests: passed, skipped, unfinished, and the one it was running', { timeout: 300_000 }, async () => {
  // the timeout is the fixture's input, not an assertion: long enough for its quick tests to finish first
  const child = spawn(process.execPath, ['scripts/run-tests.mjs', FIXTURES], { cwd: ROOT, env: { ...process.env, TEST_FILE_TIMEOUT: '20', TEST_CONCURRENCY: '2' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (out += c));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 1, out);
  const killed = 'killed after 20 s (TEST_FILE_TIMEOUT): 5 tests, 2 passed, 0 failed, 1 skipped, 2 unfinished (running: hangs)';
  // the file's block, with the output it printed before the kill
  assert.match(out, new RegExp(`✖ ${FIXTURES}/hangs\\.test\\.mjs \\([\\d.]+ s\\): ${escape(killed)}\\n`));
  assert.match(out, /✔ passes inside/);
  assert.match(out, new RegExp(`✔ ${FIXTURES}/passes\\.test\\.mjs`));
  // the summary counts the killed file's tests and names it
  assert.match(out, /\n {2}tests 7, pass 4, fail 0, skipped 1, unfinished 2 \(in killed files\)\n/);
  assert.match(out, new RegExp(`FAILED files \\(1\\):\\n {4}${FIXTURES}/hangs\\.test\\.mjs \\(${escape(killed)}\\)\\n`));
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
