/**
 * Raw JSON requests to the API server with the kubeconfig's credentials and TLS settings, for the
 * calls the typed client makes awkward (generic lists by path). Errors carry the HTTP status and the
 * Status message. Every request goes through the API server's connection pool (connections.ts).
 *
 * Each KubeConfig is one client (client-go's rest client): its requests share one token bucket (qps,
 * burst), watches excepted as in client-go. A bucket nobody chose (`dropLimitUnderApf`) is dropped once
 * the API server answers with API Priority and Fairness, as SIG API Machinery advises and
 * controller-runtime does since v0.21: the server then protects itself. A request other than a watch ends when the server sends nothing for
 * `timeoutMs`; a watch ends on the client's side `watchGraceMs` after its `timeoutSeconds`. A 429, or a
 * 5xx with Retry-After, is sent again after the Retry-After (client-go's rule); a GET also after a lost
 * connection or a timeout; every retry waits a backoff with jitter and takes a token again.
 */
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import type { KubeConfig } from './kube-config.js';
import { poolFor } from './connections.js';
import { RateLimiter, backoffDelay, sleep } from '../util/rate-limit.js';
import { requestLatency, requestResult } from './request-metrics.js';

export class KubeApiError extends Error {
  override name = 'KubeApiError';
  constructor(
    message: string,
    readonly statusCode: number,
    readonly reason?: string,
    /** The Retry-After header of the answer, in seconds. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export interface ClientSettings {
  /** Requests a second, a token bucket shared by every request of the client but watches (≤ 0: no limit). */
  qps: number;
  /** Requests the bucket holds: how many may start at once after a quiet time. */
  burst: number;
  /** A request other than a watch fails when the server sends nothing for this many ms. */
  timeoutMs: number;
  /** A watch ends on the client's side this many ms after its timeoutSeconds. */
  watchGraceMs: number;
  /** Retries of one request (429 and 5xx with Retry-After; lost connections and timeouts of a GET). */
  maxRetries: number;
  /** Backoff of the first retry in ms (doubling up to retryMaxMs, half of it random). */
  retryInitialMs: number;
  retryMaxMs: number;
  /** Whose requests these are in the request metrics (`main`, `object_patcher`), as in the Go operator. */
  component: string;
  /**
   * The qps and burst are defaults, not chosen: the bucket is dropped once the server answers with
   * API Priority and Fairness headers (then `onLimitDropped` is called once).
   */
  dropLimitUnderApf?: boolean;
  onLimitDropped?: () => void;
}

/** A KubeConfig nobody configured: no rate limit (the operator's clients are configured in start). */
export const DEFAULT_CLIENT_SETTINGS: ClientSettings = { qps: 0, burst: 10, timeoutMs: 60_000, watchGraceMs: 30_000, maxRetries: 5, retryInitialMs: 250, retryMaxMs: 10_000, component: 'main' };

interface Client {
  settings: ClientSettings;
  limiter: RateLimiter;
}

const clients = new WeakMap<KubeConfig, Client>();

/** Sets the limits of the client of this KubeConfig (the rest keep their values). */
export function configureClient(kc: KubeConfig, settings: Partial<ClientSettings>): void {
  const s = { ...(clients.get(kc)?.settings ?? DEFAULT_CLIENT_SETTINGS), ...settings };
  clients.set(kc, { settings: s, limiter: RateLimiter.perSecond(s.qps, s.burst) });
}

function clientOf(kc: KubeConfig): Client {
  let c = clients.get(kc);
  if (!c) {
    configureClient(kc, {});
    c = clients.get(kc)!;
  }
  return c;
}

/** A client of its own for the same cluster and user (own token bucket, own connections). */
export function cloneClient(kc: KubeConfig, settings: Partial<ClientSettings>): KubeConfig {
  const copy = new (kc.constructor as new () => KubeConfig)();
  copy.loadFromOptions({ clusters: kc.clusters, users: kc.users, contexts: kc.contexts, currentContext: kc.currentContext });
  configureClient(copy, { ...clientOf(kc).settings, ...settings });
  return copy;
}

let fence: string | undefined;

/**
 * From now on no request of any client is sent (each fails with `reason`): a leader that lost its
 * lease writes nothing more in the moments before it exits.
 */
export function fenceRequests(reason: string): void {
  fence = reason;
}

/** Present on every answer of an API server that runs API Priority and Fairness (on by default since 1.20). */
const APF_HEADER = 'x-kubernetes-pf-flowschema-uid';

/** Drops a default bucket on the first answer that shows the server runs API Priority and Fairness. */
function noteServer(client: Client, headers: IncomingHttpHeaders): void {
  const s = client.settings;
  if (!s.dropLimitUnderApf || s.qps <= 0 || headers[APF_HEADER] === undefined) return;
  client.settings = { ...s, qps: 0, dropLimitUnderApf: false };
  client.limiter = RateLimiter.perSecond(0, s.burst);
  s.onLimitDropped?.();
}

/** The client's current rate limit (qps 0: none). */
export function clientLimit(kc: KubeConfig): { qps: number; burst: number } {
  const { qps, burst } = clientOf(kc).settings;
  return { qps, burst };
}

/** Takes a token of the client's bucket; an aborted wait throws the signal's reason. */
async function throttle(client: Client, signal: AbortSignal | undefined): Promise<void> {
  if (fence) throw new Error(fence);
  if (!(await client.limiter.take(signal))) throw signal?.reason ?? new Error('aborted');
  if (fence) throw new Error(fence);
}

const SAFE_STATUS = new Set([500, 502, 503, 504]);
const CONNECTION_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_KUBE_TIMEOUT']);

/** How long to wait before sending the request again, or undefined when it is not sent again. */
export function retryDelay(method: string, err: unknown, attempt: number, s: Pick<ClientSettings, 'retryInitialMs' | 'retryMaxMs'>, random: () => number = Math.random): number | undefined {
  const backoff = backoffDelay(attempt, s.retryInitialMs, s.retryMaxMs, random);
  if (err instanceof KubeApiError) {
    const after = err.retryAfterSeconds;
    // the server did not run a request it answered 429, or a 5xx with Retry-After: any method
    if (after !== undefined && (err.statusCode === 429 || SAFE_STATUS.has(err.statusCode))) return Math.max(after * 1000 * (1 + random() * 0.2), backoff);
    // a 5xx without Retry-After is the caller's to retry (client-go's rule): informers back off themselves
    return err.statusCode === 429 ? backoff : undefined;
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return method === 'GET' && code !== undefined && CONNECTION_ERRORS.has(code) ? backoff : undefined;
}

/** Sends `once` again after the backoff while retryDelay allows and retries are left; a token each time. */
async function withRetries<T>(client: Client, method: string, signal: AbortSignal | undefined, once: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    await throttle(client, signal);
    try {
      return await once();
    } catch (e) {
      const delay = attempt > client.settings.maxRetries || signal?.aborted ? undefined : retryDelay(method, e, attempt, client.settings);
      if (delay === undefined) throw e;
      if (!(await sleep(delay, signal))) throw signal?.reason ?? e;
    }
  }
}

function retryAfter(headers: IncomingHttpHeaders): number | undefined {
  const v = headers['retry-after'];
  if (v === undefined || !/^\d+$/.test(v.trim())) return undefined;
  return Math.min(Number(v), 600);
}

function timeoutError(method: string, url: URL, ms: number): Error {
  return Object.assign(new Error(`${method} ${url.pathname}: no answer from the API server for ${ms} ms`), { code: 'ERR_KUBE_TIMEOUT' });
}

/** True when `err` is an API error with this HTTP status (and this Status reason, when given). */
export function isApiStatus(err: unknown, statusCode: number, reason?: string): err is KubeApiError {
  return err instanceof KubeApiError && err.statusCode === statusCode && (reason === undefined || err.reason === reason);
}

type Query = Record<string, string | number | boolean | undefined>;

/** The URL, the request options with the pooled agent and the credentials, and the sender. */
async function prepare(kc: KubeConfig, method: string, path: string, query: Query, headers: Record<string, string | number>, watch = false) {
  const pool = poolFor(kc);
  const url = new URL(kc.getCurrentCluster()!.server.replace(/\/$/, '') + path);
  for (const k in query) if (query[k] !== undefined) url.searchParams.set(k, String(query[k]));
  let ready = pool.ready(watch);
  if (!ready) {
    const [agent, auth] = await Promise.all([pool.agent(watch), pool.auth()]);
    ready = { agent, auth };
  }
  const { agent, auth } = ready;
  // the request's target as options, not the URL: Node would make them from the URL again (its href
  // serialized, a dozen fields) on every request
  const opts: RequestOptions = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname + url.search,
    method,
    agent,
    headers: hasKeys(auth.headers) ? { ...auth.headers, ...headers } : headers,
  };
  if (auth.auth) opts.auth = auth.auth;
  else if (url.username || url.password) opts.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { url, opts, send: url.protocol === 'http:' ? httpRequest : httpsRequest };
}

