// The API server's defaults of built-in kinds: what is stored and shown, and who owns it in managedFields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { raw, withSandbox } from './helpers.js';
import type { Sandbox } from '../../src/sandbox/index.js';

const JSON_CT = { 'content-type': 'application/json' };
const APPLY_CT = { 'content-type': 'application/apply-patch+yaml' };

async function create(sb: Sandbox, path: string, body: unknown): Promise<any> {
  const r = await raw(sb, 'POST', path, { body: JSON.stringify(body), headers: JSON_CT });
  assert.equal(r.status, 201, r.text);
  return r.json();
}

async function apply(sb: Sandbox, path: string, body: unknown, manager = 'applier'): Promise<any> {
  const r = await raw(sb, 'PATCH', `${path}?fieldManager=${manager}`, { body: JSON.stringify(body), headers: APPLY_CT });
  assert.ok(r.status === 200 || r.status === 201, r.text);
  return r.json();
}

const fieldsOf = (o: any, manager: string): any => o.metadata.managedFields.find((m: any) => m.manager === manager)?.fieldsV1;

const deployment = (name: string, image = 'nginx'): any => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image, ports: [{ containerPort: 80 }] }] } },
  },
});

test('a created Deployment gets the defaults of apps/v1 and of its Pod template; the creator owns them', async () => {
  await withSandbox(async ({ sb }) => {
    const d = await create(sb, '/apis/apps/v1/namespaces/default/deployments', deployment('web'));
    assert.equal(d.spec.replicas, 1);
    assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(d.spec.revisionHistoryLimit, 10);
    assert.equal(d.spec.progressDeadlineSeconds, 600);
    const pod = d.spec.template.spec;
    assert.equal(pod.restartPolicy, 'Always');
    assert.equal(pod.dnsPolicy, 'ClusterFirst');
    assert.equal(pod.terminationGracePeriodSeconds, 30);
    assert.equal(pod.schedulerName, 'default-scheduler');
    assert.deepEqual(pod.securityContext, {});
    assert.deepEqual(pod.containers[0], {
      name: 'c',
      image: 'nginx',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      resources: {},
    });
    // an Update (create) owns what decoding defaulted, as in kube-apiserver
    const f = fieldsOf(d, 'unknown');
    assert.ok(f['f:spec']['f:strategy']['f:rollingUpdate']['f:maxSurge'], JSON.stringify(f));
    assert.ok(f['f:spec']['f:revisionHistoryLimit']);
  });
});

test('server-side apply: the object gets the defaults, the applier owns only what it applied; a re-apply changes nothing', async () => {
  await withSandbox(async ({ sb }) => {
    const path = '/apis/apps/v1/namespaces/default/deployments/api';
    const d = await apply(sb, path, deployment('api', 'registry.example.com/api:1.2'));
    assert.equal(d.spec.revisionHistoryLimit, 10);
    assert.equal(d.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
    const f = fieldsOf(d, 'applier');
    assert.equal(f['f:spec']['f:strategy'], undefined, 'defaulted fields are not the applier’s');
    assert.equal(f['f:spec']['f:revisionHistoryLimit'], undefined);
    assert.equal(f['f:spec']['f:replicas'], undefined);
    const c = f['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"c"}'];
    assert.ok(c['f:image']);
    assert.equal(c['f:imagePullPolicy'], undefined);
    const again = await apply(sb, path, deployment('api', 'registry.example.com/api:1.2'));
    assert.equal(again.metadata.resourceVersion, d.metadata.resourceVersion, 'the same apply is no change');
    assert.equal(again.metadata.generation, 1);
    // an applied value wins over the default; dropping it brings the default back
    const limited = deployment('api', 'registry.example.com/api:1.2');
    limited.spec.revisionHistoryLimit = 3;
    const r = await apply(sb, path, limited);
    assert.equal(r.spec.revisionHistoryLimit, 3);
    const back = await apply(sb, path, deployment('api', 'registry.example.com/api:1.2'));
    assert.equal(back.spec.revisionHistoryLimit, 10);
  });
});

test('imagePullPolicy: Always for latest or no tag, IfNotPresent for a tag or a digest', async () => {
  await withSandbox(async ({ sb }) => {
    const images: [string, string][] = [
      ['nginx', 'Always'],
      ['nginx:latest', 'Always'],
      ['nginx:1.25', 'IfNotPresent'],
      ['localhost:5000/app', 'Always'],
      ['localhost:5000/app:v2', 'IfNotPresent'],
      ['nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'IfNotPresent'],
    ];
    const containers = images.map(([image], i) => ({ name: `c${i}`, image }));
    const p = await create(sb, '/api/v1/namespaces/default/pods', { metadata: { name: 'p' }, spec: { containers } });
    assert.deepEqual(p.spec.containers.map((c: any) => c.imagePullPolicy), images.map(([, want]) => want));
  });
});

test('a Pod: limits give requests, service links on, probes and volumes defaulted', async () => {
  await withSandbox(async ({ sb }) => {
    const p = await create(sb, '/api/v1/namespaces/default/pods', {
      metadata: { name: 'p' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'x:1',
            resources: { limits: { cpu: '1', memory: '1Gi' } },
            readinessProbe: { httpGet: { port: 8080 } },
            env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
          },
        ],
        volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }, { name: 'tmp' }, { name: 'host', hostPath: { path: '/x' } }],
      },
    });
    const c = p.spec.containers[0];
    assert.deepEqual(c.resources.requests, { cpu: '1', memory: '1Gi' });
    assert.deepEqual(c.readinessProbe, { httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.equal(c.env[0].valueFrom.fieldRef.apiVersion, 'v1');
    assert.equal(p.spec.enableServiceLinks, true);
    assert.deepEqual(p.spec.volumes, [
      { name: 'cfg', configMap: { name: 'cfg', defaultMode: 420 } },
      { name: 'tmp', emptyDir: {} },
      { name: 'host', hostPath: { path: '/x', type: '' } },
    ]);
  });
});

