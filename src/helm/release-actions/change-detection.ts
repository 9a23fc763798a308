/**
 * Whether a module run has anything to do: the checksum a release revision carries (release label
 * `moduleChecksum`, where the Go operator keeps its own; older Go operators kept it in the values)
 * and whether a render may depend on the revision, so that the checksum render can stand for the
 * release's render.
 */
import { checksumJson, type JsonObject } from '../../util/json.js';
import type { Chart } from '../chart.js';
import type { Release } from '../release-record.js';
import type { ModuleCrdFile } from './crds.js';

/** Release label with the checksum, and the value key older Go operators kept it under. */
export const CHECKSUM_LABEL = 'moduleChecksum';
const LEGACY_CHECKSUM_VALUE = '_addonOperatorModuleChecksum';

/** The checksum of the values and the rendered manifest, and of the module's CRD files when it has some. */
export function releaseChecksum(values: JsonObject, manifest: string, moduleCrds: ModuleCrdFile[]): string {
  return checksumJson(moduleCrds.length ? { values, manifest, crds: moduleCrds } : { values, manifest });
}

export function storedChecksum(r: Release): string | undefined {
  const legacy = r.config?.[LEGACY_CHECKSUM_VALUE];
  return r.labels[CHECKSUM_LABEL] ?? (typeof legacy === 'string' ? legacy : undefined);
}

/** `.Release` other than Name, Namespace and Service (Revision, IsUpgrade, IsInstall, or the whole object). */
const RELEASE_FIELDS = /Release(?!\.(?:Name|Namespace|Service)\b)/;

/**
 * Whether a render may depend on the revision: some template, file or value (through `tpl`) names
 * `.Release` other than its name, namespace or service. Conservative: any other mention counts.
 */
export function readsRevision(chart: Chart, values: JsonObject): boolean {
  const charts = [chart];
  for (let i = 0; i < charts.length; i++) {
    const c = charts[i]!;
    if (c.templates.some((t) => RELEASE_FIELDS.test(t.data.toString('utf8')))) return true;
    if (c.files.some((f) => RELEASE_FIELDS.test(f.data.toString('utf8')))) return true;
    if (RELEASE_FIELDS.test(JSON.stringify(c.values ?? {}))) return true;
    charts.push(...c.dependencies);
  }
  return RELEASE_FIELDS.test(JSON.stringify(values));
}
