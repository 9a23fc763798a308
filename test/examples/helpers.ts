/**
 * Runs an example as its README says (`bash scripts/example.sh NAME`), on the sources (tsx), with its
 * state in a temp dir and the HTTP server on a free port.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { closeConnections } from '../../src/kube/connections.js';
import { requestJson } from '../../src/kube/http.js';
import { MAIN, logRecords, waitFor } from '../helpers/operator-process.js';

export const REPO = join(import.meta.dirname, '../..');
export const SCRIPT = join(REPO, 'scripts/example.sh');
export const OPERATOR = `${process.execPath} --import tsx ${MAIN}`;

export interface RunningExample {
  /** The console (stdout and stderr). */
  output(): string;
  /** The records of the structured log (JSON). */
  records(): Array<Record<string, unknown>>;
  kc: KubeConfig;
  url: string;
  get<T = any>(path: string): Promise<T>;
  /** Ctrl-C; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** `bash scripts/example.sh NAME`, waiting for its first converge. */
export async function runExample(name: string, extra: string[] = []): Promise<RunningExample> {
  const state = mkdtempSync(join(tmpdir(), `ao-example-${name}-`));
  const child = spawn('bash', [SCRIPT, name, '--listen-port', '0', '--log-type', 'json', ...extra], {
    cwd: REPO,
    env: { ...process.env, ADDON_OPERATOR: OPERATOR, EXAMPLE_STATE_DIR: state },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const kc = new KubeConfig();
  after(async () => {
    child.kill('SIGKILL');
    closeConnections(kc);
    rmSync(state, { recursive: true, force: true });
  });
  await Promise.race([
    waitFor(() => out.includes('Ctrl-C stops the operator.'), `example ${name} to converge`, 180_000),
    exited.then((code) => {
      throw new Error(`example ${name} exited with ${code}:\n${out}`);
    }),
  ]);
  kc.loadFromFile(join(state, 'kubeconfig'));
  const client = kc;
  return {
    output: () => out,
    records: () => logRecords(readFileSync(join(state, 'operator.log'), 'utf8')),
    kc: client,
    url: /Status page .*: (http:\/\/\S+)\/$/m.exec(out)![1]!,
    get: (path) => requestJson(client, 'GET', path),
    stop: () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

/** Polls until `fn` returns without throwing (an assertion, a 404); the value it returned. */
export async function eventually<T>(fn: () => Promise<T>, what: string, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
