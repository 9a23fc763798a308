/**
 * The Go operator's post-renderer (pkg/helm/post_renderer): `--crd-extra-labels` set on every
 * manifest document before Helm applies and stores it, so the release manifest is what was applied
 * (hooks and crds/ are not post-rendered, as in Helm 3.19). As kyaml's SetLabels does it: the
 * document's labels with the extra ones over them, every value a string, sorted by key, written as
 * `labels:` at the end of `metadata`; the documents joined by `---` without a leading one.
 *
 * The rest of each document is kept as rendered (kyaml re-emits it in its own style: same data).
 * Values are quoted when YAML 1.1 would read them as something else (`"true"`, `"1"`, `"yes"`), so
 * Helm's and our readers get strings back. A document whose metadata is not a block mapping is
 * written out again from its data (sigs.k8s.io/yaml style).
 */
import { isMap, isScalar, parseDocument, type Pair, type Scalar } from 'yaml';
import { marshalYAML } from '../gotemplate/yaml.js';
import { isPlainObject, sortKeysGo, type JsonObject, type JsonValue } from '../util/json.js';
import type { Manifest } from './manifests.js';

/** The release manifest of post-rendered documents: kyaml's StringAll of them. */
export function postRenderedManifest(manifests: readonly Pick<Manifest, 'name' | 'content'>[]): string {
  return manifests.map((m) => `# Source: ${m.name}\n${m.content}\n`).join('---\n');
}

/** The manifests with `labels` set on each (a copy; unchanged when there are none). */
export function postRender<M extends Manifest>(manifests: readonly M[], labels: Record<string, string>): M[] {
  if (!Object.keys(labels).length) return [...manifests];
  return manifests.map((m) => withLabels(m, labels));
}

function withLabels<M extends Manifest>(m: M, extra: Record<string, string>): M {
  if (!isPlainObject((m.data ?? null) as JsonValue)) return m; // an empty document: nothing to label
  const data = m.data as JsonObject;
  const edit = scannedMetadata(m.content, data) ?? blockMetadata(m.content);
  const labels = sortedLabels({ ...(edit?.labels ?? stringLabels(data)), ...extra });
  const meta = (isPlainObject((data.metadata ?? null) as JsonValue) ? data.metadata : {}) as JsonObject;
  const { labels: _old, ...rest } = meta;
  const newData: JsonObject = { ...data, metadata: { ...rest, labels } };
  return { ...m, data: newData, content: edit ? withLabelsBlock(edit, labels) : marshalYAML(newData).trimEnd() };
}

/** The document of `edit` with a `labels:` block of `labels` where it goes. */
export function withLabelsBlock(edit: MetadataEdit, labels: Record<string, string>): string {
  const pad = ' '.repeat(edit.indent);
  let block = `${pad}labels:\n`;
  for (const k in labels) block += `${pad}  ${labelLine(k, labels[k]!)}`;
  const s = edit.without;
  const content = s.slice(0, edit.insertAt) + (edit.insertAt > 0 && s[edit.insertAt - 1] !== '\n' ? '\n' : '') + block + s.slice(edit.insertAt);
  return content.endsWith('\n') ? content.slice(0, -1) : content;
}

/** `key: value` as marshalYAML writes the pair, remembered: a release's documents share most labels. */
const labelLines = new Map<string, string>();

function labelLine(k: string, v: string): string {
  const key = `${k}\0${v}`;
  let line = labelLines.get(key);
  if (line === undefined) {
    if (labelLines.size >= 4096) labelLines.clear();
    line = marshalYAML({ [k]: v });
    labelLines.set(key, line);
  }
  return line;
}

const sortedLabels = (labels: Record<string, string>): Record<string, string> => Object.fromEntries(sortKeysGo(Object.keys(labels)).map((k) => [k, labels[k]!]));

