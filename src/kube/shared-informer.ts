/**
 * One informer (one list, one watch, one parse of each change) shared by the monitors' sources that
 * watch the same collection with the same selectors; it stops when the last source leaves.
 *
 * - Keeping full objects, a source that joins after the first list gets the informer's current
 *   objects as its list.
 * - Keeping resourceVersions only (sources whose bindings keep filter results only), the informer has
 *   no objects to give a late joiner: it lists on its own (its catch-up) while the informer's changes
 *   are held for it; then it gets the held changes newer than its list, and later ones as the others
 *   do, except those its list already had (an informer behind the catch-up's list).
 */
import type { KubeConfig } from './kube-config.js';
import { Informer, keyParts, listPages, newerVersion, type KubeObject, type WatchEventType } from './informer.js';
import { backoffDelay } from '../util/rate-limit.js';

/** What one informer watches. */
export interface InformerSpec {
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** What a monitor's source hears from its informer. */
export interface InformerHandlers {
  onSync: (objects: KubeObject[], keys: string[]) => void;
  onEvent: (type: WatchEventType, object: KubeObject, key: string) => void;
  onError: (error: Error) => void;
}

export interface SharedInformerOptions {
  kc: KubeConfig;
  backoff?: { initialMs: number; maxMs: number };
  watchTimeoutSeconds?: number;
  /** Keep every object (late joiners get them), or resourceVersions only (late joiners list). */
  keepObjects: boolean;
}

/** A change the informer delivered, held for a source catching up. */
interface Held {
  type: WatchEventType;
  object: KubeObject;
  key: string;
  version: string;
}

/** A source listing on its own: the changes held for it, the version of its list once known. */
interface CatchUp {
  held: Held[];
  since: string | undefined;
  abort: AbortController;
}

/** A joined source; `since` until a change newer than its catch-up's list has come. */
interface Joined {
  since: string | undefined;
}

export class SharedInformer {
  private readonly handlers = new Map<InformerHandlers, Joined>();
  /** Sources joining, until they have had what was listed so far. */
  private readonly joining = new Set<InformerHandlers>();
  private readonly catching = new Map<InformerHandlers, CatchUp>();
  private readonly informer: Informer;
  private readonly started: Promise<void>;
  private synced = false;
  /** The informer has handed something on: a source joining now has missed it. */
  private delivered = false;

  constructor(
    private readonly spec: InformerSpec,
    private readonly opts: SharedInformerOptions,
    private readonly onIdle: () => void,
  ) {
    this.informer = new Informer({
      kc: opts.kc,
      ...spec,
      backoff: opts.backoff,
      watchTimeoutSeconds: opts.watchTimeoutSeconds,
      keepObjects: opts.keepObjects,
      onSync: (objects, keys) => this.onSync(objects, keys),
      onEvent: (type, object, key, version) => this.onEvent(type, object, key, version),
      onError: (e) => {
        for (const h of [...this.handlers.keys()]) h.onError(e);
      },
    });
    this.started = this.informer.start().then(() => {
      this.synced = true;
    });
  }

  get keepObjects(): boolean {
    return this.opts.keepObjects;
  }

  /** Its informer's loop ended without a stop: it delivers nothing more. */
  get dead(): boolean {
    return this.informer.dead;
  }

  /**
   * Resolves once `h` has had its list (or when the informer stops before any list): the objects
   * listed so far at once, then the rest of the list's pages as they come; or its catch-up.
   */
  join(h: InformerHandlers): Promise<void> {
    // not synchronously: the caller is still setting up what the handlers use
    this.joining.add(h);
    return Promise.resolve().then(() => {
      if (!this.joining.delete(h)) return;
      if (!this.opts.keepObjects && this.delivered) return this.catchUp(h);
      this.handlers.set(h, { since: undefined });
      if (this.opts.keepObjects) {
        const { objects, keys } = this.informer.entries();
        if (objects.length) h.onSync(objects, keys);
      }
      return this.synced ? undefined : this.started;
    });
  }

