/**
 * The status of one Kubernetes object from its `status`, by kstatus's rules
 * (sigs.k8s.io/cli-utils/pkg/kstatus/status): `Current` (rolled out / ready / done), `InProgress`
 * (with what it waits for), `Failed` (with the reason) or `Unknown` (a status that cannot be read,
 * naming the object). Pure: no reads, the caller passes the object as a watch delivered it.
 */

export type ObjectStatus = 'Current' | 'InProgress' | 'Failed' | 'Unknown';

export interface ObjectHealth {
  status: ObjectStatus;
  message: string;
}

type Obj = Record<string, unknown>;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `Kind ns/name` (`Kind name` when cluster-scoped), as messages name an object. */
export function objectRef(obj: Obj): string {
  const meta = isObj(obj.metadata) ? obj.metadata : {};
  const ns = typeof meta.namespace === 'string' && meta.namespace ? `${meta.namespace}/` : '';
  return `${typeof obj.kind === 'string' ? obj.kind : 'object'} ${ns}${typeof meta.name === 'string' ? meta.name : '?'}`;
}

class Unreadable extends Error {}

function int(o: Obj, key: string, fallback = 0): number {
  const v = o[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Unreadable(`${key} is ${JSON.stringify(v)}, not a number`);
  return v;
}

function conditions(status: Obj): Condition[] {
  const raw = status.conditions;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new Unreadable('status.conditions is not a list');
  return raw.map((c, i) => {
    if (!isObj(c) || typeof c.type !== 'string' || typeof c.status !== 'string') throw new Unreadable(`status.conditions[${i}] has no type and status`);
    return c as unknown as Condition;
  });
}

function cond(list: Condition[], type: string): Condition | undefined {
  return list.find((c) => c.type === type);
}

const current = (message: string): ObjectHealth => ({ status: 'Current', message });
const inProgress = (message: string): ObjectHealth => ({ status: 'InProgress', message });
const failed = (message: string): ObjectHealth => ({ status: 'Failed', message });

function deployment(spec: Obj, status: Obj, conds: Condition[]): ObjectHealth {
  const progressing = cond(conds, 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') return failed('Progress deadline exceeded');
  const want = int(spec, 'replicas', 1);
  const replicas = int(status, 'replicas');
  const updated = int(status, 'updatedReplicas');
  const available = int(status, 'availableReplicas');
  const ready = int(status, 'readyReplicas');
  if (spec.paused !== true) {
    if (updated < want) return inProgress(`Updated: ${updated}/${want}`);
  }
  if (replicas > want) return inProgress(`Pending termination: ${replicas - want}`);
  if (available < want) return inProgress(`Available: ${available}/${want}`);
  if (ready < want) return inProgress(`Ready: ${ready}/${want}`);
  if (cond(conds, 'Available')?.status !== 'True') return inProgress('Deployment not Available');
  return current(`Deployment is available. Replicas: ${replicas}`);
}

function statefulSet(spec: Obj, status: Obj): ObjectHealth {
  const strategy = isObj(spec.updateStrategy) ? spec.updateStrategy : {};
  if (strategy.type === 'OnDelete') return current('StatefulSet is using the OnDelete strategy');
  const want = int(spec, 'replicas', 1);
  const ready = int(status, 'readyReplicas');
  const currentReplicas = int(status, 'currentReplicas');
  const updated = int(status, 'updatedReplicas');
  const replicas = int(status, 'replicas');
  if (replicas < want) return inProgress(`Replicas: ${replicas}/${want}`);
  if (ready < want) return inProgress(`Ready: ${ready}/${want}`);
  const rolling = isObj(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  const partition = int(rolling, 'partition');
  if (partition > 0) {
    if (updated < want - partition) return inProgress(`updated: ${updated}/${want - partition}`);
    return current(`Partitioned roll out complete. updated: ${updated}`);
  }
  if (currentReplicas < want) return inProgress(`current: ${currentReplicas}/${want}`);
  if (status.updateRevision !== undefined && status.currentRevision !== status.updateRevision) {
    return inProgress(`Waiting for updated revision ${String(status.updateRevision)}`);
  }
  return current(`All replicas scheduled as expected. Replicas: ${replicas}`);
}

function daemonSet(status: Obj): ObjectHealth {
  const desired = int(status, 'desiredNumberScheduled');
  const scheduled = int(status, 'currentNumberScheduled');
  const updated = int(status, 'updatedNumberScheduled');
  const available = int(status, 'numberAvailable');
  const ready = int(status, 'numberReady');
  if (desired === 0 && status.observedGeneration === undefined) return inProgress('Missing .status.desiredNumberScheduled');
  if (scheduled < desired) return inProgress(`Current: ${scheduled}/${desired}`);
  if (updated < desired) return inProgress(`Updated: ${updated}/${desired}`);
  if (available < desired) return inProgress(`Available: ${available}/${desired}`);
  if (ready < desired) return inProgress(`Ready: ${ready}/${desired}`);
  return current(`All replicas scheduled as expected. Replicas: ${desired}`);
}

function replicaSet(spec: Obj, status: Obj, conds: Condition[]): ObjectHealth {
  const failure = cond(conds, 'ReplicaFailure');
  if (failure?.status === 'True') return inProgress(`Replica Failure condition. Reason: ${failure.reason ?? ''}`);
  const want = int(spec, 'replicas', 1);
  const labelled = int(status, 'fullyLabeledReplicas');
  const available = int(status, 'availableReplicas');
  const ready = int(status, 'readyReplicas');
  if (labelled < want) return inProgress(`Labelled: ${labelled}/${want}`);
  if (available < want) return inProgress(`Available: ${available}/${want}`);
  if (ready < want) return inProgress(`Ready: ${ready}/${want}`);
  return current(`ReplicaSet is available. Replicas: ${want}`);
}

function job(spec: Obj, status: Obj, conds: Condition[]): ObjectHealth {
  const completions = int(spec, 'completions', int(spec, 'parallelism', 1));
  const succeeded = int(status, 'succeeded');
  const failedPods = int(status, 'failed');
  const fail = cond(conds, 'Failed');
  if (fail?.status === 'True') return failed(`Job Failed${fail.reason ? ` (${fail.reason})` : ''}. failed: ${failedPods}/${completions}`);
  if (cond(conds, 'Complete')?.status === 'True') return current(`Job Completed. succeeded: ${succeeded}/${completions}`);
  if (status.startTime === undefined) return inProgress('Job not started');
  return inProgress(`Job in progress. success: ${succeeded}, active: ${int(status, 'active')}, failed: ${failedPods}`);
}

function pod(status: Obj, conds: Condition[]): ObjectHealth {
  const phase = status.phase;
  if (phase === 'Succeeded') return current('Pod has completed successfully');
  if (phase === 'Failed') return failed(`Pod has completed, but not successfully${typeof status.reason === 'string' ? ` (${status.reason})` : ''}`);
  const statuses = Array.isArray(status.containerStatuses) ? status.containerStatuses : [];
  for (const cs of statuses) {
    const waiting = isObj(cs) && isObj(cs.state) && isObj(cs.state.waiting) ? cs.state.waiting : undefined;
    if (waiting?.reason === 'CrashLoopBackOff' || waiting?.reason === 'ImagePullBackOff' || waiting?.reason === 'ErrImagePull') {
      return failed(`Container ${String(isObj(cs) ? cs.name : '')} is in ${String(waiting.reason)}`);
    }
  }
  if (phase === 'Running') {
    if (cond(conds, 'Ready')?.status === 'True') return current('Pod is Ready');
    return inProgress('Pod is running but is not Ready');
  }
  const scheduled = cond(conds, 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') return failed(`Pod could not be scheduled${scheduled.message ? `: ${scheduled.message}` : ''}`);
  return inProgress(`Pod is in the ${typeof phase === 'string' ? phase : 'Pending'} phase`);
}

function pvc(status: Obj): ObjectHealth {
  if (status.phase === 'Bound') return current('PVC is Bound');
  return inProgress(`PVC is not Bound. phase: ${typeof status.phase === 'string' ? status.phase : 'Pending'}`);
}

function service(spec: Obj, status: Obj): ObjectHealth {
  if (spec.type !== 'LoadBalancer') return current('Service is ready');
  const lb = isObj(status.loadBalancer) ? status.loadBalancer : {};
  if (!Array.isArray(lb.ingress) || lb.ingress.length === 0) return inProgress('Waiting for the load balancer address');
  return current('Service is ready');
}

/**
 * The selector of a Service whose readiness also asks for a ready endpoint (`app=web,tier=front`): one
 * with a selector, whose EndpointSlices kube-controller-manager keeps, ExternalName excepted; undefined
 * for the others (no selector: its endpoints are someone else's; ExternalName: a DNS name), which
 * stay as kstatus says.
 */
export function serviceSelector(obj: unknown): string | undefined {
  if (!isObj(obj) || obj.kind !== 'Service' || obj.apiVersion !== 'v1' || !isObj(obj.spec)) return undefined;
  const spec = obj.spec;
  if (spec.type === 'ExternalName' || !isObj(spec.selector)) return undefined;
  const pairs = Object.entries(spec.selector).map(([k, v]) => `${k}=${String(v)}`);
  return pairs.length ? pairs.join(',') : undefined;
}

/** What the resources monitor knows of a Service's EndpointSlices (service-endpoints.ts). */
export type EndpointsState =
  | { state: 'listed'; ready: number }
  /** Its namespace's watch has not listed yet. */
  | { state: 'listing' }
  /** Its namespace's watch failed before it listed (no rights to list EndpointSlices...): why. */
  | { state: 'unreadable'; error: string };

/**
 * A Service with a selector: kstatus's status (a LoadBalancer's address first), then at least one
 * ready endpoint in its EndpointSlices; when they cannot be read, kstatus's status with why.
 */
export function serviceEndpointsHealth(h: ObjectHealth, selector: string, endpoints: EndpointsState | undefined): ObjectHealth {
  if (h.status !== 'Current' || !endpoints) return h;
  switch (endpoints.state) {
    case 'listed':
      return endpoints.ready > 0 ? h : inProgress(`no ready endpoints (no Ready Pod matches its selector ${selector})`);
    case 'listing':
      return { status: 'Unknown', message: 'its EndpointSlices are not listed yet' };
    case 'unreadable':
      return current(`${h.message} (endpoints not checked: ${endpoints.error})`);
  }
}

function crd(conds: Condition[]): ObjectHealth {
  const names = cond(conds, 'NamesAccepted');
  if (names?.status === 'False') return failed(`CRD names are not accepted: ${names.message ?? names.reason ?? ''}`);
  if (cond(conds, 'Established')?.status === 'True') return current('CRD is established');
  return inProgress('Install in progress');
}

/** kstatus's generic rules (Reconciling / Stalled), then a `Ready` or `Available` condition if present. */
function generic(conds: Condition[]): ObjectHealth {
  const stalled = cond(conds, 'Stalled');
  if (stalled?.status === 'True') return failed(stalled.message || stalled.reason || 'Stalled');
  const reconciling = cond(conds, 'Reconciling');
  if (reconciling?.status === 'True') return inProgress(reconciling.message || reconciling.reason || 'Reconciling');
  for (const type of ['Ready', 'Available']) {
    const c = cond(conds, type);
    if (!c) continue;
    if (c.status === 'True') return current(`${type}`);
    const why = c.message || c.reason || `${type} is ${c.status}`;
    return c.status === 'False' ? inProgress(`${type} False: ${why}`) : inProgress(`${type} ${c.status}: ${why}`);
  }
  return current('Resource is current');
}

function compute(obj: Obj): ObjectHealth {
  const meta = isObj(obj.metadata) ? obj.metadata : {};
  if (meta.deletionTimestamp) return inProgress('Resource scheduled for deletion');
  if (obj.status !== undefined && obj.status !== null && !isObj(obj.status)) throw new Unreadable('status is not an object');
  const status = isObj(obj.status) ? obj.status : {};
  const spec = isObj(obj.spec) ? obj.spec : {};
  const conds = conditions(status);
  const generation = int(meta, 'generation');
  if (status.observedGeneration !== undefined) {
    const observed = int(status, 'observedGeneration');
    if (observed < generation) return inProgress(`${String(obj.kind)} generation is ${generation}, but latest observed generation is ${observed}`);
  }
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = `${String(obj.kind)}.${group}`;
  switch (kind) {
    case 'Deployment.apps':
      return deployment(spec, status, conds);
    case 'StatefulSet.apps':
      return statefulSet(spec, status);
    case 'DaemonSet.apps':
      return daemonSet(status);
    case 'ReplicaSet.apps':
      return replicaSet(spec, status, conds);
    case 'Job.batch':
      return job(spec, status, conds);
    case 'Pod.':
      return pod(status, conds);
    case 'PersistentVolumeClaim.':
      return pvc(status);
    case 'Service.':
      return service(spec, status);
    case 'CustomResourceDefinition.apiextensions.k8s.io':
      return crd(conds);
    default:
      return generic(conds);
  }
}

/** The status of one object; a status that cannot be read is `Unknown`, naming the object and why. */
export function objectHealth(obj: unknown): ObjectHealth {
  if (!isObj(obj)) return { status: 'Unknown', message: 'not an object' };
  try {
    return compute(obj);
  } catch (err) {
    if (err instanceof Unreadable) return { status: 'Unknown', message: `${objectRef(obj)}: cannot read status: ${err.message}` };
    throw err;
  }
}