/** The labels of parsed data as strings (used when the document is written out again). */
function stringLabels(data: JsonObject): Record<string, string> {
  const meta = data.metadata;
  const labels = isPlainObject((meta ?? null) as JsonValue) ? (meta as JsonObject).labels : undefined;
  if (!isPlainObject((labels ?? null) as JsonValue)) return {};
  return Object.fromEntries(Object.entries(labels as JsonObject).map(([k, v]) => [k, v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)]));
}

export interface MetadataEdit {
  /** The document without its `labels:` entry. */
  without: string;
  /** Where the new `labels:` lines go in `without`: after the last entry of metadata. */
  insertAt: number;
  /** Column of metadata's keys. */
  indent: number;
  /** The document's labels, each value as written (kyaml's GetLabels). */
  labels: Record<string, string>;
}

const lineStart = (s: string, pos: number): number => s.lastIndexOf('\n', pos - 1) + 1;
const lineEnd = (s: string, pos: number): number => {
  if (pos > 0 && s[pos - 1] === '\n') return pos;
  const nl = s.indexOf('\n', pos);
  return nl < 0 ? s.length : nl + 1;
};

/** A scalar as kyaml's GetValue reads it: its text as written for plain scalars, its value when quoted. */
function scalarText(node: Scalar, text: string): string {
  if (node.type === 'PLAIN') return text.slice(node.range![0], node.range![1]);
  return String(node.value ?? '');
}

const BLANK = /^[ \t]*$/;
const SIMPLE_ENTRY = /^( +)([A-Za-z0-9][-A-Za-z0-9_./]*):(?:[ \t]+(.*))?$/;
const indentOf = (l: string) => l.length - l.trimStart().length;

/**
 * blockMetadata's answer found by scanning lines, for the common layout (parsing each document
 * again cost the fleet's 3,000 objects about a second of CPU): one top-level block `metadata:`
 * mapping without comments, labels (when any) a block of one-line entries whose parsed values are
 * all strings. Undefined for any other layout, which blockMetadata then reads.
 */
