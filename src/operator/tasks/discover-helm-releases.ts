/** DiscoverHelmReleases (after the first converge, LIFECYCLE-STEPS step 7): releases in the namespace that no enabled module owns are purged. */
import { TaskResults } from '../../queue/index.js';
import { makeTask } from '../task-meta.js';
import type { TaskHandler } from './shared.js';

export const discoverHelmReleases: TaskHandler<'DiscoverHelmReleases'> = async (rt) => {
  const releases = await rt.opts.helm.listReleases(rt.opts.namespace);
  const enabled = new Set(rt.manager.enabledModules);
  const purge = releases.filter((r) => !enabled.has(r) && r !== rt.opts.helmIgnoreRelease).sort().reverse();
  return TaskResults.success({ afterTasks: purge.map((release) => makeTask({ kind: 'ModulePurge', release, event: 'Discover-Helm-Releases' })) });
};
