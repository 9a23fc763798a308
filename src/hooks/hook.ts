/**
 * A hook as the operator sees it: found in a hooks dir, configured (`--config` of an executable, or
 * the `config` export of an in-process hook), and run with binding contexts and values.
 */
import { join, resolve } from 'node:path';
import { UserError, UserErrors, errorMessage } from '../util/errors.js';
import type { JsonObject } from '../util/json.js';
import { mapLimit } from '../util/pool.js';
import { describeExit, runProcess } from './process.js';
import { discoverHooks, type SkippedEntry } from './discovery.js';
import { parseHookConfig } from './config.js';
import type { HookConfig, HookKind } from './config-types.js';
import { bindingContextsToJson, bindingContextsToObjects, type BindingContext, type SnapshotSource } from './binding-context.js';
import { runShellHook, type HookLineLogger, type HookOutputs } from './executor.js';
import { importInProcessHook, runInProcessHook, type LoadedInProcessHook } from './in-process.js';

export interface HookRunRequest {
  contexts: readonly BindingContext[];
  snapshots?: SnapshotSource;
  values: JsonObject;
  configValues: JsonObject;
}

export interface HookRuntimeOptions {
  tmpDir: string;
  timeoutMs: number;
  graceMs?: number;
  keepTmpFiles?: boolean;
  proxyJsonLogs?: boolean;
  log?: HookLineLogger;
}

export interface Hook {
  /** Path below the hooks dir's parent, e.g. `hooks/ensure-crds.sh`: the name in logs and metrics. */
  readonly name: string;
  readonly path: string;
  readonly kind: HookKind;
  /** The module's name, for module hooks. */
  readonly module?: string;
  /** Identity (module, path) — never the file name alone (DESIGN §4.7). */
  readonly id: string;
  readonly runtime: 'process' | 'in-process';
  readonly config: HookConfig;
  run(req: HookRunRequest, rt: HookRuntimeOptions): Promise<HookOutputs>;
}

/** What both runtimes share: names, identity and config. */
abstract class BaseHook implements Hook {
  abstract readonly runtime: 'process' | 'in-process';
  constructor(
    readonly name: string,
    readonly path: string,
    readonly kind: HookKind,
    readonly module: string | undefined,
    readonly config: HookConfig,
  ) {}

  get id(): string {
    return `${this.module ?? '(global)'}:${this.path}`;
  }

  abstract run(req: HookRunRequest, rt: HookRuntimeOptions): Promise<HookOutputs>;
}

class ShellHook extends BaseHook {
  readonly runtime = 'process' as const;
  constructor(name: string, path: string, kind: HookKind, module: string | undefined, config: HookConfig, private readonly cwd: string) {
    super(name, path, kind, module, config);
  }

  run(req: HookRunRequest, rt: HookRuntimeOptions): Promise<HookOutputs> {
    return runShellHook({
      path: this.path,
      name: this.name,
      bindingContextJson: bindingContextsToJson(req.contexts, { version: this.config.version, snapshots: req.snapshots }),
      values: req.values,
      configValues: req.configValues,
      cwd: this.cwd,
      ...rt,
    });
  }
}

class InProcessHook extends BaseHook {
  readonly runtime = 'in-process' as const;
  constructor(name: string, path: string, kind: HookKind, module: string | undefined, config: HookConfig, private readonly loaded: LoadedInProcessHook) {
    super(name, path, kind, module, config);
  }

  run(req: HookRunRequest, rt: HookRuntimeOptions): Promise<HookOutputs> {
    return runInProcessHook({
      name: this.name,
      hook: this.loaded,
      bindingContext: bindingContextsToObjects(req.contexts, { version: this.config.version, snapshots: req.snapshots }),
      values: req.values,
      configValues: req.configValues,
      timeoutMs: rt.timeoutMs,
      log: rt.log,
    });
  }
}

/** Runs `<hook> --config` and returns its stdout; errors name the hook. */
async function configOutput(path: string, name: string, cwd: string, timeoutMs: number): Promise<string> {
  const r = await runProcess({ file: path, args: ['--config'], cwd, timeoutMs, maxStdoutBytes: 4 * 1024 * 1024 });
  if (r.spawnError || r.timedOut || r.exitCode !== 0) {
    const tail = r.stderrTail.length ? `; stderr: ${r.stderrTail.slice(-5).join(' | ')}` : '';
    throw new UserError(`hook ${name}: "${path} --config" failed: ${describeExit(r, timeoutMs)}${tail}`);
  }
  if (r.stdoutTruncated) throw new UserError(`hook ${name}: "--config" printed more than 4 MiB`);
  return r.stdout;
}

/** `--config` runs in parallel, a few at a time. */
const CONFIG_CONCURRENCY = 8;

export interface LoadHooksOptions {
  kind: HookKind;
  module?: string;
  /** Time limit of each `--config` run. */
  timeoutMs: number;
  onSkip?: (entry: SkippedEntry) => void;
}

/**
 * Finds and configures every hook under `hooksDir` (named relative to its parent: `hooks/...`).
 * All problems of all hooks are reported together.
 */
export async function loadHooks(dir: string, opts: LoadHooksOptions): Promise<Hook[]> {
  // hooks run with their dir's parent as the working dir: a relative path would not find them
  const hooksDir = resolve(dir);
  const found = await discoverHooks(hooksDir, { onSkip: opts.onSkip, skipDirNames: opts.kind === 'module' ? ['venv'] : [] });
  const problems: string[] = [];
  const hooks: Hook[] = [];
  const cwd = join(hooksDir, '..');
  const results = await mapLimit(found, CONFIG_CONCURRENCY, async (f): Promise<Hook | undefined> => {
      const name = `hooks/${f.relativePath}`;
      const label = opts.module ? `${opts.module}/${name}` : name;
      try {
        if (f.kind === 'inProcess') {
          const loaded = await importInProcessHook(f.path, label);
          const config = await parseHookConfig(loaded.config, { hookPath: label, kind: opts.kind });
          return new InProcessHook(name, f.path, opts.kind, opts.module, config, loaded);
        }
        const text = await configOutput(f.path, label, cwd, opts.timeoutMs);
        const config = await parseHookConfig(text, { hookPath: label, kind: opts.kind });
        return new ShellHook(name, f.path, opts.kind, opts.module, config, cwd);
      } catch (e) {
        if (e instanceof UserErrors) problems.push(...e.problems);
        else if (e instanceof UserError) problems.push(e.message);
        else problems.push(`hook ${label}: ${errorMessage(e)}`);
        return undefined;
      }
  });
  for (const h of results) if (h) hooks.push(h);
  if (problems.length) {
    const what = opts.module ? `the hooks of module ${opts.module}` : 'the global hooks';
    throw new UserErrors(`cannot load ${what} in ${hooksDir}`, problems);
  }
  return hooks;
}
