/**
 * Fault tolerance of the kubernetes bindings (the real REST mapper, monitors and informers against the
 * sandbox API server): random mutations over five resources while every watch is dropped again and
 * again and the history is compacted twice (so that re-watches get 410 Gone and relist). At the end
 * every binding's snapshot equals the server's list exactly, and the events the bindings emitted,
 * replayed, give that same state with no event that changes nothing (no Deleted lost, no Added or
 * Deleted twice, no Modified with an unchanged filter result).
 * Short in CI; `RELIABILITY_LONG=1`: 5,000 mutations, watches dropped every 2 s.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { RestMapper } from '../../src/kube/mapper.js';
import { KubeMonitors } from '../../src/kube/binding-monitor.js';
import { parseHookConfigSync } from '../../src/hooks/config.js';
import type { BindingEvent, BindingMonitor } from '../../src/operator/ports.js';
import { LONG, random, seed } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

const NS = 'chaos';
const KINDS = [
  { apiVersion: 'v1', kind: 'ConfigMap', path: `/api/v1/namespaces/${NS}/configmaps` },
  { apiVersion: 'v1', kind: 'Secret', path: `/api/v1/namespaces/${NS}/secrets` },
  { apiVersion: 'v1', kind: 'ServiceAccount', path: `/api/v1/namespaces/${NS}/serviceaccounts` },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles` },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', path: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases` },
];
const MUTATIONS = LONG ? 5000 : 600;
const DROP_EVERY_MS = LONG ? 2000 : 150;
const NAMES = 12;

interface Recorded {
  events: { watchEvent: string; name: string; v: unknown }[];
  monitor: BindingMonitor;
}

test(`watches dropped every ${DROP_EVERY_MS} ms and history compacted twice during ${MUTATIONS} mutations over ${KINDS.length} resources: snapshots equal the server, no event lost or doubled`, async (t) => {
  const r = random(seed());
  const sandbox = await startSandbox({ seedObjects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }], requestLogLimit: 1_000_000 });
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  const mapper = new RestMapper(kc);
  const monitors = new KubeMonitors({ kc, resolve: (v, k) => mapper.resolve(v, k), backoff: { initialMs: 20, maxMs: 200 } });

  const recorded: Recorded[] = [];
  for (const k of KINDS) {
    const config = parseHookConfigSync(
      { configVersion: 'v1', kubernetes: [{ name: k.kind, apiVersion: k.apiVersion, kind: k.kind, namespace: { nameSelector: { matchNames: [NS] } }, jqFilter: '.metadata.labels.v' }] },
      { hookPath: 'hooks/chaos', kind: 'global' },
    );
    const rec: Recorded = { events: [], monitor: undefined as unknown as BindingMonitor };
    rec.monitor = monitors.createMonitor(config.kubernetes[0]!, {
      label: `hooks/chaos ${k.kind}`,
      onEvent: (e: BindingEvent) => rec.events.push({ watchEvent: e.watchEvent, name: String((e.item.object?.metadata as { name?: string })?.name), v: e.item.filterResult }),
    });
    await rec.monitor.start();
    t.after(() => rec.monitor.stop());
    recorded.push(rec);
  }

  // the chaos: drops on a timer, two compactions, random creates, label changes and deletes
  const dropper = setInterval(() => sandbox.dropWatches(), DROP_EVERY_MS);
  t.after(() => clearInterval(dropper));
  const present = KINDS.map(() => new Set<string>());
  const mutate = async (i: number): Promise<void> => {
    const ki = Math.floor(r() * KINDS.length);
    const k = KINDS[ki]!;
    const name = `o${Math.floor(r() * NAMES)}`;
    const v = String(Math.floor(r() * 4));
    const ok = (p: Promise<unknown>) => p.catch((e: { statusCode?: number }) => {
      // a race with the other writers of this run: the object was created or deleted meanwhile
      if (e.statusCode !== 404 && e.statusCode !== 409) throw e;
    });
    if (!present[ki]!.has(name)) {
      present[ki]!.add(name);
      const body: Record<string, unknown> = { apiVersion: k.apiVersion, kind: k.kind, metadata: { name, labels: { v } } };
      if (k.kind === 'Role') body.rules = [];
      await ok(requestJson(kc, 'POST', k.path, {}, body));
    } else if (r() < 0.6) {
      await ok(requestJson(kc, 'PATCH', `${k.path}/${name}`, {}, { metadata: { labels: { v } } }, 'application/merge-patch+json'));
    } else {
      present[ki]!.delete(name);
      await ok(requestJson(kc, 'DELETE', `${k.path}/${name}`));
    }
    if (i === Math.floor(MUTATIONS / 3) || i === Math.floor((2 * MUTATIONS) / 3)) {
      // compacted, then every watch dropped: an informer whose last event is older than the newest
      // one (of another resource) resumes below the history and gets 410 Gone
      sandbox.compactHistory();
      sandbox.dropWatches();
    }
  };
  // four writers at once
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < MUTATIONS) await mutate(next++);
    }),
  );
  clearInterval(dropper);
  // the faults happened: relists after 410 Gone (list requests beyond the first one per resource)
  const lists = sandbox.requests.filter((q) => q.method === 'GET' && q.query.watch !== 'true' && KINDS.some((k) => q.path === k.path)).length;
  assert.ok(lists > KINDS.length, `relists happened (${lists} lists for ${KINDS.length} resources)`);

  // the truth: the server's lists
  const truth = await Promise.all(
    KINDS.map(async (k) => {
      const list = await requestJson<{ items: { metadata: { name: string; labels?: Record<string, string> } }[] }>(kc, 'GET', k.path);
      return new Map(list.items.map((o) => [o.metadata.name, o.metadata.labels?.v]));
    }),
  );
  const snapshotOf = (i: number) => new Map(recorded[i]!.monitor.snapshot().map((it) => [String((it.object?.metadata as { name?: string })?.name), it.filterResult]));
  for (let i = 0; i < KINDS.length; i++) {
    await waitFor(() => JSON.stringify([...snapshotOf(i)].sort()) === JSON.stringify([...truth[i]!].sort()), `the ${KINDS[i]!.kind} snapshot to equal the server's list`);
  }

  // the events, replayed from the (empty) start, give the same state, and each one changed something
  for (let i = 0; i < KINDS.length; i++) {
    const state = new Map<string, unknown>();
    const useless: string[] = [];
    for (const e of recorded[i]!.events) {
      const had = state.has(e.name);
      if (e.watchEvent === 'Deleted') {
        if (!had) useless.push(`Deleted ${e.name} (absent)`);
        state.delete(e.name);
      } else {
        if (e.watchEvent === 'Added' && had && state.get(e.name) === e.v) useless.push(`Added ${e.name} (present, same)`);
        if (e.watchEvent === 'Modified' && (!had || state.get(e.name) === e.v)) useless.push(`Modified ${e.name} (${had ? 'same' : 'absent'})`);
        state.set(e.name, e.v);
      }
    }
    assert.deepEqual([...state].sort(), [...truth[i]!].sort(), `${KINDS[i]!.kind}: the events replayed give the server's state`);
    assert.deepEqual(useless, [], `${KINDS[i]!.kind}: events that changed nothing`);
  }

});
