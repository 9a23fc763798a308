/**
 * The simulated StatefulSet controller: Pods `name-0..n-1` created in order, each once the one before is
 * Ready (all at once with podManagementPolicy Parallel), removed from the highest ordinal; a claim
 * `<template>-<name>-<i>` from each volumeClaimTemplate before its Pod; rolling updates from the highest
 * ordinal down to the partition; status with currentRevision/updateRevision.
 */
import { deepEqual } from '../json.js';
import type { StoreEvent } from '../store.js';
import { TKEY, isPodReady, isTerminating, key, splitKey, templateHash, type Controller, type Obj, type Runtime } from './runtime.js';
import { availableIn, podFromTemplate } from './replicaset.js';

const MANAGER = 'kube-controller-manager';
const REVISION = 'controller-revision-hash';

function ordinal(sts: Obj, p: Obj): number {
  const prefix = `${sts.metadata.name}-`;
  const n = String(p.metadata.name);
  if (!n.startsWith(prefix) || !/^\d+$/.test(n.slice(prefix.length))) return -1;
  return Number(n.slice(prefix.length));
}

export function statefulSetController(): Controller {
  function claims(rt: Runtime, sts: Obj, i: number): Obj[] {
    const out: Obj[] = [];
    const ns = sts.metadata.namespace;
    for (const vct of Array.isArray(sts.spec?.volumeClaimTemplates) ? sts.spec.volumeClaimTemplates : []) {
      const tname = String(vct?.metadata?.name ?? '');
      if (!tname) continue;
      const claim = `${tname}-${sts.metadata.name}-${i}`;
      if (!rt.get(TKEY.pvcs, ns, claim)) {
        rt.create(
          TKEY.pvcs,
          {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: {
              name: claim,
              namespace: ns,
              labels: { ...(vct.metadata?.labels ?? {}), ...(sts.spec?.selector?.matchLabels ?? {}) },
              ...(vct.metadata?.annotations ? { annotations: { ...vct.metadata.annotations } } : {}),
            },
            spec: structuredClone(vct.spec ?? {}),
          },
          MANAGER,
        );
      }
      out.push({ name: tname, persistentVolumeClaim: { claimName: claim } });
    }
    return out;
  }

  function createPod(rt: Runtime, sts: Obj, i: number, revision: string): void {
    const podName = `${sts.metadata.name}-${i}`;
    const vols = claims(rt, sts, i);
    const pod = podFromTemplate(sts, sts.spec?.template, {
      name: podName,
      labels: { [REVISION]: revision, 'statefulset.kubernetes.io/pod-name': podName, 'apps.kubernetes.io/pod-index': String(i) },
    });
    pod.spec.hostname = podName;
    if (sts.spec?.serviceName) pod.spec.subdomain = sts.spec.serviceName;
    if (vols.length) {
      const have = new Set((pod.spec.volumes ?? []).map((v: Obj) => v.name));
      pod.spec.volumes = [...(pod.spec.volumes ?? []), ...vols.filter((v) => !have.has(v.name))];
    }
    rt.create(TKEY.pods, pod, MANAGER);
  }

  return {
    name: 'statefulset',
    watches: {
      [TKEY.statefulsets]: (ev: StoreEvent) => (ev.type === 'DELETED' ? undefined : key(ev.ns, ev.name)),
      [TKEY.pods]: (ev: StoreEvent, rt: Runtime) => rt.ownerKey(ev, 'StatefulSet'),
    },
    resync: [TKEY.statefulsets],
    reconcile(k: string, rt: Runtime) {
      const [ns, name] = splitKey(k);
      const sts = rt.get(TKEY.statefulsets, ns, name);
      if (!sts || isTerminating(sts)) return;
      const replicas = Number(sts.spec?.replicas ?? 1);
      const parallel = sts.spec?.podManagementPolicy === 'Parallel';
      const update = `${name}-${templateHash(sts.spec?.template ?? {})}`;
      const owned = (): Obj[] => rt.owned(TKEY.pods, sts.metadata.uid).filter((p) => !isTerminating(p));
      let pods = owned();
      const byOrdinal = new Map(pods.map((p) => [ordinal(sts, p), p]));
      // Pods that ended are replaced (the kubelet of a StatefulSet's Pod restarts them)
      for (const p of pods) {
        if (p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded') {
          rt.remove(TKEY.pods, ns, p.metadata.name, MANAGER);
          byOrdinal.delete(ordinal(sts, p));
        }
      }
      let blocked = false;
      for (let i = 0; i < replicas && !blocked; i++) {
        const p = byOrdinal.get(i);
        if (!p) {
          createPod(rt, sts, i, update);
          if (!parallel) blocked = true;
        } else if (!parallel && !isPodReady(p)) blocked = true;
      }
      // scale down from the highest ordinal, one at a time unless Parallel
      const surplus = [...byOrdinal.entries()].filter(([i]) => i >= replicas || i < 0).sort((a, b) => b[0] - a[0]);
      const allReady = [...byOrdinal.entries()].filter(([i]) => i >= 0 && i < replicas).every(([, p]) => isPodReady(p));
      for (const [, p] of parallel ? surplus : surplus.slice(0, allReady ? 1 : 0)) rt.remove(TKEY.pods, ns, p.metadata.name, MANAGER);
      // a rolling update replaces the highest old Pod at or above the partition once all are Ready
      const strategy = sts.spec?.updateStrategy ?? {};
      if ((strategy.type ?? 'RollingUpdate') === 'RollingUpdate' && allReady && !blocked && byOrdinal.size >= replicas) {
        const partition = Number(strategy.rollingUpdate?.partition ?? 0);
        for (let i = replicas - 1; i >= partition; i--) {
          const p = byOrdinal.get(i);
          if (p && p.metadata.labels?.[REVISION] !== update) {
            rt.remove(TKEY.pods, ns, p.metadata.name, MANAGER);
            break;
          }
        }
      }
      pods = owned().filter((p) => ordinal(sts, p) >= 0);
      const cur = rt.get(TKEY.statefulsets, ns, name);
      if (!cur) return;
      const old: Obj = cur.status ?? {};
      const updated = pods.filter((p) => p.metadata.labels?.[REVISION] === update).length;
      const ready = pods.filter(isPodReady);
      const nowMs = Date.now();
      const minReady = Number(cur.spec?.minReadySeconds ?? 0);
      const available = ready.filter((p) => availableIn(p, minReady, nowMs) === 0).length;
      const currentRevision = updated === replicas && pods.length === replicas ? update : (old.currentRevision ?? update);
      const status: Obj = {
        observedGeneration: cur.metadata.generation ?? 1,
        replicas: pods.length,
        readyReplicas: ready.length,
        currentReplicas: pods.filter((p) => p.metadata.labels?.[REVISION] === currentRevision).length,
        updatedReplicas: updated,
        currentRevision,
        updateRevision: update,
        collisionCount: old.collisionCount ?? 0,
        availableReplicas: available,
      };
      for (const f of ['readyReplicas', 'currentReplicas', 'updatedReplicas']) if (!status[f]) delete status[f];
      if (deepEqual(status, old)) return;
      cur.status = status;
      rt.updateStatus(TKEY.statefulsets, cur, MANAGER);
    },
  };
}
