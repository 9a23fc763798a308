/**
 * `/status.json`, what the status page shows: every module in order with its state and the reason
 * for it, its last run and release outcome; every queue with its length, status and head task; the
 * last hook runs; the converge's progress. Names, times and outcomes only: never values or Secret data.
 * `/status.json?module=NAME`: that module's health and each object of its release with its status.
 */
import { describeReason } from '../modules/enabled.js';
import type { HookRunRecord, ModuleRunRecord } from './activity.js';
import type { ModuleHealth } from './module-health.js';
import type { ObjectStatusEntry } from './ports.js';
import type { Runtime } from './runtime.js';

export interface StatusJson {
  generatedAt: number;
  converge: {
    phase: string;
    inProgressTasks: number;
    count: number;
    lastDurationMs?: number;
    runningSince?: number;
    convergePhase: string;
    restarts: number;
    lastRestart?: { cause: string; phase: string; at: number };
  };
  modules: (ModuleStateRow & { health?: ModuleHealth; lastRun?: ModuleRunRecord })[];
  queues: { name: string; length: number; status: string; head?: string }[];
  hookRuns: HookRunRecord[];
}

export interface ModuleStateRow {
  order: number;
  name: string;
  /** False for a functional module (module.yaml without `critical: true`). */
  critical: boolean;
  enabled: boolean;
  state: string;
  reason: string;
  /** A functional module waiting in this converge: the modules it waits for (or `critical modules`). */
  waitsFor?: string[];
}

/** Every module in order: enabled or not, its run phase (or `Disabled`), who decided, what it waits for. */
export function moduleStates(rt: Runtime): ModuleStateRow[] {
  return rt.manager.set.modules.map((m) => {
    const name = m.def.name;
    const enabled = rt.isEnabled(name);
    const decision = rt.manager.decision(name);
    const waitsFor = enabled ? rt.functional.waitsFor(name) : [];
    return {
      order: m.def.order,
      name,
      critical: m.def.critical,
      enabled,
      state: enabled ? (rt.peekModuleState(name)?.phase ?? 'Startup') : 'Disabled',
      reason: decision ? describeReason(decision.reason) : 'not discovered yet',
      ...(waitsFor.length ? { waitsFor } : {}),
    };
  });
}

export function statusJson(rt: Runtime): StatusJson {
  const c = rt.convergeStatus;
  return {
    generatedAt: Date.now(),
    converge: {
      phase: c.firstPhase,
      inProgressTasks: c.inProgress,
      count: c.convergeCount,
      ...(c.lastDurationMs === undefined ? {} : { lastDurationMs: c.lastDurationMs }),
      ...(c.startedAt === undefined ? {} : { runningSince: c.startedAt }),
      convergePhase: rt.converge.phase,
      restarts: c.restarts,
      ...(c.lastRestart ? { lastRestart: { ...c.lastRestart } } : {}),
    },
    modules: moduleStates(rt).map((m) => {
      const lastRun = rt.activity.lastModuleRun(m.name);
      const health = rt.health.refresh(m.name);
      return { ...m, ...(health ? { health } : {}), ...(lastRun ? { lastRun } : {}) };
    }),
    queues: rt.queues.queues().map((q) => {
      const head = q.tasks()[0];
      return { name: q.name, length: q.length, status: q.status, ...(head ? { head: head.description() } : {}) };
    }),
    hookRuns: rt.activity.lastHookRuns(),
  };
}

/** One module's health and its release's objects with their status (`objects` absent when not watched). */
export interface ModuleObjectsJson {
  name: string;
  enabled: boolean;
  health?: ModuleHealth;
  objects?: ObjectStatusEntry[];
}

export function moduleObjectsJson(rt: Runtime, name: string): ModuleObjectsJson | undefined {
  if (!rt.manager.set.modules.some((m) => m.def.name === name)) return undefined;
  const enabled = rt.isEnabled(name);
  const health = rt.health.refresh(name);
  const objects = enabled ? rt.opts.helm.objectHealth?.(name, rt.opts.namespace) : undefined;
  return { name, enabled, ...(health ? { health } : {}), ...(objects ? { objects } : {}) };
}
