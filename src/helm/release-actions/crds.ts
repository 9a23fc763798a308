/**
 * The CRDs action: a chart's CustomResourceDefinitions before its hooks and objects, and before the
 * render, so that `.Capabilities` sees them (Helm's install order). As Helm installs crds/ (`helm`
 * mode): the CRDs of the chart's and every kept subchart's crds/ (after conditions and tags,
 * recursively, Helm's Chart.CRDObjects order) that are absent are created, those that exist are
 * never changed, none is deleted with the release. As the Go operator's ModuleEnsureCRDs does
 * (`module` mode): each CRD of the module's crds/ files is created or updated, with the extra labels;
 * the subcharts' crds/ are installed Helm's way. A CRD just created or applied is waited for
 * (Established, then its kind served in discovery, the REST mapper refreshed) up to a bound.
 */
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { extname, join } from 'node:path';
import { KindNotServedError } from '../../kube/mapper.js';
import type { JsonObject } from '../../util/json.js';
import { crdObjects, type Chart, type CrdFile } from '../chart.js';
import { splitManifests } from '../manifests.js';
import { apiMessage, manifestObjects, type ClusterObjects, type ManifestObject, type PlacedObject } from '../objects.js';
import { processDependencies } from '../values.js';
import type { ReleaseContext } from './context.js';

/** How long a custom resource waits for the CRD applied before it in the same release. */
const CRD_WAIT_MS = 15_000;
/** How long a CRD of crds/ is waited for (Helm's 60 s). */
export const CRD_READY_MS = 60_000;

/** The Go operator's `--crd-filters` default: crd files whose name starts with these are skipped. */
const CRD_FILTER_PREFIXES = ['doc-', '_'];

export type ModuleCrdFile = { path: string; text: string };

/** The `.yaml` files under the module's crds/ as the Go operator lists them (getCRDsFromPath), in walk order. */
export function moduleCrdFiles(moduleDir: string): ModuleCrdFile[] {
  const out: ModuleCrdFile[] = [];
  const walk = (dir: string, rel: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // no crds/
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full, `${rel}/${e.name}`);
      else if (extname(e.name) === '.yaml' && !CRD_FILTER_PREFIXES.some((p) => e.name.startsWith(p))) out.push({ path: `${rel}/${e.name}`, text: readFileSync(full, 'utf8') });
    }
  };
  walk(join(moduleDir, 'crds'), 'crds');
  return out;
}

export interface ReleaseCrdsInput {
  release: string;
  values: JsonObject;
  /** Helm's `SkipCRDs` (`helm` mode only). */
  skipCrds?: boolean;
  /** The module's crds/ files (`module` mode). */
  moduleCrds: ModuleCrdFile[];
}

/**
 * The CRDs of one install or upgrade, by the context's mode; waits until each one created or applied
 * is served. True when there was one (the caller forgets cached capabilities, and custom resources
 * may still wait for a CRD of templates/).
 */
export async function installReleaseCrds(ctx: ReleaseContext, chart: Chart, req: ReleaseCrdsInput): Promise<boolean> {
  const kept = processDependencies(chart, req.values);
  const touched: { placed: PlacedObject; source: string }[] = [];
  if (ctx.crdMode === 'module') {
    touched.push(...(await ensureModuleCrds(ctx, req.moduleCrds, req.release)));
    touched.push(...(await installChartCrds(ctx, kept.dependencies.flatMap(crdObjects), req.release)));
  } else if (!req.skipCrds) {
    touched.push(...(await installChartCrds(ctx, crdObjects(kept), req.release)));
  }
  for (const t of touched) await waitUntilServed(ctx, t.placed, t.source, req.release);
  return touched.length > 0;
}

/** Helm's install of crds/ files: the absent ones created; those created. */
async function installChartCrds(ctx: ReleaseContext, crds: readonly CrdFile[], release: string): Promise<{ placed: PlacedObject; source: string }[]> {
  const created: { placed: PlacedObject; source: string }[] = [];
  for (const file of crds) {
    const docs = splitManifests(file.data.toString('utf8')).map((content) => ({ name: file.filename, content }));
    for (const o of manifestObjects(docs)) {
      const placed = await ctx.objects.placeOrFail(o, '');
      if (await ctx.objects.exists(placed)) continue;
      try {
        await ctx.objects.apply(placed, { labels: {}, annotations: {} });
      } catch (e) {
        throw new Error(`release ${release}: installing ${o.kind} ${o.name} (${o.source}) failed: ${apiMessage(e)}`, { cause: e });
      }
      ctx.log.info(`release ${release}: ${o.kind} ${o.name} installed from ${o.source}`);
      created.push({ placed, source: o.source });
    }
  }
  return created;
}

