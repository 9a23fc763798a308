/**
 * The console of `start --log-file FILE` (what `npm start` shows): the full log goes to FILE, and the
 * terminal gets one short line per step as it happens (a hook's output with its binding, a module run
 * with its outcome and duration, each converge, warnings and errors), then, once the first converge is
 * done, a block of things to try: kubectl commands, the status page, metrics and two debug commands.
 */
import { relative, resolve } from 'node:path';
import { debugSocketPath } from './debug.js';

export interface ReadyInfo {
  /** The kubeconfig of the commands shown (absent: kubectl's own). */
  kubeconfig?: string;
  /** Kubernetes is the embedded sandbox. */
  sandbox: boolean;
  namespace: string;
  configMap: string;
  http: { host: string; port: number };
  debugSocket: string;
  logFile: string;
}

/** Progress records of the log (observe-tasks.ts and start-run.ts) shown as they are. */
const SHOWN = [/^embedded API server started/, /^HA mode: /, /^\[\d+\/\d+\] module \S+: (?!run started)/, /^module \S+: deleted/, /^converge #\d+ done/, /^stopping/, /^operator stopped/];

const clock = (time: unknown) => (typeof time === 'string' && /T(\d\d:\d\d:\d\d)/.exec(time)?.[1]) || new Date().toISOString().slice(11, 19);

/** `module X hook hooks/y.sh (beforeHelm)`, `global hook hooks/y.sh (onStartup)`. */
function hookName(r: Record<string, unknown>): string {
  const hook = String(r.hook);
  const where = r.module ? `module ${String(r.module)} hook ${hook}` : `global hook ${hook}`;
  return r.binding ? `${where} (${String(r.binding)})` : where;
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

export class ConsoleProgress {
  constructor(readonly write: (text: string) => void) {}

  /** A log record: printed as a short line when it is a step of the progress. */
  record(r: Record<string, unknown>): void {
    const msg = typeof r.msg === 'string' ? r.msg : '';
    const level = String(r.level);
    let line: string | undefined;
    if (level === 'warn' || level === 'error') {
      const where = r.hook ? ` [${hookName(r)}]` : r.module ? ` [module ${String(r.module)}]` : '';
      const error = typeof r.error === 'string' && !msg.includes(r.error) ? `: ${r.error}` : '';
      line = `${level.toUpperCase()} ${msg}${where}${error}`;
    } else if (level !== 'info') {
      return;
    } else if (r.output && r.hook) {
      line = `${hookName(r)}: ${msg}`;
    } else if (msg === 'modules discovered' && Array.isArray(r.enabled)) {
      const disabled = Array.isArray(r.disabled) && r.disabled.length ? `; disabled ${r.disabled.join(', ')}` : '';
      line = `modules discovered (${String(r['event.type'] ?? '')}): enabled ${r.enabled.join(', ') || 'none'}${disabled}`;
    } else if (/^\[\d+\/\d+\] module \S+: run started$/.test(msg) && r.event !== 'Reload-All-Modules') {
      line = `${msg} (${String(r.event)})`;
    } else if (SHOWN.some((re) => re.test(msg))) {
      line = msg;
    }
    if (line !== undefined) this.write(`${clock(r.time)} ${line}\n`);
  }

  /** The block shown once the first converge is done. */
  ready(info: ReadyInfo): void {
    const host = info.http.host === '0.0.0.0' || info.http.host === '::' ? '127.0.0.1' : info.http.host.includes(':') ? `[${info.http.host}]` : info.http.host;
    const url = `http://${host}:${info.http.port}`;
    const kubectl = `kubectl${info.kubeconfig ? ` --kubeconfig ${shellQuote(info.kubeconfig)}` : ''} -n ${shellQuote(info.namespace)}`;
    const script = process.argv[1] ? relative(process.cwd(), process.argv[1]) || process.argv[1] : 'addon-operator';
    const cli = `node ${shellQuote(script)}`;
    // no flag when the debug commands find this socket by themselves (the default, or the sandbox's here)
    const socket = resolve(debugSocketPath(undefined)) === resolve(info.debugSocket) ? '' : ` --debug-unix-socket ${shellQuote(info.debugSocket)}`;
    this.write(
      [
        '',
        `Ready: the first converge is done.${info.sandbox ? ' Kubernetes is the embedded sandbox API server (not a production cluster).' : ''}`,
        '  Look at what the modules installed, and change the config (the affected modules run again):',
        `    ${kubectl} get deployments,daemonsets,configmaps,secrets`,
        `    ${kubectl} edit configmap ${shellQuote(info.configMap)}`,
        `  Status page (modules, queues, hook runs, live): ${url}/`,
        `  Metrics:                                        ${url}/metrics`,
        '  Ask the running operator:',
        `    ${cli} module list -o text${socket}`,
        `    ${cli} queue list${socket}`,
        `  Full log: ${info.logFile}`,
        'Ctrl-C stops the operator.',
        '',
      ].join('\n') + '\n',
    );
  }
}
