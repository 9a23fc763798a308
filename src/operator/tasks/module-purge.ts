/** ModulePurge (LIFECYCLE-STEPS step 7): uninstalls a release that no module owns; failures are only logged (no hooks, no retry). */
import { TaskResults } from '../../queue/index.js';
import { errorMessage } from '../../util/errors.js';
import type { TaskHandler } from './shared.js';

export const modulePurge: TaskHandler<'ModulePurge'> = async (rt, task) => {
  const release = task.metadata.release;
  try {
    await rt.opts.helm.uninstall(release, rt.opts.namespace);
    rt.log.info({ release }, 'release without a module purged');
  } catch (e) {
    rt.log.error({ release, error: errorMessage(e) }, 'purging a release without a module failed');
  }
  return TaskResults.success();
};
