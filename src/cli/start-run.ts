/** What `addon-operator start` runs: the operator, wired to the real Kubernetes and Helm layers. */
import { existsSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KubeConfig } from '../kube/kube-config.js';
import { tuneTiering } from '../operator/tiering.js';
import type { Logger } from 'pino';
import { createLogger, type LogLevel, type LogType } from '../log/logger.js';
import type { Operator } from '../operator/operator.js';
import { configureClient } from '../kube/http.js';
import { recordRequests } from '../kube/request-metrics.js';
import { loadKubeConfig } from '../kube/load-kubeconfig.js';
import { HaMode, haSettings } from './start-ha.js';
import { connectionStats } from '../kube/connections.js';
import { registerKubeConnectionMetrics } from '../metrics/kube-connection-metrics.js';
import { DRIFT_MODES, type DriftMode } from '../helm/release-object-monitor.js';
import type { Sandbox } from '../sandbox/index.js';
import { UserError, errorMessage } from '../util/errors.js';
import { parseAppliedExtenders } from '../modules/enabled.js';
import { labelKeyProblem, labelValueProblem } from '../hooks/config-checks.js';
import { parseDuration, parseOrder, parsePort } from './env.js';
import { OperatorMetrics } from '../metrics/operator-metrics.js';
import { HookMetricsStorage } from '../metrics/hook-metrics.js';
import { HttpServer } from '../server/http-server.js';
import { httpSources, metricSources } from '../operator/serve.js';
import type { StartOptions } from './start.js';
import { ConsoleProgress } from './start-console.js';
import { parseControllers, parsePodStart } from './sandbox.js';
import { guardSnapshotMemory } from '../operator/snapshot-memory-guard.js';
import { parseByteSize } from '../util/limits.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'];
const LOG_TYPES = ['json', 'text', 'color'];

/** A QPS flag: a non-negative number (0: no limit). */
function parseQps(text: string, flag: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new UserError(`${flag}: "${text}" is not a non-negative number`);
  return n;
}

function parseBurst(text: string, flag: string): number {
  const n = parseOrder(text, flag);
  if (n < 1) throw new UserError(`${flag}: the burst must be at least 1`);
  return n;
}

/**
 * A client's rate limit from `PREFIX-qps` and `PREFIX-burst`. Neither set: client-go's default (5, 10),
 * dropped once the API server shows it runs API Priority and Fairness (SIG API Machinery's advice,
 * controller-runtime's default since v0.21); the Go operator keeps the bucket. Either set: kept as given.
 */
function clientLimit(qps: string | undefined, burst: string | undefined, prefix: string) {
  return { qps: parseQps(qps ?? '5', `${prefix}-qps`), burst: parseBurst(burst ?? '10', `${prefix}-burst`), dropLimitUnderApf: qps === undefined && burst === undefined };
}

/**
 * `--crd-extra-labels`: `key=value` pairs separated by commas (the Go operator reads the matchLabels
 * of this label selector); `heritage: addon-operator` is added when no `heritage` is given, as there.
 */
export function parseExtraLabels(text: string, flag = '--crd-extra-labels'): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([^=!\s]+)\s*==?\s*(\S*)$/.exec(part);
    if (!m) throw new UserError(`${flag}: "${part}" is not key=value (in "${text}")`);
    const problem = labelKeyProblem(m[1]!) ?? labelValueProblem(m[2]!);
    if (problem) throw new UserError(`${flag}: ${problem}`);
    labels[m[1]!] = m[2]!;
  }
  labels.heritage ??= 'addon-operator';
  return labels;
}

