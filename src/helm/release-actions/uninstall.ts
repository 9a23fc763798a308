/**
 * The uninstall action (`helm uninstall`): the last revision marked uninstalling, pre-delete hooks,
 * the objects of its manifest deleted in Helm's uninstall order (but `resource-policy: keep` ones),
 * post-delete hooks, then every revision's record purged (also when a post-delete hook failed, as
 * Helm does, which is then reported).
 */
import { apiMessage } from '../objects.js';
import { UNINSTALL_ORDER, sortByKind } from '../manifests.js';
import { goTime } from '../release-record.js';
import { KEEP_POLICY, placedObjects, type ReleaseContext } from './context.js';
import { HelmHookFailure, oneLine, runHookPhase } from './hook-phase.js';

/** False when there was no release. */
export async function uninstallRelease(ctx: ReleaseContext, name: string, namespace: string): Promise<boolean> {
  const history = await ctx.store.history(name, namespace);
  const last = history.at(-1);
  if (!last) return false;
  last.info.status = 'uninstalling';
  last.info.deleted = goTime(ctx.now());
  last.info.description = 'Deletion in progress (or silently failed)';
  await ctx.store.update(last);
  await runHookPhase(ctx.hooks, last, 'pre-delete');
  const placed = sortByKind(await placedObjects(ctx.objects, last.manifest, namespace), (p) => p.info.kind, UNINSTALL_ORDER);
  for (const p of placed) {
    if (p.annotations[KEEP_POLICY] === 'keep') continue;
    try {
      await ctx.objects.delete(p);
    } catch (e) {
      throw new Error(`release ${name}: deleting ${p.label} failed: ${apiMessage(e)}`, { cause: e });
    }
  }
  const errors: HelmHookFailure[] = [];
  await runHookPhase(ctx.hooks, last, 'post-delete').catch((e: unknown) => {
    if (!(e instanceof HelmHookFailure)) throw e;
    errors.push(e);
  });
  for (const r of history) await ctx.store.delete(name, namespace, r.version);
  if (errors.length) throw new Error(`release ${name}: uninstallation completed with ${errors.length} error(s): ${errors.map((e) => oneLine(e.helmText)).join('; ')}`, { cause: errors[0] });
  ctx.log.info(`release ${name}: uninstalled`);
  return true;
}
