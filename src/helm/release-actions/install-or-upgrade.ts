/**
 * The install-or-upgrade action (`helm upgrade --install` once decided that something changed and
 * rendered, the CRDs installed before): a new revision recorded pending, the pre hooks, the objects applied kind by kind, the
 * objects of replaced revisions pruned, the post hooks, then the revision deployed and the one
 * before superseded. A failure records the revision as failed with Helm's description and throws.
 */
import type { PlacedObject } from '../objects.js';
import type { RenderResult } from '../render.js';
import { APPLY_METHOD_SSA, goTime, storedChart, storedHook, type Release } from '../release-record.js';
import type { JsonObject } from '../../util/json.js';
import type { ReleaseContext } from './context.js';
import { applyReleaseObjects } from './apply-objects.js';
import { CHECKSUM_LABEL } from './change-detection.js';
import { HelmHookFailure, runHookPhase } from './hook-phase.js';
import { pruneReplaced } from './prune.js';
import type { ReleaseActionPlan } from './decide.js';

export interface InstallOrUpgradeInput {
  release: string;
  namespace: string;
  values: JsonObject;
  /** Labels of this revision beside the context's (they win). */
  releaseLabels?: Record<string, string>;
}

/**
 * The deployed revision and the objects it applied. `settledChecksum`, when given, is asked once the
 * objects are applied for the digest the deployed revision keeps instead of the plan's (undefined:
 * the plan's stands).
 */
export async function installOrUpgrade(
  ctx: ReleaseContext,
  req: InstallOrUpgradeInput,
  plan: ReleaseActionPlan,
  rendered: RenderResult,
  crdsInstalled: boolean,
  settledChecksum?: (applied: PlacedObject[]) => Promise<string | undefined>,
): Promise<{ record: Release; applied: PlacedObject[] }> {
  const { release: name, namespace } = req;
  const { history, previous, deployed, revision, checksum } = plan;
  const record = newRecord(ctx, req, rendered, revision, checksum, deployed ?? previous, previous);
  if (ctx.historyMax > 0) await ctx.store.prune(name, namespace, ctx.historyMax - 1, history);
  await ctx.store.create(record);
  const upgrade = plan.action === 'upgrade';
  let applied: PlacedObject[];
  try {
    await runHookPhase(ctx.hooks, record, upgrade ? 'pre-upgrade' : 'pre-install');
    applied = await applyReleaseObjects(ctx, record, rendered.manifests, crdsInstalled);
    // objects of the replaced revisions that the chart no longer renders
    await pruneReplaced(ctx, [...new Set([deployed, previous])].filter((r): r is Release => r !== undefined), rendered.manifests, namespace);
    await runHookPhase(ctx.hooks, record, upgrade ? 'post-upgrade' : 'post-install');
  } catch (e) {
    // Helm's description carries its own text; the error thrown names the release
    const helmText = e instanceof HelmHookFailure ? e.helmText : (e as Error).message;
    record.info.status = 'failed';
    record.info.description = upgrade ? `Upgrade "${name}" failed: ${helmText}` : `Release "${name}" failed: ${helmText}`;
    await ctx.store.update(record).catch((err: unknown) => ctx.log.warn(`release ${name}: cannot record the failure: ${(err as Error).message}`));
    throw e;
  }
  if (deployed) {
    deployed.info.status = 'superseded';
    await ctx.store.update(deployed);
  }
  const settled = await settledChecksum?.(applied);
  if (settled) record.labels[CHECKSUM_LABEL] = settled;
  record.info.status = 'deployed';
  record.info.description = upgrade ? 'Upgrade complete' : 'Install complete';
  await ctx.store.update(record);
  return { record, applied };
}

function newRecord(ctx: ReleaseContext, req: InstallOrUpgradeInput, rendered: RenderResult, revision: number, checksum: string, before: Release | undefined, last: Release | undefined): Release {
  const now = goTime(ctx.now());
  return {
    name: req.release,
    namespace: req.namespace,
    version: revision,
    info: {
      first_deployed: before?.info.first_deployed || now,
      last_deployed: now,
      deleted: '',
      description: before ? 'Preparing upgrade' : 'Initial install underway',
      status: before ? 'pending-upgrade' : 'pending-install',
      notes: rendered.notes,
    },
    chart: storedChart(rendered.chart),
    config: req.values,
    manifest: rendered.manifest,
    hooks: rendered.hooks.map(storedHook),
    // Helm's mergeCustomLabels: the last revision's labels, then the new ones; "null" removes one
    labels: Object.fromEntries(Object.entries({ ...last?.labels, ...ctx.releaseLabels, ...req.releaseLabels, [CHECKSUM_LABEL]: checksum }).filter(([, v]) => v !== 'null')),
    // its objects are applied server-side: a Helm 4 upgrade of the release goes on with server-side apply
    apply_method: APPLY_METHOD_SSA,
  };
}
