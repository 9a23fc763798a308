/**
 * `addon-operator jq [-c] [-r] [-n] [-s] [-L DIR] [--arg NAME VALUE] [--argjson NAME JSON] FILTER [FILE...]`:
 * the operator's own jq engine on JSON from files or stdin, printing as jq 1.8 prints, so that a hook
 * author can see what a binding's jqFilter gives (`kubectl get ... -o json | addon-operator jq ...`).
 * Exit codes as jq's: 2 usage error or unreadable file, 3 compile error, 5 runtime or input parse error,
 * halt_error's own code.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { Program, JqCompileFailure, JqHalt, JqRunError, jqDump, jqDumpPretty, parseJsonStream, type Json } from '../jq/index.js';

export interface JqIo {
  readonly readStdin: () => string;
  readonly readFile: (path: string) => string;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

interface JqArgs {
  compact: boolean;
  raw: boolean;
  nullInput: boolean;
  slurp: boolean;
  vars: Record<string, Json>;
  libraryPaths: string[];
  filter?: string;
  files: string[];
}

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): JqArgs {
  const a: JqArgs = { compact: false, raw: false, nullInput: false, slurp: false, vars: {}, libraryPaths: [], files: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-c' || arg === '--compact-output') a.compact = true;
    else if (arg === '-r' || arg === '--raw-output') a.raw = true;
    else if (arg === '-n' || arg === '--null-input') a.nullInput = true;
    else if (arg === '-s' || arg === '--slurp') a.slurp = true;
    else if (arg === '-L' || arg === '--library-path') {
      const dir = argv[++i];
      if (dir === undefined) throw new UsageError('-L takes a parameter: (e.g. -L /search/path or -L/search/path)');
      a.libraryPaths.push(dir);
    } else if (arg.startsWith('-L')) a.libraryPaths.push(arg.slice(2));
    else if (arg === '--arg' || arg === '--argjson') {
      const name = argv[i + 1];
      const value = argv[i + 2];
      if (name === undefined || value === undefined) throw new UsageError(`${arg} takes two parameters (e.g. ${arg} varname value)`);
      if (arg === '--arg') a.vars[name] = value;
      else {
        try {
          a.vars[name] = JSON.parse(value) as Json;
        } catch {
          throw new UsageError(`Invalid JSON text passed to --argjson`);
        }
      }
      i += 2;
    } else if (/^-[crns]{2,}$/.test(arg)) {
      for (const f of arg.slice(1)) {
        if (f === 'c') a.compact = true;
        else if (f === 'r') a.raw = true;
        else if (f === 'n') a.nullInput = true;
        else a.slurp = true;
      }
    } else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`Unknown option: ${arg}`);
    else if (a.filter === undefined) a.filter = arg;
    else a.files.push(arg);
  }
  if (a.filter === undefined) throw new UsageError('a FILTER is required');
  return a;
}

/** Runs the command; returns the exit code. */
export function runJqCommand(argv: readonly string[], io: JqIo): number {
  let args: JqArgs;
  try {
    args = parseArgs(argv);
  } catch (e) {
    io.err(`jq: error: ${(e as Error).message}\nUse addon-operator jq --help for help with command-line options.\n`);
    return 2;
  }
  let program: Program;
  try {
    program = new Program(args.filter!, { vars: args.vars, libraryPaths: args.libraryPaths });
  } catch (e) {
    if (e instanceof JqCompileFailure) {
      io.err(e.where === '<top-level>' ? `jq: error: ${e.message}:\n    ${args.filter}\njq: 1 compile error\n` : `jq: error: ${e.message}\njq: 1 compile error\n`);
      return 3;
    }
    throw e;
  }
  let texts: string[];
  try {
    texts = args.files.length === 0 ? (args.nullInput ? [] : [io.readStdin()]) : args.files.map((f) => io.readFile(f));
  } catch (e) {
    io.err(`jq: error: Could not open ${(e as Error).message}\n`);
    return 2;
  }
  // jq's own parser (nan, jq's messages); the values before a parse error are still filtered, as jq does
  let inputs: Json[] = [];
  let parseError: string | null = null;
  for (const text of texts) {
    try {
      parseJsonStream(text, (v) => inputs.push(v));
    } catch (e) {
      parseError = (e as Error).message;
      break;
    }
  }
  if (args.slurp) inputs = [inputs];
  const print = (v: Json): void => {
    if (args.raw && typeof v === 'string') io.out(v + '\n');
    else io.out((args.compact ? jqDump(v) : jqDumpPretty(v)) + '\n');
  };
  let next = 0;
  const rt = {
    nextInput: () => (next < inputs.length ? inputs[next++] : undefined),
    debug: (v: Json) => io.err(jqDump(['DEBUG:', v]) + '\n'),
    stderr: (text: string) => io.err(text),
  };
  let code = 0;
  const runOne = (input: Json): number | null => {
    try {
      program.each(input, print, rt);
    } catch (e) {
      if (e instanceof JqHalt) {
        if (e.exitCode === 0 && e.value === null) return 0;
        io.err(typeof e.value === 'string' ? e.value : jqDump(e.value) + '\n');
        return e.exitCode;
      }
      if (e instanceof JqRunError) {
        io.err(`jq: error (at ${args.files[0] ?? '<stdin>'}:${next}): ${e.message}\n`);
        code = 5;
        return null;
      }
      throw e;
    }
    return null;
  };
  if (args.nullInput) {
    const r = runOne(null);
    if (r !== null) return r;
  } else {
    while (next < inputs.length) {
      const r = runOne(inputs[next++]!);
      if (r !== null) return r;
    }
  }
  if (parseError !== null) {
    io.err(`jq: parse error: ${parseError}\n`);
    return 5;
  }
  return code;
}

export function registerJq(program: Command): void {
  program
    .command('jq')
    .description('run a jq filter with the operator\'s own jq engine (as bindings run jqFilter): jq [-c] [-r] [-n] [-s] [-L DIR] [--arg NAME VALUE] [--argjson NAME JSON] FILTER [FILE...]')
    .argument('[args...]', 'options, FILTER and FILEs as for jq')
    .allowUnknownOption()
    .helpOption('-h, --help')
    .action((_args: string[], _opts: unknown, cmd: Command) => {
      const code = runJqCommand(cmd.args, {
        readStdin: () => readFileSync(0, 'utf8'),
        readFile: (p) => readFileSync(p, 'utf8'),
        out: (t) => process.stdout.write(t),
        err: (t) => process.stderr.write(t),
      });
      process.exitCode = code;
    });
}