function checkOptions(opts: StartOptions) {
  if (!LOG_LEVELS.includes(opts.logLevel)) throw new UserError(`--log-level: "${opts.logLevel}" is not one of ${LOG_LEVELS.join(', ')}`);
  if (!LOG_TYPES.includes(opts.logType)) throw new UserError(`--log-type: "${opts.logType}" is not one of ${LOG_TYPES.join(', ')}`);
  if (!opts.namespace && !opts.sandbox) throw new UserError('--namespace (env ADDON_OPERATOR_NAMESPACE) is required: it holds the ConfigMap and the Helm releases');
  if (!existsSync(opts.globalHooksDir)) throw new UserError(`global hooks dir ${opts.globalHooksDir} does not exist (--global-hooks-dir, env GLOBAL_HOOKS_DIR)`);
  if (!opts.sandbox && (opts.sandboxSeed.length || opts.sandboxKubeconfig || opts.sandboxDataDir)) throw new UserError('--sandbox-seed, --sandbox-kubeconfig and --sandbox-data-dir need --sandbox');
  parseControllers(opts.sandboxControllers ?? 'all', '--sandbox-controllers');
  parsePodStart(opts.sandboxPodStart ?? '0.5s', '--sandbox-pod-start');
  const helmDrift = (opts.helmDrift ?? 'fix') as DriftMode;
  if (!DRIFT_MODES.includes(helmDrift)) throw new UserError(`--helm-drift: "${opts.helmDrift}" is not one of ${DRIFT_MODES.join(', ')}`);
  if (opts.shellChrootDir) throw new UserError(`--shell-chroot-dir (env SHELL_CHROOT_DIR): "${opts.shellChrootDir}": running hooks in a chroot is not supported (docs/compatibility.md)`);
  return {
    unnumberedOrder: parseOrder(opts.unnumberedModulesOrder, '--unnumbered-modules-order'),
    hookTimeoutMs: parseDuration(opts.hookTimeout, '--hook-timeout'),
    shutdownMs: parseDuration(opts.shutdownTimeout, '--shutdown-timeout'),
    historyMax: parseOrder(opts.helmHistoryMax, '--helm-history-max'),
    helmTimeoutMs: parseDuration(opts.helmTimeout ?? '20m', '--helm-timeout'),
    helmDrift,
    extraLabels: parseExtraLabels(opts.crdExtraLabels ?? 'heritage=addon-operator'),
    listenPort: parsePort(opts.listenPort, '--listen-port'),
    parallelModuleRuns: Math.max(1, parseOrder(opts.parallelModuleRuns ?? '1', '--parallel-module-runs')),
    kubeClient: clientLimit(opts.kubeClientQps, opts.kubeClientBurst, '--kube-client'),
    helmMonitorClient:
      opts.helmMonitorKubeClientQps === undefined && opts.helmMonitorKubeClientBurst === undefined
        ? undefined
        : { ...clientLimit(opts.helmMonitorKubeClientQps, opts.helmMonitorKubeClientBurst, '--helm-monitor-kube-client'), dropLimitUnderApf: false },
    snapshotMemoryLimit: parseByteSize(opts.kubeSnapshotMemoryLimit ?? '0', '--kube-snapshot-memory-limit'),
    extenders: parseAppliedExtenders(opts.appliedModuleExtenders ?? '', '--applied-module-extenders'),
    patcherClient: {
      ...clientLimit(opts.objectPatcherKubeClientQps, opts.objectPatcherKubeClientBurst, '--object-patcher-kube-client'),
      timeoutMs: parseDuration(opts.objectPatcherKubeClientTimeout ?? '10s', '--object-patcher-kube-client-timeout'),
    },
  };
}

export function limitDropped(log: Logger, client: string, flag: string): void {
  log.info({ client }, `the API server runs API Priority and Fairness: the ${client} client's default rate limit is off (${flag} keeps one)`);
}

/** The main client (KUBE_CLIENT_QPS/BURST) from the kubeconfig, the sandbox's or the pod's service account. */
export function mainClient(opts: StartOptions, checked: Checked, sandbox: Sandbox | undefined, log: Logger): KubeConfig {
  let kc: KubeConfig;
  try {
    ({ kc } = loadKubeConfig({ file: sandbox?.kubeconfigPath ?? opts.kubeConfig, context: opts.kubeContext }));
  } catch (e) {
    throw new UserError(`cannot load the kubeconfig: ${errorMessage(e)}`);
  }
  configureClient(kc, { ...checked.kubeClient, onLimitDropped: () => limitDropped(log, 'main', '--kube-client-qps') });
  return kc;
}

/**
 * With --sandbox, a default dir (`modules`, `global-hooks`) that is not there means none: so that
 * `npx addon-operator start --sandbox` runs in any directory. Returns what to log.
 */
