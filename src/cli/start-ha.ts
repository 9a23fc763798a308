/**
 * HA mode of `start` (reference addon-operator.md §1.3): with ADDON_OPERATOR_HA=true the instance
 * waits for the Lease `addon-operator-leader-election` before it loads modules or runs anything; a
 * standby answers /readyz by asking the leader's. A leader that cannot renew stops all work at once
 * (no request leaves any more, every running hook's process group is killed) and exits, so that its
 * pod restarts as a standby; on SIGTERM it finishes as usual, then releases the lease.
 */
import type { KubeConfig } from '../kube/kube-config.js';
import type { Logger } from 'pino';
import { cloneClient, fenceRequests } from '../kube/http.js';
import { LeaderElector, haIdentity, leaderHost } from '../kube/leader-election.js';
import { killAllProcesses } from '../hooks/spawner.js';
import { UserError } from '../util/errors.js';
import { parseDuration } from './env.js';

export const LEASE_NAME = 'addon-operator-leader-election';

export interface HaSettings {
  identity: string;
  namespace: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

const REQUIRED = [
  ['ADDON_OPERATOR_POD', 'the pod name (fieldRef metadata.name)'],
  ['ADDON_OPERATOR_LISTEN_ADDRESS', 'the pod IP (fieldRef status.podIP)'],
  ['ADDON_OPERATOR_NAMESPACE', 'the namespace of the Lease (fieldRef metadata.namespace)'],
] as const;

/** The HA settings from the environment, undefined unless ADDON_OPERATOR_HA=true; a missing variable is a UserError. */
export function haSettings(env: NodeJS.ProcessEnv, sandbox: boolean): HaSettings | undefined {
  if (env.ADDON_OPERATOR_HA !== 'true') return undefined;
  for (const [name, what] of REQUIRED) {
    if (!env[name]) throw new UserError(`ADDON_OPERATOR_HA=true needs ${name} (${what}); it is not set`);
  }
  if (sandbox) throw new UserError('ADDON_OPERATOR_HA=true needs a cluster that the instances share: not --sandbox');
  // the timings of the Go original; the variables exist for tests and unusual clusters
  const duration = (name: string, fallback: string) => parseDuration(env[name] || fallback, name);
  const settings = {
    identity: haIdentity(env.ADDON_OPERATOR_POD!, env.ADDON_OPERATOR_LISTEN_ADDRESS!, env.ADDON_OPERATOR_NAMESPACE!),
    namespace: env.ADDON_OPERATOR_NAMESPACE!,
    leaseDurationMs: duration('ADDON_OPERATOR_HA_LEASE_DURATION', '35s'),
    renewDeadlineMs: duration('ADDON_OPERATOR_HA_RENEW_DEADLINE', '30s'),
    retryPeriodMs: duration('ADDON_OPERATOR_HA_RETRY_PERIOD', '10s'),
  };
  if (!(settings.retryPeriodMs < settings.renewDeadlineMs && settings.renewDeadlineMs < settings.leaseDurationMs)) {
    throw new UserError('ADDON_OPERATOR_HA_RETRY_PERIOD < ADDON_OPERATOR_HA_RENEW_DEADLINE < ADDON_OPERATOR_HA_LEASE_DURATION must hold');
  }
  return settings;
}

export class HaMode {
  private readonly elector: LeaderElector;

  constructor(
    private readonly settings: HaSettings,
    kc: KubeConfig,
    private readonly log: Logger,
    private readonly listenPort: () => number,
  ) {
    this.elector = new LeaderElector({
      // a client of its own: a renewal never waits behind the operator's requests
      kc: cloneClient(kc, { qps: 0, timeoutMs: settings.retryPeriodMs, maxRetries: 0 }),
      namespace: settings.namespace,
      name: LEASE_NAME,
      identity: settings.identity,
      leaseDurationMs: settings.leaseDurationMs,
      renewDeadlineMs: settings.renewDeadlineMs,
      retryPeriodMs: settings.retryPeriodMs,
      log,
    });
  }

  /** /readyz of a standby: the leader's answer (Go's texts); undefined when leading (the normal answer). */
  async readiness(): Promise<{ code: number; body: string } | undefined> {
    if (this.elector.isLeader()) return undefined;
    const leader = this.elector.leader();
    if (!leader) return { code: 500, body: 'HA mode is enabled but something went wrong\n' };
    let res: Response;
    try {
      res = await fetch(`http://${leaderHost(leader)}:${this.listenPort()}/readyz`, { signal: AbortSignal.timeout(3000) });
      await res.arrayBuffer();
    } catch {
      return { code: 500, body: "HA mode is enabled but couldn't send a request to the leader\n" };
    }
    if (res.status !== 200) return { code: 500, body: "HA mode is enabled but the leader's status response code isn't OK\n" };
    return { code: 200, body: 'HA mode is enabled and waiting for acquiring the lock.\n' };
  }

  /**
   * Waits for the lease (SIGTERM/SIGINT meanwhile: false, nothing was started), then keeps it; a
   * loss stops everything and exits with code 1.
   */
  async lead(): Promise<boolean> {
    this.log.info({ identity: this.settings.identity, lease: `${this.settings.namespace}/${LEASE_NAME}` }, 'HA mode: waiting for the leader lease');
    const onSignal = (signal: NodeJS.Signals) => {
      this.log.info({ signal }, 'HA mode: stopping while standing by');
      this.elector.stop();
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    let won: boolean;
    try {
      won = await this.elector.acquire();
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
    if (won) {
      this.log.info({ identity: this.settings.identity }, 'HA mode: leading');
      this.elector.keepLeading((reason) => void this.lost(reason));
    }
    return won;
  }

  /** After a normal stop: gives the lease up so that a standby takes over at its next try. */
  release(): Promise<void> {
    return this.elector.release();
  }

  private async lost(reason: string): Promise<void> {
    // first nothing more leaves this process, then the hooks' processes go, then the process
    fenceRequests(`this instance is no longer the leader (${reason})`);
    this.log.error({ reason }, 'HA mode: lost the leader lease: killing running hooks and exiting');
    await killAllProcesses();
    this.log.error('HA mode: exiting after losing the leader lease (the pod restarts as a standby)');
    process.exit(1);
  }
}
