/**
 * A hook as the operator sees it: found in a hooks dir, configured (`--config` of an executable,
 * `hook config` of a batch executable, or the `config` export of an in-process hook), and run with
 * binding contexts and values.
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
import { READINESS_ID, batchHookEntries, isBatchHook, mayBeBatchHook } from './batch.js';
import { hookInvocation, moduleVenv, type Invocation } from './python-venv.js';

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

/** A run for a webhook binding gets that kind's response file (one context: webhook runs are never combined). */
function webhookKind(contexts: readonly BindingContext[]): { webhook?: 'admission' | 'conversion' } {
  const t = contexts[0]?.type;
  return t === 'Validating' || t === 'Mutating' ? { webhook: 'admission' } : t === 'Conversion' ? { webhook: 'conversion' } : {};
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
  constructor(
    name: string,
    path: string,
    kind: HookKind,
    module: string | undefined,
    config: HookConfig,
    private readonly cwd: string,
    /** The interpreter, arguments and variables besides the contract's (a venv's Python, a batch hook's ID). */
    private readonly invocation: Invocation = {},
  ) {
    super(name, path, kind, module, config);
  }

  run(req: HookRunRequest, rt: HookRuntimeOptions): Promise<HookOutputs> {
    return runShellHook({
      path: this.invocation.command ?? this.path,
      ...(this.invocation.args ? { args: this.invocation.args } : {}),
      ...(this.invocation.env ? { env: this.invocation.env } : {}),
      name: this.name,
      bindingContextJson: bindingContextsToJson(req.contexts, { version: this.config.version, snapshots: req.snapshots }),
      values: req.values,
      configValues: req.configValues,
      cwd: this.cwd,
      ...webhookKind(req.contexts),
      ...rt,
    });
  }
}

/** One hook of a batch executable (batch.ts): run as `FILE hook run ID`, the readiness probe as `FILE hook ready`. */
class BatchHook extends ShellHook {
  constructor(
    name: string,
    path: string,
    kind: HookKind,
    module: string | undefined,
    config: HookConfig,
    cwd: string,
    /** Its ID in the batch. */
    readonly batchId: string,
  ) {
    super(name, path, kind, module, config, cwd, {
      args: batchId === READINESS_ID ? ['hook', 'ready'] : ['hook', 'run', batchId],
      // what the Go operator tells a batch hook of its module (applications are not modules here)
      env: { MODULE_NAME: module ?? 'global', APPLICATION_NAME: '', APPLICATION_NAMESPACE: '' },
    });
  }

  override get id(): string {
    return `${super.id}#${this.batchId}`;
  }
}

/**
 * The hooks of a batch executable, named as the Go operator names them: a module's
 * `hooks/FILE:NAME:ID`, a global `hooks/FILE-NAME-ID`, the readiness probe `hooks/FILE-readiness`.
 */
async function loadBatchHooks(f: { path: string }, name: string, label: string, cwd: string, opts: LoadHooksOptions): Promise<Hook[]> {
  const entries = await batchHookEntries(f.path, label, cwd, opts.kind, opts.timeoutMs);
  const hooks: Hook[] = [];
  const problems: string[] = [];
  for (const e of entries) {
    const sep = opts.kind === 'module' ? ':' : '-';
    const hookName = e.id === READINESS_ID ? `${name}-readiness` : `${name}${sep}${e.sdkName}${sep}${e.id}`;
    try {
      const config = await parseHookConfig(e.config, { hookPath: `${label} (batch hook ID ${e.id})`, kind: opts.kind });
      hooks.push(new BatchHook(hookName, f.path, opts.kind, opts.module, config, cwd, e.id));
    } catch (err) {
      if (err instanceof UserErrors) problems.push(...err.problems);
      else throw err;
    }
  }
  if (problems.length) throw new UserErrors(`batch hook ${label}`, problems);
  return hooks;
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
      ...webhookKind(req.contexts),
    });
  }
}

/** Runs `<hook> --config` and returns its stdout; errors name the hook. */
async function configOutput(path: string, name: string, cwd: string, timeoutMs: number, invocation: Invocation = {}): Promise<string> {
  const r = await runProcess({ file: invocation.command ?? path, args: [...(invocation.args ?? []), '--config'], env: invocation.env, cwd, timeoutMs, maxStdoutBytes: 4 * 1024 * 1024 });
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
  // a module's .py hooks run with the module's own Python when it ships one (hooks/venv)
  const venv = opts.kind === 'module' ? moduleVenv(hooksDir) : undefined;
  const results = await mapLimit(found, CONFIG_CONCURRENCY, async (f): Promise<Hook | Hook[] | undefined> => {
      const name = `hooks/${f.relativePath}`;
      const label = opts.module ? `${opts.module}/${name}` : name;
      try {
        if (f.kind === 'inProcess') {
          const loaded = await importInProcessHook(f.path, label);
          const config = await parseHookConfig(loaded.config, { hookPath: label, kind: opts.kind });
          return new InProcessHook(name, f.path, opts.kind, opts.module, config, loaded);
        }
        let config: HookConfig;
        try {
          config = await parseHookConfig(await configOutput(f.path, label, cwd, opts.timeoutMs, hookInvocation(f.path, venv)), { hookPath: label, kind: opts.kind });
        } catch (e) {
          // an executable without an extension that cannot be configured may be a batch hook: asked
          // `hook list` only now, so that a shell hook's body never runs at start (docs/compatibility.md)
          if (mayBeBatchHook(f.path) && (await isBatchHook(f.path, label, cwd, opts.timeoutMs))) return await loadBatchHooks(f, name, label, cwd, opts);
          throw e;
        }
        return new ShellHook(name, f.path, opts.kind, opts.module, config, cwd, hookInvocation(f.path, venv));
      } catch (e) {
        if (e instanceof UserErrors) problems.push(...e.problems);
        else if (e instanceof UserError) problems.push(e.message);
        else problems.push(`hook ${label}: ${errorMessage(e)}`);
        return undefined;
      }
  });
  for (const h of results) if (h) hooks.push(...(Array.isArray(h) ? h : [h]));
  const probes = hooks.filter((h) => h instanceof BatchHook && h.batchId === READINESS_ID);
  if (probes.length > 1) problems.push(`more than one readiness hook: ${probes.map((h) => h.path).join(', ')}`);
  if (problems.length) {
    const what = opts.module ? `the hooks of module ${opts.module}` : 'the global hooks';
    throw new UserErrors(`cannot load ${what} in ${hooksDir}`, problems);
  }
  return hooks;
}
