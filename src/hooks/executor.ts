/**
 * Runs one shell (executable) hook: writes the binding context and values files into a private temp
 * dir, runs the hook with those paths over the inherited environment (environment.ts), logs its output
 * line by line (bounded), and reads what it wrote back: values and config patches, metric operations
 * and Kubernetes operations. A failure names the hook and says why; applying the outputs is the
 * caller's job.
 */
import { UserError } from '../util/errors.js';
import type { JsonObject } from '../util/json.js';
import { LIMITS } from '../util/limits.js';
import { valuesDocumentJson } from '../values/document-json.js';
import { parsePatchText, type PatchOp } from '../values/patch.js';
import { RunDir, describeExit, runProcess } from './process.js';
import type { CpuUsage } from './spawner.js';
import { parseMetrics, type MetricOperation } from './outputs/metrics.js';
import { parseKubernetesOperations, type KubeOperation } from './outputs/kubernetes.js';
import type { HookLineLogger } from '../log/logger.js';
import { parseAdmissionResponse, parseConversionResponse, type AdmissionResponse, type ConversionResponse } from './outputs/webhook-response.js';

export interface HookOutputs {
  valuesPatch: PatchOp[];
  configValuesPatch: PatchOp[];
  metrics: MetricOperation[];
  kubernetes: KubeOperation[];
  /** A webhook run's answer ($VALIDATING_RESPONSE_PATH): null when the hook wrote none. */
  admission?: AdmissionResponse | null;
  /** A conversion run's answer ($CONVERSION_RESPONSE_PATH): null when the hook wrote none. */
  conversion?: ConversionResponse | null;
  /** CPU seconds of a hook process (absent for in-process hooks and where the platform does not tell). */
  usage?: CpuUsage;
}

export type { HookLineLogger };

export interface ShellHookRun {
  /** The executable. */
  path: string;
  /** Its arguments (a batch hook's `hook run ID`); none for a shell hook. */
  args?: string[];
  /** Variables besides the contract's files (a batch hook's MODULE_NAME). */
  env?: Record<string, string>;
  /** The hook's name in messages and labels, e.g. `hooks/ensure-crds.sh` or `001-echo/hooks/a.sh`. */
  name: string;
  /** The binding contexts, already rendered as the hook's config version wants them. */
  bindingContextJson: string;
  values: JsonObject;
  configValues: JsonObject;
  tmpDir: string;
  timeoutMs: number;
  graceMs?: number;
  keepTmpFiles?: boolean;
  cwd?: string;
  log?: HookLineLogger;
  /** LOG_PROXY_HOOK_JSON: hand JSON lines to the logger as fields. */
  proxyJsonLogs?: boolean;
  /** A webhook run: the hook also gets the response file of its kind (shell-operator's names). */
  webhook?: 'admission' | 'conversion';
  /** Bytes of output logged per run; the rest is dropped with one note (default 1 MiB). */
  maxLoggedBytes?: number;
}

export class HookRunError extends UserError {
  override name = 'HookRunError';
  constructor(
    message: string,
    /** Operations marked `ignoreHookError` on the status subresource: applied even on failure. */
    readonly kubernetesOnFailure: KubeOperation[] = [],
  ) {
    super(message);
  }
}

const DEFAULT_LOG_LIMIT = 1024 * 1024;

function boundedLogger(run: ShellHookRun): HookLineLogger {
  const limit = run.maxLoggedBytes ?? DEFAULT_LOG_LIMIT;
  let logged = 0;
  let noted = false;
  return (stream, line) => {
    if (!run.log) return;
    if (logged >= limit) {
      if (!noted) {
        noted = true;
        run.log('stderr', `(hook output truncated: more than ${limit} bytes in this run; the rest is not logged)`);
      }
      return;
    }
    logged += line.length + 1;
    if (run.proxyJsonLogs && line.startsWith('{')) {
      try {
        const fields = JSON.parse(line) as unknown;
        if (fields && typeof fields === 'object' && !Array.isArray(fields)) return run.log(stream, line, fields as Record<string, unknown>);
      } catch {
        // not JSON after all: log it as text
      }
    }
    run.log(stream, line);
  };
}

/** A hook's output file, `variable` naming it; a file beyond its limit (LIMITS) fails the run unread. */
function readOutput(dir: RunDir, file: string, hook: string, variable: string, limit: number): string {
  return dir.read(file, limit, `hook ${hook}: $${variable}`);
}

