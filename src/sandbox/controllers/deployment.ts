/**
 * The simulated Deployment controller: a ReplicaSet per Pod template (named by its pod-template-hash,
 * numbered by the `deployment.kubernetes.io/revision` annotation), rolled within maxSurge/maxUnavailable
 * (or all at once with Recreate), old ones scaled down and pruned to revisionHistoryLimit; the status and the
 * Available/Progressing/ReplicaFailure conditions as kube-controller-manager writes them.
 */
import { deepEqual } from '../json.js';
import type { StoreEvent } from '../store.js';
import {
  TKEY, condition, isTerminating, isoNow, key, ownerRefTo, scaled, setCondition, splitKey, templateHash,
  type Controller, type Obj, type Runtime,
} from './runtime.js';

const MANAGER = 'kube-controller-manager';
const HASH = 'pod-template-hash';
const REVISION = 'deployment.kubernetes.io/revision';
const DESIRED = 'deployment.kubernetes.io/desired-replicas';
const MAX = 'deployment.kubernetes.io/max-replicas';
/** Annotations of a Deployment that its ReplicaSets do not copy. */
const NOT_COPIED = new Set([REVISION, DESIRED, MAX, 'kubectl.kubernetes.io/last-applied-configuration', 'deployment.kubernetes.io/revision-history']);

/** What a rollout pass did: the new ReplicaSet, its name when created now, or why it could not be. */
interface Outcome {
  newRS?: Obj;
  created?: string;
  createError?: string;
}

function revision(rs: Obj): number {
  return Number(rs.metadata?.annotations?.[REVISION] ?? 0) || 0;
}

function specReplicas(rs: Obj): number {
  return Number(rs.spec?.replicas ?? 0);
}

function withoutHash(tpl: Obj | undefined): Obj | undefined {
  if (!tpl?.metadata?.labels?.[HASH]) return tpl;
  const { [HASH]: _h, ...labels } = tpl.metadata.labels;
  const metadata = { ...tpl.metadata, labels };
  if (!Object.keys(labels).length) delete metadata.labels;
  return { ...tpl, metadata };
}

function copiedAnnotations(d: Obj): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) if (!NOT_COPIED.has(k)) out[k] = String(v);
  return out;
}

