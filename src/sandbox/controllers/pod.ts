/**
 * The simulated scheduler and kubelet: a Pod without a Node is bound to a Ready Node its nodeSelector
 * matches; after the start delay it is Running and Ready (containers "started", an IP given); a Pod that
 * does not restart (restartPolicy Never or OnFailure) then ends Succeeded, or Failed when it carries the
 * annotation `sandbox.addon-operator.io/fail: "true"` (a restarting one then stays in CrashLoopBackOff).
 */
import type { StoreEvent } from '../store.js';
import { TKEY, condition, isoNow, key, splitKey, type Controller, type Obj, type Runtime } from './runtime.js';

/** The annotation that makes a Pod's containers fail (documented in docs/sandbox.md). */
export const FAIL_ANNOTATION = 'sandbox.addon-operator.io/fail';

function wantsFailure(p: Obj): boolean {
  return String(p.metadata?.annotations?.[FAIL_ANNOTATION] ?? '').toLowerCase() === 'true';
}

function nodeReady(n: Obj): boolean {
  return !n.metadata.deletionTimestamp && !n.spec?.unschedulable && condition(n, 'Ready')?.status === 'True';
}

function fits(p: Obj, n: Obj): boolean {
  const sel = p.spec?.nodeSelector ?? {};
  const labels = n.metadata.labels ?? {};
  for (const [k, v] of Object.entries(sel)) if (labels[k] !== v) return false;
  return true;
}

function cond(type: string, status: string, at: string, reason?: string, message?: string): Obj {
  const c: Obj = { type, status, lastProbeTime: null, lastTransitionTime: at };
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
}

function image(c: Obj): string {
  const i = String(c.image ?? '');
  return i.includes('/') || !i ? i : `docker.io/library/${i}${i.includes(':') ? '' : ':latest'}`;
}

function containerID(p: Obj, c: Obj): string {
  return `sandbox://${p.metadata.uid}/${c.name}`;
}

