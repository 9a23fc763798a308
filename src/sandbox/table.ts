/** `Accept: application/json;as=Table;g=meta.k8s.io;v=v1`: the Table objects `kubectl get` prints. */
import type { ResourceType } from './registry.js';

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  cell: (o: any) => unknown;
}

/** Go's duration.HumanDuration as kubectl prints ages. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60 * 2) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 60 * 3) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return h % 24 === 0 ? `${Math.floor(h / 24)}d` : `${Math.floor(h / 24)}d${h % 24}h`;
  if (h < 24 * 365 * 2) return `${Math.floor(h / 24)}d`;
  if (h < 24 * 365 * 8) return `${Math.floor(h / 24 / 365)}y${Math.floor(h / 24) % 365}d`;
  return `${Math.floor(h / 24 / 365)}y`;
}

function age(o: any): string {
  const ts = o?.metadata?.creationTimestamp;
  if (!ts) return '<unknown>';
  return humanDuration(Date.now() - Date.parse(ts));
}

const col = (name: string, cell: (o: any) => unknown, type = 'string', priority = 0, format = ''): Column => ({
  name,
  type,
  format,
  description: '',
  priority,
  cell,
});

const NAME = col('Name', (o) => o.metadata?.name ?? '', 'string', 0, 'name');
const AGE = col('Age', age);

function count(o: unknown): number {
  return o && typeof o === 'object' ? Object.keys(o).length : 0;
}

/** Access modes as kubectl abbreviates them: RWO,ROX,RWX,RWOP. */
function accessModes(modes: unknown): string {
  const short: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };
  return Array.isArray(modes) ? modes.map((m) => short[m] ?? String(m)).join(',') : '';
}

/** metav1.FormatLabelSelector: `app=web,tier in (a,b)`, `<none>` when empty. */
function formatSelector(sel: any): string {
  if (!sel || typeof sel !== 'object') return '<none>';
  const parts: string[] = Object.entries(sel.matchLabels ?? {}).map(([k, v]) => `${k}=${String(v)}`);
  for (const e of sel.matchExpressions ?? []) {
    const values = (e.values ?? []).join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',') || '<none>';
}

/** The `-o wide` columns of workloads (priority 1: kubectl shows them only with `-o wide`). */
const containerColumns = (spec: (o: any) => any): Column[] => [
  col('Containers', (o) => (spec(o)?.containers ?? []).map((c: any) => c.name).join(','), 'string', 1),
  col('Images', (o) => (spec(o)?.containers ?? []).map((c: any) => c.image).join(','), 'string', 1),
];
const SELECTOR = col('Selector', (o) => formatSelector(o.spec?.selector), 'string', 1);

