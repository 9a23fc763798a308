// Shared helpers for the sandbox tests.
import * as k8s from '@kubernetes/client-node';
import { connect } from 'node:net';
import { after } from 'node:test';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

export interface Env {
  sb: Sandbox;
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  objects: k8s.KubernetesObjectApi;
  custom: k8s.CustomObjectsApi;
}

/** A sandbox and clients of it; the sandbox stops when the calling test (or hook's suite) ends, whatever its outcome. */
export async function start(options: SandboxOptions = {}): Promise<Env> {
  const sb = await startSandbox(options);
  after(() => sb.stop());
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(sb.kubeconfigPath);
  return {
    sb,
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    objects: k8s.KubernetesObjectApi.makeApiClient(kc),
    custom: kc.makeApiClient(k8s.CustomObjectsApi),
  };
}

/** Runs fn against a fresh sandbox and always stops it. */
export async function withSandbox(fn: (env: Env) => Promise<void>, options: SandboxOptions = {}): Promise<void> {
  const env = await start(options);
  try {
    await fn(env);
  } finally {
    await env.sb.stop();
  }
}

/** Status body of a failed client-node call. */
export async function failure(p: Promise<unknown>): Promise<{ code: number; status: any }> {
  try {
    await p;
  } catch (err: any) {
    const code = err?.code ?? err?.statusCode;
    let status: any = err?.body;
    if (typeof status === 'string') {
      try {
        status = JSON.parse(status);
      } catch {
        // keep text
      }
    }
    return { code, status };
  }
  throw new Error('expected the call to fail');
}

/** A raw request to the sandbox (TLS verified with its CA). */
export async function raw(
  sb: Sandbox,
  method: string,
  path: string,
  opts: { body?: string | Buffer; headers?: Record<string, string>; token?: string | null } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string; json: () => any }> {
  const { request } = await import(sb.url.startsWith('https') ? 'node:https' : 'node:http');
  const u = new URL(path, sb.url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token !== null) headers.authorization = `Bearer ${opts.token ?? sb.token}`;
    const req = request(
      u,
      { method, headers, ca: sb.caCert ? [sb.caCert] : undefined },
      (res: import('node:http').IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** Collects watch events until `until` returns true (or a generous timeout fails the test). */
export function collectWatch(
  kc: k8s.KubeConfig,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  until: (events: { type: string; object: any }[]) => boolean,
  timeoutMs = 20000,
): { done: Promise<{ type: string; object: any }[]>; ready: Promise<AbortController> } {
  const events: { type: string; object: any }[] = [];
  let controller: AbortController | undefined;
  let finished = false;
  let resolveDone!: (e: { type: string; object: any }[]) => void;
  let rejectDone!: (e: unknown) => void;
  const done = new Promise<{ type: string; object: any }[]>((res, rej) => {
    resolveDone = res;
    rejectDone = rej;
  });
  const timer = setTimeout(() => {
    if (finished) return;
    finished = true;
    controller?.abort();
    rejectDone(new Error(`watch timed out; got ${JSON.stringify(events.map((e) => e.type))}`));
  }, timeoutMs);
  const finish = (): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    controller?.abort();
    resolveDone(events);
  };
  const ready = new k8s.Watch(kc).watch(
    path,
    query,
    (type, object) => {
      events.push({ type, object });
      if (until(events)) finish();
    },
    (err) => {
      if (finished) return;
      if (err && err.name !== 'AbortError' && !String(err).includes('aborted')) {
        finished = true;
        clearTimeout(timer);
        rejectDone(err);
        return;
      }
      finish();
    },
  );
  ready.then(
    (c) => {
      controller = c;
      if (finished) c.abort();
    },
    (err: unknown) => {
      if (!finished) {
        finished = true;
        clearTimeout(timer);
        rejectDone(err);
      }
    },
  );
  return { done, ready };
}

export function cm(name: string, data: Record<string, string> = {}, labels?: Record<string, string>): k8s.V1ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The promise's value, or a failure after a generous deadline (a hang guard: `onTimeout` releases what hangs). */
export async function within<T>(p: Promise<T>, what: string, onTimeout?: () => void, timeoutMs = 20000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([p, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a TCP connection to host:port is accepted. */
export function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, host);
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}
