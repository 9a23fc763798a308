/** The default function map: Go builtins, Sprig (minus env/expandenv, as Helm) and Helm's functions. */
import type { FuncDef, FuncMap } from '../exec.js';
import { builtins } from '../builtins.js';
import { stringFuncs } from './strings.js';
import { dataFuncs } from './data.js';
import { regexFuncs } from './regex.js';
import { semverFuncs } from './semver.js';
import { dateFuncs } from './dates.js';
import { cryptoFuncs } from './crypto.js';
import { helmFuncs } from './helm.js';

let cached: [string, FuncDef][] | null = null;

function all(): [string, FuncDef][] {
  if (!cached) {
    const m = new Map<string, FuncDef>();
    for (const src of [builtins, stringFuncs, dataFuncs, regexFuncs, semverFuncs, dateFuncs, cryptoFuncs, helmFuncs]) {
      for (const [k, v] of Object.entries(src)) m.set(k, v);
    }
    // Sprig replaces the built-in slice; Helm removes env and expandenv.
    m.delete('env');
    m.delete('expandenv');
    cached = [...m];
  }
  return cached;
}

/** A fresh function map (callers may add to it without affecting others). */
export function defaultFuncs(): FuncMap {
  return new Map(all());
}
