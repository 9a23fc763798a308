/**
 * addon-operator/jq: jq 1.8.2's language in TypeScript (src/jq/engine.ts), with the API the operator
 * uses for bindings' `jqFilter`.
 *
 * A filter is compiled once (`compileJq`) and then applied to one object (`run`/`apply`) or to many
 * (`applyMany`). Results follow shell-operator's `filterResult` rules (`toFilterResult`): no output ⇒
 * null, one output ⇒ that value, several outputs ⇒ an array of them. `halt` ends a filter's outputs
 * (those before it are kept, as shell-operator's gojq loop does); `halt_error` is an error.
 */
import { Program, JqCompileFailure, JqRunError, JqHalt, type Runtime } from './engine.js';
import { dump, type Json } from './value.js';

/** A filter that did not compile. The message names the filter and carries jq's own message. */
export class JqCompileError extends Error {
  override name = 'JqCompileError';
  constructor(
    readonly filter: string,
    readonly jqMessage: string,
  ) {
    super(`invalid jq filter '${filter}': ${jqMessage}`);
  }
}

/** A filter that failed on an input (runtime error). `value` is what `error` raised. */
export class JqRuntimeError extends Error {
  override name = 'JqRuntimeError';
  constructor(
    readonly filter: string,
    readonly jqMessage: string,
    readonly value: unknown = jqMessage,
    readonly exitCode?: number,
  ) {
    super(`jq filter '${filter}' failed: ${jqMessage}`);
  }
}

/** The outcome of applying a filter to one input of a batch. */
export type JqOutcome = { readonly ok: true; readonly outputs: unknown[] } | { readonly ok: false; readonly error: JqRuntimeError };

export interface JqOptions {
  /** `$name` variables (as jq's --arg/--argjson). */
  readonly vars?: Readonly<Record<string, unknown>>;
  /** Where `debug` and `stderr` write (default: nowhere). */
  readonly onDebug?: (message: string) => void;
  /** jq's `-L`: directories where `import`/`include` find modules. Without it a filter has no modules. */
  readonly libraryPaths?: readonly string[];
}

/** Apply shell-operator's filterResult rule to the outputs of one input. */
export function toFilterResult(outputs: readonly unknown[]): unknown {
  if (outputs.length === 0) return null;
  if (outputs.length === 1) return outputs[0];
  return [...outputs];
}

/** A compiled jq filter. Obtain with `compileJq`. */
export class JqFilter {
  private readonly runtime: Runtime | undefined;

  /** @internal use compileJq */
  constructor(
    readonly source: string,
    private readonly program: Program,
    options: JqOptions = {},
  ) {
    const onDebug = options.onDebug;
    this.runtime = onDebug
      ? { nextInput: () => undefined, debug: (v) => onDebug(dump(['DEBUG:', v])), stderr: (text) => onDebug(text) }
      : undefined;
  }

  /** All outputs of the filter for one input. Throws JqRuntimeError on a jq error. */
  run(input: unknown): unknown[] {
    const value = (input === undefined ? null : input) as Json;
    try {
      return this.program.run(value, this.runtime);
    } catch (e) {
      if (e instanceof JqHalt && e.exitCode === 0 && e.value === null) return this.outputsBeforeHalt(value);
      throw this.translate(e);
    }
  }

  /** Same as run (the facade's earlier name). */
  apply(input: unknown): unknown[] {
    return this.run(input);
  }

  /** The filter's result for one input under shell-operator's rule (0 ⇒ null, 1 ⇒ value, n ⇒ array). */
  filterResult(input: unknown): unknown {
    return toFilterResult(this.run(input));
  }

  /** Apply the filter to many inputs. One outcome per input, in order; an error belongs to its input only. */
  applyMany(inputs: readonly unknown[]): JqOutcome[] {
    const out: JqOutcome[] = new Array<JqOutcome>(inputs.length);
    for (let i = 0; i < inputs.length; i++) {
      try {
        out[i] = { ok: true, outputs: this.run(inputs[i]) };
      } catch (e) {
        if (!(e instanceof JqRuntimeError)) throw e;
        out[i] = { ok: false, error: e };
      }
    }
    return out;
  }

  /** `halt` ended the filter: the outputs before it stand (run again, collecting them). */
  private outputsBeforeHalt(input: Json): unknown[] {
    const outs: Json[] = [];
    try {
      this.program.each(input, (v) => outs.push(v), this.runtime);
    } catch (e) {
      if (!(e instanceof JqHalt)) throw this.translate(e);
    }
    return outs;
  }

  private translate(e: unknown): unknown {
    if (e instanceof JqHalt) return new JqRuntimeError(this.source, e.message, e.value, e.exitCode);
    if (e instanceof JqRunError) return new JqRuntimeError(this.source, e.message, e.value);
    return e;
  }
}

/** Compile a filter once. Throws JqCompileError naming the filter and carrying jq's message. */
export function compileJq(filter: string, options: JqOptions = {}): JqFilter {
  if (filter.trim() === '') throw new JqCompileError(filter, 'empty filter');
  let program: Program;
  try {
    program = new Program(filter, { vars: options.vars as Record<string, Json> | undefined, libraryPaths: options.libraryPaths });
  } catch (e) {
    if (e instanceof JqCompileFailure) throw new JqCompileError(filter, e.message);
    throw e;
  }
  return new JqFilter(filter, program, options);
}

/** Check a filter without running it on data. Returns null when it compiles, else jq's message. */
export function validateJqFilter(filter: string): string | null {
  try {
    compileJq(filter);
    return null;
  } catch (e) {
    if (e instanceof JqCompileError) return e.jqMessage;
    throw e;
  }
}

export { Program, JqCompileFailure, JqRunError, JqHalt } from './engine.js';
export { dump as jqDump, dumpPretty as jqDumpPretty } from './value.js';
export { parseJsonStream } from './json.js';
export type { Json } from './value.js';
