/**
 * The simulated DaemonSet controller: one Pod of the template on each Ready Node its nodeSelector matches
 * (bound to the Node at creation), none elsewhere; rolling updates within maxUnavailable; the status
 * (desired/current/ready/available/updated numbers) as kube-controller-manager writes it.
 */
import { deepEqual } from '../json.js';
import type { StoreEvent } from '../store.js';
import {
  TKEY, condition, isPodReady, isTerminating, key, scaled, splitKey, templateHash, type Controller, type Obj, type Runtime,
} from './runtime.js';
import { availableIn, podFromTemplate } from './replicaset.js';

const MANAGER = 'kube-controller-manager';
const REVISION = 'controller-revision-hash';

function eligible(ds: Obj, n: Obj): boolean {
  if (n.metadata.deletionTimestamp || condition(n, 'Ready')?.status !== 'True') return false;
  const sel = ds.spec?.template?.spec?.nodeSelector ?? {};
  const labels = n.metadata.labels ?? {};
  return Object.entries(sel).every(([k, v]) => labels[k] === v);
}

export function daemonSetController(): Controller {
  return {
    name: 'daemonset',
    watches: {
      [TKEY.daemonsets]: (ev: StoreEvent) => (ev.type === 'DELETED' ? undefined : key(ev.ns, ev.name)),
      [TKEY.pods]: (ev: StoreEvent, rt: Runtime) => rt.ownerKey(ev, 'DaemonSet'),
      // a Node that comes, goes or changes its labels concerns every DaemonSet
      [TKEY.nodes]: (_ev: StoreEvent, rt: Runtime) => rt.list(TKEY.daemonsets).map((d) => key(d.metadata.namespace, d.metadata.name)),
    },
    resync: [TKEY.daemonsets],
    reconcile(k: string, rt: Runtime) {
      const [ns, name] = splitKey(k);
      const ds = rt.get(TKEY.daemonsets, ns, name);
      if (!ds || isTerminating(ds)) return;
      const hash = templateHash(ds.spec?.template ?? {});
      const nodes = rt.list(TKEY.nodes).filter((n) => eligible(ds, n));
      const wanted = new Set(nodes.map((n) => n.metadata.name));
      const owned = (): Obj[] => rt.owned(TKEY.pods, ds.metadata.uid).filter((p) => !isTerminating(p));
      const byNode = new Map<string, Obj[]>();
      for (const p of owned()) {
        const n = String(p.spec?.nodeName ?? '');
        if (!wanted.has(n) || p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded') {
          rt.remove(TKEY.pods, ns, p.metadata.name, MANAGER);
          continue;
        }
        const l = byNode.get(n) ?? [];
        l.push(p);
        byNode.set(n, l);
      }
      for (const [, l] of byNode) for (const extra of l.slice(1)) rt.remove(TKEY.pods, ns, extra.metadata.name, MANAGER);
      for (const n of nodes) {
        if (byNode.get(n.metadata.name)?.length) continue;
        const pod = podFromTemplate(ds, ds.spec?.template, {
          generateName: `${name}-`,
          labels: { [REVISION]: hash, 'pod-template-generation': String(ds.metadata.generation ?? 1) },
        });
        pod.spec.nodeName = n.metadata.name;
        pod.spec.affinity = {
          ...(pod.spec.affinity ?? {}),
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [n.metadata.name] }] }] } },
        };
        rt.create(TKEY.pods, pod, MANAGER);
      }
      const nowMs = Date.now();
      const minReady = Number(ds.spec?.minReadySeconds ?? 0);
      let pods = owned().filter((p) => wanted.has(String(p.spec?.nodeName ?? '')));
      if ((ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
        const maxUnavailable = Math.max(1, scaled(ds.spec?.updateStrategy?.rollingUpdate?.maxUnavailable, nodes.length, true, '1'));
        const unavailable = nodes.length - pods.filter((p) => availableIn(p, minReady, nowMs) === 0).length;
        let room = maxUnavailable - unavailable;
        for (const p of pods) {
          if (room <= 0) break;
          if (p.metadata.labels?.[REVISION] === hash) continue;
          rt.remove(TKEY.pods, ns, p.metadata.name, MANAGER);
          room--;
        }
        pods = owned().filter((p) => wanted.has(String(p.spec?.nodeName ?? '')));
      }
      const cur = rt.get(TKEY.daemonsets, ns, name);
      if (!cur) return;
      const old: Obj = cur.status ?? {};
      const available = pods.filter((p) => availableIn(p, minReady, nowMs) === 0).length;
      const status: Obj = {
        currentNumberScheduled: pods.length,
        numberMisscheduled: 0,
        desiredNumberScheduled: nodes.length,
        numberReady: pods.filter(isPodReady).length,
        observedGeneration: cur.metadata.generation ?? 1,
        updatedNumberScheduled: pods.filter((p) => p.metadata.labels?.[REVISION] === hash).length,
        numberAvailable: available,
        numberUnavailable: Math.max(0, nodes.length - available),
      };
      for (const f of ['updatedNumberScheduled', 'numberAvailable', 'numberUnavailable']) if (!status[f]) delete status[f];
      if (deepEqual(status, old)) return;
      cur.status = status;
      rt.updateStatus(TKEY.daemonsets, cur, MANAGER);
    },
  };
}
