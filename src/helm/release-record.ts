/**
 * Helm 3's release record (helm.sh/helm/v3 pkg/release) and its storage encoding
 * (pkg/storage/driver/util.go): JSON with Helm's field names, gzip, base64. The JSON keeps Go's
 * struct field order; maps are written with sorted keys and Go's HTML escaping. Helm 4's record
 * (helm.sh/helm/v4 pkg/release/v1) adds `apply_method` last: `ssa` for server-side apply, `csa` or
 * absent for client-side; Helm 3 ignores it.
 */
import { gunzipSync, gzipSync, constants } from 'node:zlib';
import { goJsonStringify, type JsonObject } from '../util/json.js';
import type { Chart, ChartFile } from './chart.js';
import { METADATA_FIELD_ORDER, type ChartMetadata } from './metadata.js';
import type { Hook } from './manifests.js';

export type ReleaseStatus =
  | 'unknown'
  | 'deployed'
  | 'uninstalled'
  | 'superseded'
  | 'failed'
  | 'uninstalling'
  | 'pending-install'
  | 'pending-upgrade'
  | 'pending-rollback';

export const isPending = (s: ReleaseStatus): boolean => s.startsWith('pending-');

/** Times are kept as Go writes them (RFC 3339 with nanoseconds, trailing zeros trimmed); "" is Go's zero time. */
export interface ReleaseInfo {
  first_deployed: string;
  last_deployed: string;
  deleted: string;
  description?: string;
  status: ReleaseStatus;
  notes?: string;
}

export interface StoredFile {
  name: string;
  /** base64 */
  data: string;
}

/** chart.Chart as stored: metadata, lock, templates, values, schema, files (subcharts are not stored). */
export interface StoredChart {
  metadata: ChartMetadata;
  lock: unknown;
  templates: StoredFile[] | null;
  values: JsonObject | null;
  schema: string | null;
  files: StoredFile[] | null;
}

export interface StoredHook {
  name?: string;
  kind?: string;
  path?: string;
  manifest?: string;
  events?: string[];
  last_run?: { started_at: string; completed_at: string; phase: string };
  weight?: number;
  delete_policies?: string[];
}

export interface Release {
  name: string;
  info: ReleaseInfo;
  chart?: StoredChart;
  /** The values given to the install/upgrade (Helm's "user-supplied values"). */
  config?: JsonObject;
  manifest?: string;
  hooks?: StoredHook[];
  version: number;
  namespace: string;
  /** Custom release labels: stored as labels of the storage Secret, not in the JSON. */
  labels: Record<string, string>;
  /** Helm 4's `apply_method`: `ssa` (what this operator writes: it applies server-side), `csa`; absent: client-side. */
  apply_method?: string;
}

/** Helm 4's ApplyMethodServerSideApply, written in every record this operator makes. */
export const APPLY_METHOD_SSA = 'ssa';

/** Go's time.Time JSON text of a JS date (UTC). */
export function goTime(d: Date): string {
  return d.toISOString().replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac ? `.${frac}Z` : 'Z'));
}

const storedFile = (f: ChartFile): StoredFile => ({ name: f.name, data: f.data.toString('base64') });

/** The chart part of a release, as Helm stores the chart it installed. */
export function storedChart(c: Chart): StoredChart {
  return {
    metadata: c.metadata,
    lock: null,
    templates: c.templates.map(storedFile),
    values: c.values,
    schema: c.schema ? c.schema.toString('base64') : null,
    files: c.files.map(storedFile),
  };
}

export function storedHook(h: Hook): StoredHook {
  return {
    name: h.name,
    kind: h.kind,
    path: h.path,
    manifest: h.manifest,
    events: h.events,
    last_run: { started_at: '', completed_at: '', phase: '' },
    weight: h.weight,
    delete_policies: h.deletePolicies,
  };
}

type Field = [key: string, value: unknown, omitEmpty?: boolean];

const isEmpty = (v: unknown): boolean =>
  v === undefined || v === null || v === '' || v === 0 || v === false || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && Object.keys(v as object).length === 0);

