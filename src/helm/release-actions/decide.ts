/**
 * Decides which action a module run needs (helm-controller's state piece, the lesson of its
 * atomic_release.go): from the release's history, the checksum of what would be released now and
 * the presence of the deployed objects, either nothing (`unchanged`) or an install or an upgrade,
 * with the render that action applies. A revision left pending by an operation that never finished
 * (the operator stopped) has its record dropped first, as the Go operator does; a last revision
 * that is not `deployed` is upgraded (the Go operator's shouldRunHelmUpgrade).
 */
import type { Chart } from '../chart.js';
import type { RenderResult } from '../render.js';
import { isPending, type Release } from '../release-record.js';
import type { ReleaseRenderer, ReleaseRenderInput } from '../release-render.js';
import type { ReleaseContext } from './context.js';
import { moduleCrdFiles, type ModuleCrdFile } from './crds.js';
import { readsRevision, releaseChecksum, storedChecksum } from './change-detection.js';

export type ModuleRunPlan =
  | { action: 'unchanged'; deployed: Release }
  | {
      action: 'install' | 'upgrade';
      /** The history as it stands (pending records dropped), oldest first. */
      history: Release[];
      /** The last revision, and the last deployed one (the same or older; none on an install). */
      previous?: Release;
      deployed?: Release;
      revision: number;
      checksum: string;
      rendered: RenderResult;
      /** The module's crds/ files (`module` CRD mode). */
      moduleCrds: ModuleCrdFile[];
    };

export interface DecideInput extends ReleaseRenderInput {
  chartDir: string;
}

export interface DecideDeps {
  renderer: ReleaseRenderer;
  /** The deployed revision's objects missing from the cluster (the monitor's view, or read). */
  absent: (deployed: Release) => Promise<string[]>;
  /** Marks the end of a timed step. */
  step: (operation: 'template' | 'check-upgrade') => void;
}

export async function decideModuleRun(ctx: ReleaseContext, deps: DecideDeps, chart: Chart, req: DecideInput): Promise<ModuleRunPlan> {
  const { release: name, namespace, values } = req;
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

  // `lookup` reads the cluster: both renders share the answers
  const lookup = deps.renderer.newLookup();
  const probe = await deps.renderer.probe(chart, req, lookup);
  deps.step('template');
  // the module's CRD files count as the release's content (a changed file is applied by the next run)
  const moduleCrds = ctx.crdMode === 'module' ? moduleCrdFiles(req.chartDir) : [];
  const checksum = releaseChecksum(values, probe.manifest, moduleCrds);
  if (unexpected) ctx.log.info(`release ${name}: revision ${unexpected.version} is ${unexpected.info.status}, not deployed: upgrading`);
  else if (previous && previous === deployed && storedChecksum(deployed) === checksum) {
    const absent = await deps.absent(deployed);
    deps.step('check-upgrade');
    if (absent.length === 0) return { action: 'unchanged', deployed };
    ctx.log.info(`release ${name}: ${absent.length} object(s) absent (${absent.slice(0, 3).join(', ')}${absent.length > 3 ? ', ...' : ''}), upgrading`);
  }

  const revision = (previous?.version ?? 0) + 1;
  // the probe is the release's render unless the chart can see the revision or the install/upgrade flag
  const rendered = readsRevision(chart, values) ? await deps.renderer.forAction(chart, req, lookup, { isUpgrade: previous !== undefined, revision }) : probe;
  return { action: previous ? 'upgrade' : 'install', history, ...(previous ? { previous } : {}), ...(deployed ? { deployed } : {}), revision, checksum, rendered, moduleCrds };
}
