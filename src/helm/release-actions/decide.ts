/**
 * Decides which action a module run needs (helm-controller's state piece, the lesson of its
 * atomic_release.go): from the release's history, the digest of its inputs (change-detection.ts) and
 * the presence of the deployed objects, either nothing (`unchanged`), an install (no revision yet) or
 * an upgrade, before anything is rendered. A revision left pending by an operation that never
 * finished (the operator stopped) has its record dropped first, as the Go operator does; a last
 * revision that is not `deployed` is upgraded (the Go operator's shouldRunHelmUpgrade).
 */
import { isPending, type Release } from '../release-record.js';
import type { ReleaseContext } from './context.js';
import { moduleCrdFiles, type ModuleCrdFile } from './crds.js';
import { inputsDigest, storedChecksum, type ReleaseInputs } from './change-detection.js';

export type ModuleRunPlan = { action: 'unchanged'; deployed: Release } | ReleaseActionPlan;

export interface ReleaseActionPlan {
  action: 'install' | 'upgrade';
  /** The history as it stands (pending records dropped), oldest first. */
  history: Release[];
  /** The last revision, and the last deployed one (the same or older; none on an install). */
  previous?: Release;
  deployed?: Release;
  /** The new revision's number; the render sees it as `.Release.Revision`. */
  revision: number;
  /** The inputs digest the new revision carries. */
  checksum: string;
  /** The module's crds/ files (`module` CRD mode). */
  moduleCrds: ModuleCrdFile[];
}

export interface DecideInput extends Omit<ReleaseInputs, 'moduleCrds' | 'extraLabels'> {
  release: string;
  namespace: string;
  chartDir: string;
  /** False: upgrade the deployed revision even when nothing changed (a release label to change). */
  keep?: (deployed: Release) => boolean;
}

/** `absent`: the deployed revision's objects missing from the cluster (the monitor's view, or read). */
export async function decideModuleRun(ctx: ReleaseContext, req: DecideInput, absent: (deployed: Release) => Promise<string[]>): Promise<ModuleRunPlan> {
  const { release: name, namespace } = req;
  let history = await ctx.store.history(name, namespace);
  const last = history.at(-1);
  const unexpected = last && last.info.status !== 'deployed' ? last : undefined;
  if (last && isPending(last.info.status)) {
    ctx.log.warn(`release ${name}: revision ${last.version} is ${last.info.status}, removing its record`);
    await ctx.store.delete(name, namespace, last.version);
    history = history.slice(0, -1);
  }
  const previous = history.at(-1);
  const deployed = history.filter((r) => r.info.status === 'deployed').at(-1);
  const moduleCrds = ctx.crdMode === 'module' ? moduleCrdFiles(req.chartDir) : [];
  const checksum = inputsDigest({ chart: req.chart, values: req.values, capabilities: req.capabilities, moduleCrds, extraLabels: ctx.extraLabels });
  if (unexpected) ctx.log.info(`release ${name}: revision ${unexpected.version} is ${unexpected.info.status}, not deployed: upgrading`);
  else if (previous && previous === deployed && storedChecksum(deployed) === checksum && (req.keep?.(deployed) ?? true)) {
    const missing = await absent(deployed);
    if (missing.length === 0) return { action: 'unchanged', deployed };
    ctx.log.info(`release ${name}: ${missing.length} object(s) absent (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}), upgrading`);
  }
  return {
    action: previous ? 'upgrade' : 'install',
    history,
    ...(previous ? { previous } : {}),
    ...(deployed ? { deployed } : {}),
    revision: (previous?.version ?? 0) + 1,
    checksum,
    moduleCrds,
  };
}
