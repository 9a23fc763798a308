/** What `addon-operator start` runs: the operator, wired to the real Kubernetes and Helm layers. */
import { existsSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KubeConfig } from '../kube/kube-config.js';
import type { Logger } from 'pino';
import { createLogger, type LogLevel, type LogType } from '../log/logger.js';
import { ModuleManager } from '../modules/manager.js';
import { collectWhenIdle } from '../operator/idle-gc.js';
import { Operator } from '../operator/operator.js';
import type { KubernetesPort } from '../operator/ports.js';
import { RestMapper } from '../kube/mapper.js';
import { KubeMonitors } from '../kube/monitor.js';
import { ObjectPatcher } from '../kube/object-patcher.js';
import { ConfigMapSource } from '../kube/configmap-source.js';
import { cloneClient, configureClient, isApiStatus, requestJson } from '../kube/http.js';
import { recordRequests } from '../kube/request-metrics.js';
import { loadKubeConfig } from '../kube/kubeconfig.js';
import { HaMode, haSettings } from './start-ha.js';
import { connectionStats } from '../kube/connections.js';
import { registerKubeConnectionMetrics } from '../metrics/kube-connection-metrics.js';
import { HelmReleases } from '../helm/releases.js';
import { DRIFT_MODES, type DriftMode } from '../helm/monitor.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { UserError, errorMessage } from '../util/errors.js';
import { labelKeyProblem, labelValueProblem } from '../hooks/config-checks.js';
import { parseDuration, parseOrder, parsePort } from './env.js';
import { OperatorMetrics } from '../metrics/operator-metrics.js';
import { HookMetricsStorage } from '../metrics/hook-metrics.js';
import { HttpServer } from '../server/http-server.js';
import { httpSources, metricSources } from '../operator/serve.js';
import { registerDebugRoutes } from '../operator/debug-routes.js';
import { RuntimeParams } from '../operator/runtime-params.js';
import { BadRequestError, DebugServer } from '../server/debug-server.js';
import { DEFAULT_DEBUG_SOCKET } from './debug.js';
import type { StartOptions } from './start.js';
import { ConsoleProgress } from './start-console.js';

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'];
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
  if (!opts.sandbox && (opts.sandboxSeed.length || opts.sandboxKubeconfig)) throw new UserError('--sandbox-seed and --sandbox-kubeconfig need --sandbox');
  const helmDrift = (opts.helmDrift ?? 'fix') as DriftMode;
  if (!DRIFT_MODES.includes(helmDrift)) throw new UserError(`--helm-drift: "${opts.helmDrift}" is not one of ${DRIFT_MODES.join(', ')}`);
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
    patcherClient: {
      ...clientLimit(opts.objectPatcherKubeClientQps, opts.objectPatcherKubeClientBurst, '--object-patcher-kube-client'),
      timeoutMs: parseDuration(opts.objectPatcherKubeClientTimeout ?? '10s', '--object-patcher-kube-client-timeout'),
    },
  };
}

function limitDropped(log: Logger, client: string, flag: string): void {
  log.info({ client }, `the API server runs API Priority and Fairness: the ${client} client's default rate limit is off (${flag} keeps one)`);
}

/** The main client (KUBE_CLIENT_QPS/BURST) from the kubeconfig, the sandbox's or the pod's service account. */
function mainClient(opts: StartOptions, checked: Checked, sandbox: Sandbox | undefined, log: Logger): KubeConfig {
  let kc: KubeConfig;
  try {
    ({ kc } = loadKubeConfig({ file: sandbox?.kubeconfigPath ?? opts.kubeConfig, context: opts.kubeContext }));
  } catch (e) {
    throw new UserError(`cannot load the kubeconfig: ${errorMessage(e)}`);
  }
  configureClient(kc, { ...checked.kubeClient, onLimitDropped: () => limitDropped(log, 'main', '--kube-client-qps') });
  return kc;
}

