/**
 * Reads jq's own test files (jq 1.8.2's tests/*.test, format described in /work/shared/jq-tests/README.md)
 * and runs one case on our engine.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Program, JqCompileFailure } from '../../src/jq/engine.js';
import { equals, type Json } from '../../src/jq/value.js';
import { parseJsonValue } from '../../src/jq/json.js';

export interface Case {
  readonly id: string; // file:line
  readonly program: string;
  readonly input?: string;
  readonly expected: string[]; // output lines, or for a compile failure the expected message lines
  readonly fail?: 'msg' | 'ignore';
}

export function readCases(path: string, name: string): Case[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const cases: Case[] = [];
  let i = 0;
  const skipSeparators = (): void => {
    while (i < lines.length && (lines[i]!.trim() === '' || lines[i]!.startsWith('#'))) i++;
  };
  for (;;) {
    skipSeparators();
    if (i >= lines.length) break;
    let fail: Case['fail'];
    if (lines[i]!.startsWith('%%FAIL')) {
      fail = lines[i]!.includes('IGNORE MSG') ? 'ignore' : 'msg';
      i++;
    }
    const line = i + 1;
    const program = lines[i++]!;
    if (fail) {
      const expected: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '') expected.push(lines[i++]!);
      cases.push({ id: `${name}:${line}`, program, expected, fail });
      continue;
    }
    const input = lines[i++] ?? 'null';
    const expected: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !lines[i]!.startsWith('#')) expected.push(lines[i++]!);
    cases.push({ id: `${name}:${line}`, program, input, expected });
  }
  return cases;
}

function parse(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return JSON.parse(text.replace(/\bnan\b/g, 'null')) as Json;
  }
}

/** null when the case passes, else what went wrong. */
export function runCase(c: Case): string | null {
  if (c.fail) {
    try {
      new Program(c.program, { libraryPaths: [MODULES_DIR] });
    } catch (e) {
      if (!(e instanceof JqCompileFailure)) return `compile threw ${String(e)}`;
      if (c.fail === 'ignore') return null;
      const got = `jq: error: ${e.message}:`;
      return got === c.expected[0] ? null : `compile error differs: ${got}`;
    }
    return 'compiled, expected a compile error';
  }
  let program: Program;
  try {
    program = new Program(c.program, { libraryPaths: [MODULES_DIR] });
  } catch (e) {
    return `compile error: ${(e as Error).message}`;
  }
  let input: Json;
  try {
    input = parseJsonValue(c.input!); // as jq's runner reads it: jq's parser (nan, a byte order mark)
  } catch (e) {
    return `input is not JSON that jq reads: ${(e as Error).message}`;
  }
  // as jq's own runner: a runtime error ends the outputs, which are then compared
  const outputs: Json[] = [];
  let error = '';
  try {
    program.each(input, (v) => {
      outputs.push(v);
    });
  } catch (e) {
    error = ` (then runtime error: ${(e as Error).message})`;
  }
  const expected: Json[] = [];
  for (const l of c.expected) {
    try {
      expected.push(parse(l));
    } catch {
      return 'expected output is not JSON that JavaScript reads';
    }
  }
  if (outputs.length !== expected.length) return `got ${outputs.length} outputs, expected ${expected.length}: ${JSON.stringify(outputs).slice(0, 200)}${error}`;
  for (let k = 0; k < outputs.length; k++) {
    if (!equals(normalize(outputs[k]!), expected[k]!)) return `output ${k} differs: ${JSON.stringify(outputs[k]).slice(0, 200)}`;
  }
  return null;
}

function normalize(v: Json): Json {
  if (typeof v === 'number') return Number.isNaN(v) ? null : v === Infinity ? 1.7976931348623157e308 : v === -Infinity ? -1.7976931348623157e308 : v;
  if (Array.isArray(v)) return v.map(normalize);
  if (v !== null && typeof v === 'object') {
    const o: Record<string, Json> = {};
    for (const k of Object.keys(v)) o[k] = normalize(v[k]!);
    return o;
  }
  return v;
}

/** jq runs its suite with `-L tests/modules`; ours are in test/jq/modules (see the README there). */
export const MODULES_DIR = fileURLToPath(new URL('./modules', import.meta.url));
export const CORPUS_DIR = process.env.JQ_TESTS_DIR ?? '/work/shared/jq-tests';
export const CORPUS_FILES = ['jq.test', 'man.test', 'onig.test', 'manonig.test', 'base64.test', 'uri.test', 'optional.test'];
