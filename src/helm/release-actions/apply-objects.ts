/**
 * Applies a release's manifest objects as Helm's kube client creates them: consecutive objects of
 * one kind together (at most `applyConcurrency` in flight), each kind after the one before it in
 * install order. A kind with failures stops the release there, every failed object named.
 */
import { mapLimit } from '../../util/pool.js';
import type { Manifest } from '../manifests.js';
import { apiMessage, manifestObjects, type ManifestObject, type PlacedObject } from '../objects.js';
import type { Release } from '../release-record.js';
import { ownership, type ReleaseContext } from './context.js';
import { placeAfterCrd } from './crds.js';

/** Objects in runs of one kind, in their order (Helm's `batchPerform`). */
function kindBatches(objects: readonly ManifestObject[]): ManifestObject[][] {
  const out: ManifestObject[][] = [];
  for (const o of objects) {
    const last = out.at(-1);
    if (last && last[0]!.kind === o.kind) last.push(o);
    else out.push([o]);
  }
  return out;
}

/** The release's objects applied kind by kind, returned as placed; `crdsInstalled`: kinds may still be coming up. */
export async function applyReleaseObjects(ctx: ReleaseContext, record: Release, manifests: readonly Manifest[], crdsInstalled = false): Promise<PlacedObject[]> {
  const extra = ownership(record.name, record.namespace);
  let appliedCrd = crdsInstalled;
  const applied: PlacedObject[] = [];
  for (const batch of kindBatches(manifestObjects(manifests))) {
    const afterCrd = appliedCrd;
    const failures = await mapLimit(batch, ctx.applyConcurrency, async (o) => {
      try {
        const placed = afterCrd ? await placeAfterCrd(ctx.objects, o, record.namespace) : await ctx.objects.placeOrFail(o, record.namespace);
        await ctx.objects.apply(placed, extra);
        applied.push(placed);
        if (placed.info.kind === 'CustomResourceDefinition') appliedCrd = true;
        return undefined;
      } catch (e) {
        return { o, e };
      }
    });
    const failed = failures.filter((f) => f !== undefined);
    if (!failed.length) continue;
    const what = failed.map(({ o, e }) => `applying ${o.kind} ${o.namespace || record.namespace}/${o.name} (${o.source}) failed: ${apiMessage(e)}`);
    throw new Error(`release ${record.name}: ${what.join('; ')}`, { cause: failed[0]!.e });
  }
  return applied;
}
