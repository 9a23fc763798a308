/**
 * A REST mapper over API discovery: turns the (apiVersion, kind) that hooks and manifests write into
 * the resource to call and its URL paths. A kind may be given as the Kind (any case), the plural
 * resource, the singular name or a short name, as shell-operator and kubectl accept.
 *
 * Discovery is cached. Resource lists are fetched per group version on first use; a lookup that
 * finds nothing refreshes the cache once and looks again, because CRDs appear at run time. Refreshes
 * are at least `minRefreshIntervalMs` apart (a miss waits for the next slot), and concurrent misses
 * share one refresh.
 */
import type { KubeConfig } from './kube-config.js';
import { isApiStatus, requestJson } from './http.js';

export interface ResourceInfo {
  /** `v1`, `apps/v1`. */
  apiVersion: string;
  /** `''` for the core group. */
  group: string;
  version: string;
  kind: string;
  /** The plural resource name: `configmaps`. */
  resource: string;
  namespaced: boolean;
  verbs: string[];
  /** Subresource names without a slash: `status`, `scale`. */
  subresources: string[];
}

export interface RestMapperOptions {
  /** Least time between two discovery refreshes caused by misses (default 1000 ms). */
  minRefreshIntervalMs?: number;
  /** Clock of the refresh interval (default Date.now). */
  now?: () => number;
  /** How a miss waits for the next refresh slot (default setTimeout). */
  sleep?: (ms: number) => Promise<void>;
}

/** The kind is not served by the API server (after a discovery refresh). */
export class KindNotServedError extends Error {
  override name = 'KindNotServedError';
  constructor(
    readonly kind: string,
    readonly apiVersion: string | undefined,
  ) {
    super(`kind "${kind}" (apiVersion ${apiVersion || 'any'}) is not served by the API server`);
  }
}

/** `/status` and `status` name the same subresource. */
export function subresourceName(subresource: string | undefined): string {
  return (subresource ?? '').replace(/^\/+|\/+$/g, '');
}

interface ApiResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
}

interface ApiGroupList {
  groups?: { name: string; versions?: { groupVersion: string }[]; preferredVersion?: { groupVersion: string } }[];
}

