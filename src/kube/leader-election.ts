/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's rules (reference
 * addon-operator.md §1.3): a candidate takes the Lease when it is free, released (no holder), or
 * unchanged for `leaseDurationMs` on the candidate's own clock (clocks of different nodes are never
 * compared); the leader renews every `retryPeriodMs` and has lost when no renewal succeeded for
 * `renewDeadlineMs`, which is shorter than the lease, so that it stops before anybody else may start.
 * Every write carries the resourceVersion it read: two candidates never both win.
 *
 * A loop of our own: @kubernetes/client-node 1.4 ships no leader election. Besides, a candidate that
 * sees the lease about to expire wakes at the moment it expires instead of at its next retry tick,
 * a renewal is one PUT (client-go reads the Lease before every renewal), and the loss fires from a
 * timer at the renew deadline, also while a renewal request hangs.
 */
import type { KubeConfig } from './kube-config.js';
import { isApiStatus, requestJson } from './http.js';
import { sleep } from '../util/rate-limit.js';

export interface LeaderElectionOptions {
  /** A client of the election's own (cloneClient): the operator's busy token bucket must not delay a renewal. */
  kc: KubeConfig;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  log?: { info(o: object, m: string): void; warn(o: object, m: string): void };
  /** Monotonic clock in ms (tests). */
  now?: () => number;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: LeaseSpec;
}

/** A MicroTime as the API server writes it: RFC 3339 with microseconds. */
export function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** client-go's JitterUntil factor: a wait of `ms` to `1.2 × ms`. */
const jittered = (ms: number) => ms * (1 + Math.random() * 0.2);

