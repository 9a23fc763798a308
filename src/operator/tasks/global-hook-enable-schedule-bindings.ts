/** GlobalHookEnableScheduleBindings (start-up, reference/addon-operator.md §5.3): a global hook's schedules start. */
import { TaskResults } from '../../queue/index.js';
import type { TaskHandler } from './shared.js';

export const enableScheduleBindings: TaskHandler<'GlobalHookEnableScheduleBindings'> = (rt, task) => {
  rt.bindingsOf(task.metadata.hook).enableSchedules();
  return TaskResults.success();
};
