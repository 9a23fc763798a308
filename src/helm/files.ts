/**
 * `.Files` in templates: Helm's engine.files, a map[string][]byte with methods. Modelled as a
 * null-prototype object whose enumerable properties are the files (so `range .Files`, `len` and
 * `.Files.name` behave as on a Go map) and whose methods are non-enumerable own properties (so the
 * template engine calls them, as Go's method lookup comes before the map lookup).
 */
import { posix } from 'node:path';
import { marshalYAML, withGoType } from '../gotemplate/index.js';
import { fromUtf8 } from '../gotemplate/values.js';
import { gobwasPattern } from './patterns.js';
import type { ChartFile } from './chart.js';

export type TemplateFiles = Record<string, Uint8Array>;

/** Helm's toYAML: yaml.Marshal without the final newline. */
const toYAML = (v: unknown): string => {
  try {
    return marshalYAML(v).replace(/\n$/, '');
  } catch {
    return '';
  }
};

function makeFiles(entries: Iterable<readonly [string, Uint8Array]>): TemplateFiles {
  const files = Object.create(null) as TemplateFiles;
  for (const [name, data] of entries) files[name] = data;
  const list = () => Object.keys(files).map((k) => [k, files[k]!] as const);
  const methods: Record<string, (...a: unknown[]) => unknown> = {
    GetBytes: (name) => files[String(name)] ?? new Uint8Array(0),
    Get: (name) => fromUtf8(files[String(name)] ?? new Uint8Array(0)),
    Glob: (pattern) => {
      const re = gobwasPattern(String(pattern)) ?? /^.*$/s;
      return makeFiles(list().filter(([k]) => re.test(k)));
    },
    AsConfig: () => toYAML(Object.fromEntries(list().map(([k, v]) => [posix.basename(k), fromUtf8(v)]))),
    AsSecrets: () => toYAML(Object.fromEntries(list().map(([k, v]) => [posix.basename(k), Buffer.from(v).toString('base64')]))),
    Lines: (path) => {
      const data = files[String(path)];
      if (!data) return withGoType([], '[]string');
      let s = fromUtf8(data);
      if (s === '') throw new Error('runtime error: index out of range [-1]');
      if (s.endsWith('\n')) s = s.slice(0, -1);
      return withGoType(s.split('\n'), '[]string');
    },
  };
  for (const [name, fn] of Object.entries(methods)) Object.defineProperty(files, name, { value: fn, enumerable: false });
  return withGoType(files, 'engine.files');
}

/** The `.Files` of a chart: every non-template file, by its chart-relative name. */
export function templateFiles(files: readonly ChartFile[]): TemplateFiles {
  return makeFiles(files.map((f) => [f.name, new Uint8Array(f.data.buffer, f.data.byteOffset, f.data.length)]));
}