const hasKeys = (o: object): boolean => {
  for (const _ in o) return true;
  return false;
};

/** A request on a kept-alive socket that the server closed meanwhile; sent again once. */
function staleSocket(req: ClientRequest, e: unknown, gotResponse: boolean): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return req.reusedSocket && !gotResponse && (code === 'ECONNRESET' || code === 'EPIPE');
}

function apiError(method: string, url: URL, status: number, text: string, statusMessage: string | undefined, headers: IncomingHttpHeaders): KubeApiError {
  let st: { message?: string; reason?: string } = {};
  try {
    st = (text ? JSON.parse(text) : {}) as typeof st;
  } catch {
    // not a Status
  }
  return new KubeApiError(`${method} ${url.pathname}: ${status} ${st.message ?? (text.slice(0, 200) || statusMessage)}`, status, st.reason, retryAfter(headers));
}

export interface RequestOptionsExtra {
  /** Aborts the request (also one still waiting for the server's answer). */
  signal?: AbortSignal;
}

export async function requestJson<T = unknown>(
  kc: KubeConfig,
  method: string,
  path: string,
  query: Query = {},
  body?: unknown,
  contentType = 'application/json',
  extra: RequestOptionsExtra = {},
): Promise<T> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string | number> = { Accept: 'application/json' };
  if (payload !== undefined) Object.assign(headers, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) });
  const client = clientOf(kc);
  const { timeoutMs } = client.settings;
  const started = performance.now();
  const { url, opts, send } = await prepare(kc, method, path, query, headers);
  const attempt = (retry: boolean) =>
    new Promise<T>((resolve, reject) => {
      let gotResponse = false;
      const req = send({ ...opts, signal: extra.signal }, (res) => {
        gotResponse = true;
        noteServer(client, res.headers);
        requestResult(client.settings.component, method, url, res.statusCode);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return reject(apiError(method, url, status, text, res.statusMessage, res.headers));
          try {
            resolve((text ? JSON.parse(text) : undefined) as T);
          } catch {
            reject(new Error(`${method} ${url.pathname}: the answer is not JSON: ${text.slice(0, 200)}`));
          }
        });
        res.on('error', reject);
      });
      req.on('error', (e) => {
        if (!gotResponse) requestResult(client.settings.component, method, url, undefined);
        if (retry && method !== 'POST' && staleSocket(req, e, gotResponse)) attempt(false).then(resolve, reject);
        else reject(e);
      });
      // a half-open connection or a server that stops answering: nothing received for timeoutMs
      if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy(timeoutError(method, url, timeoutMs)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  try {
    return await withRetries(client, method, extra.signal, () => attempt(true));
  } finally {
    requestLatency(client.settings.component, method, url, started);
  }
}

