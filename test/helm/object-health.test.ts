// kstatus-style status of single objects: statuses as the sandbox's simulated controllers write them
// (copied from a sandbox run), the same objects part-way, failures, and statuses that cannot be read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { objectHealth, serviceEndpointsHealth, serviceSelector } from '../../src/helm/object-health.js';

const T = '2026-11-29T07:24:45Z';
const meta = (name: string, generation = 1) => ({ name, namespace: 'default', generation });
const cond = (type: string, status: string, reason?: string, message?: string) => ({ type, status, lastTransitionTime: T, ...(reason ? { reason } : {}), ...(message ? { message } : {}) });

const deployment = (status: object, generation = 1, replicas = 2) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta('web', generation), spec: { replicas, selector: { matchLabels: { app: 'web' } } }, status,
});
const rolledOut = {
  availableReplicas: 2, observedGeneration: 1, readyReplicas: 2, replicas: 2, updatedReplicas: 2,
  conditions: [
    cond('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
    cond('Progressing', 'True', 'NewReplicaSetAvailable', 'ReplicaSet "web-s4zqqbq9s" has successfully progressed.'),
  ],
};

test('a Deployment: rolled out is Current; waiting for replicas, availability or a new generation is InProgress; a missed deadline Failed', () => {
  assert.deepEqual(objectHealth(deployment(rolledOut)), { status: 'Current', message: 'Deployment is available. Replicas: 2' });
  const starting = {
    observedGeneration: 1, replicas: 2, updatedReplicas: 2, unavailableReplicas: 2,
    conditions: [cond('Available', 'False', 'MinimumReplicasUnavailable'), cond('Progressing', 'True', 'ReplicaSetUpdated')],
  };
  assert.deepEqual(objectHealth(deployment(starting)), { status: 'InProgress', message: 'Available: 0/2' });
  assert.deepEqual(objectHealth(deployment({ ...rolledOut, updatedReplicas: 1 })), { status: 'InProgress', message: 'Updated: 1/2' });
  assert.deepEqual(objectHealth(deployment(rolledOut, 2)), { status: 'InProgress', message: 'Deployment generation is 2, but latest observed generation is 1' });
  assert.equal(objectHealth(deployment({}, 1)).status, 'InProgress');
  assert.deepEqual(objectHealth(deployment({ ...rolledOut, replicas: 3 })), { status: 'InProgress', message: 'Pending termination: 1' });
  const noAvailable = { ...rolledOut, conditions: [cond('Available', 'False')] };
  assert.deepEqual(objectHealth(deployment(noAvailable)), { status: 'InProgress', message: 'Deployment not Available' });
  const stuck = { ...rolledOut, availableReplicas: 0, conditions: [cond('Progressing', 'False', 'ProgressDeadlineExceeded')] };
  assert.deepEqual(objectHealth(deployment(stuck)), { status: 'Failed', message: 'Progress deadline exceeded' });
});

test('StatefulSets, DaemonSets and ReplicaSets as the sandbox writes them are Current; short of replicas InProgress', () => {
  const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: meta('db'), spec: { replicas: 1, serviceName: 'db' },
    status: { availableReplicas: 1, collisionCount: 0, currentReplicas: 1, currentRevision: 'db-9bzqj49r94', observedGeneration: 1, readyReplicas: 1, replicas: 1, updateRevision: 'db-9bzqj49r94', updatedReplicas: 1 } };
  assert.deepEqual(objectHealth(sts), { status: 'Current', message: 'All replicas scheduled as expected. Replicas: 1' });
  assert.deepEqual(objectHealth({ ...sts, status: { ...sts.status, readyReplicas: 0 } }), { status: 'InProgress', message: 'Ready: 0/1' });
  assert.equal(objectHealth({ ...sts, status: { ...sts.status, updateRevision: 'db-2' } }).status, 'InProgress');
  assert.equal(objectHealth({ ...sts, spec: { ...sts.spec, updateStrategy: { type: 'OnDelete' } }, status: { ...sts.status, readyReplicas: 0 } }).status, 'Current');

  const ds = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: meta('agent'),
    status: { currentNumberScheduled: 1, desiredNumberScheduled: 1, numberAvailable: 1, numberMisscheduled: 0, numberReady: 1, observedGeneration: 1, updatedNumberScheduled: 1 } };
  assert.deepEqual(objectHealth(ds), { status: 'Current', message: 'All replicas scheduled as expected. Replicas: 1' });
  assert.deepEqual(objectHealth({ ...ds, status: { ...ds.status, numberAvailable: 0 } }), { status: 'InProgress', message: 'Available: 0/1' });

  const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: meta('web-s4zqqbq9s'), spec: { replicas: 2 },
    status: { availableReplicas: 2, fullyLabeledReplicas: 2, observedGeneration: 1, readyReplicas: 2, replicas: 2 } };
  assert.deepEqual(objectHealth(rs), { status: 'Current', message: 'ReplicaSet is available. Replicas: 2' });
  assert.deepEqual(objectHealth({ ...rs, status: { ...rs.status, readyReplicas: 1 } }), { status: 'InProgress', message: 'Ready: 1/2' });
});

