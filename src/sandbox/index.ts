/**
 * addon-operator sandbox: an embedded, in-memory Kubernetes API server for local development and
 * tests. Not a production cluster: simulated controllers (optional; no containers run), no admission, one process.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { Registry } from './registry.js';
import { Store } from './store.js';
import { WatchHub } from './watch.js';
import { Resources } from './resources.js';
import { Persistence, writeFileAtomic } from './persistence.js';
import { createHandler, type ControlState, type RequestLogEntry } from './server.js';
import { generateTls, type TlsMaterial } from './tls.js';
import { kubeconfigYaml, writeKubeconfig } from './kubeconfig.js';
import { applyObjects, loadSeedFile, parseManifests } from './seed.js';
import { joinApiVersion, typeKey, type ResourceType } from './registry.js';
import { Admission, type AdmissionAttributes } from './admission.js';
import { Conversion } from './conversion.js';
import { startControllers, type Controllers } from './controllers/index.js';

export type { RequestLogEntry } from './server.js';
export { parseManifests } from './seed.js';
export { kubeconfigYaml, writeKubeconfig } from './kubeconfig.js';
export { StatusError } from './errors.js';

export interface SandboxOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: a random free port). */
  port?: number;
  /** Serve HTTPS with a self-signed certificate (default true). With false, plain HTTP. */
  tls?: boolean;
  /** Bearer token clients must send (default: generated). */
  token?: string;
  /** Where to write the kubeconfig (default: DATA_DIR/kubeconfig or a temporary directory). */
  kubeconfigPath?: string;
  /** Keep state in this directory across restarts (crash-safe). Default: memory only. */
  dataDir?: string;
  /** Multi-document YAML files loaded at start (namespaces and CRDs first). */
  seedFiles?: string[];
  /** Objects loaded at start. */
  seedObjects?: Record<string, any>[];
  /** How many change events watches can resume from (default 10000). Older ones get 410 Gone. */
  historyLimit?: number;
  /** Largest accepted request body in bytes (default 3 MiB, like the API server). */
  maxBodyBytes?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 60 s). */
  bookmarkIntervalMs?: number;
  /** How many requests the request log keeps (default 10000). */
  requestLogLimit?: number;
  /** Keep request bodies in the request log (default false). */
  logRequestBodies?: boolean;
  /**
   * Answer as an API server running API Priority and Fairness (on by default since Kubernetes 1.20):
   * every answer names its FlowSchema and priority level in X-Kubernetes-PF-* headers (default true).
   */
  priorityAndFairness?: boolean;
  /** Kubernetes version reported at /version (default v1.32.4, which kubectl's dispatcher matches). */
  kubernetesVersion?: string;
  /**
   * Run the simulated controllers (Deployments get ReplicaSets and Pods that become Ready, Jobs complete, ...;
   * see docs/sandbox.md). Default false here, so that tests read back exactly what they stored; the
   * `sandbox` and `start --sandbox` commands turn them on.
   */
  controllers?: boolean;
  /** With controllers: how long a Pod takes from its scheduling to Running (default 500 ms). */
  podStartMs?: number;
  /** Where warnings go (a webhook skipped or ignored); default: stderr. */
  onWarning?: (message: string) => void;
}

export interface Sandbox {
  /** `https://127.0.0.1:PORT` (or http://). */
  readonly url: string;
  readonly kubeconfigPath: string;
  /** The kubeconfig text (also written to kubeconfigPath). */
  readonly kubeconfig: string;
  readonly token: string;
  /** PEM of the CA that signed the server certificate (HTTPS only). */
  readonly caCert?: string;
  readonly port: number;
  stop(): Promise<void>;

  // ---- test controls
  /** Ends every open watch (clients see the stream close). Returns how many were open. */
  dropWatches(): number;
  /** Forgets the change history: watches from an older resourceVersion get 410 Gone. */
  compactHistory(): void;
  /** The next `n` requests fail with `code` (500 by default; 429 carries Retry-After). */
  failNext(n: number, code?: number): void;
  /** Delay every request by `ms` after its arrival (0 to turn off; a change applies to held requests too). */
  setLatency(ms: number): void;
  /** Requests received (oldest first), for assertions. */
  readonly requests: readonly RequestLogEntry[];
  clearRequestLog(): void;
  /** Number of open watches. */
  watchCount(): number;
  /** The current global resourceVersion. */
  resourceVersion(): string;
  /** Creates or replaces objects (YAML text with `---` separators, or objects). */
  load(manifests: string | Record<string, any>[]): number;
  /** Reads an object directly (undefined when missing). */
  getObject(apiVersion: string, kind: string, namespace: string, name: string): Record<string, any> | undefined;
  /** Writes a snapshot of the state to the data dir now (persistence is durable without it). */
  snapshot(): void;
}

