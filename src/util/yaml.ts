/**
 * YAML the way Go's yaml libraries read it (YAML 1.1: `on`/`yes`/`0777` ...), producing plain JSON
 * data. Timestamps stay strings (Go's map[string]interface{} decoding keeps them as strings when
 * values are re-encoded through JSON, as Helm and addon-operator do).
 */
import { parseAllDocuments, parseDocument, isMap, isSeq, isScalar, type Document, type Node } from 'yaml';
import { UserError } from './errors.js';
import { toJsonData } from './json.js';

type TagFilter = (tags: any[]) => any[];
const dropTimestamps: TagFilter = (tags) =>
  tags.filter((t) => t.tag !== 'tag:yaml.org,2002:timestamp' && t.format !== 'TIME');

const PARSE_OPTIONS = {
  version: '1.1' as const,
  customTags: dropTimestamps,
  uniqueKeys: true,
  prettyErrors: true,
  merge: true,
  intAsBigInt: false,
};

/** Where a piece of text came from, for error messages ("modules/values.yaml", "ConfigMap key 'global'"). */
export type SourceName = string;

function yamlError(source: SourceName, doc: Document.Parsed): UserError | undefined {
  const err = doc.errors[0];
  if (!err) return undefined;
  const pos = err.linePos?.[0];
  const where = pos ? `${source}:${pos.line}:${pos.col}` : source;
  const firstLine = err.message.split('\n')[0];
  return new UserError(`invalid YAML in ${where}: ${firstLine}`);
}

function docToData(doc: Document.Parsed, source: SourceName): unknown {
  const err = yamlError(source, doc);
  if (err) throw err;
  const raw = doc.toJS({ maxAliasCount: 1000 }) as unknown;
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
  const opts = options.duplicateKeys === 'last' ? LAST_KEY_WINS : PARSE_OPTIONS;
  if (options.firstDocument) {
    const docs = parseAllDocuments(text, opts);
    const first = Array.isArray(docs) ? docs[0] : undefined;
    return first ? docToData(first, source) : null;
  }
  return docToData(parseDocument(text, opts), source);
}

/** Parses a multi-document stream; empty documents are dropped. */
export function parseYamlDocuments(text: string, source: SourceName): unknown[] {
  const docs = parseAllDocuments(text, PARSE_OPTIONS);
  if (!Array.isArray(docs)) {
    // the library returns an EmptyStream for empty input
    return [];
  }
  const out: unknown[] = [];
  for (const doc of docs) {
    const data = docToData(doc, source);
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
