/**
 * The quick start's operator is found without `--debug-unix-socket`: a sandbox operator started in a
 * directory opens its socket in that directory's .sandbox/, and the debug commands run there look for it
 * when neither the flag nor DEBUG_UNIX_SOCKET is given and the production default does not exist.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { MAIN, killChild, waitFor } from '../helpers/operator-process.js';
import { DEFAULT_DEBUG_SOCKET } from '../../src/cli/debug.js';

test('debug commands run in the directory of a sandbox operator find its socket without the flag', async (t) => {
  assert.ok(!existsSync(DEFAULT_DEBUG_SOCKET), `this test needs no operator at ${DEFAULT_DEBUG_SOCKET}`);
  const root = makeTree({
    'modules/values.yaml': 'echoEnabled: true\n',
    'modules/001-echo/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo\ndata: {}\n',
    'global-hooks/.keep': '',
    'elsewhere/.keep': '',
  });
  // tsx by its file URL: these processes run outside the project's directory
  const tsx = import.meta.resolve('tsx');
  const env = { ...process.env };
  delete env.DEBUG_UNIX_SOCKET;
  const args = ['--import', tsx, MAIN, 'start', '--sandbox', '--listen-port', '0', '--tmp-dir', 'tmp', '--namespace', 'addons', '--log-file', 'operator.log'];
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b));
  child.stderr.on('data', (b: Buffer) => (out += b));
  const exited = new Promise((r) => child.on('exit', r));
  t.after(() => killChild(child, exited));
  await waitFor(() => out.includes('Ctrl-C stops the operator.') || child.exitCode !== null, 'the block of things to try');
  assert.match(out, /Ctrl-C stops the operator\./);
  assert.ok(existsSync(join(root, '.sandbox/debug.socket')));
  // the commands shown need no flag, and work as printed from that directory
  const shown = /^ {4}node \S+ (module list -o text)$/m.exec(out);
  assert.ok(shown, out);
  assert.match(out, /^ {4}node \S+ queue list$/m);
  const cli = (cwd: string, cmd: string[]) => spawnSync(process.execPath, ['--import', tsx, MAIN, ...cmd], { cwd, env, encoding: 'utf8' });
  const listed = cli(root, shown[1]!.split(' '));
  assert.equal(listed.status, 0, listed.stderr);
  assert.match(listed.stdout, /^echo +Ready/m);
  assert.equal(cli(root, ['queue', 'list', '-o', 'json']).status, 0);
  // elsewhere: the production default, and the error says how to give another one
  const away = cli(join(root, 'elsewhere'), ['queue', 'list']);
  assert.equal(away.status, 1);
  assert.equal(away.stderr, `Error: debug socket ${DEFAULT_DEBUG_SOCKET} does not exist: is the operator running? (--debug-unix-socket, env DEBUG_UNIX_SOCKET)\n`);
});