/** With --sandbox the namespace is created when missing, so that the quick start needs nothing else. */
async function ensureNamespace(kc: KubeConfig, namespace: string): Promise<void> {
  try {
    await requestJson(kc, 'GET', `/api/v1/namespaces/${namespace}`);
  } catch (e) {
    if (!isApiStatus(e, 404)) throw e;
    await requestJson(kc, 'POST', '/api/v1/namespaces', {}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  }
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
  const withoutDirs = sandboxWithoutDirs(opts);
  const checked = checkOptions(opts);
  const ha = haSettings(process.env, opts.sandbox);
  const progress = opts.logFile ? new ConsoleProgress((text) => process.stdout.write(text)) : undefined;
  const log = createLogger({ level: opts.logLevel as LogLevel, type: opts.logType as LogType, noTime: opts.logNoTime, ...logDestination(opts.logFile, progress) });
  if (withoutDirs) log.info(withoutDirs);

  // the HTTP server answers probes from the start: /readyz says 503 until the first converge is done
  let operator: Operator | undefined;
  const ref = () => operator?.runtime;
  const metrics = new OperatorMetrics({ prefix: opts.prometheusMetricsPrefix, sources: metricSources(ref) });
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
  log.info({ address: `http://${http.address.host}:${http.address.port}` }, 'HTTP server listening: /healthz /readyz /metrics /metrics/hooks /status/converge');
  try {
    if (ha && kc) {
      haMode = new HaMode(ha, kc, log, () => http.address.port);
      // a standby loads nothing and runs no hook (not even --config) until it leads
      if (!(await haMode.lead())) return;
    }
    try {
      await loadAndRun(opts, checked, { log, metrics, hookMetrics, kc, created: (op) => (operator = op), console: progress && { progress, http: http.address } });
    } finally {
      await haMode?.release();
    }
  } finally {
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

type Checked = ReturnType<typeof checkOptions>;
type Wiring = Pick<RunContext, 'log' | 'metrics' | 'hookMetrics' | 'created' | 'kc' | 'console'>;

async function loadAndRun(opts: StartOptions, checked: Checked, wiring: Wiring): Promise<void> {
  const { hookTimeoutMs, shutdownMs, historyMax, unnumberedOrder, parallelModuleRuns } = checked;
  const { log } = wiring;
  const namespace = opts.namespace || 'default';
  mkdirSync(opts.tmpDir, { recursive: true });
  // a global hook that cannot be configured stops the operator here, before anything else starts
  // (HOOKS.md): exit code 1
  const manager = await ModuleManager.load({
    modulesDir: opts.modulesDir,
    globalHooksDir: opts.globalHooksDir,
    unnumberedOrder,
    tmpDir: opts.tmpDir,
    hookTimeoutMs,
    keepTmpFiles: opts.debugKeepTmpFiles,
    warn: (m) => log.warn(m),
    debug: (m) => log.debug(m),
  });

  let sandbox: Sandbox | undefined;
  if (opts.sandbox) {
    try {
      sandbox = await startSandbox({ seedFiles: opts.sandboxSeed, ...(opts.sandboxKubeconfig ? { kubeconfigPath: opts.sandboxKubeconfig } : {}) });
    } catch (e) {
      throw new UserError(`sandbox: ${errorMessage(e)}`, { cause: e });
    }
    log.info({ url: sandbox.url, kubeconfig: sandbox.kubeconfigPath }, 'embedded API server started (sandbox: not a production cluster)');
  }
  try {
    await runOperator(opts, { ...wiring, checked, manager, sandbox, namespace, shutdownMs, historyMax, parallelModuleRuns });
  } finally {
    await sandbox?.stop();
  }
}

interface RunContext {
  checked: Checked;
  /** The main client when made before (HA mode). */
  kc: KubeConfig | undefined;
  log: Logger;
  manager: ModuleManager;
  sandbox: Sandbox | undefined;
  namespace: string;
  shutdownMs: number;
  historyMax: number;
  parallelModuleRuns: number;
  metrics: OperatorMetrics;
  hookMetrics: HookMetricsStorage;
  /** Called with the operator as soon as it exists (the HTTP server reads it). */
  created: (operator: Operator) => void;
  /** --log-file: the console's progress, and the HTTP server's address for its block of things to try. */
  console: { progress: ConsoleProgress; http: { host: string; port: number } } | undefined;
}

async function runOperator(opts: StartOptions, { checked, log, manager, sandbox, namespace, shutdownMs, historyMax, parallelModuleRuns, metrics, hookMetrics, created, kc: madeKc, console }: RunContext): Promise<void> {
  const kc = madeKc ?? mainClient(opts, checked, sandbox, log);
  if (sandbox) await ensureNamespace(kc, namespace);

  const mapper = new RestMapper(kc);
  const monitors = new KubeMonitors({ kc, resolve: (apiVersion, kind) => mapper.resolve(apiVersion, kind) });
  // hooks' Kubernetes operations go through a client of their own (OBJECT_PATCHER_KUBE_CLIENT_*), and
  // Helm through another without a rate limit, as the Go original's helm3lib has its own client
  const patcher = new ObjectPatcher({ kc: cloneClient(kc, { ...checked.patcherClient, component: 'object_patcher', onLimitDropped: () => limitDropped(log, 'object_patcher', '--object-patcher-kube-client-qps') }), mapper });
  const helmKc = cloneClient(kc, { qps: 0 });
  const kube: KubernetesPort = {
    createMonitor: (binding, options) => monitors.createMonitor(binding, options),
    applyOperations: (operations, options) => patcher.applyOperations(operations, options),
  };
  const operator: Operator = new Operator({
    manager,
    namespace,
    kube,
    helm: new HelmReleases({
      kc: helmKc,
      mapper,
      historyMax,
      hookTimeoutMs: checked.helmTimeoutMs,
      crds: 'module',
      // as the Go operator's Helm client: --crd-extra-labels on every release object and module CRD,
      // and this release label on every revision (its maintenance mode, not used here)
      extraLabels: checked.extraLabels,
      releaseLabels: { 'maintenance.deckhouse.io/no-resource-reconciliation': 'false' },
      log: { info: (m) => log.info(m), warn: (m) => log.warn(m) },
      monitor: {
        drift: checked.helmDrift,
        onAbsent: (release, resources) => operator.helmResourcesAbsent(release, resources),
        onUnexpectedStatus: (release, status) => operator.helmReleaseUnexpectedStatus(release, status),
        onDrift: (r) => metrics?.helmDrift(r.release, r.resource, r.action),
      },
    }),
    config: new ConfigMapSource({ kc, namespace, name: opts.configMap }),
    logger: log,
    metrics,
    hookMetrics,
    helmIgnoreRelease: opts.helmIgnoreRelease || undefined,
    proxyHookJsonLogs: opts.logProxyHookJson,
    parallelModuleRuns,
  });
  created(operator);
  const stopIdleGc = collectWhenIdle(operator.queues, {
    onCollected: (r) => log.debug({ rssBeforeMiB: Math.round(r.rssBeforeMiB), rssAfterMiB: Math.round(r.rssAfterMiB), ms: Math.round(r.ms) }, 'idle: garbage collected'),
  });
  const debug = await startDebugSocket(opts, operator, log);
  const debugSocket = debug.path;
  const stopped = stopOnSignals(operator, log, shutdownMs, () => debug.stop());
  log.info({ namespace, modules: manager.set.modules.length, globalHooks: manager.globalHooks.length }, 'operator starting');
  try {
    await operator.start();
  } catch (e) {
    await operator.stop();
    await debug.stop();
    throw e;
  }
  void operator.converge
    .whenFirstDone()
    .then(() => {
      log.info({ enabledModules: manager.enabledModules, kubeConnections: connectionStats() }, 'startup converge done');
      console?.progress.ready({ kubeconfig: sandbox?.kubeconfigPath ?? (opts.kubeConfig || undefined), sandbox: !!sandbox, namespace, configMap: opts.configMap, http: console.http, debugSocket, logFile: opts.logFile! });
    });
  await stopped;
  stopIdleGc();
  log.info('operator stopped');
}

/**
 * SIGTERM/SIGINT: nothing new starts and the running hooks may finish within `graceMs`; a second
 * signal, or the grace period running out, ends the process at once (128 + signal number).
 */
/** The debug socket of the debug commands, with the runtime parameter `log.level`. */
async function startDebugSocket(opts: StartOptions, operator: Operator, log: Logger): Promise<{ path: string; stop(): Promise<void> }> {
  const path = opts.debugUnixSocket ?? (opts.sandbox ? join('.sandbox', 'debug.socket') : DEFAULT_DEBUG_SOCKET);
  const params = new RuntimeParams();
  params.register({
    name: 'log.level',
    description: 'Global log level',
    defaultValue: log.level,
    validate: (v) => {
      if (!LOG_LEVELS.includes(v)) throw new BadRequestError(`log.level: "${v}" is not one of ${LOG_LEVELS.join(', ')}`);
    },
    onChange: (v) => {
      log.level = v;
      log.info({ logLevel: v }, 'log level changed');
    },
    forceDurationMs: (v) => (v === 'debug' ? 30 * 60_000 : undefined),
  });
  const server = new DebugServer(path);
  registerDebugRoutes(server, operator.runtime, params);
  await server.start();
  log.info({ socket: path }, 'debug socket listening');
  return {
    path,
    stop: async () => {
      params.stop();
      await server.stop();
      rmSync(path, { force: true });
    },
  };
}

function stopOnSignals(operator: Operator, log: Logger, graceMs: number, after: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      const code = 128 + (signal === 'SIGINT' ? 2 : 15);
      if (stopping) {
        // shell-operator's WaitForProcessInterruption: the next signal exits at once with 128+signum
        // (hook processes end with the helper that started them; the HA lease is left to run out)
        log.warn({ signal }, 'forced shutdown by a second signal');
        process.exit(code);
      }
      stopping = true;
      log.info({ signal, graceMs }, 'stopping: running tasks may finish, nothing new starts');
      const timer = setTimeout(() => {
        log.error({ graceMs }, 'shutdown timeout: exiting with tasks still running');
        process.exit(code);
      }, graceMs);
      timer.unref();
      void operator.stop().then(after).then(() => {
        clearTimeout(timer);
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        resolve();
      });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
