/**
 * The admission server: HTTPS on `--admission-server-listen-port` (the Go operator's 9651) with the
 * certificate of `--admission-server-certs-dir`, serving the routes of shell-operator's two webhook
 * servers on one port: `POST /<configurationId>/<webhookId>` takes an AdmissionReview, `POST /<crdName>`
 * a ConversionReview, `GET /healthz` answers 200. With client CAs (shell-operator's
 * --validating-webhook-client-ca and --conversion-webhook-client-ca) the reviews of each kind must come
 * with a client certificate those CAs signed. It knows nothing of hooks: it hands the decoded review to
 * its handlers and writes what they answer.
 */
import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { TLSSocket, PeerCertificate, DetailedPeerCertificate } from 'node:tls';
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
  /**
   * The CAs whose client certificates the AdmissionReviews (`admission`) and the ConversionReviews
   * (`conversion`) must carry; none for a kind: no certificate is asked for. `/healthz` asks for none.
   */
  clientCas?: { admission: readonly X509Certificate[]; conversion: readonly X509Certificate[] };
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
    const cas = this.opts.clientCas;
    const all = cas ? [...cas.admission, ...cas.conversion] : [];
    // a client certificate is asked for and verified by TLS; which kind of review needs one is checked per request
    const clientAuth = all.length ? { requestCert: true, rejectUnauthorized: false, ca: all.map((c) => c.toString()) } : {};
    const server = createServer({ cert: this.opts.cert, key: this.opts.key, ...clientAuth }, (req, res) => void this.serve(req, res));
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
    const segments = path.split('/').filter(Boolean);
    const conversion = segments.length === 1;
    const cas = this.opts.clientCas?.[conversion ? 'conversion' : 'admission'] ?? [];
    if (cas.length && !signedByOneOf(req.socket as TLSSocket, cas)) {
      req.resume();
      const flag = conversion ? '--conversion-webhook-client-ca' : '--validating-webhook-client-ca';
      this.opts.onBadRequest?.(path, `no client certificate signed by a CA of ${flag}`);
      return send(403, `a client certificate signed by a CA of ${flag} is required\n`);
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return send(415, `content type ${type || '(none)'} not allowed: application/json\n`);
    let review: unknown;
    try {
      review = JSON.parse(await readBody(req));
    } catch (e) {
      this.opts.onBadRequest?.(path, errorMessage(e));
      return send(400, 'Invalid JSON payload');
    }
    try {
      const reply = conversion ? await this.opts.handlers.convert(path, review) : await this.opts.handlers.admit(path, review);
      if (reply.status === 400) this.opts.onBadRequest?.(path, String(reply.body));
      send(reply.status, reply.body);
    } catch (e) {
      send(500, `${errorMessage(e)}\n`);
    }
  }
}

/** Whether the TLS client's certificate chain (verified against all the server's CAs) goes through one of `cas`. */
function signedByOneOf(socket: TLSSocket, cas: readonly X509Certificate[]): boolean {
  if (!socket.authorized) return false;
  let c: PeerCertificate | DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  for (let depth = 0; c?.raw && depth < 10; depth++) {
    const cert = new X509Certificate(c.raw);
    if (cas.some((ca) => ca.fingerprint256 === cert.fingerprint256 || (cert.checkIssued(ca) && cert.verify(ca.publicKey)))) return true;
    const issuer: DetailedPeerCertificate | undefined = (c as DetailedPeerCertificate).issuerCertificate;
    c = issuer && issuer !== c ? issuer : undefined;
  }
  return false;
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
