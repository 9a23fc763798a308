/**
 * The defaults kube-apiserver gives built-in kinds when it decodes a request (create, update, patch,
 * server-side apply), and what its create strategies add after the managed fields are recorded.
 */
import type { ResourceType } from '../registry.js';
import * as apps from './apps.js';
import * as batch from './batch.js';
import * as core from './core.js';
import * as other from './other.js';
import type { ServiceAllocator } from './service-alloc.js';
import { isObj, type Obj } from './util.js';

type Defaulter = (o: Obj) => void;

const DEFAULTERS: Record<string, Defaulter> = {
  '/Pod': core.pod,
  '/Service': core.service,
  '/Secret': core.secret,
  '/PersistentVolumeClaim': core.persistentVolumeClaim,
  '/PersistentVolume': core.persistentVolume,
  '/Endpoints': core.endpoints,
  'apps/Deployment': apps.deployment,
  'apps/ReplicaSet': apps.replicaSet,
  'apps/DaemonSet': apps.daemonSet,
  'apps/StatefulSet': apps.statefulSet,
  'batch/Job': batch.job,
  'batch/CronJob': batch.cronJob,
  'networking.k8s.io/NetworkPolicy': other.networkPolicy,
  'networking.k8s.io/Ingress': other.ingress,
  'rbac.authorization.k8s.io/RoleBinding': other.roleBinding,
  'rbac.authorization.k8s.io/ClusterRoleBinding': other.roleBinding,
  'storage.k8s.io/StorageClass': other.storageClass,
  'storage.k8s.io/CSIDriver': other.csiDriver,
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': (o) => other.webhookConfiguration(o, true),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': (o) => other.webhookConfiguration(o, false),
  'scheduling.k8s.io/PriorityClass': other.priorityClass,
  'autoscaling/HorizontalPodAutoscaler': other.horizontalPodAutoscaler,
};

/** Sets the defaults of a built-in kind in place (as decoding does: the writer owns them). */
export function applyDefaults(t: ResourceType, o: unknown): void {
  if (!t.builtin || !isObj(o)) return;
  DEFAULTERS[`${t.group}/${t.kind}`]?.(o);
}

/** What the create strategy adds after the managed fields: a Job's selector, a Service's addresses. */
export function prepareForCreate(t: ResourceType, o: unknown, services: ServiceAllocator): void {
  if (!t.builtin || !isObj(o)) return;
  if (t.group === 'batch' && t.kind === 'Job') batch.jobSelector(o);
  else if (t.group === '' && t.kind === 'Service') services.allocate(o);
}

/** What the update strategy keeps: a Service's allocated addresses and ports when the update omits them. */
export function prepareForUpdate(t: ResourceType, o: unknown, old: unknown, services: ServiceAllocator): void {
  if (!t.builtin || !isObj(o) || !isObj(old)) return;
  if (t.group === '' && t.kind === 'Service') services.allocate(o, old);
}

export { ServiceAllocator } from './service-alloc.js';
