/**
 * The kubeconfig model the operator uses: clusters, users, contexts and the current context, read
 * from a file, from options or from the pod's service account, and the TLS material and credentials
 * of the current user for a request (`applyToHTTPSOptions`). It behaves as @kubernetes/client-node's
 * KubeConfig for everything the operator calls (tests may pass that class where this one is asked),
 * with its entry checks (config_types) and its authenticators (exec, token file, OIDC, Azure, GCP).
 *
 * Why not client-node's class itself: its module imports the whole generated API (`gen/`), about
 * 70 MiB of resident memory and 0.5 s of start-up CPU that the operator never uses (it sends its
 * requests itself, kube/http.ts). The authenticators are loaded only for a user that needs one.
 */
import { readFileSync, existsSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';
import { isIPv6 } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import { newClusters, newContexts, newUsers, type ConfigOptions } from '@kubernetes/client-node/dist/config_types.js';
import { parseYaml } from '../util/yaml.js';

export type { Cluster, Context, User };

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/** What an authenticator of client-node offers. */
interface Authenticator {
  isAuthProvider(user: User): unknown;
  applyAuthentication(user: User, opts: RequestOptions): Promise<void>;
}

/** client-node's authenticators in its order, each with a cheap test of whether it may apply. */
const AUTHENTICATORS: [(u: User) => boolean, () => Promise<Authenticator>][] = [
  [(u) => u.authProvider?.name === 'azure', async () => new (await import('@kubernetes/client-node/dist/azure_auth.js')).AzureAuth()],
  [(u) => u.authProvider?.name === 'gcp', async () => new (await import('@kubernetes/client-node/dist/gcp_auth.js')).GoogleCloudPlatformAuth()],
  [(u) => !!(u.exec || u.authProvider), async () => new (await import('@kubernetes/client-node/dist/exec_auth.js')).ExecAuth()],
  [(u) => !!u.authProvider?.config?.tokenFile, async () => new (await import('@kubernetes/client-node/dist/file_auth.js')).FileAuth()],
  [(u) => u.authProvider?.name === 'oidc', async () => new (await import('@kubernetes/client-node/dist/oidc_auth.js')).OpenIDConnectAuth()],
];

/** Each config's authenticators (they cache tokens), created when first needed. */
const authenticators = new WeakMap<KubeConfig, Map<number, Promise<Authenticator>>>();

function fileOrData(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file) return readFileSync(file);
  if (data) return Buffer.from(data, 'base64');
  return undefined;
}

const absolute = (root: string, file: string): string => (!root || isAbsolute(file) ? file : join(root, file));

export class KubeConfig {
  clusters: Cluster[] = [];
  users: User[] = [];
  contexts: Context[] = [];
  currentContext!: string;

  getContexts(): Context[] {
    return this.contexts;
  }

  getClusters(): Cluster[] {
    return this.clusters;
  }

  getUsers(): User[] {
    return this.users;
  }

  getCurrentContext(): string {
    return this.currentContext;
  }

  setCurrentContext(context: string): void {
    this.currentContext = context;
  }

  getContextObject(name: string): Context | null {
    return this.contexts.find((c) => c.name === name) ?? null;
  }

  getCluster(name: string): Cluster | null {
    return this.clusters.find((c) => c.name === name) ?? null;
  }

  getUser(name: string): User | null {
    return this.users.find((u) => u.name === name) ?? null;
  }

  getCurrentCluster(): Cluster | null {
    const ctx = this.getContextObject(this.currentContext);
    return ctx ? this.getCluster(ctx.cluster) : null;
  }

  getCurrentUser(): User | null {
    const ctx = this.getContextObject(this.currentContext);
    return ctx ? this.getUser(ctx.user) : null;
  }

  /** Reads a kubeconfig file; relative certificate paths are taken from the file's directory. */
  loadFromFile(file: string, opts?: Partial<ConfigOptions>): void {
    this.loadFromString(readFileSync(file, 'utf8'), opts, file);
    const root = dirname(file);
    for (const c of this.clusters) if (c.caFile) c.caFile = absolute(root, c.caFile);
    for (const u of this.users) {
      if (u.certFile) u.certFile = absolute(root, u.certFile);
      if (u.keyFile) u.keyFile = absolute(root, u.keyFile);
    }
  }