/** A Go struct's JSON: fields in order, `omitempty` ones left out when empty, values as Go writes them. */
function struct(fields: Field[]): string {
  const parts = fields
    .filter(([, v, omit]) => v !== undefined && !(omit && isEmpty(v)))
    .map(([k, v]) => `${JSON.stringify(k)}:${v instanceof RawJson ? v.text : goJsonStringify(v)}`);
  return `{${parts.join(',')}}`;
}

class RawJson {
  constructor(readonly text: string) {}
}

function metadataJson(md: ChartMetadata): RawJson {
  const known = new Set<string>(METADATA_FIELD_ORDER);
  const fields: Field[] = METADATA_FIELD_ORDER.map((k) => [k, (md as unknown as Record<string, unknown>)[k], true]);
  // keep whatever a newer Helm wrote that we do not know
  for (const [k, v] of Object.entries(md)) if (!known.has(k)) fields.push([k, v, true]);
  return new RawJson(struct(fields));
}

const lastRunJson = (l: NonNullable<StoredHook['last_run']>): RawJson =>
  new RawJson(
    struct([
      ['started_at', l.started_at],
      ['completed_at', l.completed_at],
      ['phase', l.phase],
    ]),
  );

/** The release as Helm's json.Marshal writes it. */
function releaseJson(r: Release): string {
  const info = struct([
    ['first_deployed', r.info.first_deployed],
    ['last_deployed', r.info.last_deployed],
    ['deleted', r.info.deleted],
    ['description', r.info.description, true],
    ['status', r.info.status, true],
    ['notes', r.info.notes, true],
  ]);
  const chart = r.chart
    ? struct([
        ['metadata', metadataJson(r.chart.metadata)],
        ['lock', r.chart.lock ?? null],
        ['templates', r.chart.templates],
        ['values', r.chart.values],
        ['schema', r.chart.schema],
        ['files', r.chart.files],
      ])
    : undefined;
  const hooks = r.hooks?.map(
    (h) =>
      new RawJson(
        struct([
          ['name', h.name, true],
          ['kind', h.kind, true],
          ['path', h.path, true],
          ['manifest', h.manifest, true],
          ['events', h.events, true],
          ['last_run', lastRunJson(h.last_run ?? { started_at: '', completed_at: '', phase: '' })],
          ['weight', h.weight, true],
          ['delete_policies', h.delete_policies, true],
        ]),
      ),
  );
  return struct([
    ['name', r.name, true],
    ['info', new RawJson(info)],
    ['chart', chart === undefined ? undefined : new RawJson(chart)],
    ['config', r.config, true],
    ['manifest', r.manifest, true],
    ['hooks', hooks?.length ? new RawJson(`[${hooks.map((h) => h.text).join(',')}]`) : undefined, true],
    ['version', r.version, true],
    ['namespace', r.namespace, true],
    ['apply_method', r.apply_method, true],
  ]);
}

/** encodeRelease: base64(gzip(JSON)), gzip at best compression as Helm writes it. */
export function encodeRelease(r: Release): string {
  return gzipSync(Buffer.from(releaseJson(r)), { level: constants.Z_BEST_COMPRESSION }).toString('base64');
}

/** decodeRelease: base64, gunzip when gzip-compressed (older releases are not), JSON. */
export function decodeRelease(data: string, labels: Record<string, string> = {}): Release {
  const raw = Buffer.from(data, 'base64');
  const b = raw.length > 3 && raw[0] === 0x1f && raw[1] === 0x8b && raw[2] === 0x08 ? gunzipSync(raw) : raw;
  const r = JSON.parse(b.toString('utf8')) as Partial<Release> & { info?: Partial<ReleaseInfo> };
  return {
    ...r,
    name: r.name ?? '',
    info: { first_deployed: '', last_deployed: '', deleted: '', ...r.info, status: r.info?.status ?? 'unknown' },
    version: r.version ?? 0,
    namespace: r.namespace ?? '',
    labels,
  };
}