interface Identity {
  token: string;
  tls?: TlsMaterial;
  hosts?: string[];
}

const tlsCache = new Map<string, TlsMaterial>();

/** Key generation costs a few hundred milliseconds; sandboxes in one process share their certificates. */
function cachedTls(host: string): TlsMaterial {
  let t = tlsCache.get(host);
  if (!t) {
    // a wildcard listener is reached by any local address or the host name: cover them all
    const names =
      host === '0.0.0.0' || host === '::'
        ? [hostname(), ...Object.values(networkInterfaces()).flatMap((l) => (l ?? []).map((a) => a.address))]
        : [host];
    t = generateTls(names);
    tlsCache.set(host, t);
  }
  return t;
}

/** A Warning Event about the object of a request (a webhook the sandbox skipped). */
function recordEvent(registry: Registry, resources: Resources, a: AdmissionAttributes, reason: string, message: string): void {
  const events = registry.get('', 'events');
  if (!events || a.dryRun || !a.name) return;
  const ns = a.t.namespaced ? a.ns : 'default';
  const at = new Date().toISOString();
  try {
    resources.create(events, 'v1', ns, {
      metadata: { generateName: `${a.name}.` },
      involvedObject: { apiVersion: joinApiVersion(a.t.group, a.version), kind: a.t.kind, name: a.name, ...(a.t.namespaced ? { namespace: a.ns } : {}) },
      reason,
      message,
      type: 'Warning',
      source: { component: 'sandbox-admission' },
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
    }, { manager: 'sandbox' });
  } catch {
    // the namespace is going away: no event
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const cleanup: (() => void)[] = [];
  try {
    return await start(options, cleanup);
  } catch (err) {
    for (const fn of cleanup.reverse()) fn();
    throw err;
  }
}

async function start(options: SandboxOptions, cleanup: (() => void)[]): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const useTls = options.tls ?? true;
  const registry = new Registry();
  let persistence: Persistence | undefined;
  let identity: Identity | undefined;
  if (options.dataDir) {
    persistence = new Persistence(options.dataDir);
    const p = persistence;
    cleanup.push(() => p.close());
    const idPath = join(options.dataDir, 'identity.json');
    if (existsSync(idPath)) identity = JSON.parse(readFileSync(idPath, 'utf8')) as Identity;
  }
  const token = options.token ?? identity?.token ?? randomBytes(24).toString('base64url');
  let tls: TlsMaterial | undefined;
  if (useTls) {
    const sameHost = identity?.hosts?.includes(host) ?? false;
    tls = identity?.tls && sameHost ? identity.tls : cachedTls(host);
  }
  if (options.dataDir && (!identity || identity.token !== token || identity.tls !== tls)) {
    writeFileAtomic(join(options.dataDir, 'identity.json'), JSON.stringify({ token, tls: tls ?? identity?.tls, hosts: [host] }));
  }

  const store = new Store({
    historyLimit: options.historyLimit ?? 10000,
    persist: persistence ? (rec) => persistence!.append(rec) : undefined,
  });
  if (persistence) {
    for (const rec of persistence.load()) {
      if (!rec.tkey) {
        if (rec.rv > store.rv) store.rv = rec.rv;
        continue;
      }
      let labels: Record<string, string> | undefined;
      let rv = rec.rv;
      if (rec.json !== null) {
        const o = JSON.parse(rec.json);
        labels = o.metadata?.labels && Object.keys(o.metadata.labels).length ? o.metadata.labels : undefined;
        rv = Number(o.metadata?.resourceVersion) || rec.rv;
      }
      store.restore(rec.tkey, rec.ns, rec.name, labels, rec.json, rv);
      if (rec.rv > store.rv) store.rv = rec.rv;
    }
    store.floor = store.rv;
    persistence.open();
    store.onEvent(() => persistence!.maybeCompact(store));
  }
  const hub = new WatchHub(store);
  const resources = new Resources(registry, store);
  resources.onTypeRemoved = (t) => hub.closeAll(typeKey(t.group, t.plural));
  resources.registerStoredCrds();
  resources.gc.rebuildIndexes();
  resources.bootstrap();
  for (const f of options.seedFiles ?? []) loadSeedFile(registry, resources, f);
  if (options.seedObjects?.length) applyObjects(registry, resources, options.seedObjects);

  let controllers: Controllers | undefined;
  if (options.controllers) {
    controllers = startControllers(resources, { podStartMs: options.podStartMs ?? 500, kubeletVersion: options.kubernetesVersion ?? 'v1.32.4' });
    const c = controllers;
    cleanup.push(() => c.stop());
  }

  const controls: ControlState = {
    failNext: 0,
    failCode: 500,
    latencyMs: 0,
    latencyWaiters: new Set(),
    requestLog: [],
    requestLogLimit: options.requestLogLimit ?? 10000,
    logRequestBodies: options.logRequestBodies ?? false,
  };
  const openWatches = new Set<() => void>();
  let stopped: Promise<void> | undefined;
  const kv = options.kubernetesVersion ?? 'v1.32.4';
  const [maj, min] = kv.replace(/^v/, '').split('.');
  const warn = options.onWarning ?? ((m: string) => console.warn(m));
  const conversion = new Conversion(store, warn);
  // an object in another served version: through its CRD's conversion webhook, else only apiVersion changes
  const convert = async (t: ResourceType, version: string, object: unknown) =>
    (await conversion.convert(t, version, [object]))?.[0] ?? JSON.parse(resources.render(t, version, JSON.stringify(object)));
  const handler = createHandler({
    registry,
    store,
    resources,
    admission: new Admission({ store, warn, event: (a, reason, message) => recordEvent(registry, resources, a, reason, message), convert }),
    conversion,
    onWatchError: warn,
    hub,
    token,
    maxBodyBytes: options.maxBodyBytes ?? 3 * 1024 * 1024,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60000,
    controls,
    ...(options.priorityAndFairness === false ? {} : { priorityAndFairness: { flowSchemaUid: randomUUID(), priorityLevelUid: randomUUID() } }),
    version: {
      major: maj,
      minor: min,
      gitVersion: kv,
      gitCommit: '0000000000000000000000000000000000000000',
      gitTreeState: 'clean',
      buildDate: '2026-01-01T00:00:00Z',
      goVersion: 'go1.23.0',
      compiler: 'gc',
      platform: 'linux/amd64',
    },
    onWatchOpen: (close) => {
      if (stopped) {
        close();
        return () => undefined;
      }
      openWatches.add(close);
      return () => openWatches.delete(close);
    },
  });
  const server: Server = tls ? createHttpsServer({ cert: tls.serverCert, key: tls.serverKey }, handler) : createHttpServer(handler);
  server.keepAliveTimeout = 30000;
  // Every TCP connection, also one still in its TLS handshake: stop() ends them all, or a request
  // that completes its handshake while the server stops could open a watch that keeps it open.
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  const url = `${tls ? 'https' : 'http'}://${urlHost}:${port}`;

  let tmpDir: string | undefined;
  let kubeconfigPath = options.kubeconfigPath;
  if (!kubeconfigPath) {
    if (options.dataDir) kubeconfigPath = join(options.dataDir, 'kubeconfig');
    else {
      tmpDir = mkdtempSync(join(tmpdir(), 'addon-operator-sandbox-'));
      kubeconfigPath = join(tmpDir, 'kubeconfig');
    }
  }
  const kcOpts = { server: url, token, caCert: tls?.caCert };
  writeKubeconfig(kubeconfigPath, kcOpts);
  const kubeconfig = kubeconfigYaml(kcOpts);

  const sandbox: Sandbox = {
    url,
    kubeconfigPath,
    kubeconfig,
    token,
    caCert: tls?.caCert,
    port,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        controllers?.stop();
        for (const close of [...openWatches]) close();
        hub.closeAll();
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      }).then(() => {
        resources.gc.close();
        persistence?.close();
        if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
      });
      return stopped;
    },
    dropWatches() {
      const n = openWatches.size;
      for (const close of [...openWatches]) close();
      hub.closeAll();
      return n;
    },
    compactHistory() {
      store.compact();
    },
    failNext(n, code = 500) {
      controls.failNext = n;
      controls.failCode = code;
    },
    setLatency(ms) {
      controls.latencyMs = ms;
      for (const recheck of [...controls.latencyWaiters]) recheck();
    },
    get requests() {
      return controls.requestLog;
    },
    clearRequestLog() {
      controls.requestLog.length = 0;
    },
    watchCount() {
      return hub.size;
    },
    resourceVersion() {
      return String(store.rv);
    },
    load(manifests) {
      const objs = typeof manifests === 'string' ? parseManifests(manifests) : manifests;
      return applyObjects(registry, resources, objs);
    },
    getObject(apiVersion, kind, namespace, name) {
      const t = registry.byKind(apiVersion, kind);
      if (!t) return undefined;
      const e = store.get(typeKey(t.group, t.plural), t.namespaced ? namespace : '', name);
      return e ? JSON.parse(e.json) : undefined;
    },
    snapshot() {
      persistence?.snapshot(store);
    },
  };
  return sandbox;
}