export function podController(): Controller {
  /** Pods waiting for their next step (`ns/name` -> when it is due). */
  const due = new Map<string, number>();
  let nextIP = 2;
  let rr = 0;
  const allocIP = (): string => {
    const n = nextIP++;
    return `10.244.${(n >> 8) & 255}.${n & 255}`;
  };

  function schedule(p: Obj, rt: Runtime): void {
    const nodes = rt.list(TKEY.nodes).filter((n) => nodeReady(n) && fits(p, n));
    const at = isoNow();
    if (!nodes.length) {
      if (condition(p, 'PodScheduled')?.reason === 'Unschedulable') return;
      const all = rt.count(TKEY.nodes);
      p.status = {
        phase: 'Pending',
        conditions: [cond('PodScheduled', 'False', at, 'Unschedulable', `0/${all} nodes are available: ${all} node(s) didn't match Pod's node affinity/selector.`)],
        qosClass: p.status?.qosClass ?? 'BestEffort',
      };
      rt.updateStatus(TKEY.pods, p, 'kube-scheduler');
      return;
    }
    const node = nodes[rr++ % nodes.length];
    p.spec.nodeName = node.metadata.name;
    rt.update(TKEY.pods, p, 'kube-scheduler');
    const cur = rt.get(TKEY.pods, p.metadata.namespace, p.metadata.name);
    if (!cur) return;
    cur.status = { ...(cur.status ?? {}), phase: 'Pending', conditions: [cond('PodScheduled', 'True', at)] };
    cur.status.qosClass ??= 'BestEffort';
    rt.updateStatus(TKEY.pods, cur, 'kube-scheduler');
  }

  function hostIP(p: Obj, rt: Runtime): string {
    const n = rt.get(TKEY.nodes, '', p.spec.nodeName);
    return n?.status?.addresses?.find((a: Obj) => a.type === 'InternalIP')?.address ?? '172.18.0.2';
  }

  function start(p: Obj, rt: Runtime): void {
    const at = isoNow();
    const fail = wantsFailure(p);
    const restarts = (p.spec.restartPolicy ?? 'Always') === 'Always';
    const ip = p.spec.hostNetwork ? hostIP(p, rt) : allocIP();
    const hip = hostIP(p, rt);
    const ready = !fail;
    const containers: Obj[] = Array.isArray(p.spec.containers) ? p.spec.containers : [];
    const inits: Obj[] = Array.isArray(p.spec.initContainers) ? p.spec.initContainers : [];
    const notReady = containers.map((c) => c.name).join(' ');
    const status: Obj = {
      phase: 'Running',
      conditions: [
        cond('PodReadyToStartContainers', 'True', at),
        cond('Initialized', 'True', at),
        ready ? cond('Ready', 'True', at) : cond('Ready', 'False', at, 'ContainersNotReady', `containers with unready status: [${notReady}]`),
        ready ? cond('ContainersReady', 'True', at) : cond('ContainersReady', 'False', at, 'ContainersNotReady', `containers with unready status: [${notReady}]`),
        cond('PodScheduled', 'True', condition(p, 'PodScheduled')?.lastTransitionTime ?? at),
      ],
      hostIP: hip,
      hostIPs: [{ ip: hip }],
      podIP: ip,
      podIPs: [{ ip }],
      startTime: at,
    };
    if (inits.length) {
      status.initContainerStatuses = inits.map((c) => ({
        name: c.name, image: image(c), imageID: image(c), containerID: containerID(p, c), ready: true, restartCount: 0, started: false,
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: at, finishedAt: at, containerID: containerID(p, c) } },
        lastState: {},
      }));
    }
    status.containerStatuses = containers.map((c) =>
      fail && restarts
        ? {
            name: c.name, image: image(c), imageID: image(c), containerID: containerID(p, c), ready: false, restartCount: 1, started: false,
            state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off 10s restarting failed container=${c.name} pod=${p.metadata.name} (the sandbox's ${FAIL_ANNOTATION} annotation)` } },
            lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: at, finishedAt: at, containerID: containerID(p, c) } },
          }
        : {
            name: c.name, image: image(c), imageID: image(c), containerID: containerID(p, c), ready, restartCount: 0, started: true,
            state: { running: { startedAt: at } }, lastState: {},
          },
    );
    status.qosClass = p.status?.qosClass ?? 'BestEffort';
    p.status = status;
    rt.updateStatus(TKEY.pods, p, 'kubelet');
  }

  function finish(p: Obj, rt: Runtime): void {
    const at = isoNow();
    const fail = wantsFailure(p);
    const reason = fail ? 'PodFailed' : 'PodCompleted';
    const s = p.status;
    s.phase = fail ? 'Failed' : 'Succeeded';
    s.conditions = (s.conditions ?? []).map((c: Obj) =>
      c.type === 'Ready' || c.type === 'ContainersReady' ? cond(c.type, 'False', at, reason) : c.type === 'PodReadyToStartContainers' ? cond(c.type, 'False', at) : c,
    );
    s.containerStatuses = (s.containerStatuses ?? []).map((c: Obj) => ({
      ...c,
      ready: false,
      started: false,
      state: {
        terminated: {
          exitCode: fail ? 1 : 0,
          reason: fail ? 'Error' : 'Completed',
          ...(fail ? { message: `failed on purpose: the Pod carries ${FAIL_ANNOTATION}: "true"` } : {}),
          startedAt: c.state?.running?.startedAt ?? at,
          finishedAt: at,
          containerID: c.containerID,
        },
      },
    }));
    rt.updateStatus(TKEY.pods, p, 'kubelet');
  }

  return {
    name: 'pod',
    watches: {
      [TKEY.pods]: (ev: StoreEvent) => {
        if (ev.type === 'DELETED') {
          due.delete(key(ev.ns, ev.name));
          return undefined;
        }
        return key(ev.ns, ev.name);
      },
      // a new or recovered Node: Pods that found none are scheduled again
      [TKEY.nodes]: (ev: StoreEvent, rt: Runtime) => {
        if (ev.type === 'DELETED') return undefined;
        return rt
          .list(TKEY.pods)
          .filter((p) => !p.spec?.nodeName && !p.metadata.deletionTimestamp)
          .map((p) => key(p.metadata.namespace, p.metadata.name));
      },
    },
    resync: [TKEY.pods],
    reconcile(k: string, rt: Runtime) {
      const [ns, name] = splitKey(k);
      const p = rt.get(TKEY.pods, ns, name);
      if (!p || p.metadata.deletionTimestamp) return;
      const phase = p.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') return;
      if (!p.spec?.nodeName) {
        schedule(p, rt);
        return;
      }
      const restarts = (p.spec.restartPolicy ?? 'Always') === 'Always';
      const started = phase === 'Running';
      // a running Pod that restarts has nothing more to do; a failing one that does not restart ends at once
      if (started && restarts) return;
      const when = due.get(k);
      if (when === undefined) {
        due.set(k, Date.now() + rt.podStartMs);
        rt.after(rt.podStartMs, 'pod', k);
        return;
      }
      if (Date.now() < when) return;
      due.delete(k);
      if (!started) {
        if (!restarts && wantsFailure(p)) {
          start(p, rt);
          const cur = rt.get(TKEY.pods, ns, name);
          if (cur) finish(cur, rt);
          return;
        }
        start(p, rt);
        return;
      }
      finish(p, rt);
    },
  };
}
