/**
 * The prune action: after an upgrade, the objects of the replaced revisions that the chart no
 * longer renders are deleted (but `resource-policy: keep` ones), as Helm's upgrade deletes them.
 */
import { mapLimit } from '../../util/pool.js';
import { apiMessage, manifestObjects, type PlacedObject } from '../objects.js';
import type { Manifest } from '../manifests.js';
import type { Release } from '../release-record.js';
import { KEEP_POLICY, placedObjects, type ReleaseContext } from './context.js';

export async function pruneReplaced(ctx: ReleaseContext, olds: readonly Release[], manifests: readonly Manifest[], namespace: string): Promise<void> {
  if (!olds.length) return;
  const placed = await mapLimit(manifestObjects(manifests), 8, (o) => ctx.objects.place(o, namespace));
  const keep = new Set(placed.filter((p): p is PlacedObject => p !== undefined).map((p) => p.key));
  const seen = new Set<string>();
  for (const old of olds) {
    for (const p of await placedObjects(ctx.objects, old.manifest, namespace)) {
      if (keep.has(p.key) || seen.has(p.key)) continue;
      seen.add(p.key);
      if (p.annotations[KEEP_POLICY] === 'keep') continue;
      try {
        if (await ctx.objects.delete(p)) ctx.log.info(`release ${old.name}: deleted ${p.label}, no longer in the chart`);
      } catch (e) {
        throw new Error(`release ${old.name}: deleting ${p.label} failed: ${apiMessage(e)}`, { cause: e });
      }
    }
  }
}