function sandboxWithoutDirs(opts: StartOptions): string | undefined {
  if (!opts.sandbox) return undefined;
  const missing: string[] = [];
  if (opts.modulesDir === 'modules' && !existsSync('modules')) {
    opts.modulesDir = '';
    missing.push('./modules (--modules-dir)');
  }
  if (opts.globalHooksDir === 'global-hooks' && !existsSync('global-hooks')) {
    opts.globalHooksDir = join(opts.tmpDir, 'no-global-hooks');
    mkdirSync(opts.globalHooksDir, { recursive: true });
    missing.push('./global-hooks (--global-hooks-dir)');
  }
  return missing.length ? `sandbox: no ${missing.join(' and no ')} here: running without them` : undefined;
}

export async function runStart(opts: StartOptions): Promise<void> {
  tuneTiering();
  const withoutDirs = sandboxWithoutDirs(opts);
  const checked = checkOptions(opts);
  const ha = haSettings(process.env, opts.sandbox);
  const progress = opts.logFile ? new ConsoleProgress((text) => process.stdout.write(text)) : undefined;
  const log = createLogger({ level: opts.logLevel as LogLevel, type: opts.logType as LogType, noTime: opts.logNoTime, ...logDestination(opts.logFile, progress) });
  if (withoutDirs) log.info(withoutDirs);

  // the HTTP server answers probes from the start: /readyz says 503 until the first converge is done
  let operator: Operator | undefined;
  const ref = () => operator?.runtime;
  const sources = metricSources(ref);
  const metrics = new OperatorMetrics({ prefix: opts.prometheusMetricsPrefix, sources });
  registerKubeConnectionMetrics(metrics.registry, metrics.prefix, connectionStats);
  recordRequests({ latency: (r) => metrics.kubeRequestLatency(r), result: (r) => metrics.kubeRequestResult(r) });
  const hookMetrics = new HookMetricsStorage();
  // HA: the client is made first, as the election needs it; a standby's /readyz asks the leader's
  const kc = ha ? mainClient(opts, checked, undefined, log) : undefined;
  let haMode: HaMode | undefined;
  const readiness = ha ? () => haMode!.readiness() : undefined;
  const http = new HttpServer({ host: opts.listenAddress ?? (opts.sandbox ? '127.0.0.1' : '0.0.0.0'), port: checked.listenPort, sources: httpSources(ref, metrics, hookMetrics, readiness) });
  await http.start();
  metrics.start();
  const limitBytes = checked.snapshotMemoryLimit;
  const stopGuard = limitBytes > 0 ? guardSnapshotMemory({ limitBytes, snapshots: () => sources.snapshots(), warn: (fields, message) => log.warn(fields, message) }) : () => {};
  log.info({ address: `http://${http.address.host}:${http.address.port}` }, 'HTTP server listening: /healthz /readyz /metrics /metrics/hooks /status/converge');
  try {
    if (ha && kc) {
      haMode = new HaMode(ha, kc, log, () => http.address.port);
      // a standby loads nothing and runs no hook (not even --config) until it leads
      if (!(await haMode.lead())) return;
    }
    try {
      // the operator's modules are loaded only now: a standby holds none of them while it waits
      const { loadAndRun } = await import('./start-operator.js');
      await loadAndRun(opts, checked, { log, metrics, hookMetrics, kc, created: (op) => (operator = op), console: progress && { progress, http: http.address } });
    } finally {
      await haMode?.release();
    }
  } finally {
    stopGuard();
    metrics.stop();
    await http.stop();
  }
}

/** --log-file: the log appended to the file (written synchronously: nothing is lost at exit), its records shown on the console. */
function logDestination(path: string | undefined, progress: ConsoleProgress | undefined) {
  if (!path || !progress) return {};
  let fd: number;
  try {
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, 'a');
  } catch (e) {
    throw new UserError(`--log-file ${path}: ${errorMessage(e)}`);
  }
  progress.write(`addon-operator starting; the full log is in ${path}\n`);
  return { write: (line: string) => void writeSync(fd, line), onRecord: (r: Record<string, unknown>) => progress.record(r) };
}

export type Checked = ReturnType<typeof checkOptions>;
