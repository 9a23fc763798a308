/**
 * The operator part of `start` (start-run.ts): the module manager, the Kubernetes and Helm layers, the
 * operator, its debug socket and its stop on signals. Imported only when the instance runs the
 * operator: a standby of HA mode waiting for the lease has none of this loaded (about 17 MiB of RSS).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { KubeConfig } from '../kube/kube-config.js';
import { ModuleManager } from '../modules/manager.js';
import { inheritedEnvironment, setInheritedEnvironment } from '../hooks/environment.js';
import { collectWhenIdle } from '../operator/idle-gc.js';
import { Operator } from '../operator/operator.js';
import type { KubernetesPort } from '../operator/ports.js';
import { RestMapper } from '../kube/mapper.js';
import { KubeMonitors } from '../kube/binding-monitor.js';
import { ObjectPatcher } from '../kube/object-patcher.js';
import { ConfigMapSource } from '../kube/configmap-source.js';
import { cloneClient, isApiStatus, requestJson } from '../kube/http.js';
import { connectionStats } from '../kube/connections.js';
import { HelmReleases, MAINTENANCE_LABEL } from '../helm/release-engine.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { parseControllers, parsePodStart } from './sandbox.js';
import { UserError, errorMessage } from '../util/errors.js';
import type { OperatorMetrics } from '../metrics/operator-metrics.js';
import type { HookMetricsStorage } from '../metrics/hook-metrics.js';
import { registerDebugRoutes } from '../operator/debug-routes.js';
import { RuntimeParams } from '../operator/runtime-params.js';
import { BadRequestError, DebugServer } from '../server/debug-server.js';
import { DEFAULT_DEBUG_SOCKET } from './debug.js';
import type { StartOptions } from './start.js';
import type { ConsoleProgress } from './start-console.js';
import { LOG_LEVELS, limitDropped, mainClient, type Checked } from './start-run.js';
import { webhookPort } from './start-webhooks.js';

/** With --sandbox the namespace is created when missing, so that the quick start needs nothing else. */
async function ensureNamespace(kc: KubeConfig, namespace: string): Promise<void> {
  try {
    await requestJson(kc, 'GET', `/api/v1/namespaces/${namespace}`);
  } catch (e) {
    if (!isApiStatus(e, 404)) throw e;
    await requestJson(kc, 'POST', '/api/v1/namespaces', {}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  }
}

type Wiring = Pick<RunContext, 'log' | 'metrics' | 'hookMetrics' | 'created' | 'kc' | 'console'>;

export async function loadAndRun(opts: StartOptions, checked: Checked, wiring: Wiring): Promise<void> {
  const { hookTimeoutMs, shutdownMs, historyMax, unnumberedOrder, parallelModuleRuns } = checked;
  const { log } = wiring;
  const namespace = opts.namespace || 'default';
  mkdirSync(opts.tmpDir, { recursive: true });
  let sandbox: Sandbox | undefined;
  if (opts.sandbox) {
    try {
      sandbox = await startSandbox({
        seedFiles: opts.sandboxSeed,
        controllers: parseControllers(opts.sandboxControllers ?? 'all', '--sandbox-controllers'),
        podStartMs: parsePodStart(opts.sandboxPodStart ?? '0.5s', '--sandbox-pod-start'),
        onWarning: (m) => log.warn(m),
        ...(opts.sandboxKubeconfig ? { kubeconfigPath: opts.sandboxKubeconfig } : {}),
        ...(opts.sandboxDataDir ? { dataDir: opts.sandboxDataDir } : {}),
      });
    } catch (e) {
      throw new UserError(`sandbox: ${errorMessage(e)}`, { cause: e });
    }
    log.info({ url: sandbox.url, kubeconfig: sandbox.kubeconfigPath }, 'embedded API server started (sandbox: not a production cluster)');
  }
  // hooks, enabled scripts and --config runs inherit the operator's environment, their kubectl
  // pointed at the cluster the operator runs against
  setInheritedEnvironment(
    inheritedEnvironment(process.env, sandbox ? { kind: 'sandbox', kubeconfigPath: sandbox.kubeconfigPath } : opts.kubeConfig ? { kind: 'kubeconfig', path: opts.kubeConfig } : { kind: 'inherited' }),
  );
  try {
    // a global hook that cannot be configured stops the operator here, before it starts (HOOKS.md):
    // exit code 1
    const manager = await ModuleManager.load({
      modulesDir: opts.modulesDir,
      globalHooksDir: opts.globalHooksDir,
      unnumberedOrder,
      strictValues: opts.strictCheckValuesModeEnabled,
      extenders: checked.extenders,
      tmpDir: opts.tmpDir,
      hookTimeoutMs,
      keepTmpFiles: opts.debugKeepTmpFiles,
      warn: (m) => log.warn(m),
      debug: (m) => log.debug(m),
    });
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
  const monitors = new KubeMonitors({
    kc,
    resolve: (apiVersion, kind) => mapper.resolve(apiVersion, kind),
    onInformerDead: (gvr, namespace) => {
      metrics?.informerDead(gvr, namespace);
      log.warn({ gvr, namespace }, 'informer for index is stopped, recreating it');
    },
  });
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
      wait: opts.helmWait === true,
      crds: 'module',
      // as the Go operator's Helm client: --crd-extra-labels on every release object and module CRD,
      // and its maintenance label "false" on every revision of a managed module ("true" in maintenance)
      extraLabels: checked.extraLabels,
      releaseLabels: { [MAINTENANCE_LABEL]: 'false' },
      log: { info: (m) => log.info(m), warn: (m) => log.warn(m) },
      monitor: {
        // a client of its own only when limited: its sockets would otherwise add to the Helm client's
        ...(checked.helmMonitorClient ? { kc: cloneClient(kc, checked.helmMonitorClient) } : {}),
        drift: checked.helmDrift,
        onAbsent: (release, resources) => operator.helmResourcesAbsent(release, resources),
        onUnexpectedStatus: (release, status) => operator.helmReleaseUnexpectedStatus(release, status),
        onDrift: (r) => metrics?.helmDrift(r.release, r.resource, r.action),
        onHealth: (release) => operator.releaseObjectsChanged(release),
      },
    }),
    config: new ConfigMapSource({ kc, namespace, name: opts.configMap }),
    logger: log,
    metrics,
    hookMetrics,
    helmIgnoreRelease: opts.helmIgnoreRelease || undefined,
    proxyHookJsonLogs: opts.logProxyHookJson,
    parallelModuleRuns,
    webhooks: webhookPort(opts, { kc, namespace, sandbox: !!sandbox, log }),
  });
  created(operator);
  const stopIdleGc = collectWhenIdle(operator.queues, {
    onCollected: (r) => log.info({ rssBeforeMiB: Math.round(r.rssBeforeMiB), rssAfterMiB: Math.round(r.rssAfterMiB), ms: Math.round(r.ms) }, 'idle: garbage collected'),
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
  // an invalid module config found at start-up stops the operator with that error (exit 1)
  const failed = operator.failed.then(async (e) => {
    log.error({ error: e.message }, 'stopping: the start-up failed');
    await operator.stop();
    await debug.stop();
    stopIdleGc();
    throw e;
  });
  await Promise.race([stopped, failed]);
  stopIdleGc();
  log.info('operator stopped');
}

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

/**
 * SIGTERM/SIGINT: nothing new starts and the running hooks may finish within `graceMs`; a second
 * signal, or the grace period running out, ends the process at once (128 + signal number). A SIGINT
 * within a second of the first SIGINT is the same Ctrl-C: the terminal signals the process group and
 * `npm start`'s npm, in that group, forwards its own copy to the operator it `exec`s.
 */
/** How close two SIGINTs come to be one Ctrl-C seen twice (the group's and npm's forwarded copy). */
const SAME_CTRL_C_MS = 1000;

function stopOnSignals(operator: Operator, log: Logger, graceMs: number, after: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    let firstSigintAt: number | undefined;
    const onSignal = (signal: NodeJS.Signals): void => {
      const code = 128 + (signal === 'SIGINT' ? 2 : 15);
      if (stopping && signal === 'SIGINT' && firstSigintAt !== undefined && performance.now() - firstSigintAt < SAME_CTRL_C_MS) return;
      if (signal === 'SIGINT') firstSigintAt ??= performance.now();
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
