// Sandbox benchmark of the simulated controllers: 1,000 Deployments of 3 replicas (3,000 Pods) created
// over HTTPS, the seconds until all are Available, and the server's RSS with them against a sandbox with
// the controllers off storing the same objects (Deployments, ReplicaSets, Pods with their status).
// Run alone: node --import tsx bench/sandbox-workloads.ts [--deployments N]; bench/sandbox.ts runs it too.
import type { ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Figure } from './figures.js';
import { caller, forkWithMessages, type Call } from './child-server.js';

const NS = 'bench';
const CONCURRENCY = 16;

interface Server {
  child: ChildProcess;
  next(): Promise<any>;
  call: Call;
  /** A watch: each event parsed, handed to `onEvent`. */
  stream(path: string, onEvent: (ev: any) => void): { destroy(): void };
  close(): void;
}

async function serverMain(controllers: boolean): Promise<void> {
  const { startSandbox } = await import('../src/sandbox/index.js');
  const gc = (globalThis as any).gc as (() => void) | undefined;
  const sb = await startSandbox({ controllers, podStartMs: 500 });
  sb.load([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }]);
  process.send!({ type: 'ready', url: sb.url, token: sb.token, ca: sb.caCert });
  process.on('message', (m: any) => {
    if (m.type === 'mem') {
      sb.compactHistory();
      void (async () => {
        for (let i = 0; i < 4; i++) {
          gc?.();
          await new Promise((r) => setTimeout(r, 50));
        }
        process.send!({ type: 'mem', rss: process.memoryUsage().rss });
      })();
    } else if (m.type === 'stop') {
      void sb.stop().then(() => process.exit(0));
    }
  });
}

async function startServer(controllers: boolean): Promise<Server> {
  const { child, next } = forkWithMessages(fileURLToPath(import.meta.url), ['--workload-server', ...(controllers ? ['--controllers'] : [])], ['--import', 'tsx', '--expose-gc']);
  const { url, token, ca } = await next();
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: [ca] });
  const call = caller(request, agent, url, token);
  const stream: Server['stream'] = (path, onEvent) => {
    const req = request(new URL(path, url), { agent: new Agent({ ca: [ca] }), headers: { authorization: `Bearer ${token}` } }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line) onEvent(JSON.parse(line));
        }
      });
    });
    req.on('error', () => undefined);
    req.end();
    return { destroy: () => req.destroy() };
  };
  return {
    child,
    next,
    call,
    stream,
    close() {
      child.send({ type: 'stop' });
      agent.destroy();
    },
  };
}