  loadFromString(text: string, opts?: Partial<ConfigOptions>, source = 'the kubeconfig'): void {
    const obj = (parseYaml(text, source) ?? {}) as Record<string, unknown>;
    this.clusters = newClusters(obj.clusters, opts);
    this.contexts = newContexts(obj.contexts, opts);
    this.users = newUsers(obj.users, opts);
    this.currentContext = obj['current-context'] as string;
  }

  loadFromOptions(options: { clusters: Cluster[]; users: User[]; contexts: Context[]; currentContext: string }): void {
    this.clusters = options.clusters;
    this.users = options.users;
    this.contexts = options.contexts;
    this.currentContext = options.currentContext;
  }

  /** The pod's service account: KUBERNETES_SERVICE_HOST/PORT, its CA, its token file (re-read as it rotates). */
  loadFromCluster(pathPrefix = ''): void {
    const host = process.env.KUBERNETES_SERVICE_HOST ?? '';
    const port = process.env.KUBERNETES_SERVICE_PORT;
    const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
    const server = `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`;
    this.clusters = [{ name: 'inCluster', caFile: `${pathPrefix}${SERVICE_ACCOUNT}/ca.crt`, server, skipTLSVerify: false }];
    this.users = [{ name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile: `${pathPrefix}${SERVICE_ACCOUNT}/token` } } }];
    const nsFile = `${pathPrefix}${SERVICE_ACCOUNT}/namespace`;
    const namespace = existsSync(nsFile) ? readFileSync(nsFile, 'utf8') : undefined;
    this.contexts = [{ cluster: 'inCluster', name: 'inClusterContext', user: 'inClusterUser', namespace }];
    this.currentContext = 'inClusterContext';
  }

  addCluster(cluster: Cluster): void {
    if (this.clusters.some((c) => c.name === cluster.name)) throw new Error(`Duplicate cluster: ${cluster.name}`);
    this.clusters.push(cluster);
  }

  addUser(user: User): void {
    if (this.users.some((u) => u.name === user.name)) throw new Error(`Duplicate user: ${user.name}`);
    this.users.push(user);
  }

  addContext(ctx: Context): void {
    if (this.contexts.some((c) => c.name === ctx.name)) throw new Error(`Duplicate context: ${ctx.name}`);
    this.contexts.push(ctx);
  }

  /**
   * The current cluster's TLS settings and the current user's certificate, key and credentials
   * (an authenticator's token, a bearer token, basic auth, impersonation) added to `opts`.
   */
  async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    const user = this.getCurrentUser();
    if (!user) return;
    const cluster = this.getCurrentCluster();
    if (cluster?.skipTLSVerify) opts.rejectUnauthorized = false;
    if (cluster?.tlsServerName) opts.servername = cluster.tlsServerName;
    const ca = cluster ? fileOrData(cluster.caFile, cluster.caData) : undefined;
    if (ca) opts.ca = ca;
    const cert = fileOrData(user.certFile, user.certData);
    if (cert) opts.cert = cert;
    const key = fileOrData(user.keyFile, user.keyData);
    if (key) opts.key = key;
    const headers = (opts.headers ??= {}) as OutgoingHttpHeaders;
    if (user.impersonateUser != null) headers['Impersonate-User'] = user.impersonateUser;
    const authenticator = await authenticatorFor(this, user);
    if (authenticator) await authenticator.applyAuthentication(user, opts);
    if (user.token) headers.Authorization = `Bearer ${user.token}`;
    if (user.username) opts.auth = `${user.username}:${user.password}`;
  }
}

/** The first of client-node's authenticators that applies to the user (none for static credentials). */
async function authenticatorFor(kc: KubeConfig, user: User): Promise<Authenticator | undefined> {
  let loaded = authenticators.get(kc);
  for (let i = 0; i < AUTHENTICATORS.length; i++) {
    const [mayApply, load] = AUTHENTICATORS[i]!;
    if (!mayApply(user)) continue;
    if (!loaded) authenticators.set(kc, (loaded = new Map()));
    let a = loaded.get(i);
    if (!a) loaded.set(i, (a = load()));
    const auth = await a;
    if (auth.isAuthProvider(user)) return auth;
  }
  return undefined;
}