test('Jobs: Complete is Current, Failed is Failed with the reason, running InProgress', () => {
  const job = (status: object) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: meta('j'), spec: { backoffLimit: 0 }, status });
  const complete = { completionTime: T, startTime: T, succeeded: 1, ready: 0, uncountedTerminatedPods: {},
    conditions: [cond('SuccessCriteriaMet', 'True', 'CompletionsReached'), cond('Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods')] };
  assert.deepEqual(objectHealth(job(complete)), { status: 'Current', message: 'Job Completed. succeeded: 1/1' });
  const failedJob = { failed: 1, ready: 0, startTime: T, uncountedTerminatedPods: {},
    conditions: [cond('FailureTarget', 'True', 'BackoffLimitExceeded'), cond('Failed', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit')] };
  assert.deepEqual(objectHealth(job(failedJob)), { status: 'Failed', message: 'Job Failed (BackoffLimitExceeded). failed: 1/1' });
  assert.deepEqual(objectHealth(job({ startTime: T, active: 1, ready: 0 })), { status: 'InProgress', message: 'Job in progress. success: 0, active: 1, failed: 0' });
  assert.deepEqual(objectHealth(job({})), { status: 'InProgress', message: 'Job not started' });
});

test('Pods, PVCs, Services, CRDs', () => {
  const pod = (status: object) => ({ apiVersion: 'v1', kind: 'Pod', metadata: meta('p'), status });
  assert.equal(objectHealth(pod({ phase: 'Running', conditions: [cond('Ready', 'True')] })).status, 'Current');
  assert.deepEqual(objectHealth(pod({ phase: 'Running', conditions: [cond('Ready', 'False')] })), { status: 'InProgress', message: 'Pod is running but is not Ready' });
  assert.equal(objectHealth(pod({ phase: 'Succeeded' })).status, 'Current');
  assert.equal(objectHealth(pod({ phase: 'Failed', conditions: [cond('Ready', 'False', 'PodFailed')] })).status, 'Failed');
  const crash = pod({ phase: 'Running', containerStatuses: [{ name: 'main', ready: false, state: { waiting: { reason: 'CrashLoopBackOff' } } }] });
  assert.deepEqual(objectHealth(crash), { status: 'Failed', message: 'Container main is in CrashLoopBackOff' });
  assert.deepEqual(objectHealth(pod({ phase: 'Pending', conditions: [cond('PodScheduled', 'False', 'Unschedulable', '0/1 nodes are available')] })), { status: 'Failed', message: 'Pod could not be scheduled: 0/1 nodes are available' });

  const pvc = (phase?: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta('data', 2), status: phase ? { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, phase } : {} });
  assert.deepEqual(objectHealth(pvc('Bound')), { status: 'Current', message: 'PVC is Bound' });
  assert.deepEqual(objectHealth(pvc('Pending')), { status: 'InProgress', message: 'PVC is not Bound. phase: Pending' });

  const svc = (type: string, status: object) => ({ apiVersion: 'v1', kind: 'Service', metadata: meta('lb', 2), spec: { type }, status });
  assert.equal(objectHealth(svc('LoadBalancer', { loadBalancer: { ingress: [{ ip: '172.18.255.1', ipMode: 'VIP' }] } })).status, 'Current');
  assert.deepEqual(objectHealth(svc('LoadBalancer', { loadBalancer: {} })), { status: 'InProgress', message: 'Waiting for the load balancer address' });
  assert.equal(objectHealth(svc('ClusterIP', {})).status, 'Current');

  const crd = (conditions: object[]) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'crontabs.example.com', generation: 1 }, status: { conditions } });
  assert.deepEqual(objectHealth(crd([cond('NamesAccepted', 'True'), cond('Established', 'True')])), { status: 'Current', message: 'CRD is established' });
  assert.equal(objectHealth(crd([cond('NamesAccepted', 'True')])).status, 'InProgress');
  assert.equal(objectHealth(crd([cond('NamesAccepted', 'False', 'MultipleNamesNotAllowed')])).status, 'Failed');
});

