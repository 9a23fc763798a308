/**
 * YAML the way Go's yaml libraries read it (YAML 1.1: `on`/`yes`/`0777` ..., numbers as yaml.v2's
 * resolve.go reads them: `0o777`, `0x1F`, `0b101`, `1e3`), producing plain JSON
 * data. Timestamps stay strings (Go's map[string]interface{} decoding keeps them as strings when
 * values are re-encoded through JSON, as Helm and addon-operator do).
 */
import { parseAllDocuments, parseDocument, isMap, isSeq, isScalar, type Document, type Node } from 'yaml';
import { UserError } from './errors.js';
import { toJsonData } from './json.js';
import { UNSUPPORTED, parseSimpleYaml } from './yaml-fast.js';

const GO_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** What strconv.ParseFloat reads after a leading dot: decimal digits, `_` only between two digits. */
const DOT_FLOAT = /^\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?$/;
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;
const RADIX_DIGITS: Record<number, RegExp> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ };
const RADIX_PREFIX: Record<number, string> = { 2: '0b', 8: '0o', 10: '', 16: '0x' };

/** strconv.ParseUint(digits, base, 64): digits without sign or prefix; undefined on a syntax or range error. */
function parseUint(digits: string, base: number): bigint | undefined {
  if (!RADIX_DIGITS[base]!.test(digits)) return undefined;
  const n = BigInt(RADIX_PREFIX[base]! + digits);
  return n <= UINT64_MAX ? n : undefined;
}

/** strconv.ParseUint(s, 0, 64): `0b`/`0o`/`0x` prefixes (any case, with at least one digit), a leading `0` for octal. */
function parseUintBase0(s: string): bigint | undefined {
  if (s[0] !== '0' || s.length === 1) return s === '0' ? 0n : parseUint(s, 10);
  const p = s.length >= 3 ? s[1]!.toLowerCase() : '';
  if (p === 'b') return parseUint(s.slice(2), 2);
  if (p === 'o') return parseUint(s.slice(2), 8);
  if (p === 'x') return parseUint(s.slice(2), 16);
  return parseUint(s.slice(1), 8);
}

/** strconv.ParseInt(s, base, 64): an optional sign, then ParseUint; undefined on a syntax or range error. */
function parseInt64(s: string, base: number | 0): bigint | undefined {
  const neg = s[0] === '-';
  const body = neg || s[0] === '+' ? s.slice(1) : s;
  const u = base === 0 ? parseUintBase0(body) : parseUint(body, base);
  if (u === undefined) return undefined;
  if (neg) return u <= INT64_MAX + 1n ? -u : undefined;
  return u <= INT64_MAX ? u : undefined;
}

const RESOLVE_MAP: Record<string, number> = { '.nan': NaN, '.NaN': NaN, '.NAN': NaN };
for (const s of ['.inf', '.Inf', '.INF']) {
  RESOLVE_MAP[s] = Infinity;
  RESOLVE_MAP[`+${s}`] = Infinity;
  RESOLVE_MAP[`-${s}`] = -Infinity;
}

type GoResolved = ['int' | 'float' | 'str', string | number];

/**
 * A plain scalar starting with a digit, a sign or a dot, resolved as yaml.v2's `resolve` (resolve.go)
 * does: `.inf`/`.nan` spellings; after a dot a decimal float; otherwise, with every `_` removed,
 * strconv.ParseInt(s, 0, 64) (`0b`, `0o`, `0x` in any case, a leading `0` for octal, a sign), then
 * ParseUint, then a decimal float (out of range: the text stays a string), then the `0b` forms.
 * Anything else stays a string: `12:30`, `2024-01-01`, `1.2.3`, `0x`, `1e400`. Numbers are the JSON
 * doubles sigs.k8s.io/yaml turns them into.
 */
const SMALL_DECIMAL = /^-?[1-9][0-9]{0,14}$/;