/** The CRDs ModuleEnsureCRDs applied: their names, and `group/version/Kind` of each version they declare. */
export interface EnsuredCrds {
  crds: string[];
  apiVersions: string[];
}

/**
 * The Go operator's ModuleEnsureCRDs task ahead of a converge: the CRDs of the module directory's crds/
 * files created or updated and waited for until served.
 */
export async function ensureModuleCrdsNow(ctx: ReleaseContext, moduleDir: string, release: string): Promise<EnsuredCrds> {
  const touched = await ensureModuleCrds(ctx, moduleCrdFiles(moduleDir), release);
  for (const t of touched) await waitUntilServed(ctx, t.placed, t.source, release);
  return { crds: touched.map((t) => t.placed.name), apiVersions: touched.flatMap((t) => crdApiVersions(t.object)) };
}

/** `group/version/Kind` for each version of the CRD's spec.versions (module-sdk's crd-installer GetAppliedGVKs). */
function crdApiVersions(crd: Record<string, unknown>): string[] {
  const spec = (crd.spec ?? {}) as CrdStatus['spec'] & { versions?: { name?: string }[] };
  const group = spec?.group ?? '';
  const kind = spec?.names?.kind ?? '';
  return (spec?.versions ?? []).map((v) => `${group}/${v.name ?? ''}/${kind}`);
}

/** The Go operator's ModuleEnsureCRDs: each CRD of the module's crd files created or updated; those applied. */
async function ensureModuleCrds(ctx: ReleaseContext, files: ModuleCrdFile[], release: string): Promise<{ placed: PlacedObject; source: string; object: Record<string, unknown> }[]> {
  const applied: { placed: PlacedObject; source: string; object: Record<string, unknown> }[] = [];
  for (const file of files) {
    const docs = splitManifests(file.text).map((content) => ({ name: file.path, content }));
    for (const o of manifestObjects(docs)) {
      if (o.kind !== 'CustomResourceDefinition') continue;
      const placed = await ctx.objects.placeOrFail(o, '');
      try {
        await ctx.objects.apply(placed, { labels: { ...ctx.extraLabels }, annotations: {} });
      } catch (e) {
        throw new Error(`release ${release}: applying ${o.kind} ${o.name} (${o.source}) failed: ${apiMessage(e)}`, { cause: e });
      }
      applied.push({ placed, source: o.source, object: o.object });
    }
  }
  return applied;
}

interface CrdStatus {
  spec?: { group?: string; names?: { kind?: string }; versions?: { name?: string; served?: boolean }[] };
  status?: { conditions?: { type?: string; status?: string }[] };
}

/**
 * Waits until the CRD is Established and its kind is served in discovery (the mapper refreshes
 * after a miss), polling, up to `ctx.crdReadyMs`; then a clear error naming the CRD.
 */
async function waitUntilServed(ctx: ReleaseContext, crd: PlacedObject, source: string, release: string): Promise<void> {
  const deadline = Date.now() + ctx.crdReadyMs;
  for (;;) {
    let missing: string;
    const live = (await ctx.objects.get(crd)) as CrdStatus | undefined;
    if (live) {
      const established = live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
      const group = live.spec?.group ?? '';
      const kind = live.spec?.names?.kind ?? '';
      const version = live.spec?.versions?.find((v) => v.served)?.name;
      if (!established) missing = 'condition Established is not True';
      else if (!version) missing = `no version of kind ${kind} is served`;
      else {
        const probe = { source, object: {}, apiVersion: `${group}/${version}`, kind, name: '', namespace: '', annotations: {} } satisfies ManifestObject;
        if (await ctx.objects.place(probe, '')) return;
        missing = `kind ${kind} (${group}/${version}) is not served by the API server`;
      }
    } else missing = 'it is gone';
    if (Date.now() >= deadline) {
      throw new Error(`release ${release}: CustomResourceDefinition ${crd.name} (${source}) is not ready after ${Math.round(ctx.crdReadyMs / 1000)} s: ${missing}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Places an object whose kind a CRD of this same release may define, waiting a few seconds for it to be served. */
export async function placeAfterCrd(objects: ClusterObjects, o: ManifestObject, namespace: string): Promise<PlacedObject> {
  const deadline = Date.now() + CRD_WAIT_MS;
  for (;;) {
    try {
      return await objects.placeOrFail(o, namespace);
    } catch (e) {
      if (!(e instanceof KindNotServedError) || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