/** A resource and the lower-case names it answers to besides its Kind. */
interface Candidate {
  info: ResourceInfo;
  kindLower: string;
  aliases: string[];
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

function groupVersionPath(apiVersion: string): string {
  const { group, version } = splitApiVersion(apiVersion);
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

function toCandidates(apiVersion: string, resources: ApiResource[]): Candidate[] {
  const { group, version } = splitApiVersion(apiVersion);
  const subresources = new Map<string, string[]>();
  for (const r of resources) {
    const slash = r.name.indexOf('/');
    if (slash < 0) continue;
    const parent = r.name.slice(0, slash);
    subresources.set(parent, [...(subresources.get(parent) ?? []), r.name.slice(slash + 1)]);
  }
  const out: Candidate[] = [];
  for (const r of resources) {
    // subresources and verb-less entries cannot be addressed as a kind (as in kube-client)
    if (r.name.includes('/') || !r.verbs?.length) continue;
    out.push({
      info: {
        apiVersion,
        group,
        version,
        kind: r.kind,
        resource: r.name,
        namespaced: r.namespaced,
        verbs: [...r.verbs],
        subresources: subresources.get(r.name) ?? [],
      },
      kindLower: r.kind.toLowerCase(),
      aliases: [r.name, r.singularName ?? '', ...(r.shortNames ?? [])].filter(Boolean).map((n) => n.toLowerCase()),
    });
  }
  return out;
}

/** One discovery snapshot. Failed fetches are forgotten so that the next lookup tries again. */
class Discovery {
  private order: Promise<{ preferred: string[]; others: string[] }> | undefined;
  private readonly lists = new Map<string, Promise<Candidate[] | undefined>>();

  constructor(private readonly kc: KubeConfig) {}

  /** Group versions to search for a kind without apiVersion: core first, then each group's preferred version; then the rest. */
  searchOrder(): Promise<{ preferred: string[]; others: string[] }> {
    this.order ??= this.fetchOrder().catch((e: unknown) => {
      this.order = undefined;
      throw e;
    });
    return this.order;
  }

  /** The resources of a group version; undefined when the server does not serve it. */
  resources(apiVersion: string): Promise<Candidate[] | undefined> {
    let p = this.lists.get(apiVersion);
    if (!p) {
      p = this.fetchResources(apiVersion).catch((e: unknown) => {
        this.lists.delete(apiVersion);
        throw e;
      });
      this.lists.set(apiVersion, p);
    }
    return p;
  }

  private async fetchOrder(): Promise<{ preferred: string[]; others: string[] }> {
    const [core, apis] = await Promise.all([
      requestJson<{ versions?: string[] }>(this.kc, 'GET', '/api'),
      requestJson<ApiGroupList>(this.kc, 'GET', '/apis'),
    ]);
    const preferred = (core.versions ?? []).slice(0, 1);
    const others = (core.versions ?? []).slice(1);
    for (const g of apis.groups ?? []) {
      const versions = (g.versions ?? []).map((v) => v.groupVersion);
      const first = g.preferredVersion?.groupVersion ?? versions[0];
      if (first) preferred.push(first);
      others.push(...versions.filter((v) => v !== first));
    }
    return { preferred, others };
  }

  private async fetchResources(apiVersion: string): Promise<Candidate[] | undefined> {
    try {
      const list = await requestJson<{ resources?: ApiResource[] }>(this.kc, 'GET', groupVersionPath(apiVersion));
      return toCandidates(apiVersion, list.resources ?? []);
    } catch (e) {
      if (isApiStatus(e, 404)) return undefined;
      throw new Error(`API discovery of ${apiVersion} failed: ${(e as Error).message}`, { cause: e });
    }
  }
}

/** The Kind (any case) wins over plural, singular and short names, wherever they are. */
function pick(lists: (Candidate[] | undefined)[], kind: string): ResourceInfo | undefined {
  const lower = kind.toLowerCase();
  for (const list of lists) {
    const c = list?.find((x) => x.kindLower === lower);
    if (c) return c.info;
  }
  for (const list of lists) {
    const c = list?.find((x) => x.aliases.includes(lower));
    if (c) return c.info;
  }
  return undefined;
}

export class RestMapper {
  private discovery: Discovery;
  private lastRefreshAt = 0;
  private refreshing: Promise<void> | undefined;
  private readonly minRefreshIntervalMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly kc: KubeConfig,
    options: RestMapperOptions = {},
  ) {
    this.discovery = new Discovery(kc);
    this.minRefreshIntervalMs = options.minRefreshIntervalMs ?? 1000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * kind may be the Kind (case-insensitive), the plural resource, the singular name or a short name;
   * without apiVersion the preferred version is used, searching the core group first.
   */
  async resolve(apiVersion: string | undefined, kind: string): Promise<ResourceInfo> {
    if (!kind) throw new Error(`a kind is needed to find a resource (apiVersion ${apiVersion || 'any'})`);
    const seen = this.discovery;
    const found = await this.lookup(seen, apiVersion, kind);
    if (found) return found;
    await this.refreshAfterMiss(seen);
    const again = await this.lookup(this.discovery, apiVersion, kind);
    if (again) return again;
    throw new KindNotServedError(kind, apiVersion);
  }

  /** `/api/v1/namespaces/NS/pods`, `/apis/apps/v1/deployments` (all namespaces, or cluster-scoped). */
  collectionPath(info: ResourceInfo, namespace?: string): string {
    const base = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
    if (info.namespaced && namespace) return `${base}/namespaces/${encodeURIComponent(namespace)}/${info.resource}`;
    return `${base}/${info.resource}`;
  }

  /** The namespace is ignored for cluster-scoped kinds and required for namespaced ones. */
  objectPath(info: ResourceInfo, namespace: string | undefined, name: string, subresource?: string): string {
    if (!name) throw new Error(`${info.kind}: an object name is needed`);
    if (info.namespaced && !namespace) throw new Error(`${info.kind} "${name}": the kind is namespaced, so a namespace is needed`);
    const path = `${this.collectionPath(info, namespace)}/${encodeURIComponent(name)}`;
    const sub = subresourceName(subresource);
    if (!sub) return path;
    if (!info.subresources.includes(sub)) {
      const has = info.subresources.length ? `it has ${info.subresources.join(', ')}` : 'it has none';
      throw new Error(`${info.kind} (${info.apiVersion}) has no subresource "${sub}": ${has}`);
    }
    return `${path}/${sub}`;
  }

  /** Forgets all discovery data; the next lookup fetches it again. */
  invalidate(): void {
    this.discovery = new Discovery(this.kc);
    this.lastRefreshAt = this.now();
  }

  private async lookup(d: Discovery, apiVersion: string | undefined, kind: string): Promise<ResourceInfo | undefined> {
    if (apiVersion) return pick([await d.resources(apiVersion)], kind);
    const { preferred, others } = await d.searchOrder();
    const found = pick(await Promise.all(preferred.map((gv) => d.resources(gv))), kind);
    return found ?? pick(await Promise.all(others.map((gv) => d.resources(gv))), kind);
  }

  private async refreshAfterMiss(seen: Discovery): Promise<void> {
    if (this.discovery !== seen) return; // refreshed since this lookup began
    this.refreshing ??= (async () => {
      const wait = this.lastRefreshAt + this.minRefreshIntervalMs - this.now();
      if (wait > 0) await this.sleep(wait);
      if (this.discovery === seen) this.invalidate();
    })().finally(() => {
      this.refreshing = undefined;
    });
    await this.refreshing;
  }
}
