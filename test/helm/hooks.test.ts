// Helm hooks against the sandbox: each phase, weights, delete policies, waits on Jobs and Pods,
// failures recorded as Helm records them, uninstall, and a failing hook under the operator. The sandbox runs no controllers: a small
// "controller" here watches Jobs and Pods and sets their status as each test tells it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../../src/kube/http.js';
import { Informer, type KubeObject } from '../../src/kube/informer.js';
import { HelmReleases } from '../../src/helm/release-engine.js';
import { makeTree } from '../helpers/tree.js';
import { cluster, releaseSecrets, secretPayload, getObject } from './helpers.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { operatorSeed, sandboxPorts } from '../helpers/sandbox-ports.js';
import { scenario, settle } from '../operator/helpers.js';
import { waitFor } from '../helpers/wait.js';

const NS = 'apps';

type Outcome = 'Complete' | 'Failed' | 'hold';

/**
 * Sets the status of each Job and Pod created in NS: `outcome(name)` says Complete/Failed (Pods:
 * Succeeded/Failed) or hold (left running). Records what was created, in order, and what existed at
 * that moment.
 */
async function fakeController(t: { after: (fn: () => Promise<void>) => void }, kc: KubeConfig, outcome: (name: string) => Outcome, probe: () => Promise<string>, ns = NS) {
  const created: string[] = [];
  const seenAt: Record<string, string> = {};
  const informers = (['jobs', 'pods'] as const).map((resource) => {
    const path = resource === 'jobs' ? `/apis/batch/v1/namespaces/${ns}/jobs` : `/api/v1/namespaces/${ns}/pods`;
    const act = async (o: KubeObject) => {
      const name = o.metadata!.name!;
      created.push(`${resource === 'jobs' ? 'Job' : 'Pod'}/${name}`);
      seenAt[name] = await probe();
      const result = outcome(name);
      if (result === 'hold') return;
      const status =
        resource === 'jobs'
          ? { conditions: [{ type: result, status: 'True', reason: result === 'Failed' ? 'BackoffLimitExceeded' : 'Completed' }] }
          : { phase: result === 'Complete' ? 'Succeeded' : 'Failed' };
      await requestJson(kc, 'PATCH', `${path}/${name}/status`, {}, JSON.stringify({ status }), 'application/merge-patch+json');
    };
    return new Informer({
      kc,
      path,
      onSync: () => {},
      onEvent: (type, o) => {
        if (type === 'ADDED') act(o).catch((e: unknown) => console.error('fake controller:', e));
      },
    });
  });
  for (const i of informers) await i.start();
  t.after(async () => {
    for (const i of informers) await i.stop();
  });
  return { created, seenAt };
}

const jobPath = (name: string) => `/apis/batch/v1/namespaces/${NS}/jobs/${name}`;
const cmPath = (name: string) => `/api/v1/namespaces/${NS}/configmaps/${name}`;