function builtinColumns(kind: string): Column[] {
  switch (kind) {
    case 'Namespace':
      return [NAME, col('Status', (o) => o.status?.phase ?? 'Active'), AGE];
    case 'ConfigMap':
      return [NAME, col('Data', (o) => count(o.data) + count(o.binaryData), 'integer'), AGE];
    case 'Secret':
      return [NAME, col('Type', (o) => o.type ?? 'Opaque'), col('Data', (o) => count(o.data), 'integer'), AGE];
    case 'Pod':
      return [
        NAME,
        col('Ready', (o) => {
          const cs: any[] = o.status?.containerStatuses ?? [];
          return `${cs.filter((c) => c.ready).length}/${(o.spec?.containers ?? []).length}`;
        }),
        col('Status', (o) => o.status?.phase ?? 'Pending'),
        col('Restarts', (o) => (o.status?.containerStatuses ?? []).reduce((n: number, c: any) => n + (c.restartCount ?? 0), 0), 'string'),
        AGE,
        col('IP', (o) => o.status?.podIP ?? '<none>', 'string', 1),
        col('Node', (o) => o.spec?.nodeName ?? '<none>', 'string', 1),
        col('Nominated Node', (o) => o.status?.nominatedNodeName ?? '<none>', 'string', 1),
        col('Readiness Gates', (o) => (o.spec?.readinessGates ?? []).length ? String(o.spec.readinessGates.length) : '<none>', 'string', 1),
      ];
    case 'Deployment':
    case 'StatefulSet':
      return [
        NAME,
        col('Ready', (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 1}`),
        ...(kind === 'Deployment'
          ? [col('Up-to-date', (o) => o.status?.updatedReplicas ?? 0, 'integer'), col('Available', (o) => o.status?.availableReplicas ?? 0, 'integer')]
          : []),
        AGE,
        ...containerColumns((o) => o.spec?.template?.spec),
        ...(kind === 'Deployment' ? [SELECTOR] : []),
      ];
    case 'Service':
      return [
        NAME,
        col('Type', (o) => o.spec?.type ?? 'ClusterIP'),
        col('Cluster-IP', (o) => o.spec?.clusterIP ?? '<none>'),
        col('External-IP', (o) => (o.spec?.externalIPs ?? []).join(',') || '<none>'),
        col('Port(s)', (o) => (o.spec?.ports ?? []).map((p: any) => `${p.port}/${p.protocol ?? 'TCP'}`).join(',') || '<none>'),
        AGE,
        col('Selector', (o) => Object.entries(o.spec?.selector ?? {}).map(([k, v]) => `${k}=${String(v)}`).join(',') || '<none>', 'string', 1),
      ];
    case 'CustomResourceDefinition':
      return [NAME, col('Created At', (o) => o.metadata?.creationTimestamp ?? '', 'date')];
    case 'Lease':
      return [NAME, col('Holder', (o) => o.spec?.holderIdentity ?? ''), AGE];
    case 'ReplicaSet':
      return [
        NAME,
        col('Desired', (o) => o.spec?.replicas ?? 1, 'integer'),
        col('Current', (o) => o.status?.replicas ?? 0, 'integer'),
        col('Ready', (o) => o.status?.readyReplicas ?? 0, 'integer'),
        AGE,
        ...containerColumns((o) => o.spec?.template?.spec),
        SELECTOR,
      ];
    case 'DaemonSet':
      return [
        NAME,
        col('Desired', (o) => o.status?.desiredNumberScheduled ?? 0, 'integer'),
        col('Current', (o) => o.status?.currentNumberScheduled ?? 0, 'integer'),
        col('Ready', (o) => o.status?.numberReady ?? 0, 'integer'),
        col('Up-to-date', (o) => o.status?.updatedNumberScheduled ?? 0, 'integer'),
        col('Available', (o) => o.status?.numberAvailable ?? 0, 'integer'),
        col('Node Selector', (o) => Object.entries(o.spec?.template?.spec?.nodeSelector ?? {}).map(([k, v]) => `${k}=${String(v)}`).join(',') || '<none>'),
        AGE,
        ...containerColumns((o) => o.spec?.template?.spec),
        SELECTOR,
      ];
    case 'Node':
      return [
        NAME,
        col('Status', (o) => {
          const ready = (o.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
          const s = ready?.status === 'True' ? 'Ready' : ready ? 'NotReady' : 'Unknown';
          return o.spec?.unschedulable ? `${s},SchedulingDisabled` : s;
        }),
        col('Roles', (o) => Object.keys(o.metadata?.labels ?? {}).filter((k) => k.startsWith('node-role.kubernetes.io/')).map((k) => k.slice(24)).sort().join(',') || '<none>'),
        AGE,
        col('Version', (o) => o.status?.nodeInfo?.kubeletVersion ?? ''),
        col('Internal-IP', (o) => (o.status?.addresses ?? []).find((a: any) => a.type === 'InternalIP')?.address ?? '<none>', 'string', 1),
        col('External-IP', (o) => (o.status?.addresses ?? []).find((a: any) => a.type === 'ExternalIP')?.address ?? '<none>', 'string', 1),
        col('OS-Image', (o) => o.status?.nodeInfo?.osImage ?? '<unknown>', 'string', 1),
        col('Kernel-Version', (o) => o.status?.nodeInfo?.kernelVersion ?? '<unknown>', 'string', 1),
        col('Container-Runtime', (o) => o.status?.nodeInfo?.containerRuntimeVersion ?? '<unknown>', 'string', 1),
      ];
    case 'PersistentVolumeClaim':
      return [
        NAME,
        col('Status', (o) => o.status?.phase ?? 'Pending'),
        col('Volume', (o) => o.spec?.volumeName ?? ''),
        col('Capacity', (o) => o.status?.capacity?.storage ?? ''),
        col('Access Modes', (o) => accessModes(o.status?.accessModes)),
        col('StorageClass', (o) => o.spec?.storageClassName ?? '<unset>'),
        AGE,
        col('VolumeMode', (o) => o.spec?.volumeMode ?? 'Filesystem', 'string', 1),
      ];
    case 'PersistentVolume':
      return [
        NAME,
        col('Capacity', (o) => o.spec?.capacity?.storage ?? ''),
        col('Access Modes', (o) => accessModes(o.spec?.accessModes)),
        col('Reclaim Policy', (o) => o.spec?.persistentVolumeReclaimPolicy ?? 'Retain'),
        col('Status', (o) => o.status?.phase ?? 'Pending'),
        col('Claim', (o) => (o.spec?.claimRef ? `${o.spec.claimRef.namespace}/${o.spec.claimRef.name}` : '')),
        col('StorageClass', (o) => o.spec?.storageClassName ?? ''),
        col('Reason', (o) => o.status?.reason ?? ''),
        AGE,
        col('VolumeMode', (o) => o.spec?.volumeMode ?? 'Filesystem', 'string', 1),
      ];
    case 'EndpointSlice':
      return [
        NAME,
        col('AddressType', (o) => o.addressType ?? ''),
        col('Ports', (o) => (o.ports ?? []).map((p: any) => String(p.port ?? '')).join(',') || '<unset>'),
        col('Endpoints', (o) => {
          const all = (o.endpoints ?? []).flatMap((e: any) => e.addresses ?? []);
          return all.length ? all.slice(0, 3).join(',') + (all.length > 3 ? ` + ${all.length - 3} more...` : '') : '<unset>';
        }),
        AGE,
      ];
    case 'CronJob':
      return [
        NAME,
        col('Schedule', (o) => o.spec?.schedule ?? ''),
        col('Timezone', (o) => o.spec?.timeZone ?? '<none>'),
        col('Suspend', (o) => String(o.spec?.suspend ?? false), 'boolean'),
        col('Active', (o) => (o.status?.active ?? []).length, 'integer'),
        col('Last Schedule', (o) => (o.status?.lastScheduleTime ? humanDuration(Date.now() - Date.parse(o.status.lastScheduleTime)) : '<none>')),
        AGE,
        ...containerColumns((o) => o.spec?.jobTemplate?.spec?.template?.spec),
      ];
    case 'Job':
      return [
        NAME,
        col('Status', (o) => {
          const conds: any[] = o.status?.conditions ?? [];
          const has = (t: string): boolean => conds.some((c) => c.type === t && c.status === 'True');
          return has('Failed') ? 'Failed' : has('Complete') ? 'Complete' : o.spec?.suspend ? 'Suspended' : 'Running';
        }),
        col('Completions', (o) => `${o.status?.succeeded ?? 0}/${o.spec?.completions ?? 1}`),
        AGE,
        ...containerColumns((o) => o.spec?.template?.spec),
        SELECTOR,
      ];
    default:
      return [NAME, AGE];
  }
}

function jsonPathGet(o: any, path: string): unknown {
  // simple JSONPath: .a.b, .a[0].b, .a[?(@.type=="Ready")].status
  let cur: any = o;
  const re = /\.([A-Za-z0-9_\-$]+)|\[(\d+)\]|\[\?\(@\.([A-Za-z0-9_]+)\s*==\s*["']([^"']*)["']\)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) && cur !== undefined && cur !== null) {
    if (m[1] !== undefined) cur = cur[m[1]];
    else if (m[2] !== undefined) cur = Array.isArray(cur) ? cur[Number(m[2])] : undefined;
    else cur = Array.isArray(cur) ? cur.find((x) => x && String(x[m![3]]) === m![4]) : undefined;
  }
  return cur;
}

function columnsFor(t: ResourceType, version: string): Column[] {
  if (t.builtin) return builtinColumns(t.kind);
  const pcs = t.printerColumns?.[version] ?? [];
  if (!pcs.length) return [NAME, AGE];
  return [
    NAME,
    ...pcs.map((p) =>
      col(
        p.name,
        (o) => {
          const v = jsonPathGet(o, p.jsonPath);
          if (v === undefined || v === null) return p.type === 'date' ? '<unknown>' : '<none>';
          if (p.type === 'date' && typeof v === 'string') return humanDuration(Date.now() - Date.parse(v));
          return typeof v === 'object' ? JSON.stringify(v) : v;
        },
        p.type === 'date' ? 'string' : p.type,
        p.priority ?? 0,
        p.format ?? '',
      ),
    ),
    AGE,
  ];
}

function partial(o: any, includeObject: string): unknown {
  if (includeObject === 'None') return undefined;
  if (includeObject === 'Object') return o;
  const { managedFields: _m, ...meta } = o.metadata ?? {};
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: meta };
}

export function toTable(
  t: ResourceType,
  version: string,
  objects: any[],
  meta: Record<string, unknown>,
  includeObject = 'Metadata',
  withColumns = true,
): Record<string, unknown> {
  const cols = columnsFor(t, version);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: meta,
    columnDefinitions: withColumns ? cols.map(({ cell: _c, ...d }) => d) : [],
    rows: objects.map((o) => {
      const row: Record<string, unknown> = { cells: cols.map((c) => c.cell(o)) };
      const obj = partial(o, includeObject);
      if (obj !== undefined) row.object = obj;
      return row;
    }),
  };
}
