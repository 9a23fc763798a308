/**
 * Where the operator's credentials come from, in client-go's order (shell-operator's kube client):
 * the file of --kube-config, else the files of $KUBECONFIG (a ':'-separated list, merged), else
 * ~/.kube/config, else the pod's service account (in-cluster). --kube-context picks a context of the
 * file. Nothing found is an error that says what was tried; client-node alone would fall back to
 * http://localhost:8080 in silence.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from './kube-config.js';

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface KubeConfigSource {
  /** --kube-config (env KUBE_CONFIG). */
  file?: string;
  /** --kube-context (env KUBE_CONTEXT). */
  context?: string;
  /** Environment (KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Home directory (default os.homedir()). */
  home?: string;
  /** Prefix of the service account's directory (tests). */
  inClusterPrefix?: string;
}

export interface LoadedKubeConfig {
  kc: KubeConfig;
  /** What was read: a file list, or "in-cluster service account". */
  source: string;
}

export function loadKubeConfig(src: KubeConfigSource = {}): LoadedKubeConfig {
  const env = src.env ?? process.env;
  const kc = new KubeConfig();
  let source: string;
  const envFiles = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  const homeFile = join(src.home ?? homedir(), '.kube', 'config');
  const prefix = src.inClusterPrefix ?? '';
  const read = (file: string, target: KubeConfig) => {
    if (!existsSync(file)) throw new Error(`kubeconfig ${file} does not exist`);
    try {
      target.loadFromFile(file);
    } catch (e) {
      throw new Error(`kubeconfig ${file}: ${(e as Error).message}`, { cause: e });
    }
  };
  if (src.file) {
    read(src.file, kc);
    source = src.file;
  } else if (envFiles.length) {
    // the first file that names a current context sets it; clusters, users and contexts are merged
    const present = envFiles.filter((f) => existsSync(f));
    if (!present.length) throw new Error(`none of the KUBECONFIG files exists: ${envFiles.join(', ')}`);
    read(present[0]!, kc);
    for (const f of present.slice(1)) {
      const more = new KubeConfig();
      read(f, more);
      // as client-go merges: a name already read keeps its first definition
      const names = (list: { name: string }[]) => new Set(list.map((x) => x.name));
      const [clusters, users, contexts] = [names(kc.clusters), names(kc.users), names(kc.contexts)];
      for (const c of more.clusters) if (!clusters.has(c.name)) kc.addCluster(c);
      for (const u of more.users) if (!users.has(u.name)) kc.addUser(u);
      for (const c of more.contexts) if (!contexts.has(c.name)) kc.addContext(c);
      if (!kc.currentContext && more.currentContext) kc.setCurrentContext(more.currentContext);
    }
    source = present.join(delimiter);
  } else if (existsSync(homeFile)) {
    read(homeFile, kc);
    source = homeFile;
  } else if (env.KUBERNETES_SERVICE_HOST && existsSync(`${prefix}${SERVICE_ACCOUNT}/token`)) {
    withEnv(env, () => kc.loadFromCluster(prefix));
    source = 'in-cluster service account';
  } else {
    throw new Error(`no Kubernetes cluster configured: give --kube-config (env KUBE_CONFIG), set KUBECONFIG, write ${homeFile}, or run in a pod with a service account`);
  }
  if (src.context) {
    if (!kc.getContextObject(src.context)) throw new Error(`--kube-context: the kubeconfig (${source}) has no context "${src.context}"; it has: ${kc.getContexts().map((c) => c.name).join(', ') || 'none'}`);
    kc.setCurrentContext(src.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`the kubeconfig (${source}) has no current context with a cluster${kc.currentContext ? ` (current context "${kc.currentContext}")` : ''}`);
  if (!cluster.server) throw new Error(`the kubeconfig (${source}): cluster "${cluster.name}" has no server`);
  return { kc, source };
}

/** loadFromCluster reads KUBERNETES_SERVICE_HOST/PORT from process.env: give it `env`'s. */
function withEnv(env: NodeJS.ProcessEnv, fn: () => void): void {
  if (env === process.env) return fn();
  const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
  process.env.KUBERNETES_SERVICE_HOST = env.KUBERNETES_SERVICE_HOST;
  if (env.KUBERNETES_SERVICE_PORT === undefined) delete process.env.KUBERNETES_SERVICE_PORT;
  else process.env.KUBERNETES_SERVICE_PORT = env.KUBERNETES_SERVICE_PORT;
  try {
    fn();
  } finally {
    if (saved.host === undefined) delete process.env.KUBERNETES_SERVICE_HOST;
    else process.env.KUBERNETES_SERVICE_HOST = saved.host;
    if (saved.port === undefined) delete process.env.KUBERNETES_SERVICE_PORT;
    else process.env.KUBERNETES_SERVICE_PORT = saved.port;
  }
}
