/**
 * What benches that run the sandbox and the operator as processes of their own share: waiting for a
 * log line, stopping a child, reading its memory from /proc, and running a hook script directly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { currentInheritedEnvironment } from '../src/hooks/environment.js';

/** VmRSS and VmHWM (the peak) of a process, in MiB. */
export function procMemory(pid: number): { rssMiB: number; hwmMiB: number; anonMiB: number; fileMiB: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? NaN);
  // RSS = RssAnon (heap, malloc, stacks) + RssFile (mapped files: the node binary's pages) + RssShmem
  return { rssMiB: kb('VmRSS') / 1024, hwmMiB: kb('VmHWM') / 1024, anonMiB: kb('RssAnon') / 1024, fileMiB: kb('RssFile') / 1024 };
}

/**
 * Resolves with the first stdout line matching `test`; rejects on exit, after timeoutMs, or on a line
 * matching `fail`. After the match the rest of stdout goes to `logFile`, or is drained.
 */
export function waitForLine(
  child: ChildProcess,
  test: (line: string) => boolean,
  what: string,
  timeoutMs: number,
  o: { fail?: (line: string) => boolean; logFile?: string } = {},
): Promise<string> {
  return new Promise((res, rej) => {
    const rl = createInterface({ input: child.stdout! });
    const onExit = (code: number | null) => done(new Error(`the process exited (${code}) before ${what}`));
    const timer = setTimeout(() => done(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    function done(err: Error | undefined, line = ''): void {
      clearTimeout(timer);
      child.off('exit', onExit);
      rl.close();
      if (o.logFile) child.stdout!.pipe(createWriteStream(o.logFile));
      else child.stdout!.resume();
      if (err) rej(err);
      else res(line);
    }
    child.once('exit', onExit);
    rl.on('line', (line) => {
      if (o.fail?.(line)) done(new Error(`failed before ${what}: ${line.slice(0, 2000)}`));
      else if (test(line)) done(undefined, line);
    });
  });
}

/** SIGTERM, then SIGKILL after 10 s; resolves when the child has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Runs `file` with only PATH, HOME and `env` in its environment; resolves when it exits with 0. */
export function spawnOnce(file: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    // the environment the engine gives a hook: the operator's own with the run's variables over it
    const c = spawn(file, [], { env: { ...currentInheritedEnvironment(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout.resume();
    c.stderr.resume();
    c.on('error', reject);
    c.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file}: exit ${code}`))));
  });
}

/**
 * A hook run's files prepared once in `dir` for direct spawns: the binding context and values written,
 * the output files empty (`extraOutputs`: more of them, such as $VALIDATING_RESPONSE_PATH); returns
 * the variables that name them.
 */
export function preparedHookEnv(dir: string, bindingContext: string, values: string, extraOutputs: Record<string, string> = {}): Record<string, string> {
  mkdirSync(dir, { recursive: true });
  const inputs = { BINDING_CONTEXT_PATH: join(dir, 'bc.json'), VALUES_PATH: join(dir, 'values.json'), CONFIG_VALUES_PATH: join(dir, 'config.json') };
  const outputs: Record<string, string> = {
    VALUES_JSON_PATCH_PATH: join(dir, 'vp.json'),
    CONFIG_VALUES_JSON_PATCH_PATH: join(dir, 'cp.json'),
    METRICS_PATH: join(dir, 'm.json'),
    KUBERNETES_PATCH_PATH: join(dir, 'k.json'),
    ...Object.fromEntries(Object.entries(extraOutputs).map(([k, f]) => [k, join(dir, f)])),
  };
  writeFileSync(inputs.BINDING_CONTEXT_PATH, bindingContext);
  writeFileSync(inputs.VALUES_PATH, values);
  writeFileSync(inputs.CONFIG_VALUES_PATH, '');
  for (const f of Object.values(outputs)) writeFileSync(f, '');
  return { ...inputs, ...outputs };
}
