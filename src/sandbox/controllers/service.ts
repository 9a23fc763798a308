/**
 * The simulated Service side: an ingress IP for LoadBalancer Services (the cloud's service controller),
 * and an EndpointSlice (discovery.k8s.io/v1) and Endpoints of the Pods its selector matches, as
 * kube-controller-manager writes them: a Pod with an IP that has not ended is an endpoint, `ready`
 * when the Pod is Ready and not terminating (always with `publishNotReadyAddresses`), `serving` when
 * it is Ready, `terminating` while it is deleted; a Service that selects nothing has one slice with no
 * endpoints. The Endpoints object lists ready Pods as addresses, the others as not-ready ones, and
 * leaves terminating Pods out. ClusterIPs and node ports are the API server's, allocated at create
 * (defaults/service-alloc.ts).
 */
import { deepEqual } from '../json.js';
import type { StoreEvent } from '../store.js';
import { TKEY, isPodReady, isTerminating, key, ownerRefTo, selectorMatches, splitKey, type Controller, type Obj, type Runtime } from './runtime.js';

const MANAGER = 'endpointslice-controller';
const ENDPOINTS = '/endpoints';

function targetPort(port: Obj, pods: Obj[]): number | undefined {
  const tp = port.targetPort ?? port.port;
  if (typeof tp === 'number') return tp;
  if (/^\d+$/.test(String(tp))) return Number(tp);
  for (const p of pods) {
    for (const c of p.spec?.containers ?? []) {
      const cp = (c.ports ?? []).find((x: Obj) => x.name === tp);
      if (cp) return Number(cp.containerPort);
    }
  }
  return undefined;
}