test('other kinds: a Ready or Available condition decides, Stalled fails, none at all is Current; an unreadable status is Unknown naming the object', () => {
  const cr = (status: unknown) => ({ apiVersion: 'example.com/v1', kind: 'Database', metadata: meta('orders'), status });
  assert.equal(objectHealth(cr({ conditions: [cond('Ready', 'True')] })).status, 'Current');
  assert.deepEqual(objectHealth(cr({ conditions: [cond('Ready', 'False', 'Provisioning', 'creating volume')] })), { status: 'InProgress', message: 'Ready False: creating volume' });
  assert.equal(objectHealth(cr({ conditions: [cond('Available', 'False', 'NoQuorum')] })).status, 'InProgress');
  assert.deepEqual(objectHealth(cr({ conditions: [cond('Stalled', 'True', 'BadSpec', 'size must be positive')] })), { status: 'Failed', message: 'size must be positive' });
  assert.equal(objectHealth({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('c'), data: {} }).status, 'Current');
  assert.equal(objectHealth(cr(undefined)).status, 'Current');
  assert.deepEqual(objectHealth(cr('broken')), { status: 'Unknown', message: 'Database default/orders: cannot read status: status is not an object' });
  assert.deepEqual(objectHealth(cr({ conditions: 'Ready' })), { status: 'Unknown', message: 'Database default/orders: cannot read status: status.conditions is not a list' });
  assert.deepEqual(objectHealth(deployment({ ...rolledOut, availableReplicas: 'two' })), { status: 'Unknown', message: 'Deployment default/web: cannot read status: availableReplicas is "two", not a number' });
  assert.deepEqual(objectHealth({ ...deployment(rolledOut), metadata: { ...meta('web'), deletionTimestamp: T } }), { status: 'InProgress', message: 'Resource scheduled for deletion' });
});

test('a Service with a selector needs a ready endpoint; without a selector, ExternalName or unreadable EndpointSlices, kstatus says', () => {
  const svc = (spec: object) => ({ apiVersion: 'v1', kind: 'Service', metadata: meta('web'), spec });
  assert.equal(serviceSelector(svc({ selector: { app: 'web', tier: 'front' }, ports: [{ port: 80 }] })), 'app=web,tier=front');
  assert.equal(serviceSelector(svc({ clusterIP: 'None', selector: { app: 'web' } })), 'app=web');
  assert.equal(serviceSelector(svc({ type: 'LoadBalancer', selector: { app: 'web' } })), 'app=web');
  assert.equal(serviceSelector(svc({ ports: [{ port: 80 }] })), undefined);
  assert.equal(serviceSelector(svc({ selector: {} })), undefined);
  assert.equal(serviceSelector(svc({ type: 'ExternalName', externalName: 'db.example.com', selector: { app: 'web' } })), undefined);
  assert.equal(serviceSelector({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta('web'), spec: { selector: { matchLabels: { app: 'web' } } } }), undefined);

  const ready = objectHealth(svc({ selector: { app: 'web' } }));
  assert.deepEqual(ready, { status: 'Current', message: 'Service is ready' });
  assert.deepEqual(serviceEndpointsHealth(ready, 'app=web', { state: 'listed', ready: 2 }), ready);
  assert.deepEqual(serviceEndpointsHealth(ready, 'app=web', { state: 'listed', ready: 0 }), { status: 'InProgress', message: 'no ready endpoints (no Ready Pod matches its selector app=web)' });
  assert.deepEqual(serviceEndpointsHealth(ready, 'app=web', { state: 'listing' }), { status: 'Unknown', message: 'its EndpointSlices are not listed yet' });
  assert.deepEqual(serviceEndpointsHealth(ready, 'app=web', { state: 'unreadable', error: 'forbidden' }), { status: 'Current', message: 'Service is ready (endpoints not checked: forbidden)' });
  // a LoadBalancer waits for its address first
  const noAddress = objectHealth(svc({ type: 'LoadBalancer', selector: { app: 'web' } }));
  assert.deepEqual(serviceEndpointsHealth(noAddress, 'app=web', { state: 'listed', ready: 0 }), { status: 'InProgress', message: 'Waiting for the load balancer address' });
});
