/**
 * The simulated ReplicaSet controller: as many Pods of the template as spec.replicas (created with
 * generateName and a controller reference, the surplus deleted least ready first), and the status
 * (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas, observedGeneration, ReplicaFailure).
 */
import type { StoreEvent } from '../store.js';
import {
  TKEY, condition, isPodReady, isTerminating, isoNow, key, ownerRefTo, setCondition, splitKey,
  type Controller, type Obj, type Runtime,
} from './runtime.js';

const MANAGER = 'kube-controller-manager';
/** Pods a controller creates at most in one pass (kube's burstReplicas). */
export const BURST = 500;

/** A Pod of a template, controlled by `owner` (ReplicaSet, Job, DaemonSet, StatefulSet). */
export function podFromTemplate(owner: Obj, template: Obj | undefined, meta: Obj): Obj {
  const tm = template?.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...meta,
      namespace: owner.metadata.namespace,
      ...(tm.labels || meta.labels ? { labels: { ...(tm.labels ?? {}), ...(meta.labels ?? {}) } } : {}),
      ...(tm.annotations ? { annotations: { ...tm.annotations } } : {}),
      ownerReferences: [ownerRefTo(owner)],
    },
    spec: structuredClone(template?.spec ?? {}),
  };
}

/** Ready for minReadySeconds: the time left (ms) until a ready Pod counts as available, 0 when it does. */
export function availableIn(p: Obj, minReadySeconds: number, now: number): number | undefined {
  if (!isPodReady(p)) return undefined;
  if (!minReadySeconds) return 0;
  const since = Date.parse(condition(p, 'Ready')?.lastTransitionTime ?? '') || now;
  return Math.max(0, since + minReadySeconds * 1000 - now);
}

/** Deletion order of surplus Pods: unscheduled, pending, not ready, then the newest first. */
function rank(p: Obj): number {
  if (!p.spec?.nodeName) return 0;
  if (p.status?.phase !== 'Running') return 1;
  if (!isPodReady(p)) return 2;
  return 3;
}

export function replicaSetController(): Controller {
  return {
    name: 'replicaset',
    watches: {
      [TKEY.replicasets]: (ev: StoreEvent) => (ev.type === 'DELETED' ? undefined : key(ev.ns, ev.name)),
      [TKEY.pods]: (ev: StoreEvent, rt: Runtime) => rt.ownerKey(ev, 'ReplicaSet'),
    },
    resync: [TKEY.replicasets],
    reconcile(k: string, rt: Runtime) {
      const [ns, name] = splitKey(k);
      const rs = rt.get(TKEY.replicasets, ns, name);
      if (!rs || isTerminating(rs)) return;
      const want = Number(rs.spec?.replicas ?? 1);
      const live = () => rt.owned(TKEY.pods, rs.metadata.uid).filter((p) => !isTerminating(p) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
      let pods = live();
      let failure: string | undefined;
      if (pods.length < want) {
        const n = Math.min(want - pods.length, BURST);
        for (let i = 0; i < n; i++) {
          try {
            rt.create(TKEY.pods, podFromTemplate(rs, rs.spec?.template, { generateName: `${name}-` }), MANAGER);
          } catch (err) {
            failure = (err as Error).message;
            break;
          }
        }
        pods = live();
      } else if (pods.length > want) {
        const surplus = [...pods].sort((a, b) => rank(a) - rank(b) || String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)));
        for (const p of surplus.slice(0, pods.length - want)) rt.remove(TKEY.pods, ns, p.metadata.name, MANAGER);
        pods = live();
      }
      const cur = rt.get(TKEY.replicasets, ns, name);
      if (!cur) return;
      const now = Date.now();
      const minReady = Number(cur.spec?.minReadySeconds ?? 0);
      let available = 0;
      let soonest = Infinity;
      for (const p of pods) {
        const left = availableIn(p, minReady, now);
        if (left === 0) available++;
        else if (left !== undefined) soonest = Math.min(soonest, left);
      }
      if (soonest !== Infinity) rt.after(soonest + 5, 'replicaset', k);
      const tplLabels = cur.spec?.template?.metadata?.labels ?? {};
      const status: Obj = {
        replicas: pods.length,
        fullyLabeledReplicas: pods.filter((p) => Object.entries(tplLabels).every(([lk, lv]) => p.metadata.labels?.[lk] === lv)).length,
        readyReplicas: pods.filter(isPodReady).length,
        availableReplicas: available,
        observedGeneration: cur.metadata.generation ?? 1,
      };
      let conds: Obj[] = cur.status?.conditions ?? [];
      if (failure) conds = setCondition(conds, { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: failure }, isoNow(), false);
      else if (pods.length >= want) conds = conds.filter((c) => c.type !== 'ReplicaFailure');
      for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'] as const) if (!status[f]) delete status[f];
      if (conds.length) status.conditions = conds;
      cur.status = status;
      rt.updateStatus(TKEY.replicasets, cur, MANAGER);
    },
  };
}
