/**
 * A module's health, from its last run, its hooks' last runs and the status of its release's objects
 * (the resources monitor's watches, through the Helm port): `Ready`, `Progressing` (what it waits
 * for), `Degraded` (the object and its reason), `Failed` (the run or a hook failed, with the error),
 * `Unknown`. Kept per module; one log line per change.
 */
import type { Logger } from 'pino';
import type { Activity } from './activity.js';
import type { HelmPort, ObjectStatusEntry } from './ports.js';

export type ModuleHealthState = 'Ready' | 'Progressing' | 'Degraded' | 'Failed' | 'Unknown';
export const MODULE_HEALTH_STATES: readonly ModuleHealthState[] = ['Ready', 'Progressing', 'Degraded', 'Failed', 'Unknown'];
export const OBJECT_STATUSES: readonly ObjectStatusEntry['status'][] = ['Current', 'InProgress', 'Failed', 'Unknown'];

export interface ModuleHealth {
  health: ModuleHealthState;
  reason: string;
  /** How many objects of the release are in each status (only for a watched release). */
  objects?: Record<ObjectStatusEntry['status'], number>;
}

export interface ModuleHealthInput {
  /** The last run's outcome; undefined before the first. */
  lastRun?: { result: 'success' | 'error'; error?: string };
  /** The module's hooks whose last run failed, with the error. */
  failingHooks: readonly { hook: string; error: string }[];
  hasChart: boolean;
  /** Its release's objects; undefined when not watched (no release yet, no monitor). */
  objects?: readonly ObjectStatusEntry[];
}

/** The first entries of a list with their reasons, and how many more. */
function named(list: readonly ObjectStatusEntry[]): string {
  const first = `${list[0]!.object}: ${list[0]!.message}`;
  return list.length > 1 ? `${first} (and ${list.length - 1} more)` : first;
}

/** A module's health before anything is known of it (not logged as a change). */
const NOT_RUN: ModuleHealth = { health: 'Unknown', reason: 'not run yet' };

export function computeModuleHealth(input: ModuleHealthInput): ModuleHealth {
  const counts = input.objects && Object.fromEntries(OBJECT_STATUSES.map((s) => [s, input.objects!.filter((o) => o.status === s).length]));
  const withObjects = (h: ModuleHealthState, reason: string): ModuleHealth => ({ health: h, reason, ...(counts ? { objects: counts as ModuleHealth['objects'] & object } : {}) });
  const hook = input.failingHooks[0];
  // the hook runner's errors name the hook already (`hook hooks/x failed: exit code 1 ...`)
  if (hook) return withObjects('Failed', hook.error.includes(hook.hook) ? hook.error : `hook ${hook.hook} failed: ${hook.error}`);
  if (input.lastRun?.result === 'error') return withObjects('Failed', `module run failed: ${input.lastRun.error ?? 'unknown error'}`);
  const objects = input.objects;
  // before the first run ends, its release's objects (once applied and watched) tell already
  if (!input.lastRun && !objects) return withObjects(NOT_RUN.health, NOT_RUN.reason);
  if (!input.hasChart) return withObjects('Ready', 'ran successfully (no chart)');
  if (!objects) return withObjects('Unknown', 'its release objects are not watched');
  const failed = objects.filter((o) => o.status === 'Failed');
  if (failed.length) return withObjects('Degraded', named(failed));
  const waiting = objects.filter((o) => o.status === 'InProgress');
  if (waiting.length) return withObjects('Progressing', `waiting for ${named(waiting)}`);
  const unknown = objects.filter((o) => o.status === 'Unknown');
  if (unknown.length) return withObjects('Unknown', named(unknown));
  return withObjects('Ready', `${objects.length} object(s) ready`);
}

export interface ModuleHealthSources {
  activity: Activity;
  helm: HelmPort;
  namespace: string;
  log: Logger;
  isEnabled(module: string): boolean;
  hasChart(module: string): boolean;
}

/** The health of every enabled module, recomputed on a change of what it depends on, logged when it changes. */
export class ModuleHealthTracker {
  private readonly current = new Map<string, ModuleHealth>();

  constructor(private readonly src: ModuleHealthSources) {}

  /** The module's health now (undefined for a disabled module); a change is logged. */
  refresh(module: string): ModuleHealth | undefined {
    if (!this.src.isEnabled(module)) {
      this.current.delete(module);
      return undefined;
    }
    const lastRun = this.src.activity.lastModuleRun(module);
    const objects = this.src.helm.objectHealth?.(module, this.src.namespace);
    const next = computeModuleHealth({
      ...(lastRun ? { lastRun } : {}),
      failingHooks: this.src.activity.failingHooks(module),
      hasChart: this.src.hasChart(module),
      ...(objects ? { objects } : {}),
    });
    const before = this.current.get(module) ?? NOT_RUN;
    this.current.set(module, next);
    if (before.health !== next.health || before.reason !== next.reason) {
      const line = { module, health: next.health, reason: next.reason, previous: before.health };
      const text = `module ${module}: health ${before.health} -> ${next.health}: ${next.reason}`;
      if (next.health === 'Degraded' || next.health === 'Failed') this.src.log.warn(line, text);
      else this.src.log.info(line, text);
    }
    return next;
  }
}
