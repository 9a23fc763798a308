/**
 * The status check of deployed releases (the Go monitor's HelmReleaseUnexpectedStatus): now and
 * then (the Go period, 4m30s plus up to 59 s, unless told), each checked release whose last revision
 * is not `deployed` (or that has none left) and that no operation holds is reported with that
 * status ('' when none).
 */
import { errorMessage } from '../../util/errors.js';
import type { ReleaseStore } from '../release-secrets.js';
import type { ReleaseLog } from './context.js';

export interface StatusCheckOptions {
  store: ReleaseStore;
  log: ReleaseLog;
  onUnexpectedStatus: (release: string, status: string) => void;
  /** Whether an operation holds the release (`ns/name`) now: it settles the status itself. */
  busy: (key: string) => boolean;
  periodMs?: number;
}

export class ReleaseStatusCheck {
  /** Deployed releases whose status is checked, by `ns/name`. */
  private readonly checked = new Map<string, { name: string; namespace: string }>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly o: StatusCheckOptions) {}

  /** Checks this release from now on (after it was deployed). */
  add(name: string, namespace: string): void {
    this.checked.set(`${namespace}/${name}`, { name, namespace });
    this.schedule();
  }

  remove(name: string, namespace: string): void {
    this.checked.delete(`${namespace}/${name}`);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    const ms = this.o.periodMs ?? 270_000 + Math.floor(Math.random() * 60_000);
    this.timer = setTimeout(() => {
      void this.checkAll().finally(() => {
        this.timer = undefined;
        this.schedule();
      });
    }, ms);
    this.timer.unref();
  }

  private async checkAll(): Promise<void> {
    for (const [key, r] of this.checked) {
      if (this.o.busy(key)) continue;
      let status: string;
      try {
        status = (await this.o.store.history(r.name, r.namespace)).at(-1)?.info.status ?? '';
      } catch (e) {
        this.o.log.warn(`release ${r.name}: cannot read its status: ${errorMessage(e)}`);
        continue;
      }
      if (status === 'deployed' || this.o.busy(key) || !this.checked.has(key) || this.stopped) continue;
      this.o.log.info(`release ${r.name}: ${status ? `last revision is ${status}` : 'no revision left'}, not deployed`);
      this.o.onUnexpectedStatus(r.name, status);
    }
  }
}
