/**
 * Defaults of networking/v1, rbac/v1, storage/v1, admissionregistration/v1, scheduling/v1 and
 * autoscaling/v2 as kube-apiserver's defaulting sets them (pkg/apis/<group>/<version>/defaults.go).
 */
import { dflt, dfltStr, ensure, isObj, items, type Obj } from './util.js';

export function networkPolicy(o: Obj): void {
  const spec = ensure(o, 'spec');
  for (const rule of [...items(spec, 'ingress'), ...items(spec, 'egress')]) for (const p of items(rule, 'ports')) dfltStr(p, 'protocol', 'TCP');
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes = Array.isArray(spec.egress) && spec.egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

export function ingress(o: Obj): void {
  for (const rule of items(o.spec, 'rules')) for (const p of items(rule.http, 'paths')) dfltStr(p, 'pathType', 'ImplementationSpecific');
}

const RBAC = 'rbac.authorization.k8s.io';

export function roleBinding(o: Obj): void {
  if (isObj(o.roleRef)) dfltStr(o.roleRef, 'apiGroup', RBAC);
  for (const s of items(o, 'subjects')) {
    if (s.apiGroup) continue;
    if (s.kind === 'ServiceAccount') s.apiGroup = '';
    else if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = RBAC;
  }
}

export function storageClass(o: Obj): void {
  dfltStr(o, 'reclaimPolicy', 'Delete');
  dfltStr(o, 'volumeBindingMode', 'Immediate');
}

export function csiDriver(o: Obj): void {
  const spec = ensure(o, 'spec');
  dflt(spec, 'attachRequired', true);
  dflt(spec, 'podInfoOnMount', false);
  dflt(spec, 'storageCapacity', false);
  dflt(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ['Persistent'];
  dflt(spec, 'requiresRepublish', false);
  dflt(spec, 'seLinuxMount', false);
}

export function webhookConfiguration(o: Obj, mutating: boolean): void {
  for (const w of items(o, 'webhooks')) {
    dfltStr(w, 'failurePolicy', 'Fail');
    dfltStr(w, 'matchPolicy', 'Equivalent');
    dflt(w, 'namespaceSelector', {});
    dflt(w, 'objectSelector', {});
    dflt(w, 'timeoutSeconds', 10);
    if (mutating) dfltStr(w, 'reinvocationPolicy', 'Never');
    for (const r of items(w, 'rules')) dfltStr(r, 'scope', '*');
    const svc = w.clientConfig?.service;
    if (isObj(svc)) dflt(svc, 'port', 443);
  }
}

export function priorityClass(o: Obj): void {
  dfltStr(o, 'preemptionPolicy', 'PreemptLowerPriority');
}

export function horizontalPodAutoscaler(o: Obj): void {
  const spec = ensure(o, 'spec');
  dflt(spec, 'minReplicas', 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  }
}
