/**
 * The operator's HTTP server (DESIGN §3.3, reference/addon-operator.md §3.1): probes, metrics, the
 * converge status and the live status page. It knows nothing of the operator: it serves what its
 * sources give. Started before the first converge, so that probes answer during a long start.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeNow } from './close.js';
import { UserError } from '../util/errors.js';
import { STATUS_PAGE_HTML } from './status-page.js';

export interface HttpSources {
  /** The first converge is done. */
  ready(): boolean;
  /** An answer of /readyz that replaces ready()'s (a standby in HA mode asks the leader). */
  readiness?(): Promise<{ code: number; body: string } | undefined>;
  convergeText(): string;
  convergeJson(): unknown;
  /**
   * `/metrics`: the operator's registry, as the parts of its text (sent one after another: their
   * concatenation would be copied once more, a megabyte per scrape with thousands of series).
   */
  metrics(): Promise<{ contentType: string; body: string | readonly string[] }>;
  /** `/metrics/hooks`: metrics written by hooks. */
  hookMetrics(): string;
  /**
   * `/status.json`: what the status page shows (never values or Secret data); with `?module=NAME`
   * that module's health and objects, undefined when there is no such module.
   */
  status(module?: string): unknown;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  sources: HttpSources;
}

type Reply = { code: number; type: string; body: string | readonly string[] };
type Route = (url: URL) => Reply | Promise<Reply>;

const TEXT = 'text/plain; charset=utf-8';
const text = (body: string, code = 200): Reply => ({ code, type: TEXT, body });
const json = (v: unknown): Reply => ({ code: 200, type: 'application/json', body: JSON.stringify(v) + '\n' });

function routes(s: HttpSources): Map<string, Route> {
  return new Map<string, Route>([
    ['/', () => ({ code: 200, type: 'text/html; charset=utf-8', body: STATUS_PAGE_HTML })],
    ['/healthz', () => text('')],
    ['/readyz', async () => {
      const r = await s.readiness?.();
      if (r) return text(r.body, r.code);
      return s.ready() ? text('Startup converge done.\n') : text('Startup converge in progress\n', 503);
    }],
    ['/metrics', async () => {
      const m = await s.metrics();
      return { code: 200, type: m.contentType, body: m.body };
    }],
    ['/metrics/hooks', () => ({ code: 200, type: 'text/plain; version=0.0.4; charset=utf-8', body: s.hookMetrics() })],
    ['/status/converge', (url) => (url.searchParams.get('output') === 'json' ? json(s.convergeJson()) : text(s.convergeText()))],
    ['/status.json', (url) => {
      const module = url.searchParams.get('module');
      if (module === null) return json(s.status());
      const m = s.status(module);
      return m === undefined ? text(`no module ${JSON.stringify(module)}\n`, 404) : json(m);
    }],
    ['/discovery', () => text(ROUTE_LIST)],
  ]);
}

const ROUTE_NAMES = ['/', '/healthz', '/readyz', '/metrics', '/metrics/hooks', '/status/converge', '/status.json', '/discovery'];
const ROUTE_LIST = ROUTE_NAMES.map((r) => `GET ${r}\n`).join('');

export class HttpServer {
  private server: Server | undefined;

  constructor(private readonly opts: HttpServerOptions) {}

  /** Listens; an address in use or not available is a UserError naming it. */
  async start(): Promise<void> {
    const table = routes(this.opts.sources);
    const server = createServer((req, res) => void this.serve(table, req, res));
    server.keepAliveTimeout = 5000;
    const { host, port } = this.opts;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) => {
        const why = e.code === 'EADDRINUSE' ? 'is in use' : e.code === 'EADDRNOTAVAIL' ? 'is not an address of this machine' : e.code === 'EACCES' ? 'needs privileges' : `cannot be used (${e.message})`;
        reject(new UserError(`HTTP server: listen address ${host}:${port} ${why} (--listen-address, --listen-port)`));
      });
      server.listen(port, host, () => resolve());
    });
    this.server = server;
  }

  /** The bound address (the port is chosen by the system when 0 was asked). */
  get address(): { host: string; port: number } {
    const a = this.server?.address() as AddressInfo | null;
    if (!a) throw new Error('the HTTP server is not listening');
    return { host: a.address, port: a.port };
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await closeNow(server);
  }

  private async serve(table: Map<string, Route>, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://operator');
    const route = table.get(url.pathname);
    let reply: Reply;
    if (!route) reply = text(`404 page not found: ${url.pathname}\nroutes:\n${ROUTE_LIST}`, 404);
    else if (req.method !== 'GET' && req.method !== 'HEAD') reply = text(`method ${req.method} not allowed\n`, 405);
    else {
      try {
        reply = await route(url);
      } catch (e) {
        reply = text(`${e instanceof Error ? e.message : String(e)}\n`, 500);
      }
    }
    const parts = typeof reply.body === 'string' ? [reply.body] : reply.body;
    let length = 0;
    for (const p of parts) length += Buffer.byteLength(p);
    res.writeHead(reply.code, { 'Content-Type': reply.type, 'Content-Length': length, 'Cache-Control': 'no-store' });
    if (req.method !== 'HEAD') for (const p of parts) res.write(p);
    res.end();
  }
}
