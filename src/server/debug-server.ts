/**
 * The debug server on a unix socket (DESIGN §3.4, reference/addon-operator.md §3.2): routes with a
 * `{format}` suffix answer in json, yaml or text as shell-operator's debug server does; errors are
 * 400/404/500 with the message. The socket is created with mode 0600 in a directory made with 0700.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chmodSync, existsSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import YAML from 'yaml';
import { closeNow } from './close.js';
import { UserError, errorMessage } from '../util/errors.js';
import { goJsonStringify } from '../util/json.js';

export type Format = 'json' | 'yaml' | 'text';

export interface DebugRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  /** Form fields of a POST (application/x-www-form-urlencoded). */
  form: URLSearchParams;
  format: Format;
}

/** A handler's answer: a value to encode, `undefined` for an empty 200. */
export type DebugHandler = (req: DebugRequest) => unknown;

export class BadRequestError extends Error {}
export class NotFoundError extends Error {}

/**
 * A value printed in the order its keys were written (a Go struct); plain objects are Go maps and
 * print with sorted keys.
 */
export class Ordered {
  constructor(readonly value: unknown) {}
}

interface Route {
  method: 'GET' | 'POST';
  pattern: string;
  regex: RegExp;
  names: string[];
  formats: readonly Format[] | undefined;
  handler: DebugHandler;
}

/** `/module/{name}/values.{format}` → regex; `{type:(config|values)}` restricts a parameter. */
function compile(pattern: string, formats: readonly Format[] | undefined): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  let src = '';
  let rest = pattern;
  if (formats) {
    if (!rest.endsWith('.{format}')) throw new Error(`route ${pattern}: a formatted route ends with .{format}`);
    rest = rest.slice(0, -'.{format}'.length);
  }
  for (const part of rest.split(/(\{[^}]+\})/)) {
    const m = /^\{(\w+)(?::\((.*)\))?\}$/.exec(part);
    if (m) {
      names.push(m[1]!);
      src += m[2] ? `(${m[2]})` : '([^/]+)';
    } else src += part.replace(/[.*+?^$()[\]\\|]/g, '\\$&');
  }
  if (formats) {
    names.push('format');
    src += `\\.(${formats.join('|')})`;
  }
  return { regex: new RegExp(`^${src}$`), names };
}

function plain(v: unknown): unknown {
  return v instanceof Ordered ? v.value : v;
}

/** Go's json.Encoder: one line, HTML characters escaped; maps with sorted keys. */
function encodeJson(v: unknown): string {
  if (v instanceof Ordered) return JSON.stringify(v.value).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`) + '\n';
  return goJsonStringify(v) + '\n';
}

/** yaml.v3 with indent 2: maps with sorted keys. */
function encodeYaml(v: unknown): string {
  return YAML.stringify(plain(v), { indent: 2, sortMapEntries: !(v instanceof Ordered), lineWidth: 0 });
}

export function encode(v: unknown, format: Format): { type: string; body: string } {
  switch (format) {
    case 'yaml':
      return { type: 'application/yaml', body: encodeYaml(v) };
    case 'text': {
      const p = plain(v);
      return { type: 'text/plain; charset=utf-8', body: typeof p === 'string' ? p : encodeJson(v) };
    }
    default:
      return { type: 'application/json', body: encodeJson(v) };
  }
}

export class DebugServer {
  private readonly routes: Route[] = [];
  private server: Server | undefined;

  constructor(readonly socketPath: string) {}

  get(pattern: string, handler: DebugHandler, formats?: readonly Format[]): this {
    return this.add('GET', pattern, handler, formats);
  }

  post(pattern: string, handler: DebugHandler): this {
    return this.add('POST', pattern, handler, undefined);
  }

  private add(method: 'GET' | 'POST', pattern: string, handler: DebugHandler, formats: readonly Format[] | undefined): this {
    this.routes.push({ method, pattern, handler, formats, ...compile(pattern, formats) });
    return this;
  }

  /** `METHOD pattern` lines of the routes whose pattern starts with one of the prefixes. */
  routeList(prefixes: readonly string[] = ['']): string {
    return this.routes
      .filter((r) => prefixes.some((p) => r.pattern.startsWith(p)))
      .map((r) => `${r.method} ${r.formats ? r.pattern.replace('{format}', `{format:(${r.formats.join('|')})}`) : r.pattern}\n`)
      .join('');
  }

  async start(): Promise<void> {
    const path = this.socketPath;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      if (existsSync(path) || isDanglingLink(path)) unlinkSync(path);
    } catch (e) {
      throw new UserError(`debug socket ${path}: ${errorMessage(e)} (--debug-unix-socket, env DEBUG_UNIX_SOCKET)`);
    }
    const server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) => reject(new UserError(`debug socket ${path}: cannot listen (${e.code ?? e.message}) (--debug-unix-socket, env DEBUG_UNIX_SOCKET)`)));
      server.listen(path, () => resolve());
    });
    chmodSync(path, 0o600);
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await closeNow(server);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://unix');
    let matched: { route: Route; m: RegExpExecArray } | undefined;
    let wrongMethod = false;
    for (const route of this.routes) {
      const m = route.regex.exec(url.pathname);
      if (!m) continue;
      if (route.method !== req.method) {
        wrongMethod = true;
        continue;
      }
      matched = { route, m };
      break;
    }
    if (!matched) {
      const body = wrongMethod ? '' : `404 page not found\nroutes:\n${this.routeList()}`;
      return reply(res, wrongMethod ? 405 : 404, 'text/plain; charset=utf-8', body);
    }
    const { route, m } = matched;
    const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
    const format = (params.format as Format | undefined) ?? 'text';
    const form = req.method === 'POST' ? new URLSearchParams(await readBody(req)) : new URLSearchParams();
    let out: unknown;
    try {
      out = await route.handler({ params, query: url.searchParams, form, format });
    } catch (e) {
      const code = e instanceof BadRequestError ? 400 : e instanceof NotFoundError ? 404 : 500;
      return reply(res, code, 'text/plain; charset=utf-8', `${errorMessage(e)}\n`);
    }
    if (out === undefined || out === null) return reply(res, 200, 'text/plain; charset=utf-8', '');
    const { type, body } = encode(out, format);
    reply(res, 200, type, body);
  }
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (s += c));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}

function reply(res: ServerResponse, code: number, type: string, body: string): void {
  res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
