/**
 * The ready endpoints of Services, from their EndpointSlices (discovery.k8s.io/v1), for the module
 * health of a Service with a selector (object-health.ts `serviceEndpointsHealth`): one informer per
 * namespace asked for (the resources monitor asks for those where a tracked release has Services),
 * label selector `kubernetes.io/service-name` (set on every slice kube-controller-manager writes),
 * only each slice's Service and count kept. An endpoint counts as ready when its `conditions.ready`
 * is true or unset, as kube-proxy reads it. `onChange` says when a Service goes from no ready
 * endpoint to some or back (and for the whole namespace once its watch has listed, or failed to).
 */
import type { KubeConfig } from '../kube/kube-config.js';
import { Informer, keyParts, type KubeObject } from '../kube/informer.js';
import { errorMessage } from '../util/errors.js';
import type { EndpointsState } from './object-health.js';

/** The label kube-controller-manager puts on a Service's EndpointSlices: the Service's name. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface ServiceEndpointsOptions {
  kc: KubeConfig;
  /** A Service's ready endpoints went from none to some or back; `service` undefined: every Service of the namespace. */
  onChange: (namespace: string, service: string | undefined) => void;
  log?: { warn(message: string): void };
  watchTimeoutSeconds?: number;
}

interface NamespaceWatch {
  informer: Informer;
  listed: boolean;
  /** The error of a watch that has not listed yet. */
  error?: string;
  /** Resolves once the first list is done or has failed once. */
  listedOrFailed: Promise<void>;
  /** Each slice's Service and ready endpoints, by slice name. */
  slices: Map<string, { service: string; ready: number }>;
  /** Ready endpoints per Service (the sum over its slices; absent: none). */
  ready: Map<string, number>;
}

const slicesPath = (namespace: string) => `/apis/discovery.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/endpointslices`;

/** Ready endpoints of a slice: `conditions.ready` true or unset. */
function readyEndpoints(slice: KubeObject): number {
  const endpoints = slice.endpoints;
  if (!Array.isArray(endpoints)) return 0;
  let n = 0;
  for (const e of endpoints as Array<{ conditions?: { ready?: unknown } } | null>) {
    const ready = e?.conditions?.ready;
    if (ready === undefined || ready === null || ready === true) n++;
  }
  return n;
}

export class ServiceEndpoints {
  private readonly namespaces = new Map<string, NamespaceWatch>();

  constructor(private readonly opts: ServiceEndpointsOptions) {}

  /** What is known of the Service's endpoints; undefined when its namespace is not watched. */
  state(namespace: string, service: string): EndpointsState | undefined {
    const w = this.namespaces.get(namespace);
    if (!w) return undefined;
    if (w.listed) return { state: 'listed', ready: w.ready.get(service) ?? 0 };
    return w.error === undefined ? { state: 'listing' } : { state: 'unreadable', error: w.error };
  }

  /** The collection paths watched, one per namespace. */
  paths(): string[] {
    return [...this.namespaces.keys()].map(slicesPath);
  }

  /** Watches exactly these namespaces: new ones start, the others stop. Resolves when the new ones have listed or failed to once. */
  async watch(namespaces: ReadonlySet<string>): Promise<void> {
    const stopping: Promise<void>[] = [];
    for (const [ns, w] of this.namespaces) {
      if (namespaces.has(ns)) continue;
      this.namespaces.delete(ns);
      stopping.push(w.informer.stop());
    }
    const starting: Promise<void>[] = [];
    for (const ns of namespaces) starting.push((this.namespaces.get(ns) ?? this.start(ns)).listedOrFailed);
    await Promise.all([...stopping, ...starting]);
  }

  async stop(): Promise<void> {
    await this.watch(new Set());
  }

  private start(namespace: string): NamespaceWatch {
    let listedOrFailed = () => {};
    const w: NamespaceWatch = {
      listed: false,
      listedOrFailed: new Promise((resolve) => (listedOrFailed = resolve)),
      slices: new Map(),
      ready: new Map(),
      informer: new Informer({
        kc: this.opts.kc,
        path: slicesPath(namespace),
        labelSelector: SERVICE_NAME_LABEL,
        keepObjects: false,
        ...(this.opts.watchTimeoutSeconds ? { watchTimeoutSeconds: this.opts.watchTimeoutSeconds } : {}),
        onSync: (objects, keys) => {
          objects.forEach((o, i) => this.update(w, keyParts(keys[i]!).name, o));
        },
        onEvent: (type, o, key) => {
          const changed = this.update(w, keyParts(key).name, type === 'DELETED' ? undefined : o);
          if (!w.listed || this.namespaces.get(namespace) !== w) return;
          for (const service of changed) this.opts.onChange(namespace, service);
        },
        onError: (e) => {
          if (!w.listed && w.error === undefined) {
            w.error = errorMessage(e);
            listedOrFailed();
            if (this.namespaces.get(namespace) === w) this.opts.onChange(namespace, undefined);
          }
          this.opts.log?.warn(`resources monitor: watch of the EndpointSlices of namespace ${namespace}: ${errorMessage(e)}`);
        },
      }),
    };
    this.namespaces.set(namespace, w);
    void w.informer.start().then(() => {
      w.listed = true;
      delete w.error;
      listedOrFailed();
      if (this.namespaces.get(namespace) === w) this.opts.onChange(namespace, undefined);
    });
    return w;
  }

  /** Keeps a slice's count (undefined: deleted); returns the Services whose readiness (some ready endpoint or none) changed. */
  private update(w: NamespaceWatch, slice: string, o: KubeObject | undefined): string[] {
    const before = w.slices.get(slice);
    const labels = o?.metadata?.labels as Record<string, unknown> | undefined;
    const service = typeof labels?.[SERVICE_NAME_LABEL] === 'string' ? (labels[SERVICE_NAME_LABEL] as string) : undefined;
    const after = o && service !== undefined ? { service, ready: readyEndpoints(o) } : undefined;
    if (after) w.slices.set(slice, after);
    else w.slices.delete(slice);
    const changed: string[] = [];
    const add = (svc: string, delta: number) => {
      if (!delta) return;
      const was = w.ready.get(svc) ?? 0;
      const now = was + delta;
      if (now > 0) w.ready.set(svc, now);
      else w.ready.delete(svc);
      if (was > 0 !== now > 0 && !changed.includes(svc)) changed.push(svc);
    };
    if (before) add(before.service, -before.ready);
    if (after) add(after.service, after.ready);
    return changed;
  }
}