function hookJob(name: string, events: string, weight: number, policy?: string): string {
  const ann = [`"helm.sh/hook": ${events}`, `"helm.sh/hook-weight": "${weight}"`, ...(policy ? [`"helm.sh/hook-delete-policy": ${policy}`] : [])];
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  annotations:
${ann.map((a) => `    ${a}`).join('\n')}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: run
        image: busybox:{{ .Values.tag | default "1" }}
`;
}

function hookChart(): string {
  return makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 0.1.0\n',
    'values.yaml': 'tag: "1"\n',
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  tag: {{ .Values.tag | quote }}\n',
    // pre-install, pre-upgrade: weight 5 runs after weight -1; a ConfigMap hook between them (weight 0)
    'templates/pre-a.yaml': hookJob('pre-a', 'pre-install,pre-upgrade', 5, 'hook-succeeded'),
    'templates/pre-b.yaml': hookJob('pre-b', 'pre-install,pre-upgrade', -1),
    'templates/pre-cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pre-cm\n  annotations:\n    "helm.sh/hook": pre-install,pre-upgrade\n    "helm.sh/hook-delete-policy": before-hook-creation,hook-succeeded\ndata:\n  x: "1"\n',
    'templates/post.yaml':
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: post-pod\n  annotations:\n    "helm.sh/hook": post-install,post-upgrade\n    "helm.sh/hook-delete-policy": hook-succeeded\nspec:\n  restartPolicy: Never\n  containers:\n  - name: run\n    image: busybox\n',
    'templates/del.yaml': hookJob('del', 'pre-delete', 0, 'hook-succeeded'),
    'templates/post-del.yaml': hookJob('post-del', 'post-delete', 0, 'hook-succeeded'),
    'templates/test.yaml': hookJob('test-job', 'test', 0),
  });
}

test('hooks: install and upgrade run pre and post hooks in weight order around the release objects, with their delete policies; uninstall runs the delete hooks and leaves nothing', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const { created, seenAt } = await fakeController(t, kc, () => 'Complete', async () => ((await getObject(kc, cmPath('demo'))) ? 'release applied' : 'release absent'));
  const helm = new HelmReleases({ kc, mapper, extraLabels: { heritage: 'addon-operator' } });
  const chartDir = hookChart();
  const request = (tag: string) => ({ release: 'demo', namespace: NS, chartDir, values: { tag } });

  assert.equal(await helm.upgradeInstall(request('1')), 'installed');
  // weights -1 (pre-b), 0 (pre-cm), 5 (pre-a) before the release's objects; the post-install Pod after them
  assert.deepEqual(created, ['Job/pre-b', 'Job/pre-a', 'Pod/post-pod']);
  assert.equal(seenAt['pre-b'], 'release absent');
  assert.equal(seenAt['pre-a'], 'release absent');
  assert.equal(seenAt['post-pod'], 'release applied');
  // hook-succeeded deleted pre-a, pre-cm and the Pod; pre-b (the default before-hook-creation) stays
  assert.equal(await getObject(kc, jobPath('pre-a')), undefined);
  assert.equal(await getObject(kc, cmPath('pre-cm')), undefined);
  assert.equal(await getObject(kc, `/api/v1/namespaces/${NS}/pods/post-pod`), undefined);
  const preB = await getObject(kc, jobPath('pre-b'));
  // Helm 3.19 post-renders (the Go operator's extra labels) the manifest only, never the hooks
  // (a Job's own labels are its Pod template's, which the API server generates)
  assert.equal(preB.metadata.labels.heritage, undefined, 'hooks get no extra labels');
  assert.equal(preB.metadata.labels['job-name'], 'pre-b');
  assert.equal((await getObject(kc, cmPath('demo'))).metadata.labels.heritage, 'addon-operator');
  assert.equal(preB.metadata.annotations['meta.helm.sh/release-name'], undefined, 'hooks are not release objects');
  // the test hook never runs, and no hook is in the release manifest
  assert.equal(await getObject(kc, jobPath('test-job')), undefined);
  const rel = secretPayload((await releaseSecrets(kc, NS, 'demo'))[0]).release;
  assert.equal(rel.info.status, 'deployed');
  assert.doesNotMatch(rel.manifest, /pre-a|pre-b|post-pod/);
  const hooks = Object.fromEntries(rel.hooks.map((h: any) => [h.name, h]));
  assert.equal(hooks['pre-b'].last_run.phase, 'Succeeded');
  assert.match(hooks['pre-b'].last_run.started_at, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(hooks['pre-b'].delete_policies, ['before-hook-creation'], 'the default policy is recorded, as Helm records it');
  assert.equal(hooks['post-pod'].last_run.phase, 'Succeeded');
  assert.deepEqual(hooks['test-job'].last_run, { started_at: '', completed_at: '', phase: '' });
  assert.deepEqual(hooks['del'].last_run, { started_at: '', completed_at: '', phase: '' });

  // upgrade: pre-b is deleted before its new creation (a new object), the pre-upgrade hooks run, then the Pod
  created.length = 0;
  assert.equal(await helm.upgradeInstall(request('2')), 'upgraded');
  assert.deepEqual(created, ['Job/pre-b', 'Job/pre-a', 'Pod/post-pod']);
  const preB2 = await getObject(kc, jobPath('pre-b'));
  assert.notEqual(preB2.metadata.uid, preB.metadata.uid);
  assert.equal(preB2.spec.template.spec.containers[0].image, 'busybox:2');
  assert.equal((await getObject(kc, cmPath('demo'))).data.tag, '2');
  // unchanged: no hook runs
  created.length = 0;
  assert.equal(await helm.upgradeInstall(request('2')), 'unchanged');
  assert.deepEqual(created, []);

  // uninstall: the pre-delete Job before the objects go, the post-delete Job after; hook-succeeded removes both
  const probe = seenAt;
  assert.equal(await helm.uninstall('demo', NS), true);
  assert.deepEqual(created, ['Job/del', 'Job/post-del']);
  assert.equal(probe['del'], 'release applied');
  assert.equal(probe['post-del'], 'release absent');
  assert.equal(await getObject(kc, jobPath('del')), undefined);
  assert.equal(await getObject(kc, jobPath('post-del')), undefined);
  assert.deepEqual(await releaseSecrets(kc, NS, 'demo'), []);
  // what stays is Helm's: pre-b has no policy that deletes it after it ran
  const left = await requestJson<{ items: any[] }>(kc, 'GET', `/apis/batch/v1/namespaces/${NS}/jobs`);
  assert.deepEqual(left.items.map((j) => j.metadata.name), ['pre-b']);
});

test('hooks: a failing pre-upgrade hook fails the revision as Helm records it, changes no release object, and the next run recovers', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  let failing = false;
  await fakeController(t, kc, (name) => (failing && name === 'pre-b' ? 'Failed' : 'Complete'), async () => '');
  const helm = new HelmReleases({ kc, mapper });
  const chartDir = hookChart();
  const request = (tag: string) => ({ release: 'demo', namespace: NS, chartDir, values: { tag } });
  assert.equal(await helm.upgradeInstall(request('1')), 'installed');

  failing = true;
  await assert.rejects(helm.upgradeInstall(request('2')), (e: Error) => {
    assert.equal(e.message, 'release demo: pre-upgrade hooks failed: job pre-b failed: BackoffLimitExceeded (hook demo/templates/pre-b.yaml)');
    return true;
  });
  const secrets = await releaseSecrets(kc, NS, 'demo');
  assert.deepEqual(secrets.map((s) => `${s.metadata.labels.version}:${s.metadata.labels.status}`), ['1:deployed', '2:failed']);
  const failed = secretPayload(secrets[1]).release;
  assert.equal(failed.info.description, 'Upgrade "demo" failed: pre-upgrade hooks failed: 1 error occurred:\n\t* job pre-b failed: BackoffLimitExceeded\n\n');
  const hooks = Object.fromEntries(failed.hooks.map((h: any) => [h.name, h]));
  assert.equal(hooks['pre-b'].last_run.phase, 'Failed');
  assert.notEqual(hooks['pre-b'].last_run.completed_at, '');
  assert.deepEqual(hooks['pre-a'].last_run, { started_at: '', completed_at: '', phase: '' }, 'the later hook never started');
  assert.equal((await getObject(kc, cmPath('demo'))).data.tag, '1', 'the release objects were not touched');
  assert.ok(await getObject(kc, jobPath('pre-b')), 'a failed hook without hook-failed stays for inspection');

  // the module's next run retries: before-hook-creation replaces the failed Job, and the release recovers
  failing = false;
  assert.equal(await helm.upgradeInstall(request('2')), 'upgraded');
  const after = await releaseSecrets(kc, NS, 'demo');
  assert.deepEqual(after.map((s) => `${s.metadata.labels.version}:${s.metadata.labels.status}`), ['1:superseded', '2:failed', '3:deployed']);
  assert.equal((await getObject(kc, cmPath('demo'))).data.tag, '2');
});

test('hooks: hook-failed deletes a failed hook, a Pod that fails, a timeout, and an install that fails on its pre-install hook', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  await fakeController(t, kc, (name) => (name === 'never' ? 'hold' : name.startsWith('bad') ? 'Failed' : 'Complete'), async () => '');
  const helm = new HelmReleases({ kc, mapper, hookTimeoutMs: 300 });
  const chart = (templates: Record<string, string>) =>
    makeTree({ 'Chart.yaml': 'apiVersion: v2\nname: x\nversion: 0.1.0\n', 'values.yaml': 'tag: "1"\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n', ...templates });

  // hook-failed: the failed Job is deleted; the install is failed as Helm's install records it
  const failingInstall = chart({ 'templates/bad.yaml': hookJob('bad-job', 'pre-install', 0, 'hook-failed') });
  await assert.rejects(helm.upgradeInstall({ release: 'a', namespace: NS, chartDir: failingInstall, values: {} }), /^Error: release a: failed pre-install: job bad-job failed: BackoffLimitExceeded \(hook x\/templates\/bad\.yaml\)$/);
  const a = secretPayload((await releaseSecrets(kc, NS, 'a'))[0]).release;
  assert.equal(a.info.status, 'failed');
  assert.equal(a.info.description, 'Release "a" failed: failed pre-install: 1 error occurred:\n\t* job bad-job failed: BackoffLimitExceeded\n\n');
  assert.equal(await getObject(kc, jobPath('bad-job')), undefined);
  assert.equal(await getObject(kc, cmPath('x')), undefined, 'nothing of the release was applied');

  // a post-install Pod that fails
  const failingPod = chart({
    'templates/pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad-pod\n  annotations:\n    "helm.sh/hook": post-install\nspec:\n  containers:\n  - name: c\n    image: busybox\n',
  });
  await assert.rejects(helm.upgradeInstall({ release: 'b', namespace: NS, chartDir: failingPod, values: {} }), /failed post-install: pod bad-pod failed \(hook x\/templates\/pod\.yaml\)$/);
  assert.equal(secretPayload((await releaseSecrets(kc, NS, 'b'))[0]).release.info.status, 'failed');

  // a Job that never finishes: the timeout (--helm-timeout) ends the wait
  const stuck = chart({ 'templates/never.yaml': hookJob('never', 'pre-install', 0) });
  await assert.rejects(helm.upgradeInstall({ release: 'c', namespace: NS, chartDir: stuck, values: {} }), /^Error: release c: failed pre-install: timed out waiting for the condition \(hook x\/templates\/never\.yaml\)$/);

  // a hook whose object already exists (no before-hook-creation): Helm's create error
  await requestJson(kc, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken' } });
  const taken = chart({ 'templates/taken.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: taken\n  annotations:\n    "helm.sh/hook": pre-install\n    "helm.sh/hook-delete-policy": hook-succeeded\n' });
  await assert.rejects(helm.upgradeInstall({ release: 'd', namespace: NS, chartDir: taken, values: {} }), /^Error: release d: failed pre-install: warning: Hook pre-install x\/templates\/taken\.yaml failed: .*already exists/);
});

test('objects go as rendered: a hook ConfigMap and a crds/ CRD the chart gave no labels get no labels or annotations map (none invented)', async (t) => {
  const { kc, mapper } = await cluster(t, [NS]);
  const helm = new HelmReleases({ kc, mapper });
  const chartDir = makeTree({
    'Chart.yaml': 'apiVersion: v2\nname: plain\nversion: 0.1.0\n',
    'crds/things.yaml':
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n' +
      '  names: {plural: things, singular: thing, kind: Thing, listKind: ThingList}\n' +
      '  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {type: object}\n',
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n',
    'templates/hook.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain-hook\n  annotations:\n    "helm.sh/hook": post-install\ndata:\n  x: "1"\n',
  });
  assert.equal(await helm.upgradeInstall({ release: 'plain', namespace: NS, chartDir, values: {} }), 'installed');
  const hook = await getObject(kc, cmPath('plain-hook'));
  assert.equal('labels' in hook.metadata, false, JSON.stringify(hook.metadata));
  assert.deepEqual(hook.metadata.annotations, { 'helm.sh/hook': 'post-install' });
  const crd = await getObject(kc, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.com');
  assert.equal('labels' in crd.metadata, false, JSON.stringify(crd.metadata));
  assert.equal('annotations' in crd.metadata, false, JSON.stringify(crd.metadata));
});

test('hooks under the operator: a failing pre-upgrade hook fails the module run, the run is retried (the failed Job replaced) and recovers once the hook succeeds', async (t) => {
  const OPNS = 'addons';
  const sandbox = await startSandbox({ seedObjects: operatorSeed(OPNS) });
  t.after(() => sandbox.stop());
  const ports = sandboxPorts(sandbox.kubeconfigPath, OPNS);
  let failing = false;
  const { created } = await fakeController(t, ports.kc, (name) => (failing && name === 'migrate' ? 'Failed' : 'Complete'), async () => '', OPNS);
  const s = await scenario({
    files: () => ({
      'modules/values.yaml': 'alphaEnabled: true\nalpha:\n  x: "1"\n',
      'modules/001-alpha/Chart.yaml': 'name: alpha\nversion: 0.1.0\n',
      'modules/001-alpha/openapi/config-values.yaml': 'type: object\nproperties:\n  x:\n    type: string\n',
      'modules/001-alpha/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: alpha-out\ndata:\n  x: {{ .Values.alpha.x | quote }}\n',
      'modules/001-alpha/templates/migrate.yaml': hookJob('migrate', 'pre-upgrade', 0),
    }),
    operator: { kube: ports.kube, helm: ports.helm, config: ports.config, namespace: OPNS },
  });
  t.after(() => s.op.stop());
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  const out = async () => (await requestJson<any>(ports.kc, 'GET', `/api/v1/namespaces/${OPNS}/configmaps/alpha-out`)).data.x;
  assert.equal(await out(), '1');
  assert.deepEqual(created, [], 'an install runs no pre-upgrade hook');

  // new values: the upgrade's hook fails, the run fails and is retried, each retry replacing the Job
  failing = true;
  await requestJson(ports.kc, 'PATCH', `/api/v1/namespaces/${OPNS}/configmaps/addon-operator`, {}, { data: { alpha: 'x: "2"\n' } }, 'application/merge-patch+json');
  await waitFor(() => created.length >= 2, 'the failed run to be retried');
  const failed = (await releaseSecrets(ports.kc, OPNS, 'alpha')).map((r) => secretPayload(r).release);
  assert.ok(failed.some((r) => r.info.status === 'failed' && r.info.description === 'Upgrade "alpha" failed: pre-upgrade hooks failed: 1 error occurred:\n\t* job migrate failed: BackoffLimitExceeded\n\n'));
  assert.equal(await out(), '1', 'the release objects stay as they were');

  // the hook succeeds: the next retry upgrades
  failing = false;
  await waitFor(async () => (await out()) === '2', 'the release to recover');
  await settle(s.op);
  const last = (await releaseSecrets(ports.kc, OPNS, 'alpha')).at(-1);
  assert.equal(last.metadata.labels.status, 'deployed');
  assert.equal(secretPayload(last).release.hooks[0].last_run.phase, 'Succeeded');
});