function goResolve(text: string): GoResolved {
  // the common case, exact in a double: no BigInt
  if (SMALL_DECIMAL.test(text) || text === '0') return ['int', Number(text)];
  const special = RESOLVE_MAP[text];
  if (special !== undefined) return ['float', special];
  if (text[0] === '.') return DOT_FLOAT.test(text) ? ['float', Number(text.replace(/_/g, ''))] : ['str', text];
  const plain = text.includes('_') ? text.replace(/_/g, '') : text;
  const int = parseInt64(plain, 0) ?? (plain[0] === '+' || plain[0] === '-' ? undefined : parseUintBase0(plain));
  if (int !== undefined) return ['int', Number(int)];
  if (GO_FLOAT.test(plain)) {
    const f = Number(plain);
    // strconv.ParseFloat's ErrRange: the scalar stays a string
    if (Number.isFinite(f)) return ['float', f];
  }
  if (plain.startsWith('0b')) {
    const n = parseInt64(plain.slice(2), 2) ?? parseUint(plain.slice(2), 2);
    if (n !== undefined) return ['int', Number(n)];
  } else if (plain.startsWith('-0b')) {
    const n = parseInt64(`-${plain.slice(3)}`, 2);
    if (n !== undefined) return ['int', Number(n)];
  }
  return ['str', text];
}

/** The value yaml.v2 gives a plain scalar that starts with a digit, a sign or a dot. */
export function resolveGoNumber(text: string): string | number {
  return goResolve(text)[1];
}

type OnError = (message: string) => void;
/** An explicit `!!int`/`!!float`: yaml.v2 accepts what resolves to that kind (an int as a float too). */
function explicitNumberTag(kind: 'int' | 'float') {
  return {
    tag: `tag:yaml.org,2002:${kind}`,
    identify: () => false,
    resolve: (text: string, onError: OnError) => {
      const [got, value] = goResolve(text);
      if (got === kind || (kind === 'float' && got === 'int')) return value;
      onError(`cannot decode !!${got} \`${text}\` as a !!${kind}`);
      return text;
    },
  };
}

/** The yaml library's tag for plain scalars that yaml.v2 may read as numbers. */
const goNumberTag = {
  identify: (v: unknown) => typeof v === 'number',
  default: true,
  tag: 'tag:yaml.org,2002:int',
  test: /^[-+.0-9]/,
  resolve: resolveGoNumber,
};

type TagFilter = (tags: any[]) => any[];
/**
 * The YAML 1.1 tags with yaml.v2's number rules in place of the library's int and float tags, and
 * no timestamps or base-60 numbers (Go keeps them as strings).
 */
const goTags: TagFilter = (tags) => {
  const out: any[] = [];
  for (const t of tags) {
    if (t.tag === 'tag:yaml.org,2002:timestamp' || t.format === 'TIME') continue;
    if (t.tag === 'tag:yaml.org,2002:int' || t.tag === 'tag:yaml.org,2002:float') {
      if (!out.includes(goNumberTag)) out.push(explicitNumberTag('int'), explicitNumberTag('float'), goNumberTag);
    } else out.push(t);
  }
  return out;
};

const PARSE_OPTIONS = {
  version: '1.1' as const,
  customTags: goTags,
  uniqueKeys: true,
  prettyErrors: true,
  merge: true,
  intAsBigInt: false,
};

/** Where a piece of text came from, for error messages ("modules/values.yaml", "ConfigMap key 'global'"). */
export type SourceName = string;

function yamlError(source: SourceName, doc: Document.Parsed, text: string): UserError | undefined {
  const err = doc.errors[0];
  if (!err) return undefined;
  const pos = err.linePos?.[0];
  const where = pos ? `${source}:${pos.line}:${pos.col}` : source;
  // the parser runs out of stack on collections nested a few hundred deep: say so, not how
  if (/Maximum call stack size exceeded/.test(err.message)) return new UserError(`invalid YAML in ${where}: collections nested too deeply`);
  // the library's first line ends "at line L, column C:" before its own frame: the position is in `where`
  const message = err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:$/, '');
  return new UserError(`invalid YAML in ${where}: ${message}${pos ? `\n${codeFrame(text, pos.line, pos.col)}` : ''}`);
}

