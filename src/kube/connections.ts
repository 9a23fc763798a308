/**
 * One connection pool per API server (per KubeConfig and its current cluster and user): keep-alive
 * agents over one TLS SecureContext built from the kubeconfig once, and again only when its
 * certificate files change. Plain requests share a bounded number of sockets; watches, which hold
 * their socket for minutes, get their own sockets from a second agent with the same SecureContext.
 * Every TLS handshake is counted per server (`connectionStats`), as client-go keeps one connection
 * per server and a handshake per request costs milliseconds of CPU on both sides.
 */
import { Agent as HttpAgent, type AgentOptions as HttpAgentOptions, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions, type RequestOptions } from 'node:https';
import { statSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { createSecureContext, type TLSSocket } from 'node:tls';
import type { KubeConfig } from './kube-config.js';

export interface ConnectionSettings {
  /** Sockets per API server for requests other than watches (default 16). */
  maxSockets: number;
  /** How often the kubeconfig's certificate files are checked for changes, in ms (default 2000). */
  fileCheckMs: number;
  /** An idle keep-alive socket is closed after this many ms (default 15000), before servers close it. */
  idleMs: number;
}

const settings: ConnectionSettings = { maxSockets: 16, fileCheckMs: 2000, idleMs: 15_000 };

/** Changes the settings of pools created from now on. */
export function configureConnections(s: Partial<ConnectionSettings>): void {
  Object.assign(settings, s);
}

export interface ServerStats {
  /** The API server's URL origin. */
  server: string;
  /** TLS handshakes made so far (also resumed sessions, which are cheaper). */
  handshakes: number;
  /** Sockets opened so far (TCP connections). */
  sockets: number;
}

/** Totals per API server over the life of the process (pools of one server add up). */
const totals = new Map<string, ServerStats>();

/** Handshake and socket counts per API server, for the metric and the bench. */
export function connectionStats(): ServerStats[] {
  return [...totals.values()].map((s) => ({ ...s }));
}

function statsOf(server: string): ServerStats {
  let s = totals.get(server);
  if (!s) totals.set(server, (s = { server, handshakes: 0, sockets: 0 }));
  return s;
}

type Agent = HttpAgent | HttpsAgent;

/** An agent that counts the sockets it opens and their TLS handshakes. */
function countingAgent(tls: boolean, options: HttpsAgentOptions & HttpAgentOptions, stats: ServerStats): Agent {
  const Base = tls ? HttpsAgent : HttpAgent;
  const agent = new Base(options);
  const create = agent.createConnection.bind(agent) as (...args: unknown[]) => Duplex;
  agent.createConnection = ((...args: unknown[]) => {
    const socket = create(...args);
    stats.sockets++;
    if (tls) (socket as TLSSocket).once('secureConnect', () => stats.handshakes++);
    return socket;
  }) as typeof agent.createConnection;
  return agent;
}

/** Identity and modification of one file, to notice a rotated certificate. */
function fileSignature(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

interface Agents {
  requests: Agent;
  watches: Agent;
}

/** What applyToHTTPSOptions gives besides TLS material: headers and basic auth. */
interface Auth {
  headers: OutgoingHttpHeaders;
  auth?: string;
}

export class ConnectionPool {
  readonly server: string;
  private readonly stats: ServerStats;
  private readonly tls: boolean;
  private readonly files: string[];
  private signatures: string[] = [];
  private checkedAt = 0;
  private agents?: Agents;
  /** Static credentials are read once; exec and auth-provider credentials on every request. */
  private staticAuth?: Auth;
  private readonly dynamicAuth: boolean;

  constructor(
    private readonly kc: KubeConfig,
    readonly key: string,
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    const user = kc.getCurrentUser();
    const url = new URL(cluster.server);
    this.server = url.origin;
    this.tls = url.protocol !== 'http:';
    this.stats = statsOf(this.server);
    this.files = [cluster.caFile, user?.certFile, user?.keyFile].filter((f): f is string => !!f);
    this.dynamicAuth = !!(user?.authProvider || user?.exec);
  }

  /** The agent for a request (a watch or not), rebuilt first when the certificate files changed. */
  async agent(watch: boolean): Promise<Agent> {
    this.checkFiles();
    this.agents ??= await this.build();
    return watch ? this.agents.watches : this.agents.requests;
  }

  /**
   * The agent and the credentials at once when neither needs to wait (agents built, credentials
   * static): most requests, without the two promises of agent() and auth().
   */
  ready(watch: boolean): { agent: Agent; auth: Auth } | undefined {
    this.checkFiles();
    if (!this.agents || !this.staticAuth || this.dynamicAuth) return undefined;
    return { agent: watch ? this.agents.watches : this.agents.requests, auth: this.staticAuth };
  }

  /** Retires the agents when a certificate file changed (checked every fileCheckMs). */
  private checkFiles(): void {
    if (!this.agents || !this.files.length) return;
    const now = Date.now();
    if (now - this.checkedAt < settings.fileCheckMs) return;
    this.checkedAt = now;
    const sigs = this.files.map(fileSignature);
    if (sigs.some((s, i) => s !== this.signatures[i])) this.retire();
  }

  /** Headers with the credentials (Authorization, Impersonate-User) and basic auth. */
  async auth(): Promise<Auth> {
    if (this.staticAuth && !this.dynamicAuth) return this.staticAuth;
    const opts: RequestOptions = { headers: {} };
    await this.kc.applyToHTTPSOptions(opts);
    const auth = { headers: (opts.headers ?? {}) as OutgoingHttpHeaders, auth: opts.auth ?? undefined };
    this.staticAuth = auth;
    return auth;
  }

  /** Closes idle sockets now and the others when their request ends. */
  close(): void {
    this.retire();
  }

  private async build(): Promise<Agents> {
    this.signatures = this.files.map(fileSignature);
    this.checkedAt = Date.now();
    // an idle timeout only for request sockets: a watch may see no event for minutes
    const common = { keepAlive: true, scheduling: 'lifo' as const };
    const requests = { ...common, timeout: settings.idleMs, maxSockets: settings.maxSockets };
    if (!this.tls) return { requests: countingAgent(false, requests, this.stats), watches: countingAgent(false, common, this.stats) };
    // the kubeconfig's TLS material, read once (applyToHTTPSOptions reads the files on every call)
    const opts: RequestOptions = { headers: {} };
    await this.kc.applyToHTTPSOptions(opts);
    this.staticAuth = { headers: (opts.headers ?? {}) as OutgoingHttpHeaders, auth: opts.auth ?? undefined };
    const secureContext = createSecureContext({ ca: opts.ca, cert: opts.cert, key: opts.key });
    const tlsOptions = { secureContext, rejectUnauthorized: opts.rejectUnauthorized ?? true, servername: opts.servername };
    return {
      requests: countingAgent(true, { ...requests, ...tlsOptions }, this.stats),
      watches: countingAgent(true, { ...common, ...tlsOptions }, this.stats),
    };
  }

  private retire(): void {
    const old = this.agents;
    this.agents = undefined;
    this.staticAuth = undefined;
    if (!old) return;
    for (const agent of [old.requests, old.watches]) {
      // sockets in use close when their request ends instead of going back to the pool
      (agent as { keepAlive?: boolean }).keepAlive = false;
      for (const list of Object.values(agent.freeSockets)) for (const s of list ?? []) s.destroy();
    }
  }
}

const pools = new WeakMap<KubeConfig, ConnectionPool>();

/** The pool of the kubeconfig's current cluster and user (a new one when the context changed). */
export function poolFor(kc: KubeConfig): ConnectionPool {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const key = `${cluster.name}\0${cluster.server}\0${kc.getCurrentUser()?.name ?? ''}`;
  let pool = pools.get(kc);
  if (!pool || pool.key !== key) {
    pool?.close();
    pool = new ConnectionPool(kc, key);
    pools.set(kc, pool);
  }
  return pool;
}

/** Closes the kubeconfig's connections (idle ones now, busy ones when their request ends). */
export function closeConnections(kc: KubeConfig): void {
  pools.get(kc)?.close();
  pools.delete(kc);
}
