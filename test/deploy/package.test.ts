// The npm package as a user gets it: `npm pack`, then in an empty directory `npm install` of the
// tarball with no C compiler on the PATH, `npx addon-operator --help` and `npx addon-operator start
// --sandbox` (no modules there: it runs without them), all from the installed tarball, not the tree.
// The tarball is packed from the built dist/ (--ignore-scripts: `npm ci` built it; packing runs
// `prepare`, which would rebuild dist/ under the other tests' feet).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { waitFor } from '../helpers/operator-process.js';

const root = join(import.meta.dirname, '..', '..');

function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      const p = join(dir, name);
      if (statSync(p).isFile()) return realpathSync(p);
    } catch {
      // next
    }
  }
  return undefined;
}

/**
 * How the operator ships: the environment and the Node flags of the bin's shebang line, `npm start`'s and
 * the bench's (glibc's fixed mmap threshold and V8's young generation: docs/operator.md, "Node's flags").
 */
const SHIPPED_ENV = 'MALLOC_MMAP_THRESHOLD_=131072';
const SHIPPED_NODE_FLAGS = ['--max-semi-space-size=4'];

const realpathOr = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/**
 * The running node processes whose script is `main` (through any symlink, e.g.
 * node_modules/.bin/addon-operator), from /proc: their command lines, with the script's argument given
 * as `main`, and their environments.
 */
function nodeProcessesOf(main: string): { argv: string[]; env: string[] }[] {
  const out: { argv: string[]; env: string[] }[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    } catch {
      continue; // ended meanwhile
    }
    if (!/(^|\/)node$/.test(argv[0] ?? '') || !argv.some((a) => a.startsWith('/') && realpathOr(a) === main)) continue;
    let env: string[];
    try {
      env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    } catch {
      continue;
    }
    out.push({ argv: argv.map((a) => (a.startsWith('/') && realpathOr(a) === main ? main : a)), env });
  }
  return out;
}

void test('the bin and `npm start` run node with the same environment and V8 flags', () => {
  const shebang = readFileSync(join(root, 'src/cli/main.ts'), 'utf8').split('\n')[0]!;
  assert.equal(shebang, `#!/usr/bin/env -S ${SHIPPED_ENV} node ${SHIPPED_NODE_FLAGS.join(' ')}`);
  assert.equal(readFileSync(join(root, 'dist/cli/main.js'), 'utf8').split('\n')[0], shebang, 'the built bin keeps the shebang');
  assert.ok(statSync(join(root, 'dist/cli/main.js')).mode & 0o100, 'the built bin is executable');
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
  // `exec`: node replaces npm's shell, so a signal to npm reaches it (test/deploy/npm-start.test.ts)
  assert.ok(start.includes(`&& ${SHIPPED_ENV} exec node ${SHIPPED_NODE_FLAGS.join(' ')} dist/cli/main.js start`), `npm start sets the environment and passes the flags: ${start}`);
});

void test('npm pack makes a package that installs without a C compiler and runs with npx in an empty directory', { timeout: 600_000 }, async () => {
  const work = mkdtempSync(join(tmpdir(), 'npm-package-'));
  let child: ReturnType<typeof spawn> | undefined;
  try {
    // a PATH with node, npm, npx and a shell, and no C compiler
    const bin = join(work, 'bin');
    mkdirSync(bin);
    for (const [name, target] of Object.entries({ node: process.execPath, npm: which('npm'), npx: which('npx'), sh: which('sh'), env: which('env') })) {
      assert.ok(target, `${name} is on the PATH`);
      symlinkSync(target, join(bin, name));
    }
    const env = { PATH: bin, HOME: process.env.HOME ?? work, CC: join(work, 'no-cc'), npm_config_update_notifier: 'false' };
    for (const cc of ['cc', 'gcc', 'clang']) assert.throws(() => execFileSync('sh', ['-c', `command -v ${cc}`], { env }), `no ${cc} on the PATH`);

    const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [info] = JSON.parse(packed) as [{ filename: string; files: { path: string }[] }];
    const files = info.files.map((f) => f.path);
    assert.ok(files.includes('dist/cli/main.js') && files.includes('dist/native/hook-exec'));
    assert.deepEqual(files.filter((f) => /^(src|test|bench|examples|scripts)\//.test(f) || f.includes('node_modules')), [], 'no sources, tests or build scripts in the package');

    const app = join(work, 'app');
    mkdirSync(app);
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, info.filename)], { cwd: app, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const installed = join(app, 'node_modules/addon-operator');
    // `prepare` (what builds dist/ in a clone) does nothing in the installed package: no compiler, no sources needed
    const before = statSync(join(installed, 'dist/native/hook-exec')).mtimeMs;
    execFileSync('npm', ['run', 'prepare'], { cwd: installed, env, stdio: 'ignore' });
    assert.equal(statSync(join(installed, 'dist/native/hook-exec')).mtimeMs, before);
    assert.ok(!readdirSync(installed).includes('src'));

    assert.equal(realpathSync(join(app, 'node_modules/.bin/addon-operator')), join(realpathSync(installed), 'dist/cli/main.js'), 'npx runs the installed copy');
    const help = execFileSync('npx', ['addon-operator', '--help'], { cwd: app, env, encoding: 'utf8' });
    assert.match(help, /^Usage: addon-operator \[options\] \[command\]/);
    for (const c of ['start', 'render', 'helm', 'sandbox', 'queue', 'module', 'version']) assert.match(help, new RegExp(`^  ${c}\\b`, 'm'));
    assert.equal(execFileSync('npx', ['addon-operator', 'version'], { cwd: app, env, encoding: 'utf8' }).trim(), `addon-operator ${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}`);

    child = spawn('npx', ['addon-operator', 'start', '--sandbox', '--listen-port', '0', '--tmp-dir', join(work, 'tmp')], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout!.on('data', (b: Buffer) => (out += b));
    child.stderr!.on('data', (b: Buffer) => (out += b));
    const exited = new Promise<string>((r) => child!.on('exit', (code, signal) => r(`${code}/${signal}`)));
    let port = 0;
    await waitFor(() => (port ||= Number(/address=http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1] ?? 0)) > 0, `the HTTP server (output: ${out})`);
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200, `readyz (output: ${out})`);
    assert.match(out, /sandbox: no \.\/modules \(--modules-dir\) and no \.\/global-hooks \(--global-hooks-dir\) here: running without them/);
    assert.match(out, /embedded API server started/);
    assert.match(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(), /addon_operator_live_ticks/);
    // the operator process that npx started runs with the bin's malloc and V8 settings (its shebang line)
    const main = join(realpathSync(installed), 'dist/cli/main.js');
    const operators = nodeProcessesOf(main);
    assert.equal(operators.length, 1, `one operator process runs ${main}`);
    const { argv, env: operatorEnv } = operators[0]!;
    assert.deepEqual(argv.slice(1, argv.indexOf(main)), SHIPPED_NODE_FLAGS, 'the operator runs with the flags of the bin\'s shebang');
    assert.ok(operatorEnv.includes(SHIPPED_ENV), `the operator runs with the environment of the bin's shebang: ${operatorEnv.join(' ')}`);
    // Ctrl-C: the terminal signals the whole group, npx and the operator; npm exits by the signal
    process.kill(-child.pid!, 'SIGINT');
    assert.match(await exited, /^(0\/null|null\/SIGINT)$/);
    assert.match(out, /operator stopped/, `a clean stop (output: ${out})`);
    assert.doesNotMatch(out, /Error|ERR!/);
    child = undefined;
  } finally {
    if (child?.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
});
