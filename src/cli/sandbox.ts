/** `addon-operator sandbox`: only the embedded API server, in the foreground. */
import { Option, type Command } from 'commander';
import type { Sandbox, SandboxOptions } from '../sandbox/index.js';
import { UserError } from '../util/errors.js';
import { parseDuration, parseOrder } from './env.js';

function parseListen(v: string): { host: string; port: number } {
  const m = v.match(/^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/);
  if (!m) throw new UserError(`--listen: expected HOST:PORT, got "${v}"`);
  const host = m[1] ?? m[2] ?? '';
  return { host: host || '127.0.0.1', port: Number(m[3]) };
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

export interface SandboxCommandOptions {
  listen?: string;
  kubeconfig?: string;
  seed: string[];
  dataDir?: string;
  insecureHttp?: boolean;
  controllers: string;
  podStart: string;
  watchHistory: string;
  sandboxControllers?: string;
  sandboxPodStart?: string;
}

/** `--controllers all|none` (and `--sandbox-controllers` of `start`): are the simulated controllers on? */
export function parseControllers(v: string, flag: string): boolean {
  if (v === 'all') return true;
  if (v === 'none') return false;
  throw new UserError(`${flag}: "${v}" is not one of all, none`);
}

/** `--pod-start 0.5s` (and `--sandbox-pod-start`): a Pod's time from scheduling to Running, in ms. */
export function parsePodStart(v: string, flag: string): number {
  try {
    return parseDuration(v, flag);
  } catch (e) {
    throw new UserError((e as Error).message, { cause: e });
  }
}

export const CONTROLLERS_HELP =
  'simulated controllers: all (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs get Pods that become Ready, ' +
  'PVCs are Bound, Services get endpoints; no container runs) or none (a plain store)';
export const POD_START_HELP = "with the controllers: a Pod's time from its scheduling to Running and Ready (a Job's Pod then succeeds as long after), e.g. 0.5s, 0s";

/** Registers `addon-operator sandbox` on the given program. */
export function registerSandboxCommand(program: Command): Command {
  return program
    .command('sandbox')
    .description(
      'run only the embedded Kubernetes API server (HTTPS, self-signed certificate, bearer token) in the foreground; ' +
        'for local development and tests, not a production cluster',
    )
    .option('--listen <host:port>', 'address to listen on', '127.0.0.1:0')
    .option('--kubeconfig <path>', 'write the kubeconfig here (default: DATA_DIR/kubeconfig or a temporary file)')
    .option('--seed <file>', 'load a multi-document YAML manifest at start (repeatable)', collect, [])
    .option('--data-dir <dir>', 'keep the state in this directory across restarts (crash-safe)')
    .option('--insecure-http', 'serve plain HTTP instead of HTTPS (kubectl then sends no token; for client libraries only)')
    .option('--controllers <set>', CONTROLLERS_HELP, 'all')
    .option('--pod-start <duration>', POD_START_HELP, '0.5s')
    .option('--watch-history <n>', 'change events a watch can resume from (older resourceVersions get 410 Gone, and informers list again); an API server keeps about 5 minutes of them', '10000')
    .addOption(new Option('--sandbox-controllers <set>', 'the name of --controllers on `start --sandbox`').hideHelp())
    .addOption(new Option('--sandbox-pod-start <duration>', 'the name of --pod-start on `start --sandbox`').hideHelp())
    .action(async (opts: SandboxCommandOptions) => {
      const { host, port } = parseListen(opts.listen ?? '127.0.0.1:0');
      const controllers = opts.sandboxControllers !== undefined ? parseControllers(opts.sandboxControllers, '--sandbox-controllers') : parseControllers(opts.controllers, '--controllers');
      const podStartMs = opts.sandboxPodStart !== undefined ? parsePodStart(opts.sandboxPodStart, '--sandbox-pod-start') : parsePodStart(opts.podStart, '--pod-start');
      let historyLimit: number;
      try {
        historyLimit = Math.max(1, parseOrder(opts.watchHistory ?? '10000', '--watch-history'));
      } catch (e) {
        throw new UserError((e as Error).message, { cause: e });
      }
      const options: SandboxOptions = { host, port, seedFiles: opts.seed, tls: !opts.insecureHttp, controllers, podStartMs, historyLimit };
      if (opts.kubeconfig) options.kubeconfigPath = opts.kubeconfig;
      if (opts.dataDir) options.dataDir = opts.dataDir;
      // imported here: the other commands do not pay for loading the server
      const { startSandbox } = await import('../sandbox/index.js');
      let sb: Sandbox;
      try {
        sb = await startSandbox(options);
      } catch (err) {
        // a busy port, an unreadable seed file, a bad manifest: the user's to fix
        throw new UserError(`sandbox: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      process.stdout.write(`url: ${sb.url}\nkubeconfig: ${sb.kubeconfigPath}\n`);
      process.stdout.write(`try: kubectl --kubeconfig ${sb.kubeconfigPath} get namespaces\n`);
      await new Promise<void>((resolve) => {
        const onSignal = (): void => {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          resolve();
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      });
      await sb.stop();
    });
}
