/**
 * The simulated CronJob controller: a Job of the jobTemplate at each time of the schedule (the latest
 * missed one only), concurrencyPolicy Allow/Forbid/Replace, suspend, the finished Jobs kept to the history
 * limits; status.active, lastScheduleTime, lastSuccessfulTime.
 */
import { deepEqual } from '../json.js';
import type { StoreEvent } from '../store.js';
import { TKEY, condition, isTerminating, isoNow, key, ownerRefTo, splitKey, type Controller, type Obj, type Runtime } from './runtime.js';
import { nextRun, parseCron } from './cron.js';

const MANAGER = 'kube-controller-manager';

function outcome(job: Obj): 'Complete' | 'Failed' | undefined {
  if (condition(job, 'Complete')?.status === 'True') return 'Complete';
  if (condition(job, 'Failed')?.status === 'True') return 'Failed';
  return undefined;
}

export function cronJobController(): Controller {
  /** When each CronJob's next check is armed (`ns/name` -> ms). */
  const armed = new Map<string, number>();
  return {
    name: 'cronjob',
    watches: {
      [TKEY.cronjobs]: (ev: StoreEvent) => {
        if (ev.type === 'DELETED') {
          armed.delete(key(ev.ns, ev.name));
          return undefined;
        }
        return key(ev.ns, ev.name);
      },
      [TKEY.jobs]: (ev: StoreEvent, rt: Runtime) => rt.ownerKey(ev, 'CronJob'),
    },
    resync: [TKEY.cronjobs],
    reconcile(k: string, rt: Runtime) {
      const [ns, name] = splitKey(k);
      const cj = rt.get(TKEY.cronjobs, ns, name);
      if (!cj || isTerminating(cj)) return;
      let sched;
      try {
        sched = parseCron(String(cj.spec?.schedule ?? ''));
      } catch {
        // an unparseable schedule: nothing runs (kube-controller-manager records an UnparseableSchedule event)
        return;
      }
      const nowMs = Date.now();
      const old: Obj = cj.status ?? {};
      let jobs = rt.owned(TKEY.jobs, cj.metadata.uid).filter((j) => !isTerminating(j));
      let last = old.lastScheduleTime as string | undefined;
      let due = nextRun(sched, Date.parse(last ?? cj.metadata.creationTimestamp) || nowMs);
      if (due !== undefined && due <= nowMs) {
        let t = due;
        for (let i = 0; i < 1000; i++) {
          const n = nextRun(sched, t);
          if (n === undefined || n > nowMs) break;
          t = n;
        }
        const policy = cj.spec?.concurrencyPolicy ?? 'Allow';
        const active = jobs.filter((j) => !outcome(j));
        const late = cj.spec?.startingDeadlineSeconds != null && t + Number(cj.spec.startingDeadlineSeconds) * 1000 < nowMs;
        if (!cj.spec?.suspend && !late && !(policy === 'Forbid' && active.length)) {
          if (policy === 'Replace') for (const j of active) rt.remove(TKEY.jobs, ns, j.metadata.name, MANAGER);
          const tpl = cj.spec?.jobTemplate ?? {};
          const jobName = `${name}-${Math.floor(t / 60000)}`;
          if (!rt.get(TKEY.jobs, ns, jobName)) {
            rt.create(
              TKEY.jobs,
              {
                apiVersion: 'batch/v1',
                kind: 'Job',
                metadata: {
                  name: jobName,
                  namespace: ns,
                  ...(tpl.metadata?.labels ? { labels: { ...tpl.metadata.labels } } : {}),
                  annotations: { ...(tpl.metadata?.annotations ?? {}), 'batch.kubernetes.io/cronjob-scheduled-timestamp': new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z') },
                  ownerReferences: [ownerRefTo(cj)],
                },
                spec: structuredClone(tpl.spec ?? {}),
              },
              MANAGER,
            );
          }
          last = isoNow(t);
          jobs = rt.owned(TKEY.jobs, cj.metadata.uid).filter((j) => !isTerminating(j));
        }
        due = nextRun(sched, Math.max(t, nowMs));
      }
      if (due !== undefined && armed.get(k) !== due) {
        armed.set(k, due);
        rt.after(due - nowMs + 5, 'cronjob', k);
      }
      // finished Jobs beyond the history limits go, oldest first
      const byAge = (a: Obj, b: Obj): number => String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)) || String(a.metadata.name).localeCompare(String(b.metadata.name));
      for (const [kind, limit] of [['Complete', cj.spec?.successfulJobsHistoryLimit ?? 3], ['Failed', cj.spec?.failedJobsHistoryLimit ?? 1]] as const) {
        const done = jobs.filter((j) => outcome(j) === kind).sort(byAge);
        for (const j of done.slice(0, Math.max(0, done.length - Number(limit)))) rt.remove(TKEY.jobs, ns, j.metadata.name, MANAGER);
      }
      const live = rt.owned(TKEY.jobs, cj.metadata.uid).filter((j) => !isTerminating(j));
      const status: Obj = {};
      const active = live.filter((j) => !outcome(j)).sort(byAge);
      if (active.length) {
        status.active = active.map((j) => ({ apiVersion: 'batch/v1', kind: 'Job', name: j.metadata.name, namespace: ns, uid: j.metadata.uid }));
      }
      if (last) status.lastScheduleTime = last;
      const success = [old.lastSuccessfulTime, ...live.filter((j) => outcome(j) === 'Complete').map((j) => j.status?.completionTime)].filter(Boolean).sort().pop();
      if (success) status.lastSuccessfulTime = success;
      if (deepEqual(status, old)) return;
      const cur = rt.get(TKEY.cronjobs, ns, name);
      if (!cur) return;
      cur.status = status;
      rt.updateStatus(TKEY.cronjobs, cur, MANAGER);
    },
  };
}
