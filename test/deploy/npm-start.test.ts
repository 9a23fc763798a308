// `npm start` stopped by a signal to npm's pid (what an IDE, a supervisor or `kill $(pidof npm)` does,
// as opposed to Ctrl-C, which signals the terminal's whole process group): the operator stops cleanly
// and its HTTP port is free. The script line is package.json's own, run by npm in a scratch directory
// whose dist/, scripts/, examples/ and node_modules/ are this tree's (its .sandbox/ stays there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait.js';

const root = join(import.meta.dirname, '..', '..');

/** The pids of `pid`'s descendants, from /proc. */
function descendants(pid: number): number[] {
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((c) => [c, ...descendants(c)]);
}

/** Whether `pid` runs (a zombie left unreaped by a reparenting init has ended). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Whether `pid` is node running the operator (not the shell npm starts it with). */
function isOperator(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return /(^|\/)node$/.test(argv[0]!) && argv.includes('dist/cli/main.js') && argv.includes('start');
  } catch {
    return false;
  }
}

const cases = [
  { signal: 'SIGTERM', to: "npm's pid" },
  { signal: 'SIGINT', to: "npm's pid" },
  // Ctrl-C: the terminal signals the whole group, and npm forwards its copy to the operator too
  { signal: 'SIGINT', to: "npm's process group (Ctrl-C)" },
] as const;

for (const { signal, to } of cases) {
  void test(`${signal} to ${to} stops the operator that \`npm start\` runs cleanly, and frees its port`, { timeout: 300_000 }, async () => {
    const work = mkdtempSync(join(tmpdir(), 'npm-start-'));
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'npm-start-test', private: true, scripts: { start: scripts.start } }));
    for (const d of ['dist', 'scripts', 'examples', 'node_modules']) symlinkSync(join(root, d), join(work, d));
    // npm in its own process group, so that the signal below reaches npm alone, as `kill PID` does
    const npm = spawn('npm', ['start', '--', '--listen-port', '0'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, npm_config_update_notifier: 'false' } });
    let out = '';
    npm.stdout.on('data', (b: Buffer) => (out += b));
    npm.stderr.on('data', (b: Buffer) => (out += b));
    const npmExited = new Promise<void>((r) => npm.on('exit', () => r()));
    let operator = 0;
    try {
      let port = 0;
      await waitFor(() => (port ||= Number(/Status page.*http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)?.[1] ?? 0)) > 0, `the quick start's ready message (output: ${out})`);
      operator = descendants(npm.pid!).find(isOperator) ?? 0;
      assert.ok(operator, 'the operator runs under npm');
      assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);

      process.kill(to.includes('group') ? -npm.pid! : npm.pid!, signal);
      await npmExited;
      await waitFor(() => !running(operator), `the operator (pid ${operator}) to end after ${signal} to npm (output: ${out})`);
      assert.match(out, /operator stopped/, `a clean stop (output: ${out})`);
      assert.doesNotMatch(out, /second signal/, 'one stop, not a forced one');
      await assert.rejects(fetch(`http://127.0.0.1:${port}/readyz`), `port ${port} is free`);
    } finally {
      operator ||= descendants(npm.pid!).find(isOperator) ?? 0;
      if (npm.exitCode === null && npm.signalCode === null) process.kill(-npm.pid!, 'SIGKILL');
      if (operator && running(operator)) process.kill(operator, 'SIGKILL');
      rmSync(work, { recursive: true, force: true });
    }
  });
}
