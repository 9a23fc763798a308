/**
 * Starts hook processes from a small helper process instead of the operator itself.
 *
 * Node forks the whole parent to start a child, so a spawn costs time in proportion to the parent's
 * resident memory: about 1.5 ms at 50 MB, 10 ms at 350 MB, blocking the event loop each time. An
 * operator that holds large snapshots would spend most of its time forking. The helper is a bare Node
 * process (no modules of ours, a small heap) that spawns on request and streams the output back, so
 * a hook run costs the same whatever the operator holds. If the helper dies, the runs in flight fail
 * and the next run starts a new one; if the operator dies, the helper kills its children and exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentInheritedEnvironment } from './environment.js';

/** The helper's program, run with `node -e`: CommonJS, nothing but child_process. */
const HELPER = `
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
// the hook-exec wrapper (native/hook-exec.c), when it was built: it reports each run's usage on fd 3
const WRAPPER = process.argv[1] || '';
const ERRNO_NAMES = Object.fromEntries(Object.entries(constants.errno).map(([name, n]) => [n, name]));
const kids = new Map();
// the environment every child inherits, sent once; a run's own variables are laid over it
let inherited = {};
const send = (m) => { if (process.connected) process.send(m); };
// a hook runs in a process group of its own, so that a kill reaches the processes it started too
// (a 'sleep' holding the output pipe would otherwise keep a killed run open)
const killGroup = (c, sig) => { try { process.kill(-c.pid, sig); } catch { c.kill(sig); } };
// without the wrapper: CPU time of the children this helper has reaped (Linux: /proc/self/stat
// cutime and cstime, in clock ticks); the growth since the last reaped child is that child's
let reaped = null;
const childTicks = () => { try { const f = require('node:fs').readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' '); return [Number(f[13]), Number(f[14])]; } catch { return null; } };
reaped = childTicks();
const usageOfReaped = () => {
  const now = childTicks();
  if (!now || !reaped) return undefined;
  const u = { user: (now[0] - reaped[0]) / 100, sys: (now[1] - reaped[1]) / 100 };
  reaped = now;
  return u;
};
process.on('message', (m) => {
  if (m.inherited) { inherited = m.inherited; return; }
  if (m.kill) { const k = kids.get(m.id); if (k) { k.killed = true; killGroup(k.c, m.kill); } return; }
  let c;
  const env = m.bare ? m.env : Object.assign({}, inherited, m.env);
  try {
    c = WRAPPER
      ? spawn(WRAPPER, [m.file, ...m.args], { cwd: m.cwd, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], detached: true })
      : spawn(m.file, m.args, { cwd: m.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  } catch (e) {
    send({ id: m.id, exit: { error: String(e && e.message), code: e && e.code } });
    return;
  }
  const k = { c, killed: false };
  kids.set(m.id, k);
  const done = (exit) => { if (kids.get(m.id) === k) { kids.delete(m.id); send({ id: m.id, exit: { ...exit, usage: k.usage } }); } };
  c.stdout.setEncoding('utf8');
  c.stderr.setEncoding('utf8');
  c.stdout.on('data', (d) => send({ id: m.id, out: d }));
  c.stderr.on('data', (d) => send({ id: m.id, err: d }));
  if (WRAPPER) {
    let report = '';
    c.stdio[3].setEncoding('utf8');
    c.stdio[3].on('data', (d) => { report += d; });
    c.stdio[3].on('end', () => {
      const f = report.trim().split(' ');
      if (f[0] === 'usage') k.usage = { maxRssBytes: Number(f[1]) * 1024, user: Number(f[2]), sys: Number(f[3]) };
      // the file could not be started: reported as spawn reports it without the wrapper
      if (f[0] === 'exec') { const code = ERRNO_NAMES[Number(f[1])] || 'E' + f[1]; k.execError = { error: 'spawn ' + m.file + ' ' + code, code }; }
    });
  }
  c.on('error', (e) => done({ error: e.message, code: e.code }));
  // a killed run ends when its process does, even if something outside its group holds the pipes;
  // a hook that exits takes what it left running in its group with it (a background 'sleep' would
  // otherwise outlive the run and, holding the output pipes, keep it open)
  c.on('exit', (code, signal) => { if (!WRAPPER) k.usage = usageOfReaped(); if (k.killed) done({ code, signal }); else killGroup(c, 'SIGKILL'); });
  c.on('close', (code, signal) => done(k.execError || { code, signal }));
});
process.on('disconnect', () => { for (const k of kids.values()) killGroup(k.c, 'SIGKILL'); process.exit(0); });
`;

/**
 * CPU seconds of a finished process tree and, with the hook-exec wrapper, its maximum resident set
 * size (without the wrapper two processes ending at the same moment may share their seconds).
 */
export interface CpuUsage {
  user: number;
  sys: number;
  maxRssBytes?: number;
}

/**
 * The built hook-exec wrapper: dist/native/ beside the compiled sources, or the build's from src/;
 * one built for another machine (an npm package installed elsewhere) is not used.
 */
function findWrapper(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return [join(here, '../native/hook-exec'), join(here, '../../dist/native/hook-exec')].find((p) => existsSync(p) && isElfForThisMachine(p)) ?? '';
}

const ELF_MACHINE: Partial<Record<NodeJS.Architecture, number>> = { ia32: 3, arm: 40, x64: 62, arm64: 183, ppc64: 21, s390x: 22, riscv64: 243 };

