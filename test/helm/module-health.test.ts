// A module's health on `addon-operator start --sandbox` with the simulated controllers: a Deployment
// that becomes available (Progressing, then Ready), one whose Pods crash (Progressing, then Degraded
// once its progress deadline passed, as kstatus says), a Job whose Pod fails (Degraded, naming the
// Job), a custom resource whose `Ready` condition turns False then True (Progressing, then Ready), a
// module hook that fails (Failed, with the error); shown in `module list -o text`, /status.json, the
// metrics, and one log line per change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { debugRequest } from '../../src/cli/debug.js';
import { requestJson } from '../../src/kube/http.js';
import { makeTree } from '../helpers/tree.js';
import { logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { FAILING_JOB } from '../helpers/workloads.js';

const chart = (name: string, templates: Record<string, string>): Record<string, string> => ({
  [`modules/${name}/Chart.yaml`]: `apiVersion: v2\nname: ${name.replace(/^\d+-/, '')}\nversion: 0.1.0\n`,
  ...Object.fromEntries(Object.entries(templates).map(([file, text]) => [`modules/${name}/templates/${file}`, text])),
});

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: main, image: nginx}]}
`;


// its Pods crash (CrashLoopBackOff): never Available, ProgressDeadlineExceeded after 3 s
const STUCK_DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 1
  progressDeadlineSeconds: 3
  selector: {matchLabels: {app: api}}
  template:
    metadata:
      labels: {app: api}
      annotations: {sandbox.addon-operator.io/fail: "true"}
    spec: {containers: [{name: main, image: nginx}]}
`;

const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;

const FAILING_HOOK = `#!/bin/bash
if [ "$1" = "--config" ]; then echo '{"configVersion":"v1","afterHelm":10}'; exit 0; fi
echo "cannot reach the backend" >&2
exit 1
`;

