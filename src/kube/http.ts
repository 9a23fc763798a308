/**
 * Raw JSON requests to the API server with the kubeconfig's credentials and TLS settings, for the
 * calls the typed client makes awkward (generic lists by path). Errors carry the HTTP status and the
 * Status message. Every request goes through the API server's connection pool (connections.ts).
 */
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest, type ClientRequest } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { poolFor } from './connections.js';

export class KubeApiError extends Error {
  override name = 'KubeApiError';
  constructor(
    message: string,
    readonly statusCode: number,
    readonly reason?: string,
  ) {
    super(message);
  }
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
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  const [agent, auth] = await Promise.all([pool.agent(watch), pool.auth()]);
  const opts: RequestOptions = { method, agent, headers: { ...auth.headers, ...headers } };
  if (auth.auth) opts.auth = auth.auth;
  return { url, opts, send: url.protocol === 'http:' ? httpRequest : httpsRequest };
}

/** A request on a kept-alive socket that the server closed meanwhile; sent again once. */
function staleSocket(req: ClientRequest, e: unknown, gotResponse: boolean): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return req.reusedSocket && !gotResponse && (code === 'ECONNRESET' || code === 'EPIPE');
}

function apiError(method: string, url: URL, status: number, text: string, statusMessage: string | undefined): KubeApiError {
  let st: { message?: string; reason?: string } = {};
  try {
    st = (text ? JSON.parse(text) : {}) as typeof st;
  } catch {
    // not a Status
  }
  return new KubeApiError(`${method} ${url.pathname}: ${status} ${st.message ?? (text.slice(0, 200) || statusMessage)}`, status, st.reason);
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
  const { url, opts, send } = await prepare(kc, method, path, query, headers);
  const attempt = (retry: boolean) =>
    new Promise<T>((resolve, reject) => {
      let gotResponse = false;
      const req = send(url, { ...opts, signal: extra.signal }, (res) => {
        gotResponse = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return reject(apiError(method, url, status, text, res.statusMessage));
          try {
            resolve((text ? JSON.parse(text) : undefined) as T);
          } catch {
            reject(new Error(`${method} ${url.pathname}: the answer is not JSON: ${text.slice(0, 200)}`));
          }
        });
        res.on('error', reject);
      });
      req.on('error', (e) => {
        if (retry && method !== 'POST' && staleSocket(req, e, gotResponse)) attempt(false).then(resolve, reject);
        else reject(e);
      });
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  return attempt(true);
}

/** One event of a watch stream, as the API server writes it (one JSON object per line). */
export interface WatchStreamEvent {
  type: string;
  object: Record<string, unknown>;
}

/**
 * A watch (`?watch=true`): calls `onEvent` for every line and resolves when the server ends the
 * stream or `signal` aborts it, also before the server has answered. A status other than 200 rejects
 * with a KubeApiError (410 Gone among them).
 */
export async function watchStream(kc: KubeConfig, path: string, query: Query, onEvent: (event: WatchStreamEvent) => void, signal: AbortSignal): Promise<void> {
  const { url, opts, send } = await prepare(kc, 'GET', path, { ...query, watch: true }, { Accept: 'application/json' }, true);
  if (signal.aborted) return;
  await new Promise<void>((resolve, reject) => {
    const req = send(url, { ...opts, signal }, (res) => {
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => reject(apiError('GET', url, status, Buffer.concat(chunks).toString('utf8'), res.statusMessage)));
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
      res.on('error', (e) => (signal.aborted ? resolve() : reject(e)));
      // a connection cut without an error still ends the watch (the caller watches again)
      res.on('close', () => resolve());
    });
    req.on('error', (e) => (signal.aborted ? resolve() : reject(e)));
    req.end();
  });
}
