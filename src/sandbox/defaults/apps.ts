/** Defaults of apps/v1 as kube-apiserver's defaulting sets them (pkg/apis/apps/v1/defaults.go). */
import { claimTemplate, podTemplate } from './core.js';
import { dflt, dfltStr, ensure, items, type Obj } from './util.js';

/** A strategy of type RollingUpdate unless set, with these bounds when it is one. */
function rollingUpdate(strategy: Obj, maxUnavailable: number | string, maxSurge: number | string): void {
  dfltStr(strategy, 'type', 'RollingUpdate');
  if (strategy.type !== 'RollingUpdate') return;
  const ru = ensure(strategy, 'rollingUpdate');
  dflt(ru, 'maxUnavailable', maxUnavailable);
  dflt(ru, 'maxSurge', maxSurge);
}

export function deployment(o: Obj): void {
  const spec = ensure(o, 'spec');
  dflt(spec, 'replicas', 1);
  rollingUpdate(ensure(spec, 'strategy'), '25%', '25%');
  dflt(spec, 'revisionHistoryLimit', 10);
  dflt(spec, 'progressDeadlineSeconds', 600);
  podTemplate(spec.template);
}

export function replicaSet(o: Obj): void {
  const spec = ensure(o, 'spec');
  dflt(spec, 'replicas', 1);
  podTemplate(spec.template);
}

export function daemonSet(o: Obj): void {
  const spec = ensure(o, 'spec');
  rollingUpdate(ensure(spec, 'updateStrategy'), 1, 0);
  dflt(spec, 'revisionHistoryLimit', 10);
  podTemplate(spec.template);
}

export function statefulSet(o: Obj): void {
  const spec = ensure(o, 'spec');
  dfltStr(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = ensure(spec, 'updateStrategy');
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    ensure(strategy, 'rollingUpdate');
  }
  if (strategy.type === 'RollingUpdate' && strategy.rollingUpdate) dflt(strategy.rollingUpdate, 'partition', 0);
  const retention = ensure(spec, 'persistentVolumeClaimRetentionPolicy');
  dfltStr(retention, 'whenDeleted', 'Retain');
  dfltStr(retention, 'whenScaled', 'Retain');
  dflt(spec, 'replicas', 1);
  dflt(spec, 'revisionHistoryLimit', 10);
  podTemplate(spec.template);
  for (const c of items(spec, 'volumeClaimTemplates')) claimTemplate(c);
}
