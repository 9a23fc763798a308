/**
 * `addon-operator start` (also the default command): the operator against a Kubernetes API — the
 * cluster of the kubeconfig (or in-cluster config), or with `--sandbox` the embedded API server
 * started in the same process. Flags and environment variables as in reference/addon-operator.md §2.
 * The operator itself (start-run.ts) is imported only when the command runs: other commands stay quick.
 */
import { Command, Option } from 'commander';
import { ENV, fromEnv } from './env.js';
import { CONTROLLERS_HELP, POD_START_HELP } from './sandbox.js';

export interface StartOptions {
  modulesDir: string;
  globalHooksDir: string;
  unnumberedModulesOrder: string;
  tmpDir: string;
  namespace: string;
  configMap: string;
  hookTimeout: string;
  shutdownTimeout: string;
  helmHistoryMax: string;
  helmTimeout: string;
  helmDrift?: string;
  helmWait?: boolean;
  crdExtraLabels?: string;
  parallelModuleRuns: string;
  helmIgnoreRelease: string;
  kubeConfig: string;
  kubeContext: string;
  /** Unset: the default, dropped when the API server runs API Priority and Fairness. */
  kubeClientQps?: string;
  kubeClientBurst?: string;
  /** Unset: the default, dropped when the API server runs API Priority and Fairness. */
  objectPatcherKubeClientQps?: string;
  objectPatcherKubeClientBurst?: string;
  objectPatcherKubeClientTimeout: string;
  /** Unset: the default, dropped when the API server runs API Priority and Fairness. */
  helmMonitorKubeClientQps?: string;
  helmMonitorKubeClientBurst?: string;
  kubeSnapshotMemoryLimit: string;
  strictCheckValuesModeEnabled: boolean;
  appliedModuleExtenders: string;
  shellChrootDir: string;
  logLevel: string;
  logType: string;
  logNoTime: boolean;
  logProxyHookJson: boolean;
  logFile?: string;
  debugKeepTmpFiles: boolean;
  listenAddress?: string;
  listenPort: string;
  prometheusMetricsPrefix: string;
  debugUnixSocket?: string;
  sandbox: boolean;
  sandboxSeed: string[];
  sandboxKubeconfig?: string;
  sandboxDataDir?: string;
  sandboxControllers: string;
  sandboxPodStart: string;
  admissionServerListenPort?: string;
  admissionServerCertsDir: string;
  admissionServerUrl?: string;
  validatingWebhookConfigurationName: string;
  validatingWebhookServiceName: string;
  conversionWebhookServiceName: string;
  /** PEM files of the CAs whose client certificates the admission webhooks' requests must carry. */
  validatingWebhookClientCa: string[];
  /** The same for the conversion webhooks' requests. */
  conversionWebhookClientCa: string[];
}

const envBool = (names: readonly string[]) => ['true', '1', 'yes'].includes(fromEnv(names, 'false').toLowerCase());
const collect = (v: string, prev: string[]) => [...prev, v];
/** A comma-separated environment variable as a list (shell-operator's envSeparator ","). */
const envList = (names: readonly string[]) => fromEnv(names, '').split(',').map((s) => s.trim()).filter(Boolean);
/** A repeatable flag whose environment default is replaced by the flags given, not added to (shell-operator's). */
const collectOver = (defaults: string[]) => (v: string, prev: string[]) => (prev === defaults ? [v] : [...prev, v]);
const clientCaFlag = (flag: string, env: string, what: string) => {
  const defaults = envList([env]);
  return [
    `${flag} <file>`,
    `a CA (PEM) of the client certificates that requests to the ${what} must carry; repeatable (env ${env}, comma-separated); none: no client certificate is asked for`,
    collectOver(defaults),
    defaults,
  ] as const;
};

