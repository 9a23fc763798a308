/**
 * The admission server: HTTPS on `--admission-server-listen-port` (the Go operator's 9651) with the
 * certificate of `--admission-server-certs-dir`, serving the routes of shell-operator's two webhook
 * servers on one port: `POST /<configurationId>/<webhookId>` takes an AdmissionReview, `POST /<crdName>`
 * a ConversionReview, `GET /healthz` answers 200. It knows nothing of hooks: it hands the decoded
 * review to its handlers and writes what they answer.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeNow } from './close.js';
import { UserError, errorMessage } from '../util/errors.js';

export interface ReviewReply {
  status: number;
  /** A review (written as JSON) or a plain text for a bad request. */
  body: unknown;
}

export interface AdmissionHandlers {
  /** An AdmissionReview posted to `/<configurationId>/<webhookId>`. */
  admit(path: string, review: unknown): Promise<ReviewReply>;
  /** A ConversionReview posted to `/<crdName>`. */
  convert(path: string, review: unknown): Promise<ReviewReply>;
}

export interface AdmissionServerOptions {
  host: string;
  port: number;
  cert: string;
  key: string;
  handlers: AdmissionHandlers;
  /** Called for a request that could not be answered (a bad body); the reply says why. */
  onBadRequest?: (path: string, problem: string) => void;
  /** Told how long each request took, from its arrival to its answer written. */
  onServed?: (path: string, ms: number) => void;
}

/** The API server sends at most a few MiB; anything beyond this is not a review. */
const MAX_BODY = 32 * 1024 * 1024;

export class AdmissionServer {
  private server: Server | undefined;

  constructor(private readonly opts: AdmissionServerOptions) {}

  async start(): Promise<void> {
    const server = createServer({ cert: this.opts.cert, key: this.opts.key }, (req, res) => void this.serve(req, res));
    server.keepAliveTimeout = 10_000;
    server.requestTimeout = 60_000;
    const { host, port } = this.opts;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) => {
        const why = e.code === 'EADDRINUSE' ? 'is in use' : e.code === 'EACCES' ? 'needs privileges' : `cannot be used (${e.message})`;
        reject(new UserError(`admission server: listen address ${host}:${port} ${why} (--admission-server-listen-port)`));
      });
      server.listen(port, host, () => resolve());
    });
    this.server = server;
  }

  get address(): { host: string; port: number } {
    const a = this.server?.address() as AddressInfo | null;
    if (!a) throw new Error('the admission server is not listening');
    return { host: a.address, port: a.port };
  }

  get listening(): boolean {
    return this.server !== undefined;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    // an https.Server has the same close and closeAllConnections
    await closeNow(server as unknown as HttpServer | undefined);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrived = performance.now();
    const path = new URL(req.url ?? '/', 'https://operator').pathname;
    const send = (status: number, body: unknown) => {
      const text = typeof body === 'string' ? body : `${JSON.stringify(body)}\n`;
      res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
      this.opts.onServed?.(path, performance.now() - arrived);
    };
    if (req.method === 'GET' && path === '/healthz') return send(200, '');
    if (req.method !== 'POST') return send(405, `method ${req.method} not allowed\n`);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return send(415, `content type ${type || '(none)'} not allowed: application/json\n`);
    let review: unknown;
    try {
      review = JSON.parse(await readBody(req));
    } catch (e) {
      this.opts.onBadRequest?.(path, errorMessage(e));
      return send(400, 'Invalid JSON payload');
    }
    const segments = path.split('/').filter(Boolean);
    try {
      const reply = segments.length === 1 ? await this.opts.handlers.convert(path, review) : await this.opts.handlers.admit(path, review);
      if (reply.status === 400) this.opts.onBadRequest?.(path, String(reply.body));
      send(reply.status, reply.body);
    } catch (e) {
      send(500, `${errorMessage(e)}\n`);
    }
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error(`request body larger than ${MAX_BODY} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
