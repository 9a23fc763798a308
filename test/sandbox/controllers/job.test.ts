// The simulated Job and CronJob controllers (what Helm hook Jobs need): Jobs complete after their Pods
// succeed, fail after backoffLimit when the template asks to fail, go after ttlSecondsAfterFinished;
// CronJobs create Jobs on their schedule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../../helpers/wait.js';
import { cluster, noKubectl } from './helpers.js';

const job = (name: string, spec: string, annotations = ''): string => `apiVersion: batch/v1
kind: Job
metadata: {name: ${name}, namespace: default}
spec:
${spec}  template:
    metadata:
      labels: {app: ${name}}
${annotations}    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sh, -c, "exit 0"]}]
`;

test('a Job completes: kubectl wait --for=condition=complete, succeeded count, completionTime, Pods Succeeded', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply(job('migrate', '  completions: 2\n  parallelism: 1\n'));
  const w = await c.kubectl(['wait', '--for=condition=complete', 'job/migrate', '--timeout=60s']);
  assert.equal(w.code, 0, w.stderr);
  const j = await c.batch.readNamespacedJob({ name: 'migrate', namespace: 'default' });
  assert.equal(j.status?.succeeded, 2);
  assert.equal(j.status?.active, undefined);
  assert.ok(j.status?.startTime);
  assert.ok(j.status?.completionTime);
  const complete = j.status?.conditions?.find((x) => x.type === 'Complete');
  assert.equal(complete?.status, 'True');
  const pods = (await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'job-name=migrate' })).items;
  assert.equal(pods.length, 2);
  for (const p of pods) {
    assert.equal(p.status?.phase, 'Succeeded');
    assert.equal(p.status?.containerStatuses?.[0].state?.terminated?.exitCode, 0);
    assert.equal(p.metadata?.labels?.['batch.kubernetes.io/job-name'], 'migrate');
    assert.equal(p.metadata?.ownerReferences?.[0].uid, j.metadata?.uid);
  }
});

test('a Job whose Pods carry sandbox.addon-operator.io/fail fails after backoffLimit (BackoffLimitExceeded)', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply(job('bad', '  backoffLimit: 1\n', '      annotations: {sandbox.addon-operator.io/fail: "true"}\n'));
  const w = await c.kubectl(['wait', '--for=condition=failed', 'job/bad', '--timeout=60s']);
  assert.equal(w.code, 0, w.stderr);
  const j = await c.batch.readNamespacedJob({ name: 'bad', namespace: 'default' });
  assert.equal(j.status?.failed, 2);
  const failed = j.status?.conditions?.find((x) => x.type === 'Failed');
  assert.equal(failed?.status, 'True');
  assert.equal(failed?.reason, 'BackoffLimitExceeded');
  assert.equal(j.status?.conditions?.find((x) => x.type === 'Complete'), undefined);
  assert.match((await c.kubectl(['get', 'job', 'bad'])).stdout, /bad\s+Failed\s+0\/1/);
  const pods = (await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'job-name=bad' })).items;
  assert.equal(pods.length, 2);
  assert.ok(pods.every((p) => p.status?.phase === 'Failed' && p.status?.containerStatuses?.[0].state?.terminated?.exitCode === 1));
});

test('a finished Job goes after ttlSecondsAfterFinished, with its Pods; a bare Pod that does not restart ends Succeeded', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply(job('once', '  ttlSecondsAfterFinished: 0\n'));
  await c.apply(`apiVersion: v1
kind: Pod
metadata: {name: test-hook, namespace: default}
spec:
  restartPolicy: Never
  containers: [{name: t, image: busybox}]
`);
  await waitFor(async () => (await c.batch.listNamespacedJob({ namespace: 'default' })).items.length === 0, 'the Job deleted');
  await waitFor(async () => (await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'job-name=once' })).items.length === 0, "the Job's Pods collected");
  await waitFor(async () => (await c.core.readNamespacedPod({ name: 'test-hook', namespace: 'default' })).status?.phase === 'Succeeded', 'the Pod Succeeded');
});

test('a CronJob creates a Job at its next scheduled minute; lastScheduleTime and lastSuccessfulTime follow', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply(`apiVersion: batch/v1
kind: CronJob
metadata: {name: tick, namespace: default}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: main, image: busybox}]
`);
  await waitFor(async () => (await c.batch.listNamespacedJob({ namespace: 'default' })).items.length > 0, 'a Job of the CronJob', 150_000);
  const j = (await c.batch.listNamespacedJob({ namespace: 'default' })).items[0];
  assert.match(j.metadata?.name ?? '', /^tick-\d+$/);
  assert.equal(j.metadata?.ownerReferences?.[0].kind, 'CronJob');
  const w = await c.kubectl(['wait', '--for=condition=complete', `job/${j.metadata?.name}`, '--timeout=60s']);
  assert.equal(w.code, 0, w.stderr);
  await waitFor(async () => !!(await c.batch.readNamespacedCronJob({ name: 'tick', namespace: 'default' })).status?.lastSuccessfulTime, 'lastSuccessfulTime');
  const cj = await c.batch.readNamespacedCronJob({ name: 'tick', namespace: 'default' });
  assert.ok(cj.status?.lastScheduleTime);
  assert.equal(new Date(cj.status!.lastScheduleTime!).getUTCSeconds(), 0);
});
