/**
 * Runs a module's `enabled` script (LIFECYCLE.md "Enabled script"): $VALUES_PATH (with
 * `global.enabledModules`), $CONFIG_VALUES_PATH and $MODULE_ENABLED_RESULT, where it writes `true` or
 * `false`, and $MODULE_ENABLED_REASON, where a script that says `false` may say why (the Go operator's
 * #636). Anything else — a non-zero exit, a timeout, another answer — is an error naming the module.
 */
import { UserError } from '../util/errors.js';
import { LIMITS } from '../util/limits.js';
import { RunDir, describeExit, runProcess } from '../hooks/process.js';
import { valuesDocumentJson } from '../values/document-json.js';
import type { ValuesStore } from '../values/index.js';
import type { Module } from './module-set.js';
import type { EnabledScriptRunner } from './enabled.js';

export interface EnabledScriptOptions {
  store: ValuesStore;
  tmpDir: string;
  timeoutMs: number;
  keepTmpFiles?: boolean;
  log?: (module: string, stream: 'stdout' | 'stderr', line: string) => void;
}

export async function runEnabledScript(module: Module, enabledSoFar: readonly string[], opts: EnabledScriptOptions): Promise<{ enabled: boolean; why?: string }> {
  const script = module.def.enabledScript!;
  const key = module.def.valuesKey;
  const dir = new RunDir(opts.tmpDir, `${module.def.name}-enabled`, opts.keepTmpFiles);
  try {
    const env = {
      VALUES_PATH: dir.write('values.json', valuesDocumentJson(opts.store.moduleHookValues(key, enabledSoFar))),
      CONFIG_VALUES_PATH: dir.write('config_values.json', JSON.stringify(opts.store.moduleHookConfigValues(key))),
      MODULE_ENABLED_RESULT: dir.file(`${module.def.name}.module-enabled-result`),
      MODULE_ENABLED_REASON: dir.file(`${module.def.name}.module-enabled-reason`),
    };
    // only the last line can be an answer: a script printing much keeps no more than that
    let lastLine: string | undefined;
    const r = await runProcess({
      file: script,
      cwd: module.def.path,
      env,
      timeoutMs: opts.timeoutMs,
      onStdoutLine: (l) => {
        lastLine = l;
        opts.log?.(module.def.name, 'stdout', l);
      },
      onStderrLine: (l) => opts.log?.(module.def.name, 'stderr', l),
    });
    if (r.spawnError || r.timedOut || r.exitCode !== 0) {
      const tail = r.stderrTail.length ? `; stderr: ${r.stderrTail.slice(-5).join(' | ')}` : '';
      throw new UserError(`module ${module.def.name}: enabled script ${script} failed: ${describeExit(r, opts.timeoutMs)}${tail}`);
    }
    let wrote = dir.read(env.MODULE_ENABLED_RESULT, LIMITS.enabledResult, `module ${module.def.name}: enabled script ${script}: $MODULE_ENABLED_RESULT`).trim();
    // MODULES.md's example prints its answer instead of writing the file: accept exactly that
    if (wrote === '' && lastLine !== undefined) {
      const last = lastLine.trim();
      if (last === 'true' || last === 'false') wrote = last;
    }
    if (wrote === 'true') return { enabled: true };
    if (wrote === 'false') {
      const why = dir.read(env.MODULE_ENABLED_REASON, LIMITS.enabledResult, `module ${module.def.name}: enabled script ${script}: $MODULE_ENABLED_REASON`).trim();
      return why ? { enabled: false, why: why.length > 200 ? `${why.slice(0, 197)}...` : why } : { enabled: false };
    }
    const shown = wrote === '' ? 'nothing' : JSON.stringify(wrote.length > 80 ? wrote.slice(0, 77) + '...' : wrote);
    throw new UserError(`module ${module.def.name}: enabled script ${script} wrote ${shown} to $MODULE_ENABLED_RESULT; it must write "true" or "false"`);
  } finally {
    dir.dispose();
  }
}

export function enabledScriptRunner(opts: EnabledScriptOptions): EnabledScriptRunner {
  return (module, enabledSoFar) => runEnabledScript(module, enabledSoFar, opts);
}
