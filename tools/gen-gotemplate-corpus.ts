// Generates test/gotemplate/corpus.json: the template engine's conformance corpus.
//
//   tools/gotemplate-ref/build.sh && GO=/usr/lib/go-1.23/bin/go tools/gotemplate-ref/build.sh
//   node --import tsx tools/gen-gotemplate-corpus.ts [--ref BIN] [--ref-go123 BIN] [--out FILE]
//        [--only PREFIX,...] [--allow-changed-ids]
//
// Ids are `${prefix}-NNN` in the order of each topic's list, so new cases go at the end of a topic.
// The generator refuses to write when a case id that is already in the output file would get a
// different template (a renumbering that would silently invalidate lists of known failures), unless
// --allow-changed-ids is given.
//
// The case inputs (templates and data, by topic) live in tools/gotemplate-corpus/. Every expected
// output is what the Go reference (tools/gotemplate-ref: real Go text/template, Sprig and Helm's
// functions) printed; nothing is written by hand. The reference runs twice and a case whose result
// differs between the runs (randomness, time) is left out. So is a case whose output is not valid
// UTF-8, which a JS string cannot hold.
//
// Go versions: the expected results are Go 1.19's (Debian bookworm's golang-go, the version of the
// public cases). The same inputs also run through a Go 1.23 build of the reference
// (bookworm-backports golang-1.23-go); a case whose result differs there gets the tag "go119" and a
// note with Go 1.23's result, and that result in `go123` (the conformance test checks the engine,
// which follows current Go, against it). Cases marked `go: '1.23'` (features Go 1.19 lacks, like {{else with}})
// take their expected result from Go 1.23 and carry the tag "go123". Range over an integer (Go 1.24)
// cases are tagged "go-range-int". Cases using functions whose library differs between Debian's
// Sprig 3.2.3 build and Helm 3.19's Sprig 3.3.0 (xstrings case conversion, mergo merges) are
// tagged "sprig-deps": their expected results are Helm 3.19's (see tools/gotemplate-ref/README.md,
// "Library versions"). An engine that follows Go 1.23+ runs the corpus with
// --skip-tag go119; one that follows Go 1.19 with --skip-tag go123.
//
// Output format (as /work/shared/template-cases/public-cases.json): a JSON array, one case a line,
// {id, source, template, data, expected} or, for errors,
// {id, source, template, data, error: true, expected: <Helm's message>, goError: <Go's message>,
//  errorKeywords: [...]} where errorKeywords are the innermost Go message and the template
// locations ("main:1:5"), each present in both Helm's and Go's message.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { topics } from './gotemplate-corpus/index.js';
import type { Topic } from './gotemplate-corpus/types.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface RefResult {
  id: string;
  output?: string;
  error?: string;
  goError?: string;
  phase?: string;
  invalidUtf8?: boolean;
  outputHex?: string;
}

interface CorpusCase {
  id: string;
  source: string;
  template: string;
  data: unknown;
  expected: string;
  error?: true;
  goError?: string;
  errorKeywords?: string[];
  tags?: string[];
  note?: string;
  /** For a "go119" case: what Go 1.23 gives (the engine follows current Go). */
  go123?: { expected: string; error?: true; goError?: string; errorKeywords?: string[] };
}

interface CaseToRun {
  id: string;
  source: string;
  template: string;
  data: unknown;
  note?: string;
  tags?: string[];
  keywords?: string[];
  go?: '1.23';
  go123?: CorpusCase['go123'];
}

function parseArgs(argv: string[]): {
  ref: string;
  ref123: string;
  out: string;
  only: string[] | null;
  allowChangedIds: boolean;
} {
  let allowChangedIds = false;
  let ref = resolve(root, 'tools/gotemplate-ref/bin/gotemplate-ref');
  let ref123 = resolve(root, 'tools/gotemplate-ref/bin/gotemplate-ref-go1.23');
  let out = resolve(root, 'test/gotemplate/corpus.json');
  let only: string[] | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--ref') ref = resolve(argv[++i] ?? '');
    else if (a === '--ref-go123') ref123 = resolve(argv[++i] ?? '');
    else if (a === '--out') out = resolve(argv[++i] ?? '');
    else if (a === '--only') only = (argv[++i] ?? '').split(',');
    else if (a === '--allow-changed-ids') allowChangedIds = true;
    else throw new Error(`unknown argument ${a}`);
  }
  return { ref, ref123, out, only, allowChangedIds };
}

