/**
 * A list+watch informer (DESIGN §5): lists in pages, then watches from the list's resourceVersion with
 * bookmarks and a server-side timeout; resumes from the last seen version when a watch ends; relists
 * on 410 Gone and reports the differences as events; backs off on errors and never stops silently
 * (every error goes to `onError`, and it keeps trying until `stop()`).
 *
 * The watch is http.ts's stream, not client-node's Watch: that one can be aborted only once the
 * server has answered, so a held request would keep stop() (and SIGTERM) waiting.
 */
import type { KubeConfig } from './kube-config.js';
import { isApiStatus, requestJson, watchStream } from './http.js';
import { backoffDelay } from '../util/rate-limit.js';
import { outsideTask } from '../log/task-labels.js';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
  [key: string]: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface InformerOptions {
  kc: KubeConfig;
  /** Collection path: `/api/v1/namespaces/NS/configmaps`, `/apis/apps/v1/deployments`... */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * The objects of the first list (shell-operator's Synchronization) and their keys (`keys[i]` is
   * `objects[i]`'s): the informer's own key strings, which a caller keeping one entry per object can
   * share instead of building a copy. Called once per page of the list that holds objects (once with
   * none for an empty list); start() resolves after the last page.
   */
  onSync: (objects: KubeObject[], keys: string[]) => void;
  /** Objects a list page asks for (default 500). */
  pageSize?: number;
  /**
   * A change; `key` is the object's key, as in onSync; `version` the resourceVersion it was seen at
   * (the object's, for a watch event; the list's, for a change a relist found).
   */
  onEvent: (type: WatchEventType, object: KubeObject, key: string, version: string) => void;
  onError?: (error: Error, attempt: number) => void;
  backoff?: { initialMs: number; maxMs: number };
  /** Server-side watch timeout; a random 0–20 % is added so that watches do not end together. */
  watchTimeoutSeconds?: number;
  /**
   * Keep every object (default), or only each object's resourceVersion: enough to report what
   * changed after a relist (a Deleted event then carries only apiVersion, kind and metadata's
   * namespace, name and resourceVersion), and a few dozen bytes instead of the object.
   */
  keepObjects?: boolean;
}

interface ListResponse {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items?: KubeObject[];
}

class Gone extends Error {}

/**
 * An object's key: namespace, NUL, name. NUL sorts below every character of a name, so keys sort as
 * (namespace, name) pairs do (shell-operator's ByNamespaceAndName order).
 */
export const objectKey = (namespace: string, name: string): string => `${namespace}\0${name}`;
const keyOf = (o: KubeObject) => objectKey(o.metadata?.namespace ?? '', o.metadata?.name ?? '');
const rvOf = (v: KubeObject | string) => (typeof v === 'string' ? v : v.metadata?.resourceVersion);

/** Objects a list page holds (client-go's reflector pages at 500 too). */
const DEFAULT_PAGE_SIZE = 500;

/** The namespace and name of an object's key. */
export function keyParts(key: string): { namespace: string; name: string } {
  const i = key.indexOf('\0');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** One page of a list: its objects (apiVersion and kind filled in), their keys, the list's resourceVersion. */
export interface ListedPage {
  objects: KubeObject[];
  keys: string[];
  /** The resourceVersion of the list (every page of a list is read at the first page's). */
  version: string;
  /** apiVersion and kind of the list's items, when the list says. */
  kind?: { apiVersion?: string; kind: string };
}

/**
 * The pages of a list of `path` at `pageSize` (`limit`/`continue`), one request per page asked for.
 * The API server leaves apiVersion and kind out of the items of built-in lists (watch events carry
 * them): they are filled in from the list's.
 */
export async function* listPages(
  opts: Pick<InformerOptions, 'kc' | 'path' | 'labelSelector' | 'fieldSelector' | 'pageSize'>,
  signal: AbortSignal,
): AsyncGenerator<ListedPage> {
  let cont: string | undefined;
  let version: string | undefined;
  do {
    const page = await requestJson<ListResponse>(
      opts.kc,
      'GET',
      opts.path,
      { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector, limit: opts.pageSize ?? DEFAULT_PAGE_SIZE, continue: cont },
      undefined,
      undefined,
      { signal },
    );
    version ??= page.metadata?.resourceVersion ?? '';
    cont = page.metadata?.continue || undefined;
    const kind = page.kind?.replace(/List$/, '');
    const objects: KubeObject[] = [];
    const keys: string[] = [];
    for (const raw of page.items ?? []) {
      const item = raw.kind || !kind ? raw : { apiVersion: page.apiVersion, kind, ...raw };
      objects.push(item);
      keys.push(keyOf(item));
    }
    yield { objects, keys, version, ...(kind ? { kind: { apiVersion: page.apiVersion, kind } } : {}) };
  } while (cont !== undefined);
}

/**
 * Whether resourceVersion `a` is newer than `b`. Versions are compared as the integers etcd and the
 * sandbox give (Kubernetes' comparable resource versions); one that is not such an integer counts
 * as newer (it cannot be told older).
 */
export function newerVersion(a: string, b: string): boolean {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return true;
  return a.length !== b.length ? a.length > b.length : a > b;
}

export class Informer {
  private readonly opts: InformerOptions;
  /** The objects by namespace/name, or their resourceVersions only (keepObjects: false). */
  private readonly cache = new Map<string, KubeObject | string>();
  private readonly keepObjects: boolean;
  /** apiVersion and kind of the last list, for the stubs of Deleted events. */
  private listKind: { apiVersion?: string; kind?: string } = {};
  private resourceVersion: string | undefined;
  private stopped = false;
  private ended = false;
  private running: Promise<void> | undefined;
  /** Aborted by stop(): ends a list or a watch at once, also one the server has not answered yet. */
  private readonly abort = new AbortController();
  private wake: (() => void) | undefined;
  private synced = false;

  constructor(opts: InformerOptions) {
    this.opts = opts;
    this.keepObjects = opts.keepObjects ?? true;
  }

  /**
   * Starts; resolves after the first successful list (retrying with backoff until then or stop()).
   * The loop outlives whatever task started it, so it runs without that task's log labels.
   */
  start(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.running = outsideTask(() => this.loop(resolve)).finally(() => (this.ended = true));
    });
  }

  /** Its loop ended without stop() (an unexpected error): it delivers nothing more. */
  get dead(): boolean {
    return this.ended && !this.stopped;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.wake?.();
    await this.running;
  }

  /** The current objects, as the watch has seen them (stubs with keepObjects: false). */
  objects(): KubeObject[] {
    return [...this.cache].map(([k, v]) => this.objectOf(k, v));
  }

  /** The current objects and their keys (`keys[i]` is `objects[i]`'s), as onSync gives them. */
  entries(): { objects: KubeObject[]; keys: string[] } {
    const objects: KubeObject[] = [];
    const keys: string[] = [];
    for (const [k, v] of this.cache) {
      keys.push(k);
      objects.push(this.objectOf(k, v));
    }
    return { objects, keys };
  }

  private objectOf(key: string, v: KubeObject | string): KubeObject {
    if (typeof v !== 'string') return v;
    const { namespace, name } = keyParts(key);
    return { ...this.listKind, metadata: { ...(namespace ? { namespace } : {}), name, resourceVersion: v } };
  }

  private store(key: string, o: KubeObject): void {
    this.cache.set(key, this.keepObjects ? o : (o.metadata?.resourceVersion ?? ''));
  }

  private async loop(onFirstSync: () => void): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      try {
        if (this.resourceVersion === undefined) await this.listAndSync(onFirstSync);
        await this.watchOnce();
        attempt = 0;
      } catch (e) {
        if (this.stopped) break;
        if (e instanceof Gone) {
          this.resourceVersion = undefined; // relist at once
          continue;
        }
        attempt++;
        this.opts.onError?.(e as Error, attempt);
        await this.sleep(this.delay(attempt));
      }
    }
    if (!this.synced) onFirstSync();
  }

  /**
   * A list, and the first sync. Its own frame: the listed objects must not stay in a suspended
   * frame of loop() (an async function keeps its locals while it awaits the watch).
   */
  private async listAndSync(onFirstSync: () => void): Promise<void> {
    await this.list();
    if (this.synced) return;
    this.synced = true;
    onFirstSync();
  }

  private delay(attempt: number): number {
    const { initialMs, maxMs } = this.opts.backoff ?? { initialMs: 500, maxMs: 30_000 };
    return backoffDelay(attempt, initialMs, maxMs);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  /**
   * Lists in pages (listPages), handing each page on as it comes, so that no more than a page of
   * full objects is held at a time: before the first sync as onSync's pages, after it (a relist
   * after 410) as the events of what changed since the cache. Keys in the cache the list did not
   * return are Deleted at the end (also after a first list that failed half-way and was started
   * again: its pages were handed on).
   */
  private async list(): Promise<void> {
    const seen = new Set<string>();
    let listVersion: string | undefined;
    for await (const page of listPages(this.opts, this.abort.signal)) {
      listVersion = page.version;
      if (page.kind) this.listKind = page.kind;
      this.takePage(page, seen);
      if (this.stopped) break;
    }
    // stopped between two pages: the list is not whole, nothing it left out was deleted
    if (this.stopped || listVersion === undefined) return;
    // an empty first list is a sync too (of nothing)
    if (!this.synced && seen.size === 0) this.opts.onSync([], []);
    for (const [k, old] of [...this.cache]) {
      if (seen.has(k)) continue;
      this.cache.delete(k);
      this.opts.onEvent('DELETED', this.objectOf(k, old), k, listVersion);
    }
    this.resourceVersion = listVersion;
  }

  private takePage(page: ListedPage, seen: Set<string>): void {
    const { objects, keys } = page;
    for (let i = 0; i < objects.length; i++) {
      const item = objects[i]!;
      const k = keys[i]!;
      seen.add(k);
      const old = this.synced ? this.cache.get(k) : undefined;
      this.store(k, item);
      if (!this.synced) continue;
      if (old === undefined) this.opts.onEvent('ADDED', item, k, page.version);
      else if (rvOf(old) !== item.metadata?.resourceVersion) this.opts.onEvent('MODIFIED', item, k, page.version);
    }
    if (!this.synced && objects.length) this.opts.onSync(objects, keys);
  }

  private async watchOnce(): Promise<void> {
    const timeout = this.opts.watchTimeoutSeconds ?? 300;
    // an ERROR event ends this watch only: a Gone one makes the loop relist
    const ended = new AbortController();
    let gone = false;
    const query = {
      allowWatchBookmarks: true,
      resourceVersion: this.resourceVersion,
      timeoutSeconds: Math.round(timeout * (1 + Math.random() * 0.2)),
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
    };
    try {
      await watchStream(this.opts.kc, this.opts.path, query, ({ type, object }) => {
        if (this.stopped || ended.signal.aborted) return;
        if (type === 'ERROR') {
          gone = (object as { code?: number }).code === 410;
          if (!gone) this.opts.onError?.(new Error(`watch of ${this.opts.path}: ${String((object as { message?: string }).message ?? 'error event')}`), 0);
          ended.abort();
          return;
        }
        const o = object as KubeObject;
        const rv = o.metadata?.resourceVersion;
        if (rv) this.resourceVersion = rv;
        if (type === 'BOOKMARK') return;
        if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
        const k = keyOf(o);
        if (type === 'DELETED') this.cache.delete(k);
        else this.store(k, o);
        this.opts.onEvent(type, o, k, rv ?? '');
      }, AbortSignal.any([this.abort.signal, ended.signal]));
    } catch (e) {
      if (isApiStatus(e, 410)) throw new Gone();
      throw e;
    }
    if (gone) throw new Gone();
  }
}
