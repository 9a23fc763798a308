/**
 * Defaults of core/v1 as kube-apiserver's defaulting sets them (pkg/apis/core/v1/defaults.go): Pod
 * specs and their containers, volumes and probes, Services (not their allocated addresses), Secrets,
 * PersistentVolumeClaims and PersistentVolumes, Endpoints.
 */
import { dflt, dfltStr, ensure, isObj, items, type Obj } from './util.js';

/** `Always` for an image tagged `latest` or not tagged (and without a digest), else `IfNotPresent`. */
export function defaultPullPolicy(image: unknown): string {
  const ref = String(image ?? '');
  const at = ref.indexOf('@');
  const name = at >= 0 ? ref.slice(0, at) : ref;
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const tag = colon > lastSlash ? name.slice(colon + 1) : at >= 0 ? '' : 'latest';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function httpGet(h: unknown): void {
  if (!isObj(h)) return;
  dfltStr(h, 'path', '/');
  dfltStr(h, 'scheme', 'HTTP');
}

function probe(p: unknown): void {
  if (!isObj(p)) return;
  dflt(p, 'timeoutSeconds', 1);
  dflt(p, 'periodSeconds', 10);
  dflt(p, 'successThreshold', 1);
  dflt(p, 'failureThreshold', 3);
  httpGet(p.httpGet);
}

function container(c: Obj, hostNetwork: boolean): void {
  dfltStr(c, 'imagePullPolicy', defaultPullPolicy(c.image));
  dfltStr(c, 'terminationMessagePath', '/dev/termination-log');
  dfltStr(c, 'terminationMessagePolicy', 'File');
  // a struct in Go, never omitted: `resources: {}`
  dflt(c, 'resources', {});
  for (const p of items(c, 'ports')) {
    dfltStr(p, 'protocol', 'TCP');
    if (hostNetwork && !p.hostPort) p.hostPort = p.containerPort;
  }
  for (const e of items(c, 'env')) {
    const ref = e.valueFrom?.fieldRef;
    if (isObj(ref)) dfltStr(ref, 'apiVersion', 'v1');
  }
  probe(c.livenessProbe);
  probe(c.readinessProbe);
  probe(c.startupProbe);
  if (isObj(c.lifecycle)) for (const h of ['postStart', 'preStop']) httpGet(c.lifecycle[h]?.httpGet);
}

const VOLUME_SOURCES_WITH_MODE = ['secret', 'configMap', 'downwardAPI', 'projected'];

function volume(v: Obj): void {
  const sources = Object.keys(v).filter((k) => k !== 'name');
  if (sources.length === 0) v.emptyDir = {};
  for (const k of VOLUME_SOURCES_WITH_MODE) if (isObj(v[k])) dflt(v[k], 'defaultMode', 420);
  if (isObj(v.hostPath)) dflt(v.hostPath, 'type', '');
  for (const s of items(v.projected, 'sources')) {
    for (const f of items(s.downwardAPI, 'items')) if (isObj(f.fieldRef)) dfltStr(f.fieldRef, 'apiVersion', 'v1');
  }
  for (const f of items(v.downwardAPI, 'items')) if (isObj(f.fieldRef)) dfltStr(f.fieldRef, 'apiVersion', 'v1');
}

/** SetDefaults_PodSpec and what the generated defaulters reach from it. */
export function podSpec(spec: unknown): void {
  if (!isObj(spec)) return;
  dfltStr(spec, 'dnsPolicy', 'ClusterFirst');
  dfltStr(spec, 'restartPolicy', 'Always');
  dflt(spec, 'securityContext', {});
  dflt(spec, 'terminationGracePeriodSeconds', 30);
  dfltStr(spec, 'schedulerName', 'default-scheduler');
  const hostNetwork = spec.hostNetwork === true;
  for (const c of items(spec, 'containers')) container(c, hostNetwork);
  for (const c of items(spec, 'initContainers')) container(c, hostNetwork);
  for (const v of items(spec, 'volumes')) volume(v);
}

/** A Pod template (`spec.template` of workloads): its spec as a Pod spec. */
export function podTemplate(tpl: unknown): void {
  if (isObj(tpl)) podSpec(tpl.spec);
}

/** SetDefaults_Pod: the spec, requests from limits, service links. */
export function pod(o: Obj): void {
  const spec = o.spec;
  if (!isObj(spec)) return;
  podSpec(spec);
  for (const c of [...items(spec, 'containers'), ...items(spec, 'initContainers')]) {
    const r = c.resources;
    if (isObj(r) && isObj(r.limits)) {
      const req = ensure(r, 'requests');
      for (const [k, v] of Object.entries(r.limits)) if (req[k] === undefined) req[k] = v;
    }
  }
  dflt(spec, 'enableServiceLinks', true);
}

/** SetDefaults_Service (the addresses are allocated elsewhere). */
export function service(o: Obj): void {
  const spec = ensure(o, 'spec');
  dfltStr(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  else if (spec.sessionAffinity === 'ClientIP') {
    const cfg = ensure(spec, 'sessionAffinityConfig');
    dflt(ensure(cfg, 'clientIP'), 'timeoutSeconds', 10800);
  }
  dfltStr(spec, 'type', 'ClusterIP');
  for (const p of items(spec, 'ports')) {
    dfltStr(p, 'protocol', 'TCP');
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') dfltStr(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.type !== 'ExternalName') dfltStr(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') dflt(spec, 'allocateLoadBalancerNodePorts', true);
}

export function secret(o: Obj): void {
  dfltStr(o, 'type', 'Opaque');
}

function pvcSpec(spec: unknown): void {
  if (isObj(spec)) dfltStr(spec, 'volumeMode', 'Filesystem');
}

export function persistentVolumeClaim(o: Obj): void {
  pvcSpec(o.spec);
}

/** A claim template (StatefulSet volumeClaimTemplates): spec defaults and the Pending phase. */
export function claimTemplate(o: Obj): void {
  pvcSpec(o.spec);
  dfltStr(ensure(o, 'status'), 'phase', 'Pending');
}

export function persistentVolume(o: Obj): void {
  const spec = ensure(o, 'spec');
  dfltStr(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  dfltStr(spec, 'volumeMode', 'Filesystem');
}

export function endpoints(o: Obj): void {
  for (const s of items(o, 'subsets')) for (const p of items(s, 'ports')) dfltStr(p, 'protocol', 'TCP');
}