/** The line `line` of `text` (and the one before it) numbered, with a caret under column `col`. */
export function codeFrame(text: string, line: number, col: number): string {
  const lines = text.split(/\r?\n/);
  const width = String(line).length;
  const out: string[] = [];
  for (let n = Math.max(1, line - 1); n <= line; n++) out.push(`  ${String(n).padStart(width)} | ${lines[n - 1] ?? ''}`.trimEnd());
  // tabs kept so that the caret lines up under a tab-indented line
  const indent = (lines[line - 1] ?? '').slice(0, col - 1).replace(/[^\t]/g, ' ');
  out.push(`  ${' '.repeat(width)} | ${indent}^`);
  return out.join('\n');
}

/** How many alias expansions a document may make (the yaml library's resource-exhaustion guard). */
const MAX_ALIAS_COUNT = 1000;

function docToData(doc: Document.Parsed, source: SourceName, text: string): unknown {
  const err = yamlError(source, doc, text);
  if (err) throw err;
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (e) {
    // the library's "Excessive alias count ..." (an alias bomb) and the like: say which input
    if (e instanceof Error && /alias/i.test(e.message)) {
      throw new UserError(`invalid YAML in ${source}: too many aliases (more than ${MAX_ALIAS_COUNT} expansions): refused as a possible alias bomb`);
    }
    throw e;
  }
  return toJsonData(raw, source);
}

export interface ParseYamlOptions {
  /**
   * `error` (the default) refuses a repeated map key; `last` keeps the later one, as Go's
   * sigs.k8s.io/yaml (yaml.v2, not strict) does when it reads OpenAPI schema files.
   */
  duplicateKeys?: 'error' | 'last';
  /** Read only the first document of a stream, as Go's yaml.Unmarshal does; later ones are ignored. */
  firstDocument?: boolean;
}

const LAST_KEY_WINS = { ...PARSE_OPTIONS, uniqueKeys: false };

/** Parses one YAML document. An empty document gives `null`. */
export function parseYaml(text: string, source: SourceName, options: ParseYamlOptions = {}): unknown {
  // plain block YAML (rendered manifests, values files) is read directly; the rest by the library
  const fast = parseSimpleYaml(text, resolveGoNumber, options.duplicateKeys === 'last');
  if (fast !== UNSUPPORTED) return fast;
  return parseYamlFully(text, source, options);
}

/** parseYaml through the yaml library alone (what the fast reader must agree with). */
export function parseYamlFully(text: string, source: SourceName, options: ParseYamlOptions = {}): unknown {
  const opts = options.duplicateKeys === 'last' ? LAST_KEY_WINS : PARSE_OPTIONS;
  if (options.firstDocument) {
    const docs = parseAllDocuments(text, opts);
    const first = Array.isArray(docs) ? docs[0] : undefined;
    return first ? docToData(first, source, text) : null;
  }
  return docToData(parseDocument(text, opts), source, text);
}

/** Parses a multi-document stream; empty documents are dropped. */
export function parseYamlDocuments(text: string, source: SourceName): unknown[] {
  // one document of plain block YAML (a values.yaml): the fast reader, which leaves text with
  // document markers or directives to the library
  const fast = parseSimpleYaml(text, resolveGoNumber, false);
  if (fast !== UNSUPPORTED) return fast === null || fast === undefined ? [] : [fast];
  const docs = parseAllDocuments(text, PARSE_OPTIONS);
  if (!Array.isArray(docs)) {
    // the library returns an EmptyStream for empty input
    return [];
  }
  const out: unknown[] = [];
  for (const doc of docs) {
    const data = docToData(doc, source, text);
    if (data !== null && data !== undefined) out.push(data);
  }
  return out;
}

/** Line (1-based) of a top-level or nested key path in a YAML text, for pointing errors at files. */
export function lineOfPath(text: string, path: readonly (string | number)[]): number | undefined {
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, PARSE_OPTIONS);
  } catch {
    return undefined;
  }
  let node: unknown = doc.contents;
  let range: [number, number, number] | undefined = (node as Node | null)?.range ?? undefined;
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key));
      if (!pair) break;
      range = (pair.key as Node).range ?? range;
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number') {
      node = node.items[key];
      range = (node as Node | undefined)?.range ?? range;
    } else {
      break;
    }
  }
  if (!range) return undefined;
  return text.slice(0, range[0]).split('\n').length;
}