function runReference(ref: string, input: unknown[]): Map<string, RefResult> {
  const res = spawnSync(ref, ['render'], {
    input: JSON.stringify(input),
    maxBuffer: 1 << 30,
    env: { ...process.env, TZ: 'UTC' },
  });
  if (res.error) throw new Error(`cannot run ${ref}: ${res.error.message} (build it with tools/gotemplate-ref/build.sh)`);
  if (res.status !== 0) throw new Error(`${ref} failed (${res.status}): ${res.stderr.toString()}`);
  const results = JSON.parse(res.stdout.toString()) as RefResult[];
  return new Map(results.map((x) => [x.id, x]));
}

const LOCATION = /\b(?:main|gotpl):\d+(?::\d+)?/g;
// One level of a text/template error: "template: main:1:3: executing "main" at <node>: ".
const LEVEL = /template: (?:main|gotpl):\d+(?::\d+)?: (?:executing "(?:[^"\\]|\\.)*" at <.*?>: )?/;

/** The key words a faithful error message must contain: Go's innermost message and locations. */
export function errorKeywords(goError: string, helm: string): string[] {
  const lower = helm.toLowerCase();
  const inBoth = (k: string): boolean =>
    k.length > 0 && lower.includes(k.toLowerCase()) && goError.toLowerCase().includes(k.toLowerCase());
  const keys: string[] = [];
  const plain = goError.replace(/HELM_ERR_START|HELM_ERR_END/g, '');
  const parts = plain.split(LEVEL);
  let msg = (parts[parts.length - 1] ?? '').trim();
  for (;;) {
    const m = /^error calling [^:\s]+: /.exec(msg);
    if (!m) break;
    msg = msg.slice(m[0].length);
  }
  while (msg && !inBoth(msg)) {
    const i = msg.indexOf(': ');
    msg = i < 0 ? '' : msg.slice(i + 2);
  }
  if (msg) keys.push(msg);
  for (const loc of goError.match(LOCATION) ?? []) {
    if (inBoth(loc) && !keys.includes(loc)) keys.push(loc);
  }
  return keys;
}

// Functions whose result depends on a library whose version differs between Debian (Sprig 3.2.3,
// xstrings 1.3.3, mergo 0.3.12) and Helm 3.19 (Sprig 3.3.0, xstrings 1.5.0, dario.cat/mergo 1.0.1).
// The reference gives camelcase and mergeOverwrite Helm 3.19's behaviour by hand
// (tools/gotemplate-ref/helm319.go); snakecase/kebabcase and merge are the same in both versions.
const DEP_SENSITIVE: [RegExp, string][] = [
  [
    /\b(snakecase|camelcase|kebabcase)\b/,
    "Helm 3.19's huandu/xstrings 1.5.0: camelcase by hand in tools/gotemplate-ref/helm319.go (Debian has 1.3.3), snakecase/kebabcase unchanged since 1.3.3",
  ],
  [
    /\b(merge|mergeOverwrite|mustMerge|mustMergeOverwrite)\b/,
    "Helm 3.19's dario.cat/mergo 1.0.1: its map-over-non-map rule by hand in tools/gotemplate-ref/helm319.go over Debian's mergo 0.3.12",
  ],
];

function sameResult(x: RefResult, y: RefResult): boolean {
  return x.output === y.output && x.error === y.error && x.invalidUtf8 === y.invalidUtf8;
}

