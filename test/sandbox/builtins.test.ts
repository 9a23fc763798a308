// Every built-in kind the issue lists: served in discovery (group/version, plural, kind, scope, verbs)
// and usable through KubernetesObjectApi (create, read, list, merge patch, replace, delete).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { failure, withSandbox } from './helpers.js';

interface Kind {
  apiVersion: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** Fields besides apiVersion/kind/metadata of a minimal valid object. */
  body?: Record<string, unknown>;
}

const podSpec = { containers: [{ name: 'c', image: 'busybox' }] };
const template = { metadata: { labels: { app: 'x' } }, spec: podSpec };
const selector = { matchLabels: { app: 'x' } };

const KINDS: Kind[] = [
  { apiVersion: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false },
  { apiVersion: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, body: { data: { a: 'b' } } },
  { apiVersion: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, body: { stringData: { a: 'b' } } },
  { apiVersion: 'v1', plural: 'services', kind: 'Service', namespaced: true, body: { spec: { ports: [{ port: 80 }] } } },
  { apiVersion: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  { apiVersion: 'v1', plural: 'pods', kind: 'Pod', namespaced: true, body: { spec: podSpec } },
  { apiVersion: 'v1', plural: 'nodes', kind: 'Node', namespaced: false },
  { apiVersion: 'v1', plural: 'events', kind: 'Event', namespaced: true, body: { reason: 'Test', involvedObject: { kind: 'Pod', name: 'p' } } },
  { apiVersion: 'v1', plural: 'endpoints', kind: 'Endpoints', namespaced: true },
  { apiVersion: 'v1', plural: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true, body: { spec: { accessModes: ['ReadWriteOnce'] } } },
  { apiVersion: 'apps/v1', plural: 'deployments', kind: 'Deployment', namespaced: true, body: { spec: { selector, template } } },
  { apiVersion: 'apps/v1', plural: 'daemonsets', kind: 'DaemonSet', namespaced: true, body: { spec: { selector, template } } },
  { apiVersion: 'apps/v1', plural: 'statefulsets', kind: 'StatefulSet', namespaced: true, body: { spec: { selector, template, serviceName: 's' } } },
  { apiVersion: 'apps/v1', plural: 'replicasets', kind: 'ReplicaSet', namespaced: true, body: { spec: { selector, template } } },
  { apiVersion: 'batch/v1', plural: 'jobs', kind: 'Job', namespaced: true, body: { spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } } },
  { apiVersion: 'batch/v1', plural: 'cronjobs', kind: 'CronJob', namespaced: true, body: { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'OnFailure' } } } } } } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', plural: 'roles', kind: 'Role', namespaced: true, body: { rules: [] } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', plural: 'rolebindings', kind: 'RoleBinding', namespaced: true, body: { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' } } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false, body: { rules: [] } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', plural: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false, body: { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' } } },
  { apiVersion: 'coordination.k8s.io/v1', plural: 'leases', kind: 'Lease', namespaced: true, body: { spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } } },
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    plural: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    body: {
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    },
  },
  { apiVersion: 'networking.k8s.io/v1', plural: 'ingresses', kind: 'Ingress', namespaced: true, body: { spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } } },
  { apiVersion: 'networking.k8s.io/v1', plural: 'ingressclasses', kind: 'IngressClass', namespaced: false, body: { spec: { controller: 'example.com/ingress' } } },
  { apiVersion: 'networking.k8s.io/v1', plural: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true, body: { spec: { podSelector: {} } } },
  { apiVersion: 'policy/v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, body: { spec: { minAvailable: 1, selector } } },
  { apiVersion: 'admissionregistration.k8s.io/v1', plural: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', namespaced: false, body: { webhooks: [] } },
  { apiVersion: 'admissionregistration.k8s.io/v1', plural: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false, body: { webhooks: [] } },
  { apiVersion: 'apiregistration.k8s.io/v1', plural: 'apiservices', kind: 'APIService', namespaced: false, body: { spec: { group: 'custom.metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { name: 'adapter', namespace: 'default' } } } },
  { apiVersion: 'storage.k8s.io/v1', plural: 'storageclasses', kind: 'StorageClass', namespaced: false, body: { provisioner: 'example.com/disk' } },
  { apiVersion: 'storage.k8s.io/v1', plural: 'csidrivers', kind: 'CSIDriver', namespaced: false, body: { spec: {} } },
  { apiVersion: 'storage.k8s.io/v1', plural: 'csinodes', kind: 'CSINode', namespaced: false, body: { spec: { drivers: [] } } },
  { apiVersion: 'storage.k8s.io/v1', plural: 'volumeattachments', kind: 'VolumeAttachment', namespaced: false, body: { spec: { attacher: 'a', nodeName: 'n', source: {} } } },
  { apiVersion: 'scheduling.k8s.io/v1', plural: 'priorityclasses', kind: 'PriorityClass', namespaced: false, body: { value: 1000 } },
  { apiVersion: 'autoscaling/v2', plural: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true, body: { spec: { maxReplicas: 3, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } } } },
];

/** The typed client of each group version, for its APIResourceList. */
const GROUP_APIS: Record<string, new (c: k8s.Configuration) => { getAPIResources(): Promise<k8s.V1APIResourceList> }> = {
  v1: k8s.CoreV1Api,
  'apps/v1': k8s.AppsV1Api,
  'batch/v1': k8s.BatchV1Api,
  'rbac.authorization.k8s.io/v1': k8s.RbacAuthorizationV1Api,
  'coordination.k8s.io/v1': k8s.CoordinationV1Api,
  'apiextensions.k8s.io/v1': k8s.ApiextensionsV1Api,
  'networking.k8s.io/v1': k8s.NetworkingV1Api,
  'policy/v1': k8s.PolicyV1Api,
  'admissionregistration.k8s.io/v1': k8s.AdmissionregistrationV1Api,
  'apiregistration.k8s.io/v1': k8s.ApiregistrationV1Api,
  'storage.k8s.io/v1': k8s.StorageV1Api,
  'scheduling.k8s.io/v1': k8s.SchedulingV1Api,
  'autoscaling/v2': k8s.AutoscalingV2Api,
};

const merge = k8s.PatchStrategy.MergePatch;

test('every listed built-in kind is in discovery with its group/version, kind, scope and verbs', async () => {
  await withSandbox(async ({ kc }) => {
    for (const [gv, Api] of Object.entries(GROUP_APIS)) {
      const list = await kc.makeApiClient(Api).getAPIResources();
      assert.equal(list.groupVersion, gv);
      for (const k of KINDS.filter((x) => x.apiVersion === gv)) {
        const r = list.resources.find((x) => x.name === k.plural);
        assert.ok(r, `${gv} ${k.plural} is served`);
        assert.equal(r.kind, k.kind, k.plural);
        assert.equal(r.namespaced, k.namespaced, k.plural);
        assert.equal(r.singularName, k.kind.toLowerCase(), k.plural);
        const verbs = k.plural === 'namespaces' ? ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] : ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
        assert.deepEqual([...r.verbs].sort(), verbs, k.plural);
      }
    }
  });
});

test('every listed built-in kind: create, read, list, merge patch, replace and delete through KubernetesObjectApi', async () => {
  await withSandbox(async ({ objects }) => {
    for (const k of KINDS) {
      const name = k.kind === 'CustomResourceDefinition' ? 'gadgets.example.com' : `test-${k.plural}`;
      const meta = { name, ...(k.namespaced ? { namespace: 'default' } : {}) };
      const ref = { apiVersion: k.apiVersion, kind: k.kind, metadata: meta };
      const created = await objects.create({ ...ref, metadata: { ...meta }, ...(k.body ?? {}) } as k8s.KubernetesObject);
      assert.equal(created.kind, k.kind);
      assert.equal(created.apiVersion, k.apiVersion);
      assert.equal(created.metadata!.namespace, k.namespaced ? 'default' : undefined, `${k.kind} scope`);
      assert.ok(created.metadata!.uid, `${k.kind} has a uid`);

      const read = await objects.read(ref);
      assert.equal(read.metadata!.uid, created.metadata!.uid);
      const listed = await objects.list(k.apiVersion, k.kind, k.namespaced ? 'default' : undefined);
      assert.ok(listed.items.some((i) => i.metadata!.name === name), `${k.kind} is listed`);

      const patched: k8s.KubernetesObject = await objects.patch({ ...ref, metadata: { ...meta, labels: { patched: 'yes' } } }, undefined, undefined, undefined, undefined, merge);
      assert.equal(patched.metadata!.labels!.patched, 'yes', `${k.kind} merge patch`);
      const replaced: k8s.KubernetesObject = await objects.replace({ ...patched, metadata: { ...patched.metadata!, annotations: { replaced: 'yes' } } });
      assert.equal(replaced.metadata!.annotations!.replaced, 'yes', `${k.kind} replace`);
      assert.ok(Number(replaced.metadata!.resourceVersion) > Number(patched.metadata!.resourceVersion));

      await objects.delete(ref);
      assert.equal((await failure(objects.read(ref))).code, 404, `${k.kind} is gone after delete`);
    }
  });
});
