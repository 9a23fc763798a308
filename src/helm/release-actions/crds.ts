/**
 * The CRDs action: a chart's CustomResourceDefinitions before its hooks and objects. As Helm installs
 * crds/ (`helm` mode): a CRD that is absent is created, one that exists is never changed, none is
 * deleted with the release. As the Go operator's ModuleEnsureCRDs does (`module` mode): each CRD of
 * the module's crds/ files is created or updated, with the extra labels. A kind a CRD of the same
 * release defines may take a moment to be served: `placeAfterCrd` waits for it.
 */
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { extname, join } from 'node:path';
import { KindNotServedError } from '../../kube/mapper.js';
import type { CrdFile } from '../chart.js';
import { splitManifests } from '../manifests.js';
import { apiMessage, manifestObjects, type ClusterObjects, type ManifestObject, type PlacedObject } from '../objects.js';
import type { ReleaseContext } from './context.js';

/** How long a custom resource waits for the CRD applied before it in the same release. */
const CRD_WAIT_MS = 15_000;

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

/** Helm's install of crds/ files (the chart's and its subcharts'): absent ones created. True when one was created. */
export async function installChartCrds(ctx: ReleaseContext, crds: readonly CrdFile[], release: string): Promise<boolean> {
  let installed = false;
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
      installed = true;
    }
  }
  return installed;
}

/** The Go operator's ModuleEnsureCRDs: each CRD of the module's crd files created or updated. True when there was one. */
export async function ensureModuleCrds(ctx: ReleaseContext, files: ModuleCrdFile[], release: string): Promise<boolean> {
  let applied = false;
  for (const file of files) {
    const docs = splitManifests(file.text).map((content) => ({ name: file.path, content }));
    for (const o of manifestObjects(docs)) {
      if (o.kind !== 'CustomResourceDefinition') continue;
      try {
        await ctx.objects.apply(await ctx.objects.placeOrFail(o, ''), { labels: { ...ctx.extraLabels }, annotations: {} });
      } catch (e) {
        throw new Error(`release ${release}: applying ${o.kind} ${o.name} (${o.source}) failed: ${apiMessage(e)}`, { cause: e });
      }
      applied = true;
    }
  }
  return applied;
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