/** A Linux executable for this CPU: the ELF magic and e_machine (offset 18, little endian but on s390x/ppc64). */
function isElfForThisMachine(path: string): boolean {
  if (process.platform !== 'linux') return false;
  const head = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    if (readSync(fd, head, 0, 20, 0) < 20) return false;
  } finally {
    closeSync(fd);
  }
  const machine = head[5] === 2 ? head.readUInt16BE(18) : head.readUInt16LE(18);
  return head.readUInt32BE(0) === 0x7f454c46 && machine === ELF_MACHINE[process.arch];
}

export interface SpawnRequest {
  file: string;
  args: string[];
  cwd?: string;
  /** The run's own variables, laid over the inherited environment (environment.ts). */
  env: Record<string, string>;
  /** Only `env`, nothing inherited (a batch hook's `hook list` probe, as the Go operator runs it). */
  bare?: boolean;
}

export interface SpawnHandlers {
  stdout(chunk: string): void;
  stderr(chunk: string): void;
  /**
   * Called once: the exit code and signal, or the error that kept the process from starting; with
   * the CPU seconds of the process and its children where the platform tells them (Linux).
   */
  exit(result: { code: number | null; signal: NodeJS.Signals | null; error?: Error; usage?: CpuUsage }): void;
}

export interface SpawnedProcess {
  kill(signal: NodeJS.Signals): void;
}

type HelperMessage =
  | { id: number; out: string }
  | { id: number; err: string }
  | { id: number; exit: { code?: number | string | null; signal?: NodeJS.Signals | null; error?: string; usage?: CpuUsage } };

class Spawner {
  private helper: ChildProcess | undefined;
  private readonly runs = new Map<number, SpawnHandlers>();
  private nextId = 1;
  /** The inherited environment the helper has now (sent once, and again only when it changes). */
  private sentInherited: Record<string, string> | undefined;

  spawn(req: SpawnRequest, handlers: SpawnHandlers): SpawnedProcess {
    const helper = this.ensureHelper();
    const inherited = currentInheritedEnvironment();
    if (inherited !== this.sentInherited) {
      helper.send({ inherited });
      this.sentInherited = inherited;
    }
    const id = this.nextId++;
    this.runs.set(id, handlers);
    this.setRef(true);
    helper.send({ id, ...req });
    return { kill: (signal) => helper.connected && helper.send({ id, kill: signal }) };
  }

  /** Kills every running hook's process group (SIGKILL, by the helper) and waits for the helper to exit (at most 2 s). */
  async killAll(): Promise<void> {
    const helper = this.helper;
    if (!helper?.connected) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      helper.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      // the helper kills its children's groups when its channel closes
      helper.disconnect();
    });
  }

  get pid(): number | undefined {
    return this.helper?.connected ? this.helper.pid : undefined;
  }

  private ensureHelper(): ChildProcess {
    if (this.helper?.connected) return this.helper;
    // a bare environment: no NODE_OPTIONS loaders of ours, the helper must stay small
    // in a session of its own: a terminal's Ctrl-C, which reaches every process of the foreground
    // group, must reach neither the helper nor a hook it is starting (a child is in the helper's
    // group until its setsid); the operator stops on the signal and lets running hooks finish, and
    // the helper ends when the operator disconnects
    const helper = spawn(process.execPath, ['--max-old-space-size=64', '-e', HELPER, findWrapper()], {
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { PATH: process.env.PATH ?? '' },
    });
    helper.on('message', (m: HelperMessage) => this.onMessage(m));
    const lost = (why: string) => {
      if (this.helper !== helper) return;
      this.helper = undefined;
      const runs = [...this.runs.values()];
      this.runs.clear();
      for (const h of runs) h.exit({ code: null, signal: null, error: new Error(`the process spawner ${why}`) });
    };
    helper.on('exit', (code, signal) => lost(`exited (${signal ?? `code ${code}`})`));
    helper.on('error', (e) => lost(`failed: ${e.message}`));
    helper.unref();
    this.helper = helper;
    this.sentInherited = undefined;
    return helper;
  }

  private onMessage(m: HelperMessage): void {
    const h = this.runs.get(m.id);
    if (!h) return;
    if ('out' in m) h.stdout(m.out);
    else if ('err' in m) h.stderr(m.err);
    else {
      this.runs.delete(m.id);
      if (this.runs.size === 0) this.setRef(false);
      const { code, signal, error, usage } = m.exit;
      if (error !== undefined) {
        const e = Object.assign(new Error(error), typeof code === 'string' ? { code } : {});
        h.exit({ code: null, signal: null, error: e });
      } else h.exit({ code: typeof code === 'number' ? code : null, signal: signal ?? null, ...(usage ? { usage } : {}) });
    }
  }

  /** The IPC channel keeps the operator alive only while runs are in flight. */
  private setRef(on: boolean): void {
    const channel = (this.helper as { channel?: { ref(): void; unref(): void } } | undefined)?.channel;
    if (on) channel?.ref();
    else channel?.unref();
  }
}

const spawner = new Spawner();

/** The helper's pid, or undefined when it is not running (for tests and diagnostics). */
export function spawnerPid(): number | undefined {
  return spawner.pid;
}

/** Kills every hook process running now, with the processes they started (a leader that lost its lease). */
export function killAllProcesses(): Promise<void> {
  return spawner.killAll();
}

/** Starts `req` through the helper process. */
export function spawnProcess(req: SpawnRequest, handlers: SpawnHandlers): SpawnedProcess {
  return spawner.spawn(req, handlers);
}
