/**
 * The simulated Job controller: Pods of the template up to parallelism until `completions` of them
 * succeeded (Complete), or Failed once more than backoffLimit failed (BackoffLimitExceeded) or the Job ran
 * past activeDeadlineSeconds (DeadlineExceeded); startTime, completionTime, the counts; a finished Job is
 * deleted ttlSecondsAfterFinished later.
 */
import { deepEqual } from '../json.js';
import type { StoreEvent } from '../store.js';
import { TKEY, condition, isPodReady, isTerminating, isoNow, key, splitKey, type Controller, type Obj, type Runtime } from './runtime.js';
import { BURST, podFromTemplate } from './replicaset.js';

const MANAGER = 'kube-controller-manager';

function finished(job: Obj): Obj | undefined {
  return [condition(job, 'Complete'), condition(job, 'Failed')].find((c) => c?.status === 'True');
}

function jobCondition(type: string, reason: string, message: string, now: string): Obj {
  return { type, status: 'True', lastProbeTime: now, lastTransitionTime: now, reason, message };
}

export function jobController(): Controller {
  return {
    name: 'job',
    watches: {
      [TKEY.jobs]: (ev: StoreEvent) => (ev.type === 'DELETED' ? undefined : key(ev.ns, ev.name)),
      [TKEY.pods]: (ev: StoreEvent, rt: Runtime) => rt.ownerKey(ev, 'Job'),
    },
    resync: [TKEY.jobs],
    reconcile(k: string, rt: Runtime) {
      const [ns, name] = splitKey(k);
      const job = rt.get(TKEY.jobs, ns, name);
      if (!job || isTerminating(job)) return;
      const nowMs = Date.now();
      const now = isoNow(nowMs);
      const pods = rt.owned(TKEY.pods, job.metadata.uid);
      const active = pods.filter((p) => !isTerminating(p) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
      const done = finished(job);
      if (done) {
        for (const p of active) rt.remove(TKEY.pods, ns, p.metadata.name, MANAGER);
        const ttl = job.spec?.ttlSecondsAfterFinished;
        if (ttl !== undefined && ttl !== null) {
          const since = Date.parse(job.status?.completionTime ?? done.lastTransitionTime ?? '') || nowMs;
          const due = since + Number(ttl) * 1000;
          if (due <= nowMs) rt.remove(TKEY.jobs, ns, name, MANAGER);
          else rt.after(due - nowMs, 'job', k);
        }
        return;
      }
      const old: Obj = job.status ?? {};
      const succeeded = Math.max(Number(old.succeeded ?? 0), pods.filter((p) => p.status?.phase === 'Succeeded').length);
      const failed = Math.max(Number(old.failed ?? 0), pods.filter((p) => p.status?.phase === 'Failed').length);
      const parallelism = Number(job.spec?.parallelism ?? 1);
      const completions = job.spec?.completions === undefined || job.spec?.completions === null ? 1 : Number(job.spec.completions);
      const backoffLimit = Number(job.spec?.backoffLimit ?? 6);
      const status: Obj = { ...old, startTime: old.startTime ?? now };
      const startMs = Date.parse(status.startTime) || nowMs;
      const deadline = job.spec?.activeDeadlineSeconds;
      let conds: Obj[] = Array.isArray(old.conditions) ? old.conditions : [];
      let left = active;
      if (job.spec?.suspend) {
        for (const p of active) rt.remove(TKEY.pods, ns, p.metadata.name, MANAGER);
        left = [];
        if (condition(job, 'Suspended')?.status !== 'True') conds = [...conds.filter((c) => c.type !== 'Suspended'), jobCondition('Suspended', 'JobSuspended', 'Job suspended', now)];
      } else if (failed > backoffLimit || (deadline !== undefined && deadline !== null && startMs + Number(deadline) * 1000 <= nowMs)) {
        const byDeadline = failed <= backoffLimit;
        const reason = byDeadline ? 'DeadlineExceeded' : 'BackoffLimitExceeded';
        const message = byDeadline ? 'Job was active longer than specified deadline' : 'Job has reached the specified backoff limit';
        for (const p of active) rt.remove(TKEY.pods, ns, p.metadata.name, MANAGER);
        left = [];
        conds = [...conds.filter((c) => c.type !== 'FailureTarget' && c.type !== 'Failed'), jobCondition('FailureTarget', reason, message, now), jobCondition('Failed', reason, message, now)];
      } else if (succeeded >= completions) {
        const message = 'Reached expected number of succeeded pods';
        conds = [...conds.filter((c) => c.type !== 'SuccessCriteriaMet' && c.type !== 'Complete'), jobCondition('SuccessCriteriaMet', 'CompletionsReached', message, now), jobCondition('Complete', 'CompletionsReached', message, now)];
        status.completionTime = now;
      } else {
        conds = conds.filter((c) => c.type !== 'Suspended');
        const want = Math.min(Math.min(parallelism, completions - succeeded) - active.length, BURST);
        const labels = {
          'batch.kubernetes.io/controller-uid': job.metadata.uid,
          'batch.kubernetes.io/job-name': name,
          'controller-uid': job.metadata.uid,
          'job-name': name,
        };
        for (let i = 0; i < want; i++) rt.create(TKEY.pods, podFromTemplate(job, job.spec?.template, { generateName: `${name}-`, labels }), MANAGER);
        if (want > 0) left = rt.owned(TKEY.pods, job.metadata.uid).filter((p) => !isTerminating(p) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
        if (deadline !== undefined && deadline !== null) rt.after(startMs + Number(deadline) * 1000 - nowMs, 'job', k);
      }
      if (left.length) status.active = left.length;
      else delete status.active;
      status.ready = left.filter(isPodReady).length;
      if (succeeded) status.succeeded = succeeded;
      if (failed) status.failed = failed;
      status.uncountedTerminatedPods = {};
      if (conds.length) status.conditions = conds;
      else delete status.conditions;
      if (deepEqual(status, old)) return;
      const cur = rt.get(TKEY.jobs, ns, name);
      if (!cur) return;
      cur.status = status;
      rt.updateStatus(TKEY.jobs, cur, MANAGER);
    },
  };
}