export function registerStart(program: Command): Command {
  return program
    .command('start', { isDefault: true })
    .description('run the operator (the default command); with --sandbox against an embedded API server')
    .option('--modules-dir <dirs>', 'modules directories, separated by ":" (env MODULES_DIR)', fromEnv(ENV.modulesDir, 'modules'))
    .option('--global-hooks-dir <dir>', 'global hooks directory (env GLOBAL_HOOKS_DIR)', fromEnv(ENV.globalHooksDir, 'global-hooks'))
    .option('--unnumbered-modules-order <n>', 'order of modules without a number prefix', fromEnv(ENV.unnumberedOrder, '1'))
    .option('--tmp-dir <dir>', 'where hook runs get their private directories', fromEnv(ENV.tmpDir, '/tmp/addon-operator'))
    .option('--namespace <ns>', 'namespace of the ConfigMap and the Helm releases (env ADDON_OPERATOR_NAMESPACE)', fromEnv(['ADDON_OPERATOR_NAMESPACE', 'SHELL_OPERATOR_NAMESPACE'], ''))
    .option('--config-map <name>', 'name of the config ConfigMap', fromEnv(['ADDON_OPERATOR_CONFIG_MAP'], 'addon-operator'))
    .option('--hook-timeout <duration>', 'time limit of every hook run, e.g. 30s, 10m', fromEnv(ENV.hookTimeout, '10m'))
    .option('--shutdown-timeout <duration>', 'how long a running hook may take to finish after SIGTERM', fromEnv(['ADDON_OPERATOR_SHUTDOWN_TIMEOUT'], '30s'))
    .option('--helm-history-max <n>', 'revisions kept per release (0: all)', fromEnv(['HELM_HISTORY_MAX'], '10'))
    .option('--helm-timeout <duration>', "how long a Helm hook's Job or Pod is waited for, e.g. 20m (env HELM_TIMEOUT)", fromEnv(['HELM_TIMEOUT'], '20m'))
    .option('--helm-wait', "a module run waits for its release's objects to be ready (as helm --wait, bounded by --helm-timeout) before its afterHelm hooks; a timeout fails the run naming what is not ready; a module's module.yaml helmWait overrides it (env HELM_WAIT)", envBool(['HELM_WAIT']))
    .option('--helm-drift <mode>', 'a managed field of a release object changed by someone else, also while the operator was not running (checked at start, before the first converge is done): fix (apply the object again), warn (log it), off (env HELM_DRIFT)', fromEnv(['HELM_DRIFT'], 'fix'))
    .option(
      '--crd-extra-labels <labels>',
      'labels (key=value,...) added to every release object and module CRD (env ADDON_OPERATOR_CRD_EXTRA_LABELS); heritage=addon-operator is always among them unless another heritage is given',
      fromEnv(['ADDON_OPERATOR_CRD_EXTRA_LABELS'], 'heritage=addon-operator'),
    )
    .option(
      '--parallel-module-runs <n>',
      'modules that share an order number run this many at once (env ADDON_OPERATOR_PARALLEL_MODULE_RUNS; 1: one by one); functional modules (docs/modules.md) run in this many parallel queues',
      fromEnv(['ADDON_OPERATOR_PARALLEL_MODULE_RUNS', 'PARALLEL_MODULE_RUNS'], '1'),
    )
    .option('--helm-ignore-release <name>', 'a release in the namespace that is never purged', fromEnv(['HELM_IGNORE_RELEASE'], ''))
    .option('--kube-config <path>', 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config or in-cluster)', fromEnv(['KUBE_CONFIG'], ''))
    .option('--kube-context <name>', 'kubeconfig context', fromEnv(['KUBE_CONTEXT'], ''))
    .option(
      '--kube-client-qps <n>',
      'requests a second of the main Kubernetes client, shared by every request but watches (env KUBE_CLIENT_QPS; 0: no limit; default 5, and no limit once the API server shows it runs API Priority and Fairness, unless this or the burst is set)',
      fromEnv(['KUBE_CLIENT_QPS'], '') || undefined,
    )
    .option('--kube-client-burst <n>', 'requests the main client may send at once (env KUBE_CLIENT_BURST; default 10)', fromEnv(['KUBE_CLIENT_BURST'], '') || undefined)
    .option(
      '--object-patcher-kube-client-qps <n>',
      "requests a second of the client that applies hooks' Kubernetes operations (env OBJECT_PATCHER_KUBE_CLIENT_QPS; default 5, dropped under API Priority and Fairness as the main client's)",
      fromEnv(['OBJECT_PATCHER_KUBE_CLIENT_QPS'], '') || undefined,
    )
    .option('--object-patcher-kube-client-burst <n>', 'burst of that client (env OBJECT_PATCHER_KUBE_CLIENT_BURST; default 10)', fromEnv(['OBJECT_PATCHER_KUBE_CLIENT_BURST'], '') || undefined)
    .option('--object-patcher-kube-client-timeout <duration>', 'time limit of each of its requests (env OBJECT_PATCHER_KUBE_CLIENT_TIMEOUT)', fromEnv(['OBJECT_PATCHER_KUBE_CLIENT_TIMEOUT'], '10s'))
    .option(
      '--helm-monitor-kube-client-qps <n>',
      "requests a second of the Helm resources monitor's client, its reads besides the watches (env HELM_MONITOR_KUBE_CLIENT_QPS; unset: the Helm client's, not limited)",
      fromEnv(['HELM_MONITOR_KUBE_CLIENT_QPS'], '') || undefined,
    )
    .option('--helm-monitor-kube-client-burst <n>', 'burst of that client (env HELM_MONITOR_KUBE_CLIENT_BURST; default 10 when the QPS is set)', fromEnv(['HELM_MONITOR_KUBE_CLIENT_BURST'], '') || undefined)
    .option(
      '--kube-snapshot-memory-limit <size>',
      "a warning is logged when the kubernetes bindings' snapshots together retain 80 % of this, and again past it (kube_snapshot_bytes; env KUBE_SNAPSHOT_MEMORY_LIMIT; a size such as 512Mi; 0: no warning)",
      fromEnv(['ADDON_OPERATOR_KUBE_SNAPSHOT_MEMORY_LIMIT', 'KUBE_SNAPSHOT_MEMORY_LIMIT'], '0'),
    )
    .option(
      '--strict-check-values-mode-enabled',
      'every modules dir and every module must have a values.yaml, else the start fails naming the missing ones (env STRICT_CHECK_VALUES_MODE_ENABLED)',
      envBool(['STRICT_CHECK_VALUES_MODE_ENABLED']),
    )
    .option(
      '--applied-module-extenders <list>',
      'the sources of the enabled state that take part, comma-separated: Static (values files), DynamicallyEnabled (global hooks), KubeConfig (the ConfigMap), ScriptEnabled (enabled scripts); empty: all',
      fromEnv(['ADDON_OPERATOR_APPLIED_MODULE_EXTENDERS', 'APPLIED_MODULE_EXTENDERS'], ''),
    )
    .option('--shell-chroot-dir <dir>', 'not supported: hooks are not run in a chroot; a value stops the start (docs/compatibility.md)', fromEnv(['ADDON_OPERATOR_SHELL_CHROOT_DIR', 'SHELL_CHROOT_DIR'], ''))
    .addOption(new Option('--log-level <level>', 'debug, info, warn or error').default(fromEnv(['LOG_LEVEL'], 'info')))
    .addOption(new Option('--log-type <type>', 'json, text or color').default(fromEnv(['LOG_TYPE'], 'text')))
    .option('--log-no-time', 'no timestamps in logs', envBool(['LOG_NO_TIME']))
    .option('--log-file <path>', 'write the log to this file (appended) instead of stdout; stdout then shows one short line per step, and what to try once converged')
    .option('--log-proxy-hook-json', "merge hooks' JSON log lines into the log records", envBool(['LOG_PROXY_HOOK_JSON']))
    .option('--debug-keep-tmp-files', "keep hook runs' directories", envBool(['DEBUG_KEEP_TMP_FILES']))
    .option('--listen-address <addr>', 'address of the HTTP server: probes, metrics, status (default 0.0.0.0; 127.0.0.1 with --sandbox)', fromEnv(['ADDON_OPERATOR_LISTEN_ADDRESS', 'SHELL_OPERATOR_LISTEN_ADDRESS'], '') || undefined)
    .option('--listen-port <port>', 'port of the HTTP server', fromEnv(['ADDON_OPERATOR_LISTEN_PORT', 'SHELL_OPERATOR_LISTEN_PORT'], '9650'))
    .addOption(new Option('--prometheus-listen-address <addr>', 'the Go name of --listen-address').hideHelp())
    .addOption(new Option('--prometheus-listen-port <port>', 'the Go name of --listen-port').hideHelp())
    .option('--prometheus-metrics-prefix <prefix>', 'prefix of the metric names', fromEnv(['ADDON_OPERATOR_PROMETHEUS_METRICS_PREFIX', 'SHELL_OPERATOR_PROMETHEUS_METRICS_PREFIX'], 'addon_operator_'))
    .option('--debug-unix-socket <path>', 'the debug socket of the debug commands (env DEBUG_UNIX_SOCKET; default /var/run/addon-operator/debug.socket, .sandbox/debug.socket with --sandbox)', fromEnv(['DEBUG_UNIX_SOCKET'], '') || undefined)
    .option(
      '--admission-server-listen-port <port>',
      "HTTPS port of the admission server, started when a hook has a kubernetesValidating, kubernetesMutating or kubernetesCustomResourceConversion binding (env ADDON_OPERATOR_ADMISSION_SERVER_LISTEN_PORT; default 9651, a free port with --sandbox)",
      fromEnv(['ADDON_OPERATOR_ADMISSION_SERVER_LISTEN_PORT', 'ADMISSION_SERVER_LISTEN_PORT'], '') || undefined,
    )
    .option(
      '--admission-server-certs-dir <dir>',
      "the admission server's tls.crt and tls.key, and ca.crt for the webhooks' CA bundle (env ADDON_OPERATOR_ADMISSION_SERVER_CERTS_DIR; none: a certificate made at start)",
      fromEnv(['ADDON_OPERATOR_ADMISSION_SERVER_CERTS_DIR', 'ADMISSION_SERVER_CERTS_DIR'], ''),
    )
    .option('--admission-server-url <url>', 'the API server calls the webhooks at this URL instead of the Services (outside a cluster; env ADDON_OPERATOR_ADMISSION_SERVER_URL; --sandbox: the server\'s own address)', fromEnv(['ADDON_OPERATOR_ADMISSION_SERVER_URL'], '') || undefined)
    .addOption(new Option('--admission-server-enabled [bool]', 'accepted for the Go operator: the server starts when a hook has a webhook binding').hideHelp())
    .option('--validating-webhook-configuration-name <name>', 'the webhook configurations are named <name>-hooks (env VALIDATING_WEBHOOK_CONFIGURATION_NAME)', fromEnv(['VALIDATING_WEBHOOK_CONFIGURATION_NAME'], 'shell-operator-hooks'))
    .option('--validating-webhook-service-name <name>', 'the Service of the admission webhooks (env VALIDATING_WEBHOOK_SERVICE_NAME)', fromEnv(['VALIDATING_WEBHOOK_SERVICE_NAME'], 'shell-operator-validating-svc'))
    .option('--conversion-webhook-service-name <name>', 'the Service of the CRD conversion webhooks (env CONVERSION_WEBHOOK_SERVICE_NAME)', fromEnv(['CONVERSION_WEBHOOK_SERVICE_NAME'], 'shell-operator-conversion-svc'))
    .option(...clientCaFlag('--validating-webhook-client-ca', 'VALIDATING_WEBHOOK_CLIENT_CA', 'admission webhooks (validating and mutating)'))
    .option(...clientCaFlag('--conversion-webhook-client-ca', 'CONVERSION_WEBHOOK_CLIENT_CA', 'CRD conversion webhooks'))
    .option('--sandbox', 'start the embedded Kubernetes API server in this process and run against it (not a production cluster)', false)
    .option('--sandbox-seed <file>', 'with --sandbox: load this multi-document YAML at start (repeatable)', collect, [])
    .option('--sandbox-kubeconfig <path>', "with --sandbox: write the sandbox's kubeconfig here")
    .option('--sandbox-data-dir <dir>', "with --sandbox: keep the sandbox's objects in this directory across restarts (as the sandbox command's --data-dir)")
    .option('--sandbox-controllers <set>', `with --sandbox: ${CONTROLLERS_HELP}`, 'all')
    .option('--sandbox-pod-start <duration>', `with --sandbox: ${POD_START_HELP}`, '0.5s')
    .action(async (opts: StartOptions & { prometheusListenAddress?: string; prometheusListenPort?: string }) => {
      opts.listenAddress = opts.prometheusListenAddress ?? opts.listenAddress;
      opts.listenPort = opts.prometheusListenPort ?? opts.listenPort;
      const { runStart } = await import('./start-run.js');
      await runStart(opts);
    });
}

