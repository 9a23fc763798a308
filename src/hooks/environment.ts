/**
 * The environment every process the operator starts for a module set inherits: hooks, `enabled`
 * scripts and `--config` runs. As in the Go originals (`os.Environ()` plus the hook's own variables),
 * it is the operator's own environment, so that `kubectl` and client libraries in a hook find their
 * cluster (`KUBERNETES_SERVICE_*` in a Pod, `KUBECONFIG` outside one), proxies, `TZ`, `LANG` and the
 * variables a module set's Deployment sets for its hooks. What the operator changes:
 * - the settings its own launcher gives Node for itself (glibc's mmap threshold) are not passed on;
 * - with `--kube-config FILE`, `KUBECONFIG` is that file;
 * - on the sandbox, `KUBECONFIG` is the sandbox's kubeconfig and an outer cluster's in-cluster
 *   variables (`KUBERNETES_SERVICE_*`, `KUBERNETES_PORT*`) are dropped, so a hook's `kubectl` talks
 *   to the sandbox.
 * A run's own variables (the hook contract's paths) are laid over this and win.
 */
import { resolve } from 'node:path';

/** Variables the operator's launcher (the bin's shebang, `npm start`) sets for Node alone. */
const LAUNCHER_ONLY = ['MALLOC_MMAP_THRESHOLD_'];

/** Where the processes' cluster is, as the operator was started. */
export type ClusterOfHooks =
  /** The operator's own environment decides (in a Pod: the in-cluster variables; else `KUBECONFIG`). */
  | { kind: 'inherited' }
  /** `--kube-config FILE`. */
  | { kind: 'kubeconfig'; path: string }
  /** `start --sandbox`: the sandbox's kubeconfig, no outer cluster. */
  | { kind: 'sandbox'; kubeconfigPath: string };

/** The inherited environment for processes started by an operator whose own environment is `source`. */
export function inheritedEnvironment(source: NodeJS.ProcessEnv, cluster: ClusterOfHooks): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || LAUNCHER_ONLY.includes(name)) continue;
    if (cluster.kind === 'sandbox' && (name.startsWith('KUBERNETES_SERVICE_') || name.startsWith('KUBERNETES_PORT'))) continue;
    env[name] = value;
  }
  if (cluster.kind === 'kubeconfig') env.KUBECONFIG = resolve(cluster.path);
  if (cluster.kind === 'sandbox') env.KUBECONFIG = resolve(cluster.kubeconfigPath);
  return env;
}

let current: Record<string, string> | undefined;

/** Sets the environment the operator's child processes inherit from now on (once, at start-up). */
export function setInheritedEnvironment(env: Record<string, string>): void {
  current = env;
}

/** The environment child processes inherit: as set at start-up, else the operator's own as it is. */
export function currentInheritedEnvironment(): Record<string, string> {
  return (current ??= inheritedEnvironment(process.env, { kind: 'inherited' }));
}
