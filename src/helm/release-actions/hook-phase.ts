/**
 * Runs a release's Helm hooks of one moment and words a failure as Helm does at that moment
 * (install.go, upgrade.go, uninstall.go): the error names the release and the failing hook's template
 * on one line, the text Helm records in the release's description is kept beside it.
 */
import { HookError, type HookRunner, type RunHookEvent } from '../hooks.js';
import type { Release } from '../release-record.js';

/** Helm's wording of a hook failure at each moment. */
const HOOK_FAILURE: Record<RunHookEvent, (message: string) => string> = {
  'pre-install': (m) => `failed pre-install: ${m}`,
  'post-install': (m) => `failed post-install: ${m}`,
  'pre-upgrade': (m) => `pre-upgrade hooks failed: ${m}`,
  'post-upgrade': (m) => `post-upgrade hooks failed: ${m}`,
  'pre-delete': (m) => m,
  'post-delete': (m) => m,
};

/**
 * A hook failure: the message names the release and the hook's template (so the chart, or the subchart,
 * it comes from) on one line; `helmText` is what Helm records.
 */
export class HelmHookFailure extends Error {
  constructor(
    message: string,
    readonly helmText: string,
    cause: unknown,
  ) {
    super(message, { cause });
  }
}

/** go-multierror's list on one line: `1 error occurred:\n\t* A\n\n` → `A`. */
export const oneLine = (text: string): string =>
  text
    .replace(/\d+ errors? occurred:\n\t\* /g, '')
    .replace(/\n\t\* /g, '; ')
    .trim();

/** The release's hooks of one event; a failure is Helm's error of that moment as a HelmHookFailure. */
export async function runHookPhase(hooks: HookRunner, record: Release, event: RunHookEvent): Promise<void> {
  try {
    await hooks.run(record, event);
  } catch (e) {
    if (!(e instanceof HookError)) throw e;
    const helmText = HOOK_FAILURE[event](e.message);
    const hook = e.hookPath ? ` (hook ${e.hookPath})` : '';
    throw new HelmHookFailure(`release ${record.name}: ${oneLine(helmText)}${hook}`, helmText, e);
  }
}
