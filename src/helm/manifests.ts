/**
 * Rendered files → manifests, as Helm's releaseutil does it: split each file into YAML documents,
 * tell hooks (`helm.sh/hook`) from plain manifests, and sort both by kind in InstallOrder, keeping
 * file order (sorted paths, then document order) within a kind.
 */
import { YAMLError, parseYAMLAsJSON } from '../gotemplate/yaml.js';
import { posix } from 'node:path';
import { isPlainObject, type JsonValue } from '../util/json.js';
import { parseYaml } from '../util/yaml.js';

export const INSTALL_ORDER = [
  'PriorityClass',
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
];

export const UNINSTALL_ORDER = [
  'APIService',
  'Ingress',
  'IngressClass',
  'Service',
  'CronJob',
  'Job',
  'StatefulSet',
  'HorizontalPodAutoscaler',
  'Deployment',
  'ReplicaSet',
  'ReplicationController',
  'Pod',
  'DaemonSet',
  'RoleBindingList',
  'RoleBinding',
  'RoleList',
  'Role',
  'ClusterRoleBindingList',
  'ClusterRoleBinding',
  'ClusterRoleList',
  'ClusterRole',
  'CustomResourceDefinition',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'StorageClass',
  'ConfigMap',
  'SecretList',
  'Secret',
  'ServiceAccount',
  'PodDisruptionBudget',
  'PodSecurityPolicy',
  'LimitRange',
  'ResourceQuota',
  'NetworkPolicy',
  'Namespace',
  'PriorityClass',
];

/** releaseutil.SimpleHead: what Helm reads of every document. */
export interface ManifestHead {
  apiVersion: string;
  kind: string;
  name: string;
  annotations: Record<string, string>;
}

/** One rendered document: `name` is its template path (`chart/templates/x.yaml`). */
export interface Manifest {
  name: string;
  content: string;
  head: ManifestHead;
  /** The parsed document (read once for the head; the release engine applies it as it is). */
  data?: JsonValue;
}

export type HookEvent =
  | 'pre-install'
  | 'post-install'
  | 'pre-delete'
  | 'post-delete'
  | 'pre-upgrade'
  | 'post-upgrade'
  | 'pre-rollback'
  | 'post-rollback'
  | 'test';

const HOOK_EVENTS: Record<string, HookEvent> = {
  'pre-install': 'pre-install',
  'post-install': 'post-install',
  'pre-delete': 'pre-delete',
  'post-delete': 'post-delete',
  'pre-upgrade': 'pre-upgrade',
  'post-upgrade': 'post-upgrade',
  'pre-rollback': 'pre-rollback',
  'post-rollback': 'post-rollback',
  test: 'test',
  'test-success': 'test', // Helm 2 name
};

/** release.Hook as Helm builds it from a rendered document. */
export interface Hook {
  name: string;
  kind: string;
  path: string;
  manifest: string;
  events: HookEvent[];
  weight: number;
  deletePolicies: string[];
}

const HOOK_ANNOTATION = 'helm.sh/hook';
const HOOK_WEIGHT_ANNOTATION = 'helm.sh/hook-weight';
const HOOK_DELETE_ANNOTATION = 'helm.sh/hook-delete-policy';

/** Go's unicode.IsSpace (JS's \s also has U+FEFF and lacks U+0085). */
function isGoSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** Go's regexp \s: [\t\n\f\r ]. */
const isRegexpSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

/** Go's strings.TrimSpace, by a scan from each end (a regular expression backtracks on long white space runs). */
export function goTrimSpace(s: string): string {
  let beg = 0;
  let end = s.length;
  while (beg < end && isGoSpace(s.charCodeAt(beg))) beg++;
  while (end > beg && isGoSpace(s.charCodeAt(end - 1))) end--;
  return beg === 0 && end === s.length ? s : s.slice(beg, end);
}

/**
 * The matches of Helm's separator `(?:^|\s*\n)---\s*` as Go's regexp finds them (leftmost, not
 * overlapping), by searching `\n---` and widening it over the white space around: linear, where the
 * expression costs the square of each indentation's length.
 */
function* separators(s: string): Generator<[start: number, end: number]> {
  const after = (i: number) => {
    while (i < s.length && isRegexpSpace(s.charCodeAt(i))) i++;
    return i;
  };
  let from = 0;
  if (s.startsWith('---')) {
    from = after(3);
    yield [0, from];
  }
  for (;;) {
    const nl = s.indexOf('\n---', from);
    if (nl < 0) return;
    let start = nl;
    while (start > from && isRegexpSpace(s.charCodeAt(start - 1))) start--;
    const end = after(nl + 4);
    yield [start, end];
    from = end;
  }
}

/** releaseutil.SplitManifests: the documents of a file, trimmed, empty ones dropped. */
export function splitManifests(text: string): string[] {
  const s = goTrimSpace(text);
  const docs: string[] = [];
  let beg = 0;
  let end = 0;
  for (const [start, stop] of separators(s)) {
    end = start;
    docs.push(s.slice(beg, end));
    beg = stop;
  }
  if (end !== s.length) docs.push(s.slice(beg));
  return docs.filter((d) => d !== '').map(goTrimSpace);
}

/** The JSON kind Go's decoder names in its errors. */
const jsonKind = (v: JsonValue): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v);

/** Parses a document once: its head and its data; throws Helm's "YAML parse error on FILE: ..." */
function parseDocumentHead(doc: string, file: string): { head: ManifestHead; data: JsonValue } {
  const data = parseManifestYaml(doc, file);
  return { head: headOf(data, file), data };
}

