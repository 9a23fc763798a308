/** `addon-operator start --sandbox` as a child process, for scenario tests of the CLI. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after } from 'node:test';
import assert from 'node:assert/strict';

export const MAIN = join(import.meta.dirname, '../../src/cli/main.ts');

/** Arguments of `start --sandbox` over `root`'s modules/, global-hooks/ and tmp/, JSON logs, any free port. */
export function startArgs(root: string, extra: string[] = []): string[] {
  return [
    '--import', 'tsx', MAIN, 'start', '--sandbox',
    '--modules-dir', join(root, 'modules'),
    '--global-hooks-dir', join(root, 'global-hooks'),
    '--tmp-dir', join(root, 'tmp'),
    '--namespace', 'addons',
    '--log-type', 'json',
    '--listen-port', '0',
    '--debug-unix-socket', join(root, 'debug.socket'),
    ...extra,
  ];
}

export { waitFor } from './wait.js';

/**
 * `start --sandbox` as a child process, its stdout and stderr collected together. Killed when the
 * calling test ends, whatever its outcome: a failed assertion fails the test at once instead of
 * leaving the operator (and with it the test file) running until the runner's file timeout.
 */
export function startOperator(root: string, extra: string[] = [], env: NodeJS.ProcessEnv = process.env) {
  return spawnNode(startArgs(root, extra), env);
}

/**
 * Runs `body` against `start --sandbox` over `root` (`startOperator`): when it throws, the end of the
 * operator's output is printed; then the operator gets SIGTERM and must exit 0.
 */
export async function withOperator(root: string, extra: string[], body: (op: CliProcess) => Promise<void>): Promise<void> {
  const op = startOperator(root, extra);
  try {
    await body(op);
  } catch (e) {
    console.log(op.output().slice(-4000));
    throw e;
  } finally {
    op.child.kill('SIGTERM');
  }
  assert.equal(await op.exited, 0, op.output().slice(-2000));
}

/** `addon-operator ARGS...` (any command) as a child process, as `startOperator` runs it. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnNode(['--import', 'tsx', MAIN, ...args], env);
}

export type CliProcess = ReturnType<typeof runCli>;

function spawnNode(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  after(() => killChild(child, exited));
  return { child, output: () => out, exited };
}

/** SIGKILLs `child` unless it has exited; resolves once it has. For a test's `after` hook. */
export async function killChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited;
}

/** The records of a JSON log. */
export function logRecords(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A bash hook printing `config` for `--config` and running `body` otherwise. */
export const bashHook = (config: object, body: string) => `#!/usr/bin/env bash
if [[ "$1" == "--config" ]]; then echo '${JSON.stringify(config)}'; exit 0; fi
${body}
`;
