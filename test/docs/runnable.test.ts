// Every fenced block marked runnable in README.md, deploy/README.md and docs/*.md is run, so that no documented
// command is wrong:
//
//   ```sh runnable                  run as it is, in a fresh directory that has the repository's
//                                   examples/, deploy/, docs/, dist/ and node_modules/, with
//                                   `addon-operator` on the PATH (the built dist/cli/main.js)
//   ```sh runnable-with-operator    the same, while the operator runs as `npm start` runs it
//                                   (package.json's start script, on the sandbox)
//
// Blocks run in the order of the page with `bash -euo pipefail`; each must exit 0. The port 9650 in
// a block becomes a free port (that operator's, or a new one for an operator the block starts
// itself), as tests run side by side. A plain runnable block after one with the operator stops it
// first (the reader's Ctrl-C). Each page gets a playground of its own. Blocks that use kubectl need
// it on the PATH: without it they are not run, with a notice (as test/sandbox/kubectl.test.ts).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/operator-process.js';

const root = join(import.meta.dirname, '..', '..');
const KUBECTL = (process.env.PATH ?? '').split(':').some((d) => existsSync(join(d, 'kubectl')));

interface Block {
  file: string;
  line: number;
  withOperator: boolean;
  text: string;
}

function runnableBlocks(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})sh\s+(runnable(?:-with-operator)?)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && lines[j]!.trim() !== open[2]; j++) body.push(lines[j]!.slice(open[1]!.length));
    assert.ok(j < lines.length, `${file}:${i + 1}: the runnable block is not closed`);
    blocks.push({ file, line: i + 1, withOperator: open[3] === 'runnable-with-operator', text: body.join('\n') });
    i = j;
  }
  return blocks;
}

const pages = ['README.md', 'deploy/README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const byPage = pages.map((p) => ({ page: p, blocks: runnableBlocks(p, readFileSync(join(root, p), 'utf8')) })).filter((p) => p.blocks.length > 0);

/** What a reader has after cloning and `npm ci`, in a directory of its own. */
function playground() {
  const dir = mkdtempSync(join(tmpdir(), 'docs-runnable-'));
  for (const d of ['examples', 'deploy', 'docs', 'dist', 'node_modules', 'scripts']) symlinkSync(join(root, d), join(dir, d));
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  mkdirSync(join(dir, '.bin'));
  writeFileSync(join(dir, '.bin/addon-operator'), `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'dist/cli/main.js')}" "$@"\n`, { mode: 0o755 });
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(dir, '.bin')}:${process.env.PATH}`, HOME: join(dir, '.home'), KUBECACHEDIR: join(dir, '.home/kube-cache') };
  delete env.KUBECONFIG;
  return { dir, env };
}
type Play = ReturnType<typeof playground>;
type Operator = { child: ChildProcess; port: number; output: () => string };

let operator: Operator | undefined;
async function stopOperator(): Promise<void> {
  const op = operator;
  operator = undefined;
  if (op && op.child.exitCode === null) {
    op.child.kill('SIGTERM');
    await new Promise((r) => op.child.once('exit', r));
  }
}
after(stopOperator);

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** The operator as `npm start` runs it (its script without the tools check), on a free port. */
async function startOperator(play: Play): Promise<Operator> {
  if (operator) return operator;
  const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const command = script.replace(/^bash scripts\/check-tools\.sh && /, '');
  // the environment it sets (glibc's malloc settings), then node with its flags
  // (`exec`: node replaces npm's shell, so a signal to npm's pid reaches it)
  const [, env, node] = /^((?:[A-Z_]+=\S+ )*)(?:exec )?(node (?:--\S+ )*dist\/cli\/main\.js start --sandbox .*)$/.exec(command) ?? [];
  assert.ok(node !== undefined, `npm start runs the operator from dist/ with --sandbox: ${command}`);
  const port = await freePort();
  const child = spawn('bash', ['-c', `${env}exec ${node} --listen-port ${port}`], { cwd: play.dir, env: play.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b));
  child.stderr!.on('data', (b: Buffer) => (out += b));
  const op = { child, port, output: () => out };
  operator = op;
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`npm start's operator exited: ${out}`);
    return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200;
  }, 'the operator to be ready', 180_000);
  return op;
}

async function run(b: Block, play: Play): Promise<{ code: number; stdout: string; stderr: string }> {
  if (!b.withOperator) await stopOperator();
  const port = b.withOperator ? (await startOperator(play)).port : await freePort();
  const text = b.text.replace(/\b9650\b/g, String(port));
  // a process group of its own: whatever a failed block left running in the background goes with it
  const child = spawn('bash', ['-euo', 'pipefail', '-c', text], { cwd: play.dir, env: play.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (b: Buffer) => (stdout += b));
  child.stderr!.on('data', (b: Buffer) => (stderr += b));
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const hang = setTimeout(killGroup, 180_000);
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  clearTimeout(hang);
  killGroup();
  return { code, stdout, stderr };
}

void test('the marker is found: README and docs hold runnable blocks, some of them with the operator running; a failing command fails its block', async () => {
  const all = byPage.flatMap((p) => p.blocks);
  assert.ok(all.length >= 8, `${all.length} runnable blocks`);
  assert.ok(all.some((b) => b.withOperator));
  assert.deepEqual(runnableBlocks('x.md', 'a\n```sh runnable\necho 1\n```\n```sh\nnot this\n```\n  ```sh runnable-with-operator\n  echo 2\n  ```\n'), [
    { file: 'x.md', line: 2, withOperator: false, text: 'echo 1' },
    { file: 'x.md', line: 8, withOperator: true, text: 'echo 2' },
  ]);
  const play = playground();
  try {
    const failing = await run({ file: 'x.md', line: 1, withOperator: false, text: 'addon-operator render --modules-dir nowhere\necho never' }, play);
    assert.equal(failing.code, 1);
    assert.match(failing.stderr, /nowhere/);
    assert.equal(failing.stdout, '');
  } finally {
    rmSync(play.dir, { recursive: true, force: true });
  }
});

for (const { page, blocks } of byPage) {
  void test(`${page}: every runnable block runs`, { timeout: 900_000 }, async () => {
    const play = playground();
    try {
      for (const b of blocks) {
        if (!KUBECTL && /\bkubectl\b/.test(b.text)) {
          console.log(`# NOTICE: kubectl is not installed: ${b.file}:${b.line} is not run`);
          continue;
        }
        const r = await run(b, play);
        const op = operator ? `\n--- operator (last lines)\n${operator.output().split('\n').slice(-15).join('\n')}` : '';
        assert.equal(r.code, 0, `${b.file}:${b.line} exited ${r.code}\n--- block\n${b.text}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}${op}`);
      }
    } finally {
      await stopOperator();
      rmSync(play.dir, { recursive: true, force: true });
    }
  });
}
