/** `addon-operator sandbox`: only the embedded API server, in the foreground. */
import type { Command } from 'commander';
import type { Sandbox, SandboxOptions } from '../sandbox/index.js';
import { UserError } from '../util/errors.js';

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
}

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
    .action(async (opts: SandboxCommandOptions) => {
      const { host, port } = parseListen(opts.listen ?? '127.0.0.1:0');
      const options: SandboxOptions = { host, port, seedFiles: opts.seed, tls: !opts.insecureHttp };
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