function parseManifestYaml(doc: string, file: string): JsonValue {
  let data: JsonValue;
  try {
    data = parseYaml(doc, file) as JsonValue;
  } catch (e) {
    // Helm's text is sigs.k8s.io/yaml's (yaml.v2 through JSON)
    let message = (e as Error).message.replace(/^invalid YAML in /, '');
    try {
      parseYAMLAsJSON(doc);
    } catch (goErr) {
      if (goErr instanceof YAMLError) message = goErr.message;
    }
    throw new Error(`YAML parse error on ${file}: ${message}`, { cause: e });
  }
  return data;
}

function headOf(data: JsonValue, file: string): ManifestHead {
  const fail = (what: string): never => {
    throw new Error(`YAML parse error on ${file}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${what}`);
  };
  if (data === null) return { apiVersion: '', kind: '', name: '', annotations: {} };
  if (!isPlainObject(data)) fail(`${jsonKind(data)} into Go value of type releaseutil.SimpleHead`);
  const obj = data as Record<string, JsonValue>;
  const str = (v: JsonValue | undefined, field: string): string => {
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') fail(`${jsonKind(v)} into Go struct field SimpleHead.${field} of type string`);
    return v as string;
  };
  const meta = obj.metadata;
  if (meta !== undefined && meta !== null && !isPlainObject(meta)) fail(`${jsonKind(meta)} into Go struct field SimpleHead.metadata of type struct`);
  const m = (meta ?? {}) as Record<string, JsonValue>;
  const annotations: Record<string, string> = {};
  if (m.annotations !== undefined && m.annotations !== null) {
    if (!isPlainObject(m.annotations)) fail(`${jsonKind(m.annotations)} into Go struct field SimpleHead.metadata.annotations of type map[string]string`);
    for (const [k, v] of Object.entries(m.annotations as Record<string, JsonValue>)) annotations[k] = str(v, 'metadata.annotations');
  }
  return { apiVersion: str(obj.apiVersion, 'apiVersion'), kind: str(obj.kind, 'kind'), name: str(m.name, 'metadata.name'), annotations };
}

function kindLess(a: string, b: string, order: readonly string[]): boolean {
  const first = order.indexOf(a);
  const second = order.indexOf(b);
  if (first < 0 && second < 0) return a !== b && a < b;
  if (first < 0) return false;
  if (second < 0) return true;
  return first < second;
}

/** Helm's sort.SliceStable by kind. */
export function sortByKind<T>(items: readonly T[], kindOf: (t: T) => string, order: readonly string[]): T[] {
  return items
    .map((item, i) => ({ item, i }))
    .sort((x, y) => {
      const kx = kindOf(x.item);
      const ky = kindOf(y.item);
      if (kindLess(kx, ky, order)) return -1;
      if (kindLess(ky, kx, order)) return 1;
      return x.i - y.i;
    })
    .map((x) => x.item);
}

const goStringLess = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * releaseutil.SortManifests: files (path → rendered text) into hooks and manifests, both sorted by
 * kind in `order`. Partials (`_*`) and empty files are skipped; unknown hook types are dropped.
 */
export function sortManifests(files: Record<string, string>, order: readonly string[], warn: (m: string) => void = () => {}): { hooks: Hook[]; manifests: Manifest[] } {
  const hooks: Hook[] = [];
  const manifests: Manifest[] = [];
  for (const path of Object.keys(files).sort(goStringLess)) {
    const content = files[path]!;
    if (posix.basename(path).startsWith('_') || goTrimSpace(content) === '') continue;
    for (const doc of splitManifests(content)) {
      const { head, data } = parseDocumentHead(doc, path);
      const hookTypes = head.annotations[HOOK_ANNOTATION];
      if (hookTypes === undefined) {
        manifests.push({ name: path, content: doc, head, data });
        continue;
      }
      const weight = head.annotations[HOOK_WEIGHT_ANNOTATION] ?? '';
      const events: HookEvent[] = [];
      let unknown = false;
      for (const t of hookTypes.split(',')) {
        const e = HOOK_EVENTS[t.trim().toLowerCase()];
        if (!e) {
          unknown = true;
          break;
        }
        events.push(e);
      }
      if (unknown) {
        warn(`info: skipping unknown hook: ${JSON.stringify(hookTypes)}`);
        continue;
      }
      const policies = head.annotations[HOOK_DELETE_ANNOTATION];
      hooks.push({
        name: head.name,
        kind: head.kind,
        path,
        manifest: doc,
        events,
        weight: /^[+-]?\d+$/.test(weight) ? Number(weight) : 0, // strconv.Atoi, 0 when it fails
        deletePolicies: policies === undefined ? [] : policies.split(',').map((p) => p.trim().toLowerCase()),
      });
    }
  }
  return { hooks: sortByKind(hooks, (h) => h.kind, order), manifests: sortByKind(manifests, (m) => m.head.kind, order) };
}

/** One `---\n# Source: PATH\nDOC\n` block, as Helm writes manifests. */
export const sourceBlock = (path: string, doc: string): string => `---\n# Source: ${path}\n${doc}\n`;

/** The documents of a release manifest with the template path of each (from its `# Source:` line). */
export function releaseDocuments(manifest: string): { path: string; doc: string }[] {
  return splitManifests(manifest).map((doc) => {
    const m = /^# Source: (.*)\n?/.exec(doc);
    return m ? { path: m[1]!, doc: doc.slice(m[0].length) } : { path: '', doc };
  });
}