  leave(h: InformerHandlers): Promise<void> {
    this.handlers.delete(h);
    this.joining.delete(h);
    this.catching.get(h)?.abort.abort();
    this.catching.delete(h);
    if (this.handlers.size > 0 || this.joining.size > 0 || this.catching.size > 0) return Promise.resolve();
    this.onIdle();
    return this.informer.stop();
  }

  private onSync(objects: KubeObject[], keys: string[]): void {
    this.delivered = true;
    for (const [h, joined] of [...this.handlers]) {
      if (joined.since === undefined) h.onSync(objects, keys);
      else {
        // caught up before this list ended: only what its own list did not have
        const i = objects.flatMap((o, n) => (newerVersion(o.metadata?.resourceVersion ?? '', joined.since!) ? [n] : []));
        if (i.length) h.onSync(i.map((n) => objects[n]!), i.map((n) => keys[n]!));
      }
    }
    if (this.catching.size) objects.forEach((object, n) => this.hold('ADDED', object, keys[n]!, object.metadata?.resourceVersion ?? ''));
  }

  private onEvent(type: WatchEventType, object: KubeObject, key: string, version: string): void {
    this.delivered = true;
    for (const [h, joined] of [...this.handlers]) {
      if (joined.since !== undefined) {
        if (!newerVersion(version, joined.since)) continue;
        joined.since = undefined;
      }
      h.onEvent(type, object, key);
    }
    if (this.catching.size) this.hold(type, object, key, version);
  }

  /** Holds a change for the sources catching up (once a catch-up's list version is known, only newer ones). */
  private hold(type: WatchEventType, object: KubeObject, key: string, version: string): void {
    for (const c of this.catching.values()) {
      if (c.since === undefined || newerVersion(version, c.since)) c.held.push({ type, object, key, version });
    }
  }

  /**
   * A source's own list while the changes are held for it, retried with backoff until it is whole or
   * the source leaves; objects a failed attempt handed on that the whole list has not are Deleted.
   */
  private async catchUp(h: InformerHandlers): Promise<void> {
    const c: CatchUp = { held: [], since: undefined, abort: new AbortController() };
    this.catching.set(h, c);
    // keys handed on by failed attempts, and the kind of their objects
    const handed = new Set<string>();
    let kind: { apiVersion?: string; kind?: string } = {};
    for (let attempt = 1; ; attempt++) {
      // what was held before this list asked is in it
      c.held = [];
      c.since = undefined;
      const seen = new Set<string>();
      try {
        for await (const page of listPages({ kc: this.opts.kc, ...this.spec }, c.abort.signal)) {
          if (c.since === undefined) {
            c.since = page.version;
            c.held = c.held.filter((e) => newerVersion(e.version, page.version));
          }
          if (page.kind) kind = page.kind;
          for (const k of page.keys) seen.add(k);
          if (page.objects.length) h.onSync(page.objects, page.keys);
        }
      } catch (e) {
        if (c.abort.signal.aborted) return;
        for (const k of seen) handed.add(k);
        h.onError(e as Error);
        await abortableSleep(backoffDelay(attempt, this.opts.backoff?.initialMs ?? 500, this.opts.backoff?.maxMs ?? 30_000), c.abort.signal);
        if (c.abort.signal.aborted) return;
        continue;
      }
      if (c.abort.signal.aborted) return;
      this.catching.delete(h);
      for (const k of handed) if (!seen.has(k)) h.onEvent('DELETED', stubOf(k, kind), k);
      for (const e of c.held) h.onEvent(e.type, e.object, e.key);
      this.handlers.set(h, { since: c.since });
      return;
    }
  }
}

/** What a Deleted event of an object a failed catch-up handed on carries: its kind and name. */
function stubOf(key: string, kind: { apiVersion?: string; kind?: string }): KubeObject {
  const { namespace, name } = keyParts(key);
  return { ...kind, metadata: { ...(namespace ? { namespace } : {}), name } };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