function statusOpsOnFailure(dir: RunDir, file: string, hook: string): KubeOperation[] {
  try {
    return parseKubernetesOperations(readOutput(dir, file, hook, 'KUBERNETES_PATCH_PATH', LIMITS.kubernetesPatch), hook).filter((op) => op.ignoreHookError && (op.subresource === '/status' || op.subresource === 'status'));
  } catch {
    return [];
  }
}

/** $VALIDATING_RESPONSE_PATH and $ADMISSION_RESPONSE_PATH (one file), or $CONVERSION_RESPONSE_PATH. */
function webhookFiles(dir: RunDir, kind: ShellHookRun['webhook']): Record<string, string> {
  if (kind === 'admission') {
    const file = dir.file('validating_response.json');
    return { VALIDATING_RESPONSE_PATH: file, ADMISSION_RESPONSE_PATH: file };
  }
  return kind === 'conversion' ? { CONVERSION_RESPONSE_PATH: dir.file('conversion_response.json') } : {};
}

function webhookResponse(dir: RunDir, env: Record<string, string>, run: ShellHookRun): Pick<HookOutputs, 'admission' | 'conversion'> {
  if (run.webhook === 'admission') {
    return { admission: parseAdmissionResponse(readOutput(dir, env.VALIDATING_RESPONSE_PATH!, run.name, 'VALIDATING_RESPONSE_PATH', LIMITS.kubernetesPatch), run.name) };
  }
  if (run.webhook === 'conversion') {
    return { conversion: parseConversionResponse(readOutput(dir, env.CONVERSION_RESPONSE_PATH!, run.name, 'CONVERSION_RESPONSE_PATH', LIMITS.kubernetesPatch), run.name) };
  }
  return {};
}

export async function runShellHook(run: ShellHookRun): Promise<HookOutputs> {
  const dir = new RunDir(run.tmpDir, run.name, run.keepTmpFiles);
  try {
    const env = {
      BINDING_CONTEXT_PATH: dir.write('binding_context.json', run.bindingContextJson),
      VALUES_PATH: dir.write('values.json', valuesDocumentJson(run.values)),
      CONFIG_VALUES_PATH: dir.write('config_values.json', JSON.stringify(run.configValues)),
      VALUES_JSON_PATCH_PATH: dir.file('values_json_patch.json'),
      CONFIG_VALUES_JSON_PATCH_PATH: dir.file('config_values_json_patch.json'),
      METRICS_PATH: dir.file('metrics.json'),
      KUBERNETES_PATCH_PATH: dir.file('kubernetes_patch.json'),
      ...webhookFiles(dir, run.webhook),
    };
    const log = boundedLogger(run);
    const r = await runProcess({
      file: run.path,
      args: run.args,
      cwd: run.cwd,
      env: run.env ? { ...run.env, ...env } : env,
      timeoutMs: run.timeoutMs,
      graceMs: run.graceMs,
      maxStdoutBytes: 0,
      onStdoutLine: (l) => log('stdout', l),
      onStderrLine: (l) => log('stderr', l),
    });
    if (r.spawnError || r.timedOut || r.exitCode !== 0) {
      const tail = r.stderrTail.length ? `; last lines of stderr:\n  ${r.stderrTail.slice(-10).join('\n  ')}` : '';
      throw new HookRunError(`hook ${run.name} failed: ${describeExit(r, run.timeoutMs)}${tail}`, statusOpsOnFailure(dir, env.KUBERNETES_PATCH_PATH, run.name));
    }
    return {
      metrics: parseMetrics(readOutput(dir, env.METRICS_PATH, run.name, 'METRICS_PATH', LIMITS.metrics), run.name),
      kubernetes: parseKubernetesOperations(readOutput(dir, env.KUBERNETES_PATCH_PATH, run.name, 'KUBERNETES_PATCH_PATH', LIMITS.kubernetesPatch), run.name),
      configValuesPatch: parsePatchText(
        readOutput(dir, env.CONFIG_VALUES_JSON_PATCH_PATH, run.name, 'CONFIG_VALUES_JSON_PATCH_PATH', LIMITS.valuesPatch),
        `$CONFIG_VALUES_JSON_PATCH_PATH of hook ${run.name}`,
      ),
      valuesPatch: parsePatchText(readOutput(dir, env.VALUES_JSON_PATCH_PATH, run.name, 'VALUES_JSON_PATCH_PATH', LIMITS.valuesPatch), `$VALUES_JSON_PATCH_PATH of hook ${run.name}`),
      ...(r.usage ? { usage: r.usage } : {}),
      ...webhookResponse(dir, env, run),
    };
  } finally {
    dir.dispose();
  }
}