function deployment(i: number): Record<string, unknown> {
  const name = `app-${String(i).padStart(4, '0')}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS, labels: { app: name } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'registry.example/app:1.0', ports: [{ containerPort: 8080 }] }] } },
    },
  };
}

async function pool<T>(items: T[], fn: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (i < items.length) await fn(items[i++]);
  }));
}

async function rss(s: Server): Promise<number> {
  s.child.send({ type: 'mem' });
  return ((await s.next()) as { rss: number }).rss;
}

export interface WorkloadResult {
  lines: string[];
  figures: Figure[];
}

export async function runWorkloads(n = 1000): Promise<WorkloadResult> {
  // ---- controllers on: create, and watch until every Deployment is Available
  const on = await startServer(true);
  const baseOn = await rss(on);
  const rv0 = JSON.parse((await on.call('GET', `/apis/apps/v1/namespaces/${NS}/deployments`)).body.toString('utf8')).metadata.resourceVersion;
  const availableSet = new Set<string>();
  let allAvailable!: () => void;
  const everyAvailable = new Promise<void>((resolve) => (allAvailable = resolve));
  const watch = on.stream(`/apis/apps/v1/namespaces/${NS}/deployments?watch=true&resourceVersion=${rv0}`, (ev) => {
    const d = ev.object;
    if (d.status?.availableReplicas === 3 && d.status?.conditions?.some((c: any) => c.type === 'Available' && c.status === 'True')) availableSet.add(d.metadata.name);
    if (availableSet.size === n) allAvailable();
  });
  const t0 = performance.now();
  let failed = 0;
  await pool(Array.from({ length: n }, (_, i) => i), async (i) => {
    const r = await on.call('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, JSON.stringify(deployment(i)));
    if (r.status !== 201) failed++;
  });
  const createdS = (performance.now() - t0) / 1000;
  const limit = setTimeout(allAvailable, 120_000);
  await everyAvailable;
  clearTimeout(limit);
  const available = availableSet.size;
  const availableS = available === n ? (performance.now() - t0) / 1000 : NaN;
  watch.destroy();
  const rssOn = await rss(on);
  // the objects as they are now, to store them again without controllers
  const objects: any[] = [];
  for (const path of [`/apis/apps/v1/namespaces/${NS}/deployments`, `/apis/apps/v1/namespaces/${NS}/replicasets`, `/api/v1/namespaces/${NS}/pods`, '/api/v1/nodes']) {
    const list = JSON.parse((await on.call('GET', path)).body.toString('utf8'));
    const [apiVersion, kind] = [list.apiVersion, String(list.kind).replace(/List$/, '')];
    for (const o of list.items) objects.push({ ...o, apiVersion, kind });
  }
  on.close();
  const pods = objects.filter((o) => o.kind === 'Pod').length;

  // ---- controllers off: the same objects stored (created, then their status written)
  const off = await startServer(false);
  const baseOff = await rss(off);
  const plural: Record<string, string> = { Deployment: 'deployments', ReplicaSet: 'replicasets', Pod: 'pods', Node: 'nodes' };
  await pool(objects, async (o) => {
    const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
    const coll = o.metadata.namespace ? `${base}/namespaces/${o.metadata.namespace}/${plural[o.kind]}` : `${base}/${plural[o.kind]}`;
    const { uid: _u, resourceVersion: _r, creationTimestamp: _c, generation: _g, managedFields: _m, ...meta } = o.metadata;
    const r = await off.call('POST', `${coll}?fieldManager=bench`, JSON.stringify({ ...o, metadata: meta }));
    if (r.status !== 201) throw new Error(`storing ${o.kind} ${o.metadata.name}: ${r.status} ${r.body.toString().slice(0, 200)}`);
    if (o.status) {
      const s = await off.call('PATCH', `${coll}/${o.metadata.name}/status?fieldManager=bench`, JSON.stringify({ status: o.status }), 'application/merge-patch+json');
      if (s.status !== 200) throw new Error(`status of ${o.kind} ${o.metadata.name}: ${s.status}`);
    }
  });
  const rssOff = await rss(off);
  off.close();

  const mib = (b: number): string => (b / 1048576).toFixed(1);
  const ratio = rssOn / rssOff;
  const ok = (b: boolean): string => (b ? 'OK' : 'MISSED');
  return {
    lines: [
      `workloads:        ${n} Deployments x 3 replicas (${pods} Pods), controllers on, Pod start 0.5 s: created in ${createdS.toFixed(2)} s (${failed} failed), all Available ${availableS.toFixed(2)} s after the first creation (${available}/${n}; target <= 10 s: ${ok(availableS <= 10)})`,
      `                  server RSS with them ${mib(rssOn)} MiB (+${mib(rssOn - baseOn)}); the same ${objects.length} objects stored with the controllers off ${mib(rssOff)} MiB (+${mib(rssOff - baseOff)}); ratio ${ratio.toFixed(2)}x (target <= 1.3x: ${ok(ratio <= 1.3)})`,
    ],
    figures: [
      { name: `${n} Deployments x 3 replicas all Available`, value: availableS, unit: 's', target: { max: 10 } },
      { name: 'server RSS with the workloads (controllers on)', value: rssOn / 1048576, unit: 'MiB', baseline: { what: 'the same objects, controllers off', value: rssOff / 1048576, unit: 'MiB' }, target: { max: 1.3, of: 'ratio' } },
    ],
  };
}

if (process.argv.includes('--workload-server')) await serverMain(process.argv.includes('--controllers'));
else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--deployments');
  const r = await runWorkloads(i >= 0 ? Number(process.argv[i + 1]) : 1000);
  for (const l of r.lines) console.log(l);
}
