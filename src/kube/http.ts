/**
 * Raw JSON requests to the API server with the kubeconfig's credentials and TLS settings, for the
 * calls the typed client makes awkward (generic lists by path). Errors carry the HTTP status and the
 * Status message.
 */
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';

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

export async function requestJson<T = unknown>(
  kc: KubeConfig,
  method: string,
  path: string,
  query: Record<string, string | number | boolean | undefined> = {},
  body?: unknown,
  contentType = 'application/json',
): Promise<T> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/$/, '') + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  const opts: RequestOptions = { method, headers: { Accept: 'application/json' } };
  await kc.applyToHTTPSOptions(opts);
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  if (payload !== undefined) opts.headers = { ...opts.headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) };
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise<T>((resolve, reject) => {
    const req = send(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let data: unknown;
        try {
          data = text ? JSON.parse(text) : undefined;
        } catch {
          data = undefined;
        }
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return resolve(data as T);
        const st = (data ?? {}) as { message?: string; reason?: string };
        reject(new KubeApiError(`${method} ${url.pathname}: ${status} ${st.message ?? (text.slice(0, 200) || res.statusMessage)}`, status, st.reason));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
