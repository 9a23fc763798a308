/**
 * The share of a V8 CPU profile (`node --cpu-prof`) spent under some frames: the time of every sample
 * whose stack holds a matching frame (inclusive time, callees counted once), against the busy time
 * (every sample but `(idle)`). bench/fleet uses it for the module health's cost over the fleet
 * converge (issue 33: at most +5 % operator CPU).
 */
import { readFileSync } from 'node:fs';

export interface CallFrame {
  functionName: string;
  url: string;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileShare {
  /** Sampled time not idle (ms). */
  busyMs: number;
  /** Sampled time with a matching frame on the stack (ms). */
  matchedMs: number;
}

/** Busy and matching time of the profile in `file`; `matches` tells the frames to count. */
export function profileShare(file: string, matches: (frame: CallFrame) => boolean): ProfileShare {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // whether a node or one of its callers matches, computed once per node
  const under = new Map<number, boolean>();
  const isUnder = (id: number): boolean => {
    const known = under.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const v = matches(byId.get(id)!.callFrame) || (up !== undefined && isUnder(up));
    under.set(id, v);
    return v;
  };
  let busy = 0;
  let matched = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    if (byId.get(id)?.callFrame.functionName === '(idle)') return;
    busy += dt;
    if (isUnder(id)) matched += dt;
  });
  return { busyMs: busy / 1000, matchedMs: matched / 1000 };
}

/**
 * The module health's frames in the built operator (dist/): an object's status from its watch event
 * (object-health.js, the resources monitor's `withVersion` and `updateHealth`), Services' ready
 * endpoints from their EndpointSlices (service-endpoints.js, `endpointsChanged`), a module's health from
 * them (module-health.js, from `releaseObjectsChanged` and the module runs), its log line and metrics.
 */
export function isHealthFrame(f: CallFrame): boolean {
  if (f.url.endsWith('/helm/object-health.js') || f.url.endsWith('/operator/module-health.js') || f.url.endsWith('/helm/service-endpoints.js')) return true;
  if (f.url.endsWith('/helm/release-object-monitor.js')) return ['withVersion', 'updateHealth', 'health', 'notReady', 'endpointsChanged', 'watchEndpoints'].includes(f.functionName);
  return f.url.endsWith('/operator/operator.js') && f.functionName === 'releaseObjectsChanged';
}
