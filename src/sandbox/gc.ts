/**
 * The garbage collector: when an object goes, its dependents (objects whose ownerReferences name it)
 * are deleted in the background once none of their owners is left, unless it was deleted with
 * propagationPolicy Orphan.
 */
import type { Registry, ResourceType } from './registry.js';
import { ownershipOf, type Ownership, type Store } from './store.js';

export class GarbageCollector {
  /** uids of live objects, and owner uid -> dependents (`tkey\0ns\0name`), for the garbage collector. */
  private readonly uids = new Set<string>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly orphaned = new Set<string>();
  private gcQueue: string[] = [];
  private gcTimer: NodeJS.Immediate | undefined;

  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
    private readonly remove: (t: ResourceType, ns: string, name: string) => void,
  ) {
    store.onEvent((ev) => {
      if (ev.ownership) this.track(ev.type, ev.tkey, ev.ns, ev.name, ev.ownership);
    });
  }

  /** The object with this uid is being deleted with propagationPolicy Orphan. */
  orphan(uid: string): void {
    this.orphaned.add(uid);
  }

  track(type: string, tkey: string, ns: string, name: string, { uid, owners }: Ownership): void {
    if (!uid) return;
    if (type === 'DELETED') {
      this.uids.delete(uid);
      if (this.orphaned.delete(uid)) {
        this.dependents.delete(uid);
        return;
      }
      if (this.dependents.has(uid)) {
        this.gcQueue.push(uid);
        this.gcTimer ??= setImmediate(() => this.collectGarbage());
      }
      return;
    }
    this.uids.add(uid);
    for (const owner of owners) {
      let set = this.dependents.get(owner);
      if (!set) {
        set = new Set();
        this.dependents.set(owner, set);
      }
      set.add(`${tkey}\0${ns}\0${name}`);
    }
  }

  /** Indexes objects restored from disk (they produced no events). */
  rebuildIndexes(): void {
    for (const [tkey, e] of this.store.entries()) this.track('ADDED', tkey, e.ns, e.name, ownershipOf(JSON.parse(e.json)));
  }

  /** Background deletion of dependents whose owners are all gone (the API server's garbage collector). */
  private collectGarbage(): void {
    this.gcTimer = undefined;
    while (this.gcQueue.length) {
      const uid = this.gcQueue.shift()!;
      const refs = this.dependents.get(uid);
      this.dependents.delete(uid);
      for (const ref of refs ?? []) {
        const [tkey, ns, name] = ref.split('\0');
        const t = this.registry.byKey(tkey);
        const e = this.store.get(tkey, ns, name);
        if (!t || !e) continue;
        const owners: any[] = JSON.parse(e.json).metadata?.ownerReferences ?? [];
        if (!owners.some((o) => o?.uid === uid)) continue;
        if (owners.some((o) => o?.uid !== uid && this.uids.has(o?.uid))) continue;
        try {
          this.remove(t, ns, name);
        } catch {
          // gone already, or refused: nothing to collect
        }
      }
    }
  }

  /** Stops pending background work (on shutdown). */
  close(): void {
    if (this.gcTimer) clearImmediate(this.gcTimer);
    this.gcTimer = undefined;
  }
}
