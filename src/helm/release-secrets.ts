/**
 * Release records in Helm 3's Secret storage driver format, so that `helm list/history/rollback`
 * see what we install and we see what Helm (or the Go addon-operator) installed:
 *   Secret `sh.helm.release.v1.NAME.vREVISION`, type `helm.sh/release.v1`,
 *   labels name, owner=helm, status, version, createdAt|modifiedAt (+ the release's own labels),
 *   data.release = base64(gzip(JSON)) (which the API then base64-encodes once more, as for Helm).
 */
import type { KubeConfig } from '../kube/kube-config.js';
import { isApiStatus, requestJson } from '../kube/http.js';
import { decodeRelease, encodeRelease, type Release } from './release-record.js';

const SECRET_TYPE = 'helm.sh/release.v1';
const SYSTEM_LABELS = new Set(['name', 'owner', 'status', 'version', 'createdAt', 'modifiedAt']);

interface SecretObject {
  metadata?: { name?: string; labels?: Record<string, string>; resourceVersion?: string };
  data?: Record<string, string>;
  type?: string;
}

const releaseSecretName = (name: string, version: number): string => `sh.helm.release.v1.${name}.v${version}`;

const collection = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;

export interface ReleaseStoreOptions {
  /** Undecodable records are skipped (as Helm does); this hears about them. */
  warn?: (message: string) => void;
  /** Clock for createdAt/modifiedAt (tests). */
  now?: () => Date;
}

export class ReleaseStore {
  private readonly warn: (message: string) => void;
  private readonly now: () => Date;

  constructor(
    private readonly kc: KubeConfig,
    options: ReleaseStoreOptions = {},
  ) {
    this.warn = options.warn ?? (() => {});
    this.now = options.now ?? (() => new Date());
  }

  /** Every revision of a release, oldest first. */
  async history(name: string, namespace: string): Promise<Release[]> {
    const list = await requestJson<{ items?: SecretObject[] }>(this.kc, 'GET', collection(namespace), {
      labelSelector: `owner=helm,name=${name}`,
    });
    return this.decodeAll(list.items ?? []).sort((a, b) => a.version - b.version);
  }

  /** Names of the releases stored in the namespace, sorted. */
  async names(namespace: string): Promise<string[]> {
    const list = await requestJson<{ items?: SecretObject[] }>(this.kc, 'GET', collection(namespace), { labelSelector: 'owner=helm' });
    const names = new Set<string>();
    for (const s of list.items ?? []) {
      const n = s.metadata?.labels?.name;
      if (n) names.add(n);
    }
    return [...names].sort();
  }

  async create(r: Release): Promise<void> {
    await requestJson(this.kc, 'POST', collection(r.namespace), {}, this.secret(r, 'createdAt'));
  }

  /** Replaces the record of r's revision. */
  async update(r: Release): Promise<void> {
    const name = releaseSecretName(r.name, r.version);
    await requestJson(this.kc, 'PUT', `${collection(r.namespace)}/${encodeURIComponent(name)}`, {}, this.secret(r, 'modifiedAt'));
  }

  /** Deletes one revision; false when it was not there. */
  async delete(name: string, namespace: string, version: number): Promise<boolean> {
    try {
      await requestJson(this.kc, 'DELETE', `${collection(namespace)}/${encodeURIComponent(releaseSecretName(name, version))}`);
      return true;
    } catch (e) {
      if (isApiStatus(e, 404)) return false;
      throw e;
    }
  }

  /**
   * Storage.removeLeastRecent: deletes the oldest revisions until at most `max` remain, never the
   * last deployed one. `max` < 0 keeps everything. `known` is the history the caller has just read
   * (oldest first), to spare a second list.
   */
  async prune(name: string, namespace: string, max: number, known?: readonly Release[]): Promise<number[]> {
    if (max < 0) return [];
    const history = known ?? (await this.history(name, namespace));
    if (history.length <= max) return [];
    const deployed = history.filter((r) => r.info.status === 'deployed').at(-1);
    const doomed: number[] = [];
    for (const r of history) {
      if (history.length - doomed.length === max) break;
      if (r.version !== deployed?.version) doomed.push(r.version);
    }
    for (const v of doomed) await this.delete(name, namespace, v);
    return doomed;
  }

  private decodeAll(items: SecretObject[]): Release[] {
    const out: Release[] = [];
    for (const s of items) {
      const labels = Object.fromEntries(Object.entries(s.metadata?.labels ?? {}).filter(([k]) => !SYSTEM_LABELS.has(k)));
      try {
        // the API gives Secret data base64-encoded; Helm's own payload is base64 inside that
        const payload = Buffer.from(s.data?.release ?? '', 'base64').toString('utf8');
        out.push(decodeRelease(payload, labels));
      } catch (e) {
        this.warn(`release record ${s.metadata?.name}: cannot decode: ${(e as Error).message}`);
      }
    }
    return out;
  }

  private secret(r: Release, stamp: 'createdAt' | 'modifiedAt'): object {
    const labels: Record<string, string> = {
      ...r.labels,
      [stamp]: String(Math.floor(this.now().getTime() / 1000)),
      name: r.name,
      owner: 'helm',
      status: r.info.status,
      version: String(r.version),
    };
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: releaseSecretName(r.name, r.version), namespace: r.namespace, labels },
      type: SECRET_TYPE,
      data: { release: Buffer.from(encodeRelease(r)).toString('base64') },
    };
  }
}