test('module health: a Deployment becoming available, one stuck, a failing Job, a custom resource, a failing hook', async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'webEnabled: true\nbatchEnabled: true\nbrokenEnabled: true\nstuckEnabled: true\ncustomEnabled: true\n',
    ...chart('003-stuck', { 'deploy.yaml': STUCK_DEPLOYMENT }),
    ...chart('004-custom', { 'widget.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 1}\n' }),
    'modules/004-custom/crds/widget.yaml': WIDGET_CRD,
    ...chart('001-web', { 'deploy.yaml': DEPLOYMENT }),
    ...chart('002-batch', { 'job.yaml': FAILING_JOB }),
    ...chart('009-broken', { 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken}\ndata: {a: b}\n' }),
    'modules/009-broken/hooks/after': FAILING_HOOK,
  });
  const socket = join(root, 'debug.socket');
  // Pods take 2 s to become Ready: the Deployment is seen progressing first
  const kubeconfig = join(root, 'kubeconfig');
  const { child, output, exited } = startOperator(root, ['--sandbox-pod-start', '2s', '--sandbox-kubeconfig', kubeconfig]);
  const healthOf = (module: string) => logRecords(output()).filter((r) => r.module === module && typeof r.health === 'string');
  try {
    await waitFor(() => healthOf('web').some((r) => r.health === 'Ready'), 'web to become Ready', 60_000);
    await waitFor(() => healthOf('batch').some((r) => r.health === 'Degraded'), 'batch to become Degraded', 60_000);
    await waitFor(() => healthOf('broken').some((r) => r.health === 'Failed'), 'broken to become Failed', 60_000);
    await waitFor(() => healthOf('stuck').some((r) => r.health === 'Degraded'), 'stuck to become Degraded', 60_000);
    await waitFor(() => healthOf('custom').some((r) => r.health === 'Ready'), 'custom to become Ready', 60_000);

    // the custom resource's controller (the test) says it is not Ready, then Ready
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const setReady = (status: string, message: string) => requestJson(kc, 'PATCH', '/apis/example.com/v1/namespaces/addons/widgets/w/status', {}, {
      status: { conditions: [{ type: 'Ready', status, reason: status === 'True' ? 'Serving' : 'Provisioning', message }] },
    }, 'application/merge-patch+json');
    await setReady('False', 'waiting for a volume');
    await waitFor(() => healthOf('custom').some((r) => r.health === 'Progressing'), 'custom to become Progressing', 60_000);
    await setReady('True', 'serving');
    await waitFor(() => healthOf('custom').at(-1)?.health === 'Ready' && healthOf('custom').some((r) => r.health === 'Progressing'), 'custom to become Ready again', 60_000);

    // web: Progressing (what it waits for), then Ready; one line per change
    const web = healthOf('web');
    const progressing = web.find((r) => r.health === 'Progressing');
    assert.ok(progressing, output());
    assert.match(String(progressing.reason), /^waiting for Deployment addons\/web: (Available|Ready|Updated): [01]\/2/);
    assert.ok(web.indexOf(progressing) < web.findIndex((r) => r.health === 'Ready'));
    // (before it, at most an Unknown while the watch of Deployments lists; while Progressing, a line
    // per new reason: 0/2, then 1/2 when the two Pods start apart)
    const states = web.map((r) => r.health).filter((h) => h !== 'Unknown');
    assert.deepEqual(states.filter((h, i) => h !== states[i - 1]), ['Progressing', 'Ready']);
    web.forEach((r, i) => assert.ok(i === 0 || r.health !== web[i - 1]!.health || r.reason !== web[i - 1]!.reason, `one line per change: ${JSON.stringify(r)}`));
    for (let i = 1; i < web.length; i++) assert.notDeepEqual([web[i]!.health, web[i]!.reason], [web[i - 1]!.health, web[i - 1]!.reason], 'a line per change only');
    assert.equal(web.at(-1)!.reason, '1 object(s) ready');

    // batch: Degraded with the Job and its reason
    const degraded = healthOf('batch').find((r) => r.health === 'Degraded')!;
    assert.equal(degraded.reason, 'Job addons/migrate: Job Failed (BackoffLimitExceeded). failed: 1/1');
    assert.equal(degraded.level, 'warn');

    // stuck: Progressing (what it waits for), then Degraded after its progress deadline
    const stuck = healthOf('stuck').map((r) => [r.health, r.reason]).filter(([h]) => h !== 'Unknown');
    assert.deepEqual(stuck.at(0), ['Progressing', 'waiting for Deployment addons/api: Available: 0/1']);
    assert.deepEqual(stuck.at(-1), ['Degraded', 'Deployment addons/api: Progress deadline exceeded']);

    // custom: Ready with no conditions, Progressing while its Ready condition is False, Ready again
    const custom = healthOf('custom').map((r) => [r.health, r.reason]).filter(([h]) => h !== 'Unknown');
    assert.deepEqual(custom, [
      ['Ready', '1 object(s) ready'],
      ['Progressing', 'waiting for Widget addons/w: Ready False: waiting for a volume'],
      ['Ready', '1 object(s) ready'],
    ]);

    // broken: Failed with the hook's error
    const failed = healthOf('broken').find((r) => r.health === 'Failed')!;
    assert.match(String(failed.reason), /^hook hooks\/after failed: exit code 1; last lines of stderr:\n {2}cannot reach the backend$/);

    const list = (await debugRequest(socket, 'GET', '/module/list.text')).body;
    assert.match(list, /^MODULE\s+STATE\s+HEALTH\s+REASON$/m);
    assert.match(list, /^web\s+\S+\s+Ready: 1 object\(s\) ready\s+webEnabled/m);
    assert.match(list, /^batch\s+\S+\s+Degraded: Job addons\/migrate: Job Failed/m);
    assert.match(list, /^broken\s+\S+\s+Failed: hook hooks\/after failed: exit code 1/m);
    assert.match(list, /^stuck\s+\S+\s+Degraded: Deployment addons\/api: Progress deadline exceeded\s/m);
    assert.match(list, /^custom\s+\S+\s+Ready: 1 object\(s\) ready\s/m);

    const address = /"address":"(http:\/\/[^"]+)"/.exec(output())![1]!;
    const status = (await (await fetch(`${address}/status.json`)).json()) as { modules: { name: string; health?: { health: string; reason: string; objects?: Record<string, number> } }[] };
    const byName = Object.fromEntries(status.modules.map((m) => [m.name, m.health]));
    assert.deepEqual(byName.web, { health: 'Ready', reason: '1 object(s) ready', objects: { Current: 1, InProgress: 0, Failed: 0, Unknown: 0 } });
    assert.equal(byName.batch?.health, 'Degraded');
    assert.deepEqual(byName.batch?.objects, { Current: 0, InProgress: 0, Failed: 1, Unknown: 0 });
    assert.equal(byName.broken?.health, 'Failed');
    assert.deepEqual(byName.stuck, { health: 'Degraded', reason: 'Deployment addons/api: Progress deadline exceeded', objects: { Current: 0, InProgress: 0, Failed: 1, Unknown: 0 } });
    assert.deepEqual(byName.custom, { health: 'Ready', reason: '1 object(s) ready', objects: { Current: 1, InProgress: 0, Failed: 0, Unknown: 0 } });

    const metrics = await (await fetch(`${address}/metrics`)).text();
    assert.match(metrics, /^addon_operator_module_health\{module="web",health="Ready"\} 1$/m);
    assert.match(metrics, /^addon_operator_module_health\{module="web",health="Progressing"\} 0$/m);
    assert.match(metrics, /^addon_operator_module_health\{module="batch",health="Degraded"\} 1$/m);
    assert.match(metrics, /^addon_operator_module_health\{module="broken",health="Failed"\} 1$/m);
    assert.match(metrics, /^addon_operator_module_objects\{module="web",health="Current"\} 1$/m);
    assert.match(metrics, /^addon_operator_module_objects\{module="batch",health="Failed"\} 1$/m);
    assert.match(metrics, /^addon_operator_module_health\{module="stuck",health="Degraded"\} 1$/m);
    assert.match(metrics, /^addon_operator_module_health\{module="stuck",health="Progressing"\} 0$/m);
    assert.match(metrics, /^addon_operator_module_health\{module="custom",health="Ready"\} 1$/m);
    assert.match(metrics, /^addon_operator_module_health\{module="custom",health="Progressing"\} 0$/m);
  } catch (e) {
    console.log(output().split('\n').filter((l) => /health|error|fail/i.test(l)).slice(-60).join('\n'));
    throw e;
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output());
});
