/**
 * jq's module system (src/linker.c of jq 1.8.2): `import "path" as name;`, `import "path" as $data;`,
 * `include "path";`, `module {...};` and `modulemeta`, over a library search path (jq's `-L`).
 *
 * A module is parsed and compiled once per program; its definitions are bound in the importer's scope
 * under `name::f` (import) or `f` (include). Later imports shadow earlier ones, as in jq. Data imports
 * (`.json` files) bind `$name` and `$name::name` to the array of the file's values.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { Parser, JqSyntaxError, type ImportDecl, type Library } from './parser.js';
import type { Compiler, Scope } from './compile.js';
import { JqError, type Json, type JsonObject } from './value.js';

/** A compile error in a module file (jq names the file, not `<top-level>`). */
export class ModuleError extends Error {
  constructor(
    readonly jqMessage: string,
    readonly file: string | null = null,
    readonly line = 0,
    readonly column = 0,
  ) {
    super(file === null ? jqMessage : `${jqMessage} at ${file}, line ${line}, column ${column}`);
  }
}

interface Loaded {
  readonly exports: NonNullable<Scope>[]; // the module's definitions, in order
  loading: boolean;
}

export class ModuleLoader {
  private readonly libs = new Map<string, Loaded>();
  readonly libraryPaths: readonly string[];

  /** `libraryPaths`: jq's `-L` directories (made absolute, as jq does). */
  constructor(
    libraryPaths: readonly string[],
    private readonly compiler: Compiler,
  ) {
    this.libraryPaths = libraryPaths.map((p) => resolve(p));
  }

  /** Binds `imports` (of the program or of a module at `origin`) on top of `scope`. */
  bind(imports: readonly ImportDecl[], scope: Scope, origin: string): Scope {
    let s = scope;
    for (const imp of imports) {
      const relpath = validateRelpath(imp.relpath);
      const file = this.find(relpath, defaultSearch(imp.meta, this.libraryPaths), imp.isData ? '.json' : '.jq', origin);
      if (imp.isData) {
        const value = loadData(file);
        const as = imp.as!;
        s = { kind: 'var', name: as, arity: 0, depth: depthOf(s), next: s, value };
        s = { kind: 'var', name: `${as}::${as}`, arity: 0, depth: depthOf(s), next: s, value };
        continue;
      }
      const lib = this.load(file);
      for (const e of lib.exports) {
        const name = imp.as === null ? e.name : `${imp.as}::${e.name}`;
        s = { kind: 'fn', name, arity: e.arity, def: e.def!, depth: depthOf(s), next: s };
      }
    }
    return s;
  }

  /** jq's `modulemeta`: the module's metadata with its `deps` and `defs`. */
  meta(name: Json): Json {
    if (typeof name !== 'string') throw new JqError('modulemeta input module name must be a string');
    let file: string;
    try {
      file = this.find(validateRelpath(name), [...this.libraryPaths], '.jq', null);
    } catch (e) {
      throw e instanceof ModuleError ? new JqError(e.jqMessage) : e;
    }
    let lib: Library;
    try {
      lib = new Parser(readFileSync(file, 'utf8')).parseLibrary();
    } catch {
      return null;
    }
    const out: JsonObject = { ...(lib.meta ?? {}) };
    out.deps = lib.imports.map((i) => {
      const dep: JsonObject = { ...(i.meta ?? {}) };
      if (i.as !== null) dep.as = i.as;
      dep.is_data = i.isData;
      dep.relpath = i.relpath;
      return dep;
    });
    out.defs = lib.defs.map((d) => `${d.name}/${d.params.length}`);
    return out;
  }

  private load(file: string): Loaded {
    const known = this.libs.get(file);
    if (known) {
      if (known.loading) throw new ModuleError(`circular import of ${file}`);
      return known;
    }
    const text = readText(file);
    const parser = new Parser(text);
    const lib: Loaded = { exports: [], loading: true };
    this.libs.set(file, lib);
    try {
      const parsed = parser.parseLibrary();
      let scope = this.bind(parsed.imports, null, dirname(file));
      for (const d of parsed.defs) {
        scope = this.compiler.define(d, scope);
        lib.exports.push(scope!);
      }
    } catch (e) {
      if (e instanceof JqSyntaxError) {
        const before = text.slice(0, e.offset);
        throw new ModuleError(e.jqMessage, file, before.split('\n').length, e.offset - (before.lastIndexOf('\n') + 1) + 1);
      }
      throw e;
    }
    lib.loading = false;
    return lib;
  }

  /** jq's find_lib: each search directory, then `rel.jq`, `rel/jq/main.jq`, `rel/<last component>.jq`. */
  private find(relpath: string, search: Json[], suffix: string, origin: string | null): string {
    const base = relpath.slice(relpath.lastIndexOf('/') + 1);
    for (const dir of search) {
      if (typeof dir !== 'string' || dir === '') continue;
      const d = dir === '.' || isAbsolute(dir) || origin === null ? dir : `${origin}/${dir}`;
      for (const candidate of [`${d}/${relpath}${suffix}`, `${d}/${relpath}/jq/main${suffix}`, `${d}/${relpath}/${base}${suffix}`]) {
        if (exists(candidate)) return realpathSync(candidate);
      }
    }
    throw new ModuleError(`module not found: ${relpath}`);
  }
}

function depthOf(s: Scope): number {
  return s === null ? 0 : s.depth;
}

/** The search path of an import: its `search` metadata, else `.` and the library paths. */
function defaultSearch(meta: JsonObject | null, libraryPaths: readonly string[]): Json[] {
  const search = meta?.search;
  if (search === undefined) return ['.', ...libraryPaths];
  return Array.isArray(search) ? search : [search];
}

function validateRelpath(name: string): string {
  if (name.includes('\0')) throw new ModuleError('Module path contains a NUL byte');
  if (name.includes('\\')) throw new ModuleError(`Modules must be named by relative paths using '/', not '\\' (${name})`);
  const parts = name.split('/');
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '..') throw new ModuleError(`Relative paths to modules may not traverse to parent directories (${name})`);
    if (i > 0 && parts[i] === parts[i - 1]) throw new ModuleError(`module names must not have equal consecutive components: ${name}`);
  }
  return name;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new ModuleError(`error loading module ${file}: ${(e as Error).message}`);
  }
}

/** A data module: every JSON value of the file, in an array (jq reads it as with --slurp). */
function loadData(file: string): Json {
  const text = readText(file);
  const out: Json[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && /\s/.test(text[i]!)) i++;
    if (i >= n) break;
    const start = i;
    let depth = 0;
    let inString = false;
    for (; i < n; i++) {
      const c = text[i]!;
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      else if (depth === 0 && /\s/.test(c)) break;
      if (depth === 0 && !inString && (c === '}' || c === ']' || (c === '"' && i > start))) {
        i++;
        break;
      }
    }
    try {
      out.push(JSON.parse(text.slice(start, i)) as Json);
    } catch (e) {
      throw new ModuleError(`error loading data file ${file}: ${(e as Error).message}`);
    }
  }
  return out;
}
