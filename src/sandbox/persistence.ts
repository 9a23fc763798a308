/**
 * Crash-safe persistence for `--data-dir`: an append-only log of changes, each record written and
 * fsync'ed before the change is acknowledged, plus snapshots written to a temporary file, fsync'ed and
 * renamed into place. A torn last record (kill -9 in the middle of a write) is ignored on load: it was
 * never acknowledged.
 */
import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { PersistRecord, Store } from './store.js';

const LOG = 'changes.log';
const SNAPSHOT = 'snapshot.json';

export interface LoadedRecord {
  rv: number;
  tkey: string;
  ns: string;
  name: string;
  json: string | null;
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some platforms cannot fsync a directory
  }
}

/** Writes a file atomically: temp file, fsync, rename, fsync of the directory. */
export function writeFileAtomic(path: string, data: string | Buffer, mode = 0o600): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', mode);
  try {
    if (typeof data === 'string') writeSync(fd, data);
    else writeSync(fd, new Uint8Array(data));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(join(path, '..'));
}

function encode(rec: PersistRecord): string {
  const head = JSON.stringify({ rv: rec.rv, t: rec.tkey, ns: rec.ns, n: rec.name });
  return `${head.slice(0, -1)},"o":${rec.json ?? 'null'}}\n`;
}

export class Persistence {
  private fd = -1;
  private records = 0;

  private locked = false;

  constructor(
    readonly dir: string,
    private readonly compactEvery = 20000,
  ) {
    mkdirSync(dir, { recursive: true });
    this.lock();
  }

  /** One sandbox per data directory: a lock file with the owner's pid (stale locks are taken over). */
  private lock(): void {
    const path = join(this.dir, 'lock');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        this.locked = true;
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = Number(readFileSync(path, 'utf8').trim());
        let alive = false;
        if (pid > 0 && pid !== process.pid) {
          try {
            process.kill(pid, 0);
            alive = true;
          } catch (e) {
            alive = (e as NodeJS.ErrnoException).code === 'EPERM';
          }
        }
        if (alive || pid === process.pid) throw new Error(`data directory ${this.dir} is in use by another sandbox (pid ${pid})`, { cause: err });
        rmSync(path, { force: true });
      }
    }
    throw new Error(`cannot lock data directory ${this.dir}`);
  }

  /** Reads the snapshot and the log; returns the records in order (snapshot first). */
  load(): LoadedRecord[] {
    const out: LoadedRecord[] = [];
    let snapRv = 0;
    const snapPath = join(this.dir, SNAPSHOT);
    if (existsSync(snapPath)) {
      const snap = JSON.parse(readFileSync(snapPath, 'utf8')) as { rv: number; objects: { t: string; ns: string; n: string; o: unknown }[] };
      snapRv = snap.rv;
      for (const o of snap.objects) out.push({ rv: snap.rv, tkey: o.t, ns: o.ns, name: o.n, json: JSON.stringify(o.o) });
      if (snap.objects.length === 0) out.push({ rv: snap.rv, tkey: '', ns: '', name: '', json: null });
    }
    const logPath = join(this.dir, LOG);
    if (existsSync(logPath)) {
      const buf = readFileSync(logPath);
      let start = 0;
      let good = 0;
      while (start < buf.length) {
        const nl = buf.indexOf(10, start);
        if (nl < 0) break; // torn tail: never acknowledged
        const line = buf.subarray(start, nl).toString('utf8');
        let rec: { rv: number; t: string; ns: string; n: string; o: unknown };
        try {
          rec = JSON.parse(line);
        } catch {
          break;
        }
        start = nl + 1;
        good = start;
        this.records++;
        if (rec.rv <= snapRv) continue;
        out.push({ rv: rec.rv, tkey: rec.t, ns: rec.ns, name: rec.n, json: rec.o === null ? null : JSON.stringify(rec.o) });
      }
      if (good < buf.length) {
        // drop the torn tail so that new records start on a clean line
        const fd = openSync(logPath, 'r+');
        try {
          ftruncateSync(fd, good);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
    }
    return out;
  }

  open(): void {
    this.fd = openSync(join(this.dir, LOG), 'a', 0o600);
  }

  /** Appends one record and makes it durable before returning. */
  append(rec: PersistRecord): void {
    if (this.fd < 0) this.open();
    writeSync(this.fd, encode(rec));
    fsyncSync(this.fd);
    this.records++;
  }

  /** Compacts when the log has grown: snapshot of the whole store, then an empty log. */
  maybeCompact(store: Store): void {
    if (this.records < this.compactEvery) return;
    this.snapshot(store);
  }

  snapshot(store: Store): void {
    const parts: string[] = [];
    for (const [tkey, e] of store.entries()) {
      parts.push(`${JSON.stringify({ t: tkey, ns: e.ns, n: e.name }).slice(0, -1)},"o":${e.json}}`);
    }
    writeFileAtomic(join(this.dir, SNAPSHOT), `{"rv":${store.rv},"objects":[\n${parts.join(',\n')}\n]}\n`);
    if (this.fd >= 0) closeSync(this.fd);
    writeFileAtomic(join(this.dir, LOG), '');
    this.records = 0;
    this.open();
  }

  close(): void {
    if (this.locked) {
      rmSync(join(this.dir, 'lock'), { force: true });
      this.locked = false;
    }
    if (this.fd >= 0) {
      try {
        closeSync(this.fd);
      } catch {
        // already closed
      }
      this.fd = -1;
    }
  }
}
