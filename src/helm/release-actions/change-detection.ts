/**
 * Whether a module run has anything to do, decided from what does not move between runs: a digest of
 * the release's inputs (every file of the chart and of its subcharts as loaded, the values, the
 * module's CRD files, the extra labels; the cluster's version and API versions when a template reads
 * `.Capabilities`). Rendered text is not
 * used: `randAlphaNum`, `genCA`, `uuidv4` or `lookup` answers differ on every render. The digest is
 * kept on each revision (release label `moduleChecksum`, where the Go operator keeps its own; older Go
 * operators kept it in the values).
 */
import { createHash, type Hash } from 'node:crypto';
import { checksumJson, type JsonObject } from '../../util/json.js';
import type { Capabilities } from '../capabilities.js';
import type { Chart } from '../chart.js';
import type { Release } from '../release-record.js';
import type { ModuleCrdFile } from './crds.js';

/** Release label with the checksum, and the value key older Go operators kept it under. */
export const CHECKSUM_LABEL = 'moduleChecksum';
const LEGACY_CHECKSUM_VALUE = '_addonOperatorModuleChecksum';

export interface ReleaseInputs {
  chart: Chart;
  values: JsonObject;
  moduleCrds: ModuleCrdFile[];
  extraLabels: Record<string, string>;
  capabilities: Capabilities;
}

/** A field of the digest: its name, its length and its bytes, so that no two inputs run together. */
function field(h: Hash, name: string, data: string | Buffer): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  h.update(`${name}\0${bytes.length}\0`);
  h.update(bytes);
}

function chartFields(h: Hash, c: Chart, path: string): void {
  field(h, `${path}Chart.yaml`, JSON.stringify(c.metadata));
  field(h, `${path}values.yaml`, checksumJson(c.values));
  if (c.schema) field(h, `${path}values.schema.json`, c.schema);
  for (const f of c.templates) field(h, `${path}${f.name}`, f.data);
  for (const f of c.files) field(h, `${path}${f.name}`, f.data);
  for (const d of c.dependencies) chartFields(h, d, `${path}charts/${d.metadata.name}/`);
}

/** The digest of a release's inputs (hex md5: a label value holds at most 63 characters). */
export function inputsDigest(inputs: ReleaseInputs): string {
  const h = createHash('md5');
  chartFields(h, inputs.chart, '');
  field(h, 'values', checksumJson(inputs.values));
  for (const f of inputs.moduleCrds) field(h, `module/${f.path}`, f.text);
  field(h, 'extraLabels', checksumJson(inputs.extraLabels));
  if (readsCapabilities(inputs.chart)) {
    field(h, 'kubeVersion', inputs.capabilities.KubeVersion.Version);
    field(h, 'apiVersions', [...inputs.capabilities.APIVersions.list].sort().join('\n'));
  }
  return h.digest('hex');
}

/** Whether a template of the chart or of a subchart names `.Capabilities` (then the cluster's APIs are an input). */
function readsCapabilities(c: Chart): boolean {
  return c.templates.some((t) => t.data.includes('Capabilities')) || c.dependencies.some(readsCapabilities);
}

export function storedChecksum(r: Release): string | undefined {
  const legacy = r.config?.[LEGACY_CHECKSUM_VALUE];
  return r.labels[CHECKSUM_LABEL] ?? (typeof legacy === 'string' ? legacy : undefined);
}
