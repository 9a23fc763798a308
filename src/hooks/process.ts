/**
 * Runs an executable the way hooks and `enabled` scripts are run: a private temp dir, the inherited
 * environment (environment.ts) with the given variables over it, output read line by line with a bounded memory,
 * and a timeout that sends SIGTERM, then SIGKILL after a grace period.
 */
import { lstatSync, mkdtempSync, mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { rm, rmdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { readFileLimited } from '../util/limits.js';
import { spawnProcess, type CpuUsage } from './spawner.js';

export interface RunOptions {
  file: string;
  args?: string[];
  cwd?: string;
  /** The run's own variables, laid over the inherited environment (they win). */
  env?: Record<string, string>;
  /** Run with `env` alone, inheriting nothing. */
  bareEnvironment?: boolean;
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
      { file: opts.file, args: opts.args ?? [], cwd: opts.cwd, env: opts.env ?? {}, ...(opts.bareEnvironment ? { bare: true } : {}) },
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

/** A run dir between runs: nothing in it but output files left empty, whose names are kept. */
interface IdleDir {
  path: string;
  outputs: Set<string>;
}

/** Idle run dirs per tmp dir, for the next runs (at most IDLE_MAX each). */
const idleDirs = new Map<string, IdleDir[]>();
const IDLE_MAX = 8;

/**
 * A private directory for one run: mode 0700, files 0600. Unless `keep`, `dispose()` removes what the
 * run wrote (the values files at once) and hands the directory to a later run when nothing but output
 * files left empty remains in it: a run then creates only its input files, instead of a directory
 * and every file (on a busy ext4 each creation and removal costs tens to hundreds of µs of kernel
 * time). Nothing of a run is left on disk after it but empty files; anything else makes the
 * directory go.
 */
export class RunDir {
  readonly path: string;
  private readonly root: string;
  private readonly keep: boolean;
  /** Files written with content: removed by dispose(). */
  private readonly written: string[] = [];
  /** Output files present in the dir, empty when the run began (names). */
  private readonly outputs: Set<string>;
  /** Output files asked for by this run. */
  private readonly used = new Set<string>();
  /** Output files read: found empty (kept), or with content (removed by dispose()). */
  private readonly seen = new Map<string, 'empty' | 'written'>();

  constructor(root: string, prefix: string, keep = false) {
    // absolute: the process runs in another working dir and gets these paths in its environment
    this.root = resolve(root);
    this.keep = keep;
    const idle = keep ? undefined : takeIdle(this.root);
    if (idle) {
      this.path = idle.path;
      this.outputs = idle.outputs;
      return;
    }
    mkdirSync(this.root, { recursive: true });
    this.path = mkdtempSync(join(this.root, `${prefix.replace(/[^\w.-]+/g, '_')}-`));
    this.outputs = new Set();
  }

  /** Writes a file readable only by the operator's user (0600) and returns its path. */
  write(name: string, content: string | Buffer): string {
    const file = join(this.path, name);
    writeFileSync(file, content, { mode: 0o600 });
    this.written.push(file);
    return file;
  }

  /** An empty file for the process to write into (the one a former run left empty, when it is still so). */
  file(name: string): string {
    const file = join(this.path, name);
    this.used.add(name);
    if (this.outputs.has(name) && isEmptyFile(file)) return file;
    writeFileSync(file, '', { mode: 0o600 });
    this.outputs.add(name);
    return file;
  }

  /**
   * An output file's content: '' without opening it when it is empty, otherwise read within `limit`
   * (`what` names it in the error). A file read with content is removed by dispose().
   */
  read(file: string, limit: number, what: string): string {
    const empty = isEmptyFile(file);
    this.seen.set(basename(file), empty ? 'empty' : 'written');
    return empty ? '' : readFileLimited(file, limit, what);
  }

  dispose(): void {
    if (this.keep) return;
    let reusable: boolean;
    try {
      for (const f of this.written) unlinkSync(f);
      for (const name of this.outputs) {
        // kept for the next run only when empty; outputs this run did not ask for go too
        const seen = this.seen.get(name);
        if (!this.used.has(name) || seen === 'written' || (seen === undefined && !isEmptyFile(join(this.path, name)))) {
          unlinkSync(join(this.path, name));
          this.outputs.delete(name);
        }
      }
      // anything the process left of its own: the dir is not reused
      reusable = readdirSync(this.path).length === this.outputs.size;
    } catch {
      reusable = false;
    }
    const idle = idleDirs.get(this.root) ?? [];
    if (reusable && idle.length < IDLE_MAX) {
      idle.push({ path: this.path, outputs: this.outputs });
      idleDirs.set(this.root, idle);
      return;
    }
    // rmdir is the slowest step of a run on ext4 (about 1 ms) and nothing waits for it: in the
    // background, a recursive removal as the fallback when the process left files of its own
    remove(this.path, true);
  }

  /**
   * Resolves when every disposed run dir is gone, the idle ones removed too (for shutdown and tests:
   * nothing is left under the tmp dir).
   */
  static settled(): Promise<void> {
    for (const [root, dirs] of idleDirs) {
      idleDirs.delete(root);
      for (const d of dirs) remove(d.path, false);
    }
    return Promise.all(pendingRemovals).then(() => undefined);
  }
}

/** An idle dir of the tmp dir that is still there (something may clean the tmp dir meanwhile). */
function takeIdle(root: string): IdleDir | undefined {
  const dirs = idleDirs.get(root);
  for (let d = dirs?.pop(); d; d = dirs?.pop()) {
    if (lstatSync(d.path, { throwIfNoEntry: false })?.isDirectory()) return d;
  }
  return undefined;
}

/** A regular file of size 0 (not a link, not missing). */
function isEmptyFile(file: string): boolean {
  const st = lstatSync(file, { throwIfNoEntry: false });
  return st !== undefined && st.isFile() && st.size === 0;
}

function remove(path: string, tryRmdir: boolean): void {
  const removal = (tryRmdir ? rmdir(path) : Promise.reject(new Error('not empty')))
    .catch(() => rm(path, { recursive: true, force: true }))
    .catch(() => undefined)
    .finally(() => pendingRemovals.delete(removal));
  pendingRemovals.add(removal);
}

const pendingRemovals = new Set<Promise<unknown>>();

/** "exit code 3", "killed by SIGKILL", "timed out after 10s" — for error messages. */
export function describeExit(r: RunResult, timeoutMs: number): string {
  if (r.spawnError) return `could not start: ${r.spawnError.message}`;
  if (r.timedOut) return `timed out after ${timeoutMs / 1000}s and was killed`;
  if (r.signal) return `killed by ${r.signal}`;
  return `exit code ${r.exitCode}`;
}
