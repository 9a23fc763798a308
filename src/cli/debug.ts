/**
 * The debug commands (DESIGN §3.1, reference/addon-operator.md §3.3): they talk to a running operator
 * over its debug socket and print what it answers, as the Go CLI prints it (the body, then a newline).
 */
import { request } from 'node:http';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { UserError } from '../util/errors.js';
import { parseGoDuration } from '../util/duration.js';
import { fromEnv } from './env.js';

export const DEFAULT_DEBUG_SOCKET = '/var/run/addon-operator/debug.socket';
/** Where `start --sandbox` (the quick start) opens its socket: .sandbox/ of the directory it runs in. */
export const SANDBOX_DEBUG_SOCKET = join('.sandbox', 'debug.socket');
const SOCKET_HELP = `the operator's debug socket (env DEBUG_UNIX_SOCKET, default ${DEFAULT_DEBUG_SOCKET}; when that does not exist, a sandbox operator's ${SANDBOX_DEBUG_SOCKET} in this directory)`;

interface SocketOpts {
  debugUnixSocket?: string;
}

/**
 * The flag, the environment, or the default socket; without any of them, the socket of the sandbox
 * operator started from this directory (`npm start`, `start --sandbox`), so that the quick start's
 * operator needs no flag.
 */
export function debugSocketPath(flag: string | undefined): string {
  const given = flag ?? fromEnv(['DEBUG_UNIX_SOCKET'], '');
  if (given) return given;
  return !existsSync(DEFAULT_DEBUG_SOCKET) && existsSync(SANDBOX_DEBUG_SOCKET) ? SANDBOX_DEBUG_SOCKET : DEFAULT_DEBUG_SOCKET;
}

function socketPath(cmd: Command): string {
  return debugSocketPath(cmd.optsWithGlobals<SocketOpts>().debugUnixSocket);
}

