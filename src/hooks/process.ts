/**
 * Runs an executable the way hooks and `enabled` scripts are run: a private temp dir, an environment
 * with only PATH, HOME and the given variables, output read line by line with a bounded memory,
 * and a timeout that sends SIGTERM, then SIGKILL after a grace period.
 */
import { mkdtempSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { rm, rmdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { spawnProcess, type CpuUsage } from './spawner.js';

export interface RunOptions {
  file: string;
  args?: string[];
  cwd?: string;
  /** Variables added to PATH and HOME of the operator's own environment. */
  env?: Record<string, string>;
  timeoutMs: number;
  /** Time between SIGTERM and SIGKILL after a timeout. */
  graceMs?: number;
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
  /** Lines of stderr kept for the error message. */
  keepStderrLines?: number;
  /** Bytes of stdout kept in `stdout` (the rest is dropped, `stdoutTruncated` set). */
  maxStdoutBytes?: number;
}

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stdoutTruncated: boolean;
  stderrTail: string[];
  /** spawn failed (ENOENT, EACCES...) */
  spawnError?: Error;
  /** CPU seconds of the process tree, where the platform tells them. */
  usage?: CpuUsage;
}

const LINE_LIMIT = 64 * 1024;

function lineSplitter(onLine: (line: string) => void) {
  let buf = '';
  return {
    push(chunk: string) {
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
      if (buf.length > LINE_LIMIT) {
        onLine(buf.slice(0, LINE_LIMIT) + ' …(line truncated)');
        buf = '';
      }
    },
    end() {
      if (buf) onLine(buf);
      buf = '';
    },
  };
}

/** The only variables of the operator's own environment that a child process gets. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  if (process.env.PATH) env.PATH = process.env.PATH;
  if (process.env.HOME) env.HOME = process.env.HOME;
  return env;
}

export function runProcess(opts: RunOptions): Promise<RunResult> {
  const keep = opts.keepStderrLines ?? 20;
  const maxOut = opts.maxStdoutBytes ?? 1024 * 1024;
  return new Promise((resolve) => {
    const stderrTail: string[] = [];
    let stdout = '';
    let stdoutTruncated = false;
    let timedOut = false;
    let settled = false;
    const out = lineSplitter((l) => opts.onStdoutLine?.(l));
    const err = lineSplitter((l) => {
      stderrTail.push(l);
      if (stderrTail.length > keep) stderrTail.shift();
      opts.onStderrLine?.(l);
    });
    let killTimer: NodeJS.Timeout | undefined;
    const finish = (r: Pick<RunResult, 'exitCode' | 'signal' | 'spawnError' | 'usage'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      out.end();
      err.end();
      resolve({ ...r, timedOut, stdout, stdoutTruncated, stderrTail });
    };
    const child = spawnProcess(
      { file: opts.file, args: opts.args ?? [], cwd: opts.cwd, env: { ...baseEnv(), ...opts.env } },
      {
        stdout: (c) => {
          if (stdout.length < maxOut) {
            stdout += c.slice(0, maxOut - stdout.length);
            if (stdout.length >= maxOut) stdoutTruncated = true;
          } else stdoutTruncated = true;
          out.push(c);
        },
        stderr: (c) => err.push(c),
        exit: ({ code, signal, error, usage }) => finish({ exitCode: code, signal, spawnError: error, ...(usage ? { usage } : {}) }),
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), opts.graceMs ?? 5000);
    }, opts.timeoutMs);
  });
}

/** A private directory for one run: mode 0700, removed by `dispose()` unless `keep`. */
export class RunDir {
  readonly path: string;
  private readonly keep: boolean;
  private readonly files: string[] = [];

  constructor(root: string, prefix: string, keep = false) {
    mkdirSync(root, { recursive: true });
    // absolute: the process runs in another working dir and gets these paths in its environment
    this.path = mkdtempSync(join(resolve(root), `${prefix.replace(/[^\w.-]+/g, '_')}-`));
    this.keep = keep;
  }

  /** Writes a file readable only by the operator's user (0600) and returns its path. */
  write(name: string, content: string): string {
    const file = join(this.path, name);
    writeFileSync(file, content, { mode: 0o600 });
    this.files.push(file);
    return file;
  }

  /** Creates an empty file for the process to write into. */
  file(name: string): string {
    return this.write(name, '');
  }

  dispose(): void {
    if (this.keep) return;
    // Our files go at once; the directory goes in the background: rmdir is the slowest step of a
    // run on ext4 (about 1 ms) and nothing waits for it. A recursive removal is the fallback when
    // the process left files of its own.
    try {
      for (const f of this.files) unlinkSync(f);
    } catch {
      // removed below
    }
    const removal = rmdir(this.path)
      .catch(() => rm(this.path, { recursive: true, force: true }))
      .catch(() => undefined)
      .finally(() => pendingRemovals.delete(removal));
    pendingRemovals.add(removal);
  }

  /** Resolves when every disposed run dir is gone (for shutdown and tests). */
  static settled(): Promise<void> {
    return Promise.all(pendingRemovals).then(() => undefined);
  }
}

const pendingRemovals = new Set<Promise<unknown>>();

/** "exit code 3", "killed by SIGKILL", "timed out after 10s" — for error messages. */
export function describeExit(r: RunResult, timeoutMs: number): string {
  if (r.spawnError) return `could not start: ${r.spawnError.message}`;
  if (r.timedOut) return `timed out after ${timeoutMs / 1000}s and was killed`;
  if (r.signal) return `killed by ${r.signal}`;
  return `exit code ${r.exitCode}`;
}