export class LeaderElector {
  private readonly now: () => number;
  private lease: Lease | undefined;
  /** The lease's spec as last seen, and when (our clock): it expires leaseDuration after a change. */
  private observedSpec = '';
  private observedAt = 0;
  private leading = false;
  private lastRenew = 0;
  private readonly stopping = new AbortController();
  private renewing: Promise<void> | undefined;
  private lossTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: LeaderElectionOptions) {
    if (!(opts.renewDeadlineMs < opts.leaseDurationMs)) throw new Error('leader election: the renew deadline must be shorter than the lease duration');
    if (!(opts.retryPeriodMs < opts.renewDeadlineMs)) throw new Error('leader election: the retry period must be shorter than the renew deadline');
    this.now = opts.now ?? (() => performance.now());
  }

  get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.opts.namespace}/leases/${this.opts.name}`;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** The holder of the lease as last seen (this one's identity when leading), or '' when none. */
  leader(): string {
    return this.leading ? this.opts.identity : (this.lease?.spec.holderIdentity ?? '');
  }

  /** Tries until this candidate holds the lease (true), or stop() (false). */
  async acquire(): Promise<boolean> {
    const signal = this.stopping.signal;
    let reported = '';
    while (!signal.aborted) {
      let waitMs = jittered(this.opts.retryPeriodMs);
      try {
        if (await this.tryAcquire()) {
          this.leading = true;
          this.lastRenew = this.now();
          this.opts.log?.info({ lease: `${this.opts.namespace}/${this.opts.name}`, identity: this.opts.identity }, 'leader election: acquired the lease, leading');
          return true;
        }
        const holder = this.lease?.spec.holderIdentity ?? '';
        if (holder !== reported) {
          reported = holder;
          this.opts.log?.info({ leader: holder }, 'leader election: another instance leads, standing by');
        }
        // wake when the lease expires if that comes before the next tick
        const expiresIn = this.observedAt + this.opts.leaseDurationMs - this.now();
        waitMs = Math.max(10, Math.min(waitMs, expiresIn + 10));
      } catch (e) {
        this.opts.log?.warn({ error: (e as Error).message }, 'leader election: cannot read or write the lease');
      }
      await sleep(waitMs, signal);
    }
    return false;
  }

  /**
   * Renews until release() or stop(); calls `onLost` once, at the renew deadline when no renewal
   * succeeded, or at once when another holder is seen.
   */
  keepLeading(onLost: (reason: string) => void): void {
    if (!this.leading) throw new Error('leader election: not leading');
    let lost = false;
    const lose = (reason: string) => {
      if (lost || this.stopping.signal.aborted) return;
      lost = true;
      this.leading = false;
      clearTimeout(this.lossTimer);
      renewAbort.abort();
      onLost(reason);
    };
    const renewAbort = new AbortController();
    const armDeadline = () => {
      clearTimeout(this.lossTimer);
      const left = this.lastRenew + this.opts.renewDeadlineMs - this.now();
      this.lossTimer = setTimeout(() => lose(`no renewal of the lease for ${this.opts.renewDeadlineMs} ms`), Math.max(0, left));
    };
    armDeadline();
    const signal = AbortSignal.any([this.stopping.signal, renewAbort.signal]);
    this.renewing = (async () => {
      let failures = 0;
      while (!signal.aborted) {
        // after a failure, try again sooner: several tries fit before the deadline
        const wait = failures ? Math.min(this.opts.retryPeriodMs, jittered(this.opts.retryPeriodMs / 4)) : this.opts.retryPeriodMs;
        if (!(await sleep(wait, signal))) break;
        try {
          const outcome = await this.renew(signal);
          if (outcome === 'lost') return lose(`the lease is held by ${this.lease?.spec.holderIdentity || 'nobody'}`);
          failures = 0;
          this.lastRenew = this.now();
          armDeadline();
        } catch (e) {
          if (signal.aborted) break;
          failures++;
          this.opts.log?.warn({ error: (e as Error).message, failures }, 'leader election: renewing the lease failed');
        }
      }
    })();
  }

  /** Stops renewing and gives the lease up (a standby takes it at its next try); errors are logged. */
  async release(): Promise<void> {
    const wasLeading = this.leading;
    this.stop();
    await this.renewing;
    if (!wasLeading || !this.lease) return;
    this.leading = false;
    try {
      const spec: LeaseSpec = { ...this.lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime() };
      delete spec.acquireTime;
      await requestJson(this.opts.kc, 'PUT', this.path, {}, { ...this.lease, spec });
      this.opts.log?.info({ lease: `${this.opts.namespace}/${this.opts.name}` }, 'leader election: released the lease');
    } catch (e) {
      this.opts.log?.warn({ error: (e as Error).message }, 'leader election: cannot release the lease (a standby takes it when it expires)');
    }
  }

  /** Ends acquire() and the renewals without writing anything. */
  stop(): void {
    clearTimeout(this.lossTimer);
    this.stopping.abort();
  }

  private observe(lease: Lease): void {
    this.lease = lease;
    const spec = JSON.stringify(lease.spec);
    if (spec !== this.observedSpec) {
      this.observedSpec = spec;
      this.observedAt = this.now();
    }
  }

  private record(old: LeaseSpec | undefined): LeaseSpec {
    const now = microTime();
    const mine = old?.holderIdentity === this.opts.identity;
    return {
      holderIdentity: this.opts.identity,
      leaseDurationSeconds: Math.ceil(this.opts.leaseDurationMs / 1000),
      acquireTime: mine && old?.acquireTime ? old.acquireTime : now,
      renewTime: now,
      leaseTransitions: mine ? (old?.leaseTransitions ?? 0) : (old?.leaseTransitions ?? -1) + 1,
    };
  }

  private async tryAcquire(): Promise<boolean> {
    const signal = this.stopping.signal;
    let lease: Lease;
    try {
      lease = await requestJson<Lease>(this.opts.kc, 'GET', this.path, {}, undefined, undefined, { signal });
    } catch (e) {
      if (!isApiStatus(e, 404)) throw e;
      const created: Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.opts.name, namespace: this.opts.namespace }, spec: this.record(undefined) };
      try {
        this.lease = await requestJson<Lease>(this.opts.kc, 'POST', `/apis/coordination.k8s.io/v1/namespaces/${this.opts.namespace}/leases`, {}, created, undefined, { signal });
        return true;
      } catch (err) {
        if (isApiStatus(err, 409)) return false; // another candidate created it first
        throw err;
      }
    }
    this.observe(lease);
    const holder = lease.spec.holderIdentity ?? '';
    const expired = this.now() >= this.observedAt + this.opts.leaseDurationMs;
    if (holder && holder !== this.opts.identity && !expired) return false;
    try {
      this.lease = await requestJson<Lease>(this.opts.kc, 'PUT', this.path, {}, { ...lease, spec: this.record(lease.spec) }, undefined, { signal });
      this.observe(this.lease);
      return true;
    } catch (e) {
      if (isApiStatus(e, 409)) return false; // changed since we read it: somebody else won
      throw e;
    }
  }

  /** One renewal: a PUT on the version we hold; on a conflict, read and see who holds it. */
  private async renew(signal: AbortSignal): Promise<'renewed' | 'lost'> {
    const put = async (lease: Lease) => {
      this.lease = await requestJson<Lease>(this.opts.kc, 'PUT', this.path, {}, { ...lease, spec: this.record(lease.spec) }, undefined, { signal });
    };
    try {
      await put(this.lease!);
      return 'renewed';
    } catch (e) {
      if (!isApiStatus(e, 409)) throw e;
    }
    const current = await requestJson<Lease>(this.opts.kc, 'GET', this.path, {}, undefined, undefined, { signal });
    this.lease = current;
    if (current.spec.holderIdentity !== this.opts.identity) return 'lost';
    await put(current);
    return 'renewed';
  }
}

/** The identity of reference §1.3: `<pod>.<pod IP with '.' → '-'>.<namespace>.pod`. */
export function haIdentity(pod: string, podIp: string, namespace: string): string {
  return `${pod}.${podIp.replace(/\./g, '-')}.${namespace}.pod`;
}

/**
 * Where a standby asks the leader's /readyz: the Go original uses the identity as the host name
 * (cluster DNS must resolve `<pod>.<ip>.<ns>.pod`); the pod IP inside it is used when it is one.
 */
export function leaderHost(identity: string): string {
  const parts = identity.split('.');
  if (parts.length >= 4 && parts[parts.length - 1] === 'pod') {
    const ip = parts[1]!;
    if (/^\d{1,3}(-\d{1,3}){3}$/.test(ip)) return ip.replace(/-/g, '.');
    if (ip.includes(':')) return `[${ip}]`; // IPv6 has no dots to replace
  }
  return identity;
}