test('Services: a ClusterIP from 10.96.0.0/12 (not the applier’s), defaults, node ports; headless stays None; an update without the address keeps it', async () => {
  await withSandbox(async ({ sb }) => {
    const path = '/api/v1/namespaces/default/services';
    const a = await apply(sb, `${path}/a`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a' }, spec: { selector: { app: 'a' }, ports: [{ port: 80 }] } });
    assert.match(a.spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    assert.deepEqual(a.spec.clusterIPs, [a.spec.clusterIP]);
    assert.equal(a.spec.type, 'ClusterIP');
    assert.equal(a.spec.sessionAffinity, 'None');
    assert.deepEqual(a.spec.ipFamilies, ['IPv4']);
    assert.equal(a.spec.ipFamilyPolicy, 'SingleStack');
    assert.equal(a.spec.internalTrafficPolicy, 'Cluster');
    assert.deepEqual(a.spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    assert.equal(fieldsOf(a, 'applier')['f:spec']['f:clusterIP'], undefined);
    const b = await create(sb, path, { metadata: { name: 'b' }, spec: { type: 'NodePort', selector: { app: 'b' }, ports: [{ port: 443, targetPort: 'https' }] } });
    assert.notEqual(b.spec.clusterIP, a.spec.clusterIP, 'each Service its own address');
    assert.ok(b.spec.ports[0].nodePort >= 30000 && b.spec.ports[0].nodePort <= 32767);
    assert.equal(b.spec.ports[0].targetPort, 'https');
    assert.equal(b.spec.externalTrafficPolicy, 'Cluster');
    const h = await create(sb, path, { metadata: { name: 'h' }, spec: { clusterIP: 'None', ports: [{ port: 5432 }] } });
    assert.equal(h.spec.clusterIP, 'None');
    assert.deepEqual(h.spec.clusterIPs, ['None']);
    assert.equal(h.spec.ipFamilyPolicy, 'RequireDualStack', 'headless without a selector');
    const e = await create(sb, path, { metadata: { name: 'e' }, spec: { type: 'ExternalName', externalName: 'example.com' } });
    assert.equal(e.spec.clusterIP, undefined);
    assert.equal(e.spec.internalTrafficPolicy, undefined);
    // a replace that omits what was allocated keeps it
    const { clusterIP: _ip, clusterIPs: _ips, ...rest } = b.spec;
    const replaced = await raw(sb, 'PUT', `${path}/b`, {
      body: JSON.stringify({ ...b, spec: { ...rest, ports: [{ port: 443, targetPort: 'https' }] } }),
      headers: JSON_CT,
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.json().spec.clusterIP, b.spec.clusterIP);
    assert.equal(replaced.json().spec.ports[0].nodePort, b.spec.ports[0].nodePort);
    // a deleted Service's address is free again, the others stay taken
    await raw(sb, 'DELETE', `${path}/a`);
    const c = await create(sb, path, { metadata: { name: 'c' }, spec: { ports: [{ port: 1 }] } });
    assert.notEqual(c.spec.clusterIP, b.spec.clusterIP);
  });
});

test('Jobs and CronJobs: batch/v1 defaults, the generated selector and Pod labels', async () => {
  await withSandbox(async ({ sb }) => {
    const tpl = { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } };
    const j = await create(sb, '/apis/batch/v1/namespaces/default/jobs', { metadata: { name: 'j' }, spec: { template: tpl } });
    assert.equal(j.spec.backoffLimit, 6);
    assert.equal(j.spec.completions, 1);
    assert.equal(j.spec.parallelism, 1);
    assert.equal(j.spec.completionMode, 'NonIndexed');
    assert.equal(j.spec.suspend, false);
    assert.equal(j.spec.podReplacementPolicy, 'TerminatingOrFailed');
    const uid = j.metadata.uid;
    assert.deepEqual(j.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    assert.deepEqual(j.spec.template.metadata.labels, { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'j', 'controller-uid': uid, 'job-name': 'j' });
    const par = await create(sb, '/apis/batch/v1/namespaces/default/jobs', { metadata: { name: 'par' }, spec: { parallelism: 3, template: tpl } });
    assert.equal(par.spec.completions, undefined, 'completions stay unset when parallelism is given');
    const cj = await create(sb, '/apis/batch/v1/namespaces/default/cronjobs', { metadata: { name: 'cj' }, spec: { schedule: '@hourly', jobTemplate: { spec: { template: tpl } } } });
    assert.equal(cj.spec.concurrencyPolicy, 'Allow');
    assert.equal(cj.spec.suspend, false);
    assert.equal(cj.spec.successfulJobsHistoryLimit, 3);
    assert.equal(cj.spec.failedJobsHistoryLimit, 1);
    assert.equal(cj.spec.jobTemplate.spec.template.spec.dnsPolicy, 'ClusterFirst');
    assert.equal(cj.spec.jobTemplate.spec.backoffLimit, undefined, 'a job template is not a Job');
  });
});

test('StatefulSets, DaemonSets, Secrets, PVCs, NetworkPolicies, RoleBindings get their defaults', async () => {
  await withSandbox(async ({ sb }) => {
    const tpl = { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } };
    const sts = await create(sb, '/apis/apps/v1/namespaces/default/statefulsets', {
      metadata: { name: 's' },
      spec: { serviceName: 's', selector: { matchLabels: { app: 's' } }, template: tpl, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] },
    });
    assert.equal(sts.spec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(sts.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.deepEqual(sts.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(sts.spec.revisionHistoryLimit, 10);
    assert.equal(sts.spec.volumeClaimTemplates[0].spec.volumeMode, 'Filesystem');
    assert.deepEqual(sts.spec.volumeClaimTemplates[0].status, { phase: 'Pending' });
    const ds = await create(sb, '/apis/apps/v1/namespaces/default/daemonsets', { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 's' } }, template: tpl } });
    assert.deepEqual(ds.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    const sec = await create(sb, '/api/v1/namespaces/default/secrets', { metadata: { name: 'sec' } });
    assert.equal(sec.type, 'Opaque');
    const pvc = await create(sb, '/api/v1/namespaces/default/persistentvolumeclaims', { metadata: { name: 'pvc' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    assert.equal(pvc.spec.volumeMode, 'Filesystem');
    const np = await create(sb, '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', { metadata: { name: 'np' }, spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } });
    assert.deepEqual(np.spec.policyTypes, ['Ingress', 'Egress']);
    assert.equal(np.spec.egress[0].ports[0].protocol, 'TCP');
    const rb = await create(sb, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'rb' },
      roleRef: { kind: 'Role', name: 'r' },
      subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'default' }, { kind: 'User', name: 'u' }],
    });
    assert.equal(rb.roleRef.apiGroup, 'rbac.authorization.k8s.io');
    assert.deepEqual(rb.subjects.map((s: any) => s.apiGroup), ['', 'rbac.authorization.k8s.io']);
  });
});