function main(): void {
  const { ref, ref123, out, only, allowChangedIds } = parseArgs(process.argv.slice(2));
  const selected: Topic[] = only ? topics.filter((t) => only.includes(t.prefix)) : topics;
  const prefixes = new Set<string>();
  const inputs: CaseToRun[] = [];
  for (const topic of selected) {
    if (prefixes.has(topic.prefix)) throw new Error(`duplicate topic prefix ${topic.prefix}`);
    prefixes.add(topic.prefix);
    topic.cases.forEach((c, i) => {
      const id = `${topic.prefix}-${String(i + 1).padStart(3, '0')}`;
      const input = typeof c === 'string' ? { t: c } : c;
      const data = 'data' in input ? input.data : topic.data;
      inputs.push({
        id,
        source: topic.source,
        template: input.t,
        data: data ?? null,
        ...('note' in input && input.note ? { note: input.note } : {}),
        ...('tags' in input && input.tags ? { tags: input.tags } : {}),
        ...('keywords' in input && input.keywords ? { keywords: input.keywords } : {}),
        ...('go' in input && input.go ? { go: input.go } : {}),
      });
    });
  }
  const refInput = inputs.map(({ id, template, data }) => ({ id, template, data }));
  const first = runReference(ref, refInput);
  const second = runReference(ref, refInput);
  if (!existsSync(ref123)) {
    throw new Error(
      `${ref123} is missing: install golang-1.23-go (bookworm-backports) and run ` +
        'GO=/usr/lib/go-1.23/bin/go tools/gotemplate-ref/build.sh (see tools/gotemplate-ref/README.md)',
    );
  }
  const newer = runReference(ref123, refInput);
  const newer2 = runReference(ref123, refInput);

  const corpus: CorpusCase[] = [];
  const skipped: string[] = [];
  const perSource = new Map<string, { ok: number; err: number }>();
  for (const c of inputs) {
    const old1 = first.get(c.id);
    const old2 = second.get(c.id);
    const new1 = newer.get(c.id);
    const new2 = newer2.get(c.id);
    if (!old1 || !old2 || !new1 || !new2) throw new Error(`no result for ${c.id}`);
    if (JSON.stringify(old1) !== JSON.stringify(old2) || JSON.stringify(new1) !== JSON.stringify(new2)) {
      skipped.push(`${c.id}: not deterministic`);
      continue;
    }
    const a = c.go === '1.23' ? new1 : old1;
    if (c.go !== '1.23' && !sameResult(old1, new1)) {
      c.tags = [...(c.tags ?? []), 'go119'];
      const shown = new1.error !== undefined ? `error ${JSON.stringify(new1.error)}` : JSON.stringify(new1.output);
      c.note = `${c.note ? c.note + '; ' : ''}Go 1.19 result; Go 1.23 gives ${shown}`;
      if (new1.error !== undefined) {
        const goError = new1.goError ?? new1.error;
        c.go123 = { expected: new1.error, error: true, goError, errorKeywords: errorKeywords(goError, new1.error) };
      } else c.go123 = { expected: new1.output ?? '' };
    } else if (c.go === '1.23' && sameResult(old1, new1)) {
      throw new Error(`${c.id}: marked go 1.23 but Go 1.19 gives the same result`);
    }
    if (a.invalidUtf8) {
      skipped.push(`${c.id}: output is not valid UTF-8 (${a.outputHex?.slice(0, 40)})`);
      continue;
    }
    const stat = perSource.get(c.source) ?? { ok: 0, err: 0 };
    perSource.set(c.source, stat);
    for (const [re, lib] of DEP_SENSITIVE) {
      if (re.test(c.template) && !c.tags?.includes('sprig-deps')) {
        c.tags = [...(c.tags ?? []), 'sprig-deps'];
        c.note = `${c.note ? c.note + '; ' : ''}${lib}`;
      }
    }
    const base = { id: c.id, source: c.source, template: c.template, data: c.data };
    const extra = { ...(c.tags ? { tags: c.tags } : {}), ...(c.note ? { note: c.note } : {}), ...(c.go123 ? { go123: c.go123 } : {}) };
    if (a.error !== undefined) {
      const goError = a.goError ?? a.error;
      let words = errorKeywords(goError, a.error);
      if (c.keywords) {
        const missing = c.keywords.filter((k) => !a.error?.includes(k) || !goError.includes(k));
        if (missing.length) throw new Error(`${c.id}: keywords ${JSON.stringify(missing)} not in ${JSON.stringify(a.error)}`);
        words = c.keywords;
      }
      if (words.length === 0) skipped.push(`${c.id}: (kept) no error keyword found in ${JSON.stringify(a.error)}`);
      corpus.push({ ...base, error: true, expected: a.error, goError, errorKeywords: words, ...extra });
      stat.err++;
    } else {
      if (c.keywords) throw new Error(`${c.id}: keywords given but Go rendered ${JSON.stringify(a.output)}`);
      corpus.push({ ...base, expected: a.output ?? '', ...extra });
      stat.ok++;
    }
  }

  if (existsSync(out) && !allowChangedIds) {
    const before = new Map(
      (JSON.parse(readFileSync(out, 'utf8')) as CorpusCase[]).map((c) => [c.id, c.template] as const),
    );
    const changed = corpus.filter((c) => before.has(c.id) && before.get(c.id) !== c.template).map((c) => c.id);
    if (changed.length) {
      throw new Error(
        `${changed.length} existing ids would change template (${changed.slice(0, 10).join(', ')}...): ` +
          'add new cases at the end of a topic, or pass --allow-changed-ids',
      );
    }
  }
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, '[\n' + corpus.map((c) => JSON.stringify(c)).join(',\n') + '\n]\n');
  for (const [source, s] of perSource) console.log(`${source}: ${s.ok + s.err} (${s.err} errors)`);
  for (const s of skipped) console.log(`skipped ${s}`);
  console.log(`wrote ${corpus.length} cases to ${out}`);
}

main();
