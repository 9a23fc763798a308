/**
 * Differential test: random filters over random objects, our engine against jq-wasm (jq 1.8.2).
 * Outputs are compared as the JSON text jq prints (-c), errors by the value raised.
 */
import { loadJq } from 'jq-wasm';
import { Program, JqCompileFailure, JqRunError } from '../../src/jq/engine.js';
import { dump, type Json } from '../../src/jq/value.js';
import { randomFilter, randomObject, rng } from './random.js';

export interface Mismatch {
  readonly filter: string;
  readonly input: string;
  readonly jq: string;
  readonly ours: string;
}

function oursFor(program: Program, input: Json): string {
  const outs: Json[] = [];
  try {
    program.each(input, (v) => {
      outs.push(v);
    });
  } catch (e) {
    if (e instanceof JqRunError) return `{"__jqerr":${dump(e.value)}}`;
    return `crash: ${String(e)}`;
  }
  return dump(outs);
}

/** `filters` random filters, each over `perFilter` random objects. */
export async function differential(filters: number, perFilter: number, seed: number): Promise<{ cases: number; mismatches: Mismatch[]; crashed: string[] }> {
  let jq = await loadJq();
  const crashed: string[] = [];
  const r = rng(seed);
  const objects = Array.from({ length: perFilter }, (_x, i) => randomObject(r, i));
  const texts = objects.map((o) => dump(o));
  const mismatches: Mismatch[] = [];
  let cases = 0;
  for (let k = 0; k < filters; k++) {
    const filter = randomFilter(r, 1 + Math.floor(r() * 3));
    let program: Program | null = null;
    let compileError = '';
    try {
      program = new Program(filter);
    } catch (e) {
      if (!(e instanceof JqCompileFailure)) throw e;
      compileError = e.jqMessage;
    }
    let res: { stdout: string; stderr: string; exitCode: number };
    try {
      res = jq.raw(texts.join('\n'), `try [${filter}] catch {"__jqerr": .}`, ['-c']);
    } catch (e) {
      // jq-wasm itself aborted on this filter: not a comparison; start a fresh instance
      crashed.push(`${filter}: ${String(e).slice(0, 80)}`);
      jq = await loadJq();
      continue;
    }
    const lines = res.stdout.split('\n').filter((l) => l !== '');
    cases += perFilter;
    if (res.exitCode === 3 || /compile error/.test(res.stderr)) {
      if (program !== null) mismatches.push({ filter, input: '*', jq: res.stderr.trim(), ours: 'compiled' });
      continue;
    }
    if (program === null) {
      mismatches.push({ filter, input: '*', jq: 'compiled', ours: compileError });
      continue;
    }
    for (let i = 0; i < perFilter; i++) {
      const ours = oursFor(program, objects[i]!);
      const theirs = lines[i] ?? `(no output; stderr ${res.stderr.trim()})`;
      // explained difference (docs/jq.md): jq keeps the sign of a negated computed zero, this engine prints 0
      if (ours !== theirs && ours.replace(/-0\b(?!\.)/g, '0') !== theirs.replace(/-0\b(?!\.)/g, '0')) mismatches.push({ filter, input: texts[i]!, jq: theirs, ours });
    }
  }
  return { cases, mismatches, crashed };
}