/** One request over the socket; a missing or refusing socket is one clear line. */
export function debugRequest(socket: string, method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<{ status: number; body: string }> {
  if (!existsSync(socket)) throw new UserError(`debug socket ${socket} does not exist: is the operator running? (--debug-unix-socket, env DEBUG_UNIX_SOCKET)`);
  const payload = form ? new URLSearchParams(form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: socket, method, path, headers: payload ? { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(payload) } : {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10s')));
    req.on('error', (e: NodeJS.ErrnoException) => {
      const why = e.code === 'ECONNREFUSED' ? 'refuses connections: is the operator running?' : e.code === 'EACCES' ? 'is not accessible to this user' : `failed: ${e.message}`;
      reject(new UserError(`debug socket ${socket} ${why} (--debug-unix-socket, env DEBUG_UNIX_SOCKET)`));
    });
    req.end(payload);
  });
}

async function fetchText(cmd: Command, path: string, method: 'GET' | 'POST' = 'GET', form?: Record<string, string>): Promise<string> {
  const r = await debugRequest(socketPath(cmd), method, path, form);
  if (r.status < 200 || r.status > 299) throw new UserError(`${method} ${path}: ${r.status}: ${r.body.trim()}`);
  return r.body;
}

/** Prints what the route answers, as Go's `fmt.Println(string(dump))`. */
async function show(cmd: Command, path: string): Promise<void> {
  process.stdout.write((await fetchText(cmd, path)) + '\n');
}

const FORMAT = (def: string, choices = ['text', 'json', 'yaml']) => new Option('-o, --output <format>', 'output format').choices(choices).default(def);

function withSocket(cmd: Command): Command {
  return cmd.option('--debug-unix-socket <path>', SOCKET_HELP);
}

const q = (flag: boolean) => (flag ? 'true' : 'false');

export function registerDebugCommands(program: Command): void {
  const queue = withSocket(program.command('queue').description('dump the task queues of a running operator'));
  queue
    .command('list')
    .description('all queues with their tasks')
    .addOption(FORMAT('text'))
    .option('-e, --show-empty', 'list empty queues too', false)
    .option('-w, --watch', 'refresh in place until Ctrl-C', false)
    .option('-t, --watch-interval <duration>', 'refresh period of --watch', '1s')
    .action(async (o: { output: string; showEmpty: boolean; watch: boolean; watchInterval: string }, cmd: Command) => {
      const path = `/queue/list.${o.output}?showEmpty=${q(o.showEmpty)}`;
      if (!o.watch) return show(cmd, path);
      let ms: number;
      try {
        ms = parseGoDuration(o.watchInterval);
      } catch (e) {
        throw new UserError(`--watch-interval: ${(e as Error).message}`, { cause: e });
      }
      for (;;) {
        const body = await fetchText(cmd, path);
        process.stdout.write(`\x1b[H\x1b[2J${new Date().toISOString()}  every ${o.watchInterval}  (Ctrl-C to stop)\n\n${body}\n`);
        await new Promise((r) => setTimeout(r, ms));
      }
    });
  queue.command('main').description('the main queue').addOption(FORMAT('text')).action((o: { output: string }, cmd: Command) => show(cmd, `/queue/main.${o.output}`));

  const config = withSocket(program.command('config').description('runtime parameters of a running operator (log.level)'));
  config.command('list').description('parameters with their values').addOption(FORMAT('text')).action((o: { output: string }, cmd: Command) => show(cmd, `/config/list.${o.output}`));
  config
    .command('set <name> <value> [duration]')
    .description('set a parameter, for a while when a duration is given (e.g. `config set log.level debug 10m`)')
    .action(async (name: string, value: string, duration: string | undefined, _o: unknown, cmd: Command) => {
      if (duration !== undefined) {
        try {
          parseGoDuration(duration);
        } catch (e) {
          throw new UserError(`duration: ${(e as Error).message}`, { cause: e });
        }
      }
      await fetchText(cmd, '/config/set', 'POST', { name, value, ...(duration ? { duration } : {}) });
    });

  withSocket(program.command('raw <urlpath>').description('GET any route of the debug socket and print the answer')).action((urlpath: string, _o: unknown, cmd: Command) =>
    show(cmd, urlpath.startsWith('/') ? urlpath : `/${urlpath}`),
  );

  const global = withSocket(program.command('global').description('global hooks and values of a running operator'));
  global.addOption(FORMAT('yaml'));
  const gfmt = (cmd: Command) => cmd.optsWithGlobals<{ output: string }>().output;
  for (const [what, help] of [
    ['list', 'global hooks'],
    ['values', 'global values'],
    ['config', 'global config values'],
    ['snapshots', 'snapshots of the global hooks with kubernetes bindings'],
  ] as const) {
    global.command(what).description(help).action((_o: unknown, cmd: Command) => show(cmd, `/global/${what}.${gfmt(cmd)}`));
  }
  global.command('patches').description("global values patches written by hooks").action((_o: unknown, cmd: Command) => show(cmd, '/global/patches.json'));

  const mod = withSocket(program.command('module').description('modules of a running operator: list, values, manifests'));
  mod.addOption(FORMAT('yaml'));
  mod.command('list').description('enabled modules, and every module with its state and the reason for it').action((_o: unknown, cmd: Command) => show(cmd, `/module/list.${gfmt(cmd)}`));
  for (const what of ['values', 'config'] as const) {
    mod
      .command(`${what} <name>`)
      .description(what === 'values' ? "the module's values" : "the module's config values")
      .option('-g, --global', 'with the global section', false)
      .action((name: string, o: { global: boolean }, cmd: Command) => show(cmd, `/module/${encodeURIComponent(name)}/${what}.${gfmt(cmd)}?global=${q(o.global)}`));
  }
  mod
    .command('render <name>')
    .description('the manifests the module release would get now')
    .option('--debug', 'render in debug mode', false)
    .option('--diff', 'compare with the cluster (not supported yet)', false)
    .action((name: string, o: { debug: boolean; diff: boolean }, cmd: Command) => show(cmd, `/module/${encodeURIComponent(name)}/render?debug=${q(o.debug)}&diff=${q(o.diff)}`));
  mod.command('patches <name>').description("the module's values patches written by hooks").action((name: string, _o: unknown, cmd: Command) => show(cmd, `/module/${encodeURIComponent(name)}/patches.json`));
  mod.command('resource-monitor [name]').description('resources watched for each enabled module').action((_n: unknown, _o: unknown, cmd: Command) => show(cmd, `/module/resource-monitor.${gfmt(cmd)}`));
  mod.command('snapshots <name>').description("snapshots of the module's hooks").action((name: string, _o: unknown, cmd: Command) => show(cmd, `/module/${encodeURIComponent(name)}/snapshots.${gfmt(cmd)}`));
}