export function deploymentController(): Controller {
  /** Deployments with a progress-deadline check pending (`ns/name` -> when). */
  const deadlines = new Map<string, number>();

  /** Sets a ReplicaSet's replicas (and the annotations that go with them) on its current stored version. */
  function scale(rt: Runtime, d: Obj, stale: Obj, n: number, surge: number): void {
    const replicas = Number(d.spec?.replicas ?? 1);
    const rs = rt.get(TKEY.replicasets, stale.metadata.namespace, stale.metadata.name);
    if (!rs) return;
    const ann = rs.metadata.annotations ?? {};
    if (specReplicas(rs) === n && ann[DESIRED] === String(replicas) && ann[MAX] === String(replicas + surge)) return;
    const next = { ...rs, spec: { ...rs.spec, replicas: n }, metadata: { ...rs.metadata, annotations: { ...ann, [DESIRED]: String(replicas), [MAX]: String(replicas + surge) } } };
    rt.update(TKEY.replicasets, next, MANAGER);
  }

  function rollout(rt: Runtime, d: Obj, all: Obj[], surge: number, unavail: number): Outcome {
    const replicas = Number(d.spec?.replicas ?? 1);
    const tpl = d.spec?.template ?? {};
    let newRS = all.find((rs) => deepEqual(withoutHash(rs.spec?.template), tpl));
    const olds = all.filter((rs) => rs !== newRS);
    const maxOld = olds.reduce((m, rs) => Math.max(m, revision(rs)), 0);
    const recreate = d.spec?.strategy?.type === 'Recreate';
    let created: string | undefined;
    if (!newRS) {
      const hash = templateHash(tpl, Number(d.status?.collisionCount ?? 0));
      const total = olds.reduce((s, rs) => s + specReplicas(rs), 0);
      const oldActive = olds.some((rs) => specReplicas(rs) > 0 || Number(rs.status?.replicas ?? 0) > 0);
      const n = recreate ? (oldActive ? 0 : replicas) : Math.min(Math.max(replicas + surge - total, 0), replicas);
      const sel = d.spec?.selector ?? {};
      const body = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: `${d.metadata.name}-${hash}`,
          namespace: d.metadata.namespace,
          labels: { ...(tpl.metadata?.labels ?? {}), [HASH]: hash },
          annotations: { ...copiedAnnotations(d), [DESIRED]: String(replicas), [MAX]: String(replicas + surge), [REVISION]: String(maxOld + 1) },
          ownerReferences: [ownerRefTo(d)],
        },
        spec: {
          replicas: n,
          ...(d.spec?.minReadySeconds ? { minReadySeconds: d.spec.minReadySeconds } : {}),
          selector: { ...sel, matchLabels: { ...(sel.matchLabels ?? {}), [HASH]: hash } },
          template: { ...tpl, metadata: { ...(tpl.metadata ?? {}), labels: { ...(tpl.metadata?.labels ?? {}), [HASH]: hash } } },
        },
      };
      try {
        newRS = rt.create(TKEY.replicasets, body, MANAGER);
        created = newRS.metadata.name;
      } catch (err) {
        const msg = (err as Error).message;
        if (/already exists/.test(msg)) {
          // a ReplicaSet of another template holds the name: the next hash (kube's collisionCount)
          d.status = { ...(d.status ?? {}), collisionCount: Number(d.status?.collisionCount ?? 0) + 1 };
          rt.updateStatus(TKEY.deployments, d, MANAGER);
          return {};
        }
        return { createError: `Failed to create new replica set "${body.metadata.name}": ${msg}` };
      }
    } else if (revision(newRS) <= maxOld) {
      // rolled back to an older template: it becomes the newest revision
      rt.update(TKEY.replicasets, { ...newRS, metadata: { ...newRS.metadata, annotations: { ...(newRS.metadata.annotations ?? {}), [REVISION]: String(maxOld + 1) } } }, MANAGER);
      newRS = rt.get(TKEY.replicasets, newRS.metadata.namespace, newRS.metadata.name) ?? newRS;
    }
    if (recreate) {
      const running = olds.filter((rs) => specReplicas(rs) > 0);
      for (const rs of running) scale(rt, d, rs, 0, 0);
      if (!running.length && !olds.some((rs) => Number(rs.status?.replicas ?? 0) > 0)) scale(rt, d, newRS, replicas, 0);
    } else {
      const cur = specReplicas(newRS);
      if (cur > replicas) scale(rt, d, newRS, replicas, surge);
      else if (cur < replicas) {
        const total = all.reduce((s, rs) => s + (rs === newRS ? cur : specReplicas(rs)), created ? cur : 0);
        const room = replicas + surge - total;
        scale(rt, d, newRS, room > 0 ? cur + Math.min(room, replicas - cur) : cur, surge);
      } else scale(rt, d, newRS, cur, surge);
      scaleDownOld(rt, d, newRS, olds, replicas, unavail);
    }
    prune(rt, d, olds);
    return { newRS, created };
  }

  function scaleDownOld(rt: Runtime, d: Obj, newRS: Obj, olds: Obj[], replicas: number, unavail: number): void {
    const active = olds.filter((rs) => specReplicas(rs) > 0).sort((a, b) => revision(a) - revision(b));
    if (!active.length) return;
    const fresh = rt.get(TKEY.replicasets, newRS.metadata.namespace, newRS.metadata.name) ?? newRS;
    const all = [fresh, ...active];
    const allPods = all.reduce((s, rs) => s + specReplicas(rs), 0);
    const minAvailable = replicas - unavail;
    const newUnavailable = specReplicas(fresh) - Number(fresh.status?.availableReplicas ?? 0);
    let budget = allPods - minAvailable - newUnavailable;
    if (budget <= 0) return;
    const target = new Map(active.map((rs) => [rs, specReplicas(rs)]));
    // first the old Pods that are not available anyway
    for (const rs of active) {
      if (budget <= 0) break;
      const unhealthy = target.get(rs)! - Number(rs.status?.availableReplicas ?? 0);
      const n = Math.min(unhealthy, budget);
      if (n > 0) {
        target.set(rs, target.get(rs)! - n);
        budget -= n;
      }
    }
    const available = all.reduce((s, rs) => s + Number(rs.status?.availableReplicas ?? 0), 0);
    let down = Math.min(available - minAvailable, budget);
    for (const rs of active) {
      if (down <= 0) break;
      const n = Math.min(target.get(rs)!, down);
      if (n > 0) {
        target.set(rs, target.get(rs)! - n);
        down -= n;
      }
    }
    for (const [rs, n] of target) if (n !== specReplicas(rs)) scale(rt, d, rs, n, 0);
  }

  function prune(rt: Runtime, d: Obj, olds: Obj[]): void {
    const limit = Number(d.spec?.revisionHistoryLimit ?? 10);
    const idle = olds
      .map((rs) => rt.get(TKEY.replicasets, rs.metadata.namespace, rs.metadata.name))
      .filter((rs): rs is Obj => !!rs && specReplicas(rs) === 0 && !Number(rs.status?.replicas ?? 0))
      .sort((a, b) => revision(a) - revision(b));
    for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) rt.remove(TKEY.replicasets, rs.metadata.namespace, rs.metadata.name, MANAGER);
  }

  return {
    name: 'deployment',
    watches: {
      [TKEY.deployments]: (ev: StoreEvent) => {
        if (ev.type === 'DELETED') {
          deadlines.delete(key(ev.ns, ev.name));
          return undefined;
        }
        return key(ev.ns, ev.name);
      },
      [TKEY.replicasets]: (ev: StoreEvent, rt: Runtime) => rt.ownerKey(ev, 'Deployment'),
    },
    resync: [TKEY.deployments],
    reconcile(k: string, rt: Runtime) {
      const [ns, name] = splitKey(k);
      let d = rt.get(TKEY.deployments, ns, name);
      if (!d || isTerminating(d)) return;
      const replicas = Number(d.spec?.replicas ?? 1);
      const rolling = d.spec?.strategy?.type !== 'Recreate';
      const ru = d.spec?.strategy?.rollingUpdate ?? {};
      const surge = rolling ? scaled(ru.maxSurge, replicas, true, '25%') : 0;
      let unavail = rolling ? scaled(ru.maxUnavailable, replicas, false, '25%') : 0;
      if (rolling && surge === 0 && unavail === 0) unavail = 1;
      if (unavail > replicas) unavail = replicas;
      const owned = () => rt.owned(TKEY.replicasets, d!.metadata.uid).filter((rs) => !isTerminating(rs));
      let outcome: Outcome = {};
      if (!d.spec?.paused) {
        outcome = rollout(rt, d, owned(), surge, unavail);
        d = rt.get(TKEY.deployments, ns, name);
        if (!d) return;
      }
      const all = owned();
      const tpl = d.spec?.template ?? {};
      const newRS = all.find((rs) => deepEqual(withoutHash(rs.spec?.template), tpl));
      // the Deployment carries the revision of its newest ReplicaSet
      if (newRS && d.metadata.annotations?.[REVISION] !== String(revision(newRS))) {
        d.metadata.annotations = { ...(d.metadata.annotations ?? {}), [REVISION]: String(revision(newRS)) };
        rt.update(TKEY.deployments, d, MANAGER);
        d = rt.get(TKEY.deployments, ns, name);
        if (!d) return;
      }
      const sum = (f: string): number => all.reduce((s, rs) => s + Number(rs.status?.[f] ?? 0), 0);
      const old: Obj = d.status ?? {};
      const status: Obj = {
        observedGeneration: d.metadata.generation ?? 1,
        replicas: sum('replicas'),
        updatedReplicas: Number(newRS?.status?.replicas ?? 0),
        readyReplicas: sum('readyReplicas'),
        availableReplicas: sum('availableReplicas'),
        unavailableReplicas: Math.max(0, all.reduce((s, rs) => s + specReplicas(rs), 0) - sum('availableReplicas')),
      };
      for (const f of Object.keys(status)) if (!status[f]) delete status[f];
      const nowMs = Date.now();
      const now = isoNow(nowMs);
      let conds: Obj[] = Array.isArray(old.conditions) ? old.conditions : [];
      const minAvailable = replicas - unavail;
      conds = setCondition(
        conds,
        Number(status.availableReplicas ?? 0) >= minAvailable
          ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
          : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
        now,
      );
      const failure = all.map((rs) => condition(rs, 'ReplicaFailure')).find((c) => c?.status === 'True')?.message as string | undefined;
      if (failure) conds = setCondition(conds, { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: failure }, now);
      else conds = conds.filter((c) => c.type !== 'ReplicaFailure');
      const rsName = newRS?.metadata.name;
      const subject = rsName ? `ReplicaSet "${rsName}"` : `Deployment "${name}"`;
      const progressing = condition({ status: { conditions: conds } }, 'Progressing');
      const deadline = Number(d.spec?.progressDeadlineSeconds ?? 600);
      const n = (o: Obj, f: string): number => Number(o[f] ?? 0);
      const complete =
        n(status, 'updatedReplicas') === replicas && n(status, 'replicas') === replicas && n(status, 'availableReplicas') === replicas && status.observedGeneration >= (d.metadata.generation ?? 1);
      const moved =
        n(status, 'updatedReplicas') > n(old, 'updatedReplicas') ||
        n(status, 'replicas') - n(status, 'updatedReplicas') < n(old, 'replicas') - n(old, 'updatedReplicas') ||
        n(status, 'readyReplicas') > n(old, 'readyReplicas') ||
        n(status, 'availableReplicas') > n(old, 'availableReplicas');
      if (d.spec?.paused) {
        if (progressing?.reason !== 'DeploymentPaused') conds = setCondition(conds, { type: 'Progressing', status: 'Unknown', reason: 'DeploymentPaused', message: 'Deployment is paused' }, now);
      } else if (outcome.createError) {
        conds = setCondition(conds, { type: 'Progressing', status: 'False', reason: 'ReplicaSetCreateError', message: outcome.createError }, now);
      } else if (outcome.created) {
        conds = setCondition(conds, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetCreated', message: `Created new replica set "${outcome.created}"` }, now);
      } else if (complete) {
        conds = setCondition(conds, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `${subject} has successfully progressed.` }, now);
      } else if (moved || !progressing || progressing.reason === 'DeploymentPaused') {
        const c: Obj = { type: 'Progressing', status: 'True', lastUpdateTime: now, lastTransitionTime: progressing?.status === 'True' ? progressing.lastTransitionTime : now, reason: 'ReplicaSetUpdated', message: `${subject} is progressing.` };
        conds = [...conds.filter((x) => x.type !== 'Progressing'), c];
      } else if (progressing.reason !== 'ProgressDeadlineExceeded' && progressing.reason !== 'NewReplicaSetAvailable' && progressing.reason !== 'ReplicaSetCreateError') {
        const since = Date.parse(progressing.lastUpdateTime ?? '') || nowMs;
        const due = since + deadline * 1000;
        if (due < nowMs) {
          conds = setCondition(conds, { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `${subject} has timed out progressing.` }, now);
        } else if (!deadlines.has(k) || deadlines.get(k)! > due + 1000) {
          deadlines.set(k, due + 1000);
          rt.after(due + 1000 - nowMs, 'deployment', k);
        }
      }
      if (deadlines.has(k) && deadlines.get(k)! <= nowMs) deadlines.delete(k);
      status.conditions = conds;
      if (old.collisionCount !== undefined) status.collisionCount = old.collisionCount;
      if (deepEqual(status, old)) return;
      d.status = status;
      rt.updateStatus(TKEY.deployments, d, MANAGER);
    },
  };
}