export function scannedMetadata(text: string, data: JsonObject): MetadataEdit | undefined {
  const meta = data.metadata;
  if (!isPlainObject((meta ?? null) as JsonValue)) return undefined;
  // the text is not split into lines: only metadata's lines are looked at, the rest is kept as a slice
  const at = metadataLine(text);
  if (at < 0) return undefined;
  const nl = text.indexOf('\n', at);
  if (nl < 0) return undefined;
  for (let q = text.indexOf('\nmetadata', nl); q >= 0; q = text.indexOf('\nmetadata', q + 1)) {
    LATER_METADATA.lastIndex = q + 1;
    if (LATER_METADATA.test(text)) return undefined;
  }
  // metadata's lines: from the line after `metadata:` while they are indented or blank
  const body: string[] = [];
  let tail: string | undefined; // the text after them, when any
  for (let from = nl + 1; ; ) {
    const eol = text.indexOf('\n', from);
    const line = text.slice(from, eol < 0 ? text.length : eol);
    if (!line.startsWith(' ') && !BLANK.test(line)) {
      tail = text.slice(from);
      break;
    }
    body.push(line);
    if (eol < 0) break;
    from = eol + 1;
  }
  if (body.some((l) => /^\s*#/.test(l))) return undefined;
  const first = body.find((l) => !BLANK.test(l));
  if (!first) return undefined;
  const indent = indentOf(first);
  if (body.some((l) => !BLANK.test(l) && indentOf(l) < indent)) return undefined;
  // metadata's own keys are the lines at `indent`; deeper lines belong to them
  const keys = body.flatMap((l, i) => (!BLANK.test(l) && indentOf(l) === indent ? [i] : []));
  const labelsAt = keys.find((i) => /^labels[ \t]*:/.test(body[i]!.slice(indent)));
  const parsed = (meta as JsonObject).labels;
  const labels: Record<string, string> = {};
  let without = body;
  if (labelsAt !== undefined) {
    if (!/^labels:[ \t]*$/.test(body[labelsAt]!.slice(indent))) return undefined; // flow style, or a value on its line
    if (!isPlainObject((parsed ?? null) as JsonValue)) return undefined;
    let last = (keys.find((i) => i > labelsAt) ?? body.length) - 1; // the labels' last line that is not blank
    while (last > labelsAt && BLANK.test(body[last]!)) last--;
    const entries = body.slice(labelsAt + 1, last + 1).filter((l) => !BLANK.test(l));
    if (entries.length !== Object.keys(parsed as JsonObject).length) return undefined;
    for (const l of entries) {
      const e = SIMPLE_ENTRY.exec(l);
      const v = e ? (parsed as JsonObject)[e[2]!] : undefined;
      if (!e || e[1]!.length !== indentOf(entries[0]!) || typeof v !== 'string' || !e[3] || /^[|>&*!{[]/.test(e[3])) return undefined;
      labels[e[2]!] = v;
    }
    without = [...body.slice(0, labelsAt), ...body.slice(last + 1)];
  } else if (parsed !== undefined) return undefined;
  // the new labels go after metadata's last line that is not blank
  let last = without.length;
  while (last > 0 && BLANK.test(without[last - 1]!)) last--;
  if (last === 0) return undefined; // only labels: blockMetadata puts the new ones where they were
  const head = text.slice(0, nl + 1);
  const kept = without.slice(0, last).map((l) => l + '\n').join('');
  const blankAfter = without.slice(last).join('\n');
  const rest = last < without.length && tail !== undefined ? `${blankAfter}\n${tail}` : last < without.length ? blankAfter : (tail ?? '');
  return { without: head + kept + rest, insertAt: head.length + kept.length, indent, labels };
}

const METADATA_LINE = /metadata:[ \t]*(?:\n|$)/y;
const LATER_METADATA = /metadata[ \t]*:/y;

/** Where the first line that is `metadata:` alone starts, or -1. */
function metadataLine(text: string): number {
  for (let p = 0; p >= 0; ) {
    if (text.startsWith('metadata:', p)) {
      METADATA_LINE.lastIndex = p;
      if (METADATA_LINE.test(text)) return p;
    }
    const q = text.indexOf('\nmetadata:', p);
    p = q < 0 ? -1 : q + 1;
  }
  return -1;
}

/** Where the labels of a document with block-style metadata are, or undefined to write the document out again. */
export function blockMetadata(text: string): MetadataEdit | undefined {
  let doc;
  try {
    doc = parseDocument(text, { version: '1.1', uniqueKeys: false });
  } catch {
    return undefined;
  }
  if (doc.errors.length || !isMap(doc.contents) || doc.contents.flow) return undefined;
  const key = (p: Pair) => (isScalar(p.key) ? String(p.key.value) : undefined);
  const metadata = doc.contents.items.find((p) => key(p) === 'metadata');
  if (!metadata || !isMap(metadata.value) || metadata.value.flow || !metadata.value.items.length) return undefined;
  const items = metadata.value.items as Pair[];
  const labelsPair = items.find((p) => key(p) === 'labels');
  const others = items.filter((p) => p !== labelsPair);
  const labels: Record<string, string> = {};
  if (labelsPair && isMap(labelsPair.value)) {
    for (const p of labelsPair.value.items as Pair[]) {
      if (!isScalar(p.key)) return undefined;
      labels[String(p.key.value)] = isScalar(p.value) ? scalarText(p.value, text) : '';
    }
  }
  const first = items[0]!.key as Scalar;
  const indent = first.range![0] - lineStart(text, first.range![0]);
  const endOf = (p: Pair) => lineEnd(text, ((p.value as Scalar | null)?.range ?? (p.key as Scalar).range)![1]);
  let without = text;
  let insertAt = others.length ? endOf(others.at(-1)!) : endOf(labelsPair!);
  if (labelsPair) {
    const from = lineStart(text, (labelsPair.key as Scalar).range![0]);
    const to = endOf(labelsPair);
    without = text.slice(0, from) + text.slice(to);
    if (insertAt >= to) insertAt -= to - from;
    else if (insertAt > from) insertAt = from;
  }
  return { without, insertAt, indent, labels };
}
