// A benchmark's API server in a child process: its messages as a queue, and a request helper for it.
import { fork, type ChildProcess } from 'node:child_process';
import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';

export interface Forked {
  child: ChildProcess;
  /** The child's next message (queued when none is awaited). */
  next(): Promise<any>;
}

export function forkWithMessages(file: string, args: string[], execArgv: string[]): Forked {
  const child = fork(file, args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages: any[] = [];
  const waiters: ((m: any) => void)[] = [];
  child.on('message', (m) => {
    const w = waiters.shift();
    if (w) w(m);
    else messages.push(m);
  });
  return { child, next: () => new Promise((resolve) => (messages.length ? resolve(messages.shift()) : waiters.push(resolve))) };
}

export type Call = (method: string, path: string, body?: string, contentType?: string) => Promise<{ status: number; body: Buffer }>;

/** Requests to `url` with a bearer token through `agent`, the whole answer collected. */
export function caller(
  request: (url: URL, options: RequestOptions, callback: (res: IncomingMessage) => void) => ClientRequest,
  agent: Agent,
  url: string,
  token: string,
): Call {
  return (method, path, body, contentType = 'application/json') =>
    new Promise((resolve, reject) => {
      const req = request(new URL(path, url), { method, agent, headers: { authorization: `Bearer ${token}`, 'content-type': contentType } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
}