export function serviceController(): Controller {
  /** Selectors of the Services with one, by namespace, to find the Services a Pod change concerns. */
  const selectors = new Map<string, Map<string, Record<string, string>>>();
  let nextLB = 1;
  let seeded = false;

  /** Learns the selector of a Service (from its events, and at the first reconcile). */
  function learn(ns: string, name: string, o: Obj | undefined): void {
    let m = selectors.get(ns);
    if (!o || !o.spec?.selector) m?.delete(name);
    else {
      if (!m) selectors.set(ns, (m = new Map()));
      m.set(name, o.spec.selector);
    }
  }

  /** A load balancer's ingress address, once. */
  function loadBalancer(rt: Runtime, svc: Obj): void {
    if (svc.spec?.type !== 'LoadBalancer' || svc.status?.loadBalancer?.ingress?.length) return;
    svc.status = { ...(svc.status ?? {}), loadBalancer: { ingress: [{ ip: `172.18.255.${nextLB++ % 250}`, ipMode: 'VIP' }] } };
    rt.updateStatus(TKEY.services, svc, 'service-controller');
  }

  function endpoints(rt: Runtime, svc: Obj): void {
    const ns = svc.metadata.namespace;
    const name = svc.metadata.name;
    const sel = svc.spec?.selector;
    const slices = rt.owned(TKEY.endpointslices, svc.metadata.uid);
    if (!sel || !Object.keys(sel).length || svc.spec?.type === 'ExternalName') {
      // endpoints of a Service without selector are the user's
      for (const s of slices) rt.remove(TKEY.endpointslices, ns, s.metadata.name, MANAGER);
      return;
    }
    const publishNotReady = svc.spec?.publishNotReadyAddresses === true;
    // terminating Pods stay endpoints of the slice (not ready), as kube-controller-manager keeps them
    const pods = rt
      .list(TKEY.pods, ns, sel)
      .filter((p) => p.status?.podIP && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed')
      .sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
    const ports = (svc.spec?.ports ?? []).map((p: Obj) => ({ name: p.name ?? '', port: targetPort(p, pods), protocol: p.protocol ?? 'TCP', ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}) }));
    const ref = (p: Obj): Obj => ({ kind: 'Pod', namespace: ns, name: p.metadata.name, uid: p.metadata.uid });
    const eps = pods.map((p) => {
      const serving = isPodReady(p);
      const terminating = isTerminating(p);
      const hostname = p.spec?.hostname && p.spec?.subdomain === name ? { hostname: p.spec.hostname } : {};
      return { addresses: [p.status.podIP], conditions: { ready: publishNotReady || (serving && !terminating), serving, terminating }, ...hostname, nodeName: p.spec.nodeName, targetRef: ref(p) };
    });
    const headless = svc.spec?.clusterIP === 'None' ? { 'service.kubernetes.io/headless': '' } : {};
    const labels = { ...(svc.metadata.labels ?? {}), ...headless, 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' };
    const body: Obj = { addressType: 'IPv4', endpoints: eps, ports };
    const [slice, ...extra] = slices;
    for (const s of extra) rt.remove(TKEY.endpointslices, ns, s.metadata.name, MANAGER);
    if (!slice) {
      rt.create(
        TKEY.endpointslices,
        { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { generateName: `${name}-`, namespace: ns, labels, ownerReferences: [ownerRefTo(svc)] }, ...body },
        MANAGER,
      );
    } else if (!deepEqual({ a: slice.addressType, e: slice.endpoints ?? [], p: slice.ports ?? [], l: slice.metadata.labels }, { a: body.addressType, e: eps, p: ports, l: labels })) {
      rt.update(TKEY.endpointslices, { ...slice, ...body, metadata: { ...slice.metadata, labels } }, MANAGER);
    }
    // the Endpoints object of the same Pods (still read by older tools)
    const addr = (p: Obj): Obj => ({ ip: p.status.podIP, nodeName: p.spec.nodeName, targetRef: ref(p) });
    const live = pods.filter((p) => !isTerminating(p));
    const ready = live.filter((p) => publishNotReady || isPodReady(p)).map(addr);
    const notReady = live.filter((p) => !publishNotReady && !isPodReady(p)).map(addr);
    const subsetPorts = ports.filter((p: Obj) => p.port !== undefined);
    const subsets = live.length ? [{ ...(ready.length ? { addresses: ready } : {}), ...(notReady.length ? { notReadyAddresses: notReady } : {}), ports: subsetPorts }] : undefined;
    const cur = rt.get(ENDPOINTS, ns, name);
    const epLabels = { ...(svc.metadata.labels ?? {}), 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' };
    if (!cur) {
      rt.create(ENDPOINTS, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace: ns, labels: epLabels }, ...(subsets ? { subsets } : {}) }, 'endpoint-controller');
    } else if (!deepEqual(cur.subsets, subsets)) {
      const next = { ...cur };
      if (subsets) next.subsets = subsets;
      else delete next.subsets;
      rt.update(ENDPOINTS, next, 'endpoint-controller');
    }
  }

  return {
    name: 'service',
    watches: {
      [TKEY.services]: (ev: StoreEvent, rt: Runtime) => {
        const o = rt.objectOf(ev);
        if (ev.type === 'DELETED') {
          learn(ev.ns, ev.name, undefined);
          return undefined;
        }
        learn(ev.ns, ev.name, o);
        return key(ev.ns, ev.name);
      },
      [TKEY.pods]: (ev: StoreEvent) => {
        const m = selectors.get(ev.ns);
        if (!m?.size) return undefined;
        const out: string[] = [];
        for (const [svc, sel] of m) {
          if (selectorMatches({ matchLabels: sel }, ev.labels) || (ev.prevLabels && selectorMatches({ matchLabels: sel }, ev.prevLabels))) out.push(key(ev.ns, svc));
        }
        return out;
      },
    },
    resync: [TKEY.services],
    reconcile(k: string, rt: Runtime) {
      const [ns, name] = splitKey(k);
      if (!seeded) {
        seeded = true;
        for (const o of rt.list(TKEY.services)) learn(o.metadata.namespace, o.metadata.name, o);
      }
      const svc = rt.get(TKEY.services, ns, name);
      if (!svc || isTerminating(svc)) return;
      loadBalancer(rt, svc);
      endpoints(rt, svc);
    },
  };
}
