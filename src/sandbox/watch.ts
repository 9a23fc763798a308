/** The watch hub: fans store events out to open watches, with selector filtering and bookmarks. */
import type { Store, StoreEvent, EventType } from './store.js';
import { fieldSubject, type FieldSelector, type LabelSelector } from './selectors.js';

export interface WatchSpec {
  tkey: string;
  /** Only this namespace ('' = all). */
  ns: string;
  labelSelector?: LabelSelector;
  fieldSelector?: FieldSelector;
  /**
   * Turns an event into the line to send, or returns undefined to use the shared default line; a
   * promise when the line needs a call first (a conversion webhook): `write` keeps the order.
   */
  format?: (type: EventType | 'BOOKMARK', json: string, ev?: StoreEvent) => string | Promise<string> | undefined;
  write: (line: string | Buffer | Promise<string>) => void;
  end: () => void;
}

export interface Watcher extends WatchSpec {
  closed: boolean;
  close(): void;
}

export function eventLine(type: string, json: string): string {
  return `{"type":"${type}","object":${json}}\n`;
}

export class WatchHub {
  private readonly byType = new Map<string, Set<Watcher>>();

  constructor(store: Store) {
    store.onEvent((ev) => this.publish(ev));
  }

  get size(): number {
    let n = 0;
    for (const s of this.byType.values()) n += s.size;
    return n;
  }

  add(spec: WatchSpec): Watcher {
    const w: Watcher = {
      ...spec,
      closed: false,
      close: () => {
        if (w.closed) return;
        w.closed = true;
        this.byType.get(spec.tkey)?.delete(w);
        spec.end();
      },
    };
    let set = this.byType.get(spec.tkey);
    if (!set) {
      set = new Set();
      this.byType.set(spec.tkey, set);
    }
    set.add(w);
    return w;
  }

  /** Sends one event to one watcher, applying its filters; used for replays too. */
  deliver(w: Watcher, ev: StoreEvent, shared?: { line?: Buffer }): void {
    if (w.closed || ev.tkey !== w.tkey) return;
    if (w.ns && ev.ns !== w.ns) return;
    if (w.fieldSelector && !w.fieldSelector(fieldSubject(ev))) return;
    let type: EventType = ev.type;
    if (w.labelSelector) {
      const now = w.labelSelector(ev.labels);
      if (ev.type === 'MODIFIED') {
        const before = w.labelSelector(ev.prevLabels);
        if (now && !before) type = 'ADDED';
        else if (!now && before) type = 'DELETED';
        else if (!now && !before) return;
      } else if (!now) return;
    }
    const custom = w.format?.(type, ev.json, ev);
    if (custom !== undefined) {
      w.write(custom);
      return;
    }
    if (type === ev.type) {
      // one line per event, encoded once for the watchers of one publication (not kept in the history)
      const line = shared ? (shared.line ??= Buffer.from(eventLine(ev.type, ev.json))) : eventLine(ev.type, ev.json);
      w.write(line);
    } else {
      w.write(eventLine(type, ev.json));
    }
  }

  private publish(ev: StoreEvent): void {
    const set = this.byType.get(ev.tkey);
    if (!set) return;
    const shared: { line?: Buffer } = {};
    for (const w of set) this.deliver(w, ev, shared);
  }

  /** Ends every open watch (clients see a clean end of stream). */
  closeAll(tkey?: string): number {
    let n = 0;
    for (const [k, set] of this.byType) {
      if (tkey && k !== tkey) continue;
      for (const w of [...set]) {
        w.close();
        n++;
      }
    }
    return n;
  }
}
