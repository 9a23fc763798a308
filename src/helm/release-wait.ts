/**
 * Helm's `--wait` on the resources monitor's watches: resolves once every object of a release's
 * deployed revision is `Current` (kstatus, as Helm 4's status waiter), woken by watch events (no
 * polling); after `timeoutMs` fails with the objects still not ready and why, in Helm 4's words
 * (`resource Kind/namespace/name not ready. status: S, message: M`, then `context deadline exceeded`).
 */
import type { ReleaseMonitor } from './release-object-monitor.js';

export class ReleaseWaitTimeout extends Error {}

export function waitForRelease(monitor: ReleaseMonitor, release: string, namespace: string, timeoutMs: number, source = '--helm-wait'): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (monitor.hasStopped()) {
        end();
        reject(new Error(`release ${release}: the resources monitor stopped while waiting for its objects`));
        return;
      }
      if (monitor.notReady(release, namespace)?.length !== 0) return;
      end();
      resolve();
    };
    const unsubscribe = monitor.subscribe(release, namespace, check);
    const end = () => {
      clearTimeout(timer);
      unsubscribe();
    };
    const timer = setTimeout(() => {
      end();
      const waiting = monitor.notReady(release, namespace);
      const lines = waiting ? waiting.map((o) => `resource ${o.kind}/${o.namespace}/${o.name} not ready. status: ${o.status}, message: ${o.message}`) : ['its objects are not watched yet'];
      reject(new ReleaseWaitTimeout(`release ${release}: not ready after ${timeoutMs / 1000}s (${source}, --helm-timeout):\n${[...lines, 'context deadline exceeded'].join('\n')}`));
    }, timeoutMs);
    check();
  });
}
