/**
 * bench/webhooks (issue 35): validating webhook round trips through the admission server, over HTTPS
 * with a keep-alive connection, into a hook and back. Targets: through an in-process hook, p99 under
 * 5 ms from the request reaching the server to its answer, at 200 requests per second; through a bash
 * hook, within 1.2× a direct spawn of the same script (the same files prepared once, as bench/hooks).
 * The server-side time is the admission server's own (a request's arrival → its answer written); the
 * client's round trip, from the same process, is printed beside it.
 * Run: node --import tsx bench/webhooks.ts [seconds at 200 req/s] [bash runs]
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { ModuleManager } from '../src/modules/manager.js';
import { HookRunner } from '../src/operator/hook-runner.js';
import { Activity } from '../src/operator/activity.js';
import { WebhookDispatcher } from '../src/operator/webhook-dispatch.js';
import { AdmissionServer } from '../src/server/admission-server.js';
import { generateTls } from '../src/sandbox/tls.js';
import { emitFigures } from './figures.js';
import { preparedHookEnv, spawnOnce } from './processes.js';

const SECONDS = Number(process.argv[2] ?? 10);
const BASH_RUNS = Number(process.argv[3] ?? 200);
const RATE = 200;

const RULES = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }];
const BASH = `#!/usr/bin/env bash
if [[ "\${1:-}" == "--config" ]]; then echo '{"configVersion":"v1","kubernetesValidating":[{"name":"bash.bench.example.com","rules":${JSON.stringify(RULES)}}]}'; exit 0; fi
name=$(jq -r '.[0].review.request.name' "$BINDING_CONTEXT_PATH")
if [[ $name == deny* ]]; then echo '{"allowed":false,"message":"denied"}' > "$VALIDATING_RESPONSE_PATH"; else echo '{"allowed":true}' > "$VALIDATING_RESPONSE_PATH"; fi
`;
const IN_PROCESS = `export const config = { configVersion: 'v1', kubernetesValidating: [{ name: 'js.bench.example.com', rules: ${JSON.stringify(RULES)} }] };
export function run(ctx) {
  const name = ctx.bindingContext[0].review.request.name;
  ctx.admissionResponse(name.startsWith('deny') ? { allowed: false, message: 'denied' } : { allowed: true });
}
`;

const review = (i: number) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: `uid-${i}`,
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    name: i % 10 === 0 ? `deny-${i}` : `cm-${i}`,
    namespace: 'default',
    operation: 'CREATE',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' }, data: { key: 'x'.repeat(200) } },
  },
});

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

const root = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
const server = { current: undefined as AdmissionServer | undefined };
try {
  const hooksDir = join(root, 'global-hooks/hooks');
  mkdirSync(hooksDir, { recursive: true });
  mkdirSync(join(root, 'modules'));
  writeFileSync(join(hooksDir, 'bash.sh'), BASH);
  chmodSync(join(hooksDir, 'bash.sh'), 0o755);
  writeFileSync(join(hooksDir, 'js.hook.mjs'), IN_PROCESS);
  const manager = await ModuleManager.load({ modulesDir: join(root, 'modules'), globalHooksDir: join(root, 'global-hooks'), tmpDir: join(root, 'tmp'), hookTimeoutMs: 60_000 });
  const logger = pino({ level: 'silent' });
  const runner = new HookRunner({ manager, logger, kube: undefined, config: undefined, hookMetrics: undefined, metrics: undefined, proxyHookJsonLogs: false, activity: new Activity(), snapshots: () => () => [], activation: () => '' });
  const dispatcher = new WebhookDispatcher((hook, contexts, type, ms) => runner.runWebhookHook(hook, contexts, type, ms), logger);
  dispatcher.set(manager.globalHooks.flatMap((hook) => hook.config.webhooks.map((binding) => ({ hook, binding }))));

  const serverMs: number[] = [];
  const tls = generateTls(['127.0.0.1']);
  server.current = new AdmissionServer({
    host: '127.0.0.1',
    port: 0,
    cert: tls.serverCert,
    key: tls.serverKey,
    handlers: { admit: (path, body) => dispatcher.admit(path, body), convert: (path, body) => dispatcher.convert(path, body) },
    onServed: (_path, ms) => void serverMs.push(ms),
  });
  await server.current.start();
  const port = server.current.address.port;
  const agent = new Agent({ keepAlive: true, maxSockets: 16, ca: tls.caCert });
  const post = (path: string, body: unknown) =>
    new Promise<any>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () => resolve(JSON.parse(text)));
      });
      req.on('error', reject);
      req.end(payload);
    });

  // check both hooks answer
  const check = await post('/hooks/js-bench-example-com', review(0));
  const checkBash = await post('/hooks/bash-bench-example-com', review(1));
  if (check.response?.allowed !== false || checkBash.response?.allowed !== true) throw new Error(`the hooks did not answer: ${JSON.stringify([check, checkBash])}`);

  // in-process at 200 req/s, open loop
  for (let i = 0; i < 200; i++) await post('/hooks/js-bench-example-com', review(i));
  serverMs.length = 0;
  const clientMs: number[] = [];
  const total = SECONDS * RATE;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t = performance.now();
    pending.push(post('/hooks/js-bench-example-com', review(i)).then(() => void clientMs.push(performance.now() - t)));
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  const p50 = quantile(serverMs, 0.5);
  const p99 = quantile(serverMs, 0.99);
  console.log(`bench/webhooks: ${total} validating requests to an in-process hook in ${elapsed.toFixed(1)} s (${(total / elapsed).toFixed(0)} req/s)`);
  console.log(`  server side: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target p99 < 5 ms)`);
  console.log(`  client round trip: p50 ${quantile(clientMs, 0.5).toFixed(2)} ms, p99 ${quantile(clientMs, 0.99).toFixed(2)} ms`);

  // bash: sequential requests against direct spawns of the same script with files prepared once
  const context = JSON.stringify([{ binding: 'bash.bench.example.com', type: 'Validating', review: { request: review(3).request } }]);
  const env = preparedHookEnv(join(root, 'pre'), context, '{"global":{}}', { VALIDATING_RESPONSE_PATH: 'vr.json', ADMISSION_RESPONSE_PATH: 'vr.json' });
  await spawnOnce(join(hooksDir, 'bash.sh'), env);
  if (!readFileSync(env.VALIDATING_RESPONSE_PATH!, 'utf8').includes('"allowed":true')) throw new Error('the direct spawn did not answer');
  let directMs = 0;
  let webhookMs = 0;
  const block = 25;
  for (let done = 0; done < BASH_RUNS; done += block) {
    const n = Math.min(block, BASH_RUNS - done);
    let t = performance.now();
    for (let i = 0; i < n; i++) await spawnOnce(join(hooksDir, 'bash.sh'), env);
    directMs += performance.now() - t;
    t = performance.now();
    for (let i = 0; i < n; i++) await post('/hooks/bash-bench-example-com', review(done + i));
    webhookMs += performance.now() - t;
  }
  const ratio = webhookMs / directMs;
  console.log(`  bash hook: ${(webhookMs / BASH_RUNS).toFixed(2)} ms per request, direct spawn ${(directMs / BASH_RUNS).toFixed(2)} ms: ${ratio.toFixed(3)}x (target <= 1.2x)`);
  agent.destroy();
  emitFigures([
    { name: 'validating round trip through an in-process hook, p99 at 200 req/s', value: p99, unit: 'ms', target: { max: 5 } },
    { name: 'validating round trip through an in-process hook, p50 at 200 req/s', value: p50, unit: 'ms' },
    { name: 'validating request through a bash hook', value: webhookMs / BASH_RUNS, unit: 'ms', baseline: { what: 'direct spawn', value: directMs / BASH_RUNS, unit: 'ms' }, target: { max: 1.2, of: 'ratio' } },
  ]);
} finally {
  await server.current?.stop();
  rmSync(root, { recursive: true, force: true });
}
