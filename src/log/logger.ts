/**
 * The operator's logger: pino, with string levels, `--log-type` json/text/color and `--log-no-time`.
 * Text lines read `2026-11-22T05:00:00.000Z INFO message key=value ...`.
 */
import { pino, type Logger, type DestinationStream } from 'pino';
import { taskLabels } from './task-labels.js';

/** Receives a hook's output lines; `fields` holds the parsed object of a JSON line when proxying. */
export type HookLineLogger = (stream: 'stdout' | 'stderr', line: string, fields?: Record<string, unknown>) => void;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogType = 'json' | 'text' | 'color';

export interface LoggerOptions {
  level?: LogLevel;
  type?: LogType;
  noTime?: boolean;
  /** Where lines go (default: stdout). */
  write?: (line: string) => void;
  /** Also receives every record written, as an object (the console progress of `start --log-file`). */
  onRecord?: (record: Record<string, unknown>) => void;
}

const COLORS: Record<string, string> = { debug: '\x1b[90m', info: '\x1b[36m', warn: '\x1b[33m', error: '\x1b[31m' };

/** A field's value in a text line: bare when it can be, quoted when it has spaces; lists and maps as compact JSON. */
function textValue(v: unknown): string {
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return /^[^\s"=]+$/.test(s) ? s : JSON.stringify(s);
}

/** Re-renders pino's JSON records as text lines. */
function textDestination(write: (line: string) => void, color: boolean): DestinationStream {
  return {
    write(record: string) {
      const { level, time, msg, ...rest } = JSON.parse(record) as Record<string, unknown>;
      const lvl = String(level).toUpperCase().padEnd(5);
      const head = [time ? String(time) : '', color ? `${COLORS[String(level)] ?? ''}${lvl}\x1b[0m` : lvl, msg === undefined ? '' : String(msg)].filter(Boolean).join(' ');
      const fields = Object.entries(rest).map(([k, v]) => `${k}=${textValue(v)}`);
      write([head, ...fields].join(' ') + '\n');
    },
  };
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const write = opts.write ?? ((line: string) => process.stdout.write(line));
  const type = opts.type ?? 'text';
  const lines: DestinationStream = type === 'json' ? { write } : textDestination(write, type === 'color');
  const onRecord = opts.onRecord;
  const destination: DestinationStream = onRecord
    ? {
        write(record: string) {
          lines.write(record);
          onRecord(JSON.parse(record) as Record<string, unknown>);
        },
      }
    : lines;
  return pino(
    {
      level: opts.level ?? 'info',
      base: undefined,
      timestamp: opts.noTime ? false : pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // every line written while a task runs carries the task's labels (a line's own fields and a
      // child logger's bindings win; pino writes into the object, so it is a fresh one)
      mixin: (_obj, _level, logger) => {
        const labels = taskLabels();
        const bound = (logger as Logger).bindings();
        const out: Record<string, string> = {};
        for (const k in labels) if (!(k in bound)) out[k] = labels[k]!;
        return out;
      },
    },
    destination,
  );
}

export interface HookLogLabels {
  module?: string;
  hook: string;
  binding?: string;
  queue?: string;
}

/**
 * Logs a hook's output lines with its labels. A JSON line proxied by LOG_PROXY_HOOK_JSON keeps its
 * own fields (and its `msg`), the labels win over fields of the same name.
 */
export function hookLineLogger(logger: Logger, labels: HookLogLabels): HookLineLogger {
  // the task's labels are bound now: the output lines arrive later, from outside the task's context
  const bindings = { ...taskLabels(), ...Object.fromEntries(Object.entries(labels).filter(([, v]) => v !== undefined)) };
  // the child logger is made at the first line: most runs write none, and a child costs about a
  // kilobyte (at thousands of runs a second, the operator's largest allocation after the hooks' own)
  let logChild: Logger | undefined;
  return (stream, line, fields) => {
    const child = (logChild ??= logger.child(bindings));
    if (fields) {
      const { msg, level: _level, time: _time, ...rest } = fields;
      child.info({ ...rest, ...labels, output: stream }, typeof msg === 'string' ? msg : line);
    } else {
      child.info({ output: stream }, line);
    }
  };
}