/** One event of a watch stream, as the API server writes it (one JSON object per line). */
export interface WatchStreamEvent {
  type: string;
  object: Record<string, unknown>;
}

/**
 * A watch (`?watch=true`): calls `onEvent` for every line and resolves when the server ends the
 * stream or `signal` aborts it, also before the server has answered. A status other than 200 rejects
 * with a KubeApiError (410 Gone among them). With `timeoutSeconds`, a watch the server has not ended
 * `watchGraceMs` after it is ended here: resolves when the stream was open, rejects when the server
 * never answered. Not rate-limited (client-go's rule: a watch is one long request, and delaying it
 * delays every event), not retried here (the informer backs off).
 */
export async function watchStream(kc: KubeConfig, path: string, query: Query, onEvent: (event: WatchStreamEvent) => void, signal: AbortSignal): Promise<void> {
  const client = clientOf(kc);
  const started = performance.now();
  const { url, opts, send } = await prepare(kc, 'GET', path, { ...query, watch: true }, { Accept: 'application/json' }, true);
  if (signal.aborted) return;
  if (fence) throw new Error(fence);
  const deadline = new AbortController();
  const seconds = Number(query.timeoutSeconds);
  const timer = seconds > 0 ? setTimeout(() => deadline.abort(), seconds * 1000 + client.settings.watchGraceMs) : undefined;
  let answered = false;
  await new Promise<void>((resolve, reject) => {
    const ended = (e: unknown) => {
      if (signal.aborted || (deadline.signal.aborted && answered)) resolve();
      else if (deadline.signal.aborted) reject(timeoutError('GET', url, seconds * 1000 + client.settings.watchGraceMs));
      else reject(e);
    };
    const req = send({ ...opts, signal: AbortSignal.any([signal, deadline.signal]) }, (res) => {
      answered = true;
      noteServer(client, res.headers);
      // a watch counts once its answer starts, as client-go counts it
      requestResult(client.settings.component, 'GET', url, res.statusCode);
      requestLatency(client.settings.component, 'GET', url, started);
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => reject(apiError('GET', url, status, Buffer.concat(chunks).toString('utf8'), res.statusMessage, res.headers)));
        return;
      }
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i).trim();
          buf = buf.slice(i + 1);
          if (!line) continue;
          let event: WatchStreamEvent;
          try {
            event = JSON.parse(line) as WatchStreamEvent;
          } catch {
            req.destroy(new Error(`GET ${url.pathname}: a watch line is not JSON: ${line.slice(0, 200)}`));
            return;
          }
          onEvent(event);
        }
      });
      res.on('end', () => resolve());
      res.on('error', ended);
      // a connection cut without an error still ends the watch (the caller watches again)
      res.on('close', () => resolve());
    });
    req.on('error', (e) => {
      if (!answered && !signal.aborted && !deadline.signal.aborted) requestResult(client.settings.component, 'GET', url, undefined);
      ended(e);
    });
    req.end();
  }).finally(() => clearTimeout(timer));
}
