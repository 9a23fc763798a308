import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { closeConnections } from '../../src/kube/connections.js';
import { clientLimit, cloneClient, configureClient, isApiStatus, KubeApiError, requestJson, retryDelay, watchStream } from '../../src/kube/http.js';
import { waitFor } from '../helpers/wait.js';

const CM_PATH = '/api/v1/namespaces/default/configmaps';
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });

async function setup(t: { after: (fn: () => unknown) => void }, options: Parameters<typeof startSandbox>[0] = {}): Promise<{ sandbox: Sandbox; kc: KubeConfig }> {
  const sandbox = await startSandbox(options);
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  t.after(() => closeConnections(kc));
  return { sandbox, kc };
}

const times = (sandbox: Sandbox) => sandbox.requests.map((r) => Date.parse(r.time));

test('one token bucket for every request of a client: a burst, then qps; a watch does not wait for a token', async (t) => {
  const { sandbox, kc } = await setup(t);
  configureClient(kc, { qps: 10, burst: 2 });
  sandbox.clearRequestLog();
  const ac = new AbortController();
  t.after(() => ac.abort());
  // 2 tokens at once, then one every 100 ms: the 6th of 6 requests arrives ≥ 400 ms after the start
  const start = Date.now();
  const gets = Promise.all(Array.from({ length: 6 }, () => requestJson(kc, 'GET', CM_PATH)));
  // the bucket is empty now: a watch goes at once (client-go does not rate-limit watches)
  const watch = watchStream(kc, CM_PATH, { timeoutSeconds: 30 }, () => undefined, ac.signal);
  await gets;
  await waitFor(() => sandbox.requests.length >= 7, 'the six gets and the watch to reach the API server');
  const ts = times(sandbox);
  const span = Math.max(...ts) - start;
  assert.ok(span >= 4 * 100 - 5, `6 requests at 10/s after a burst of 2: the last one ≥ 400 ms after the start (${span} ms)`);
  const order = sandbox.requests.map((r) => (r.query.watch === 'true' ? 'watch' : 'get'));
  assert.ok(order.indexOf('watch') < order.lastIndexOf('get'), `the watch did not wait behind the GETs: ${order.join(' ')}`);
  ac.abort();
  await watch;

  // a clone is another client: its own bucket and limits; the original keeps its own
  const other = cloneClient(kc, { qps: 0 });
  t.after(() => closeConnections(other));
  sandbox.clearRequestLog();
  await Promise.all(Array.from({ length: 20 }, () => requestJson(other, 'GET', CM_PATH)));
  assert.equal(sandbox.requests.length, 20);
});

test('a default limit is dropped on the first answer of a server running API Priority and Fairness; a chosen limit is kept, and so is the default without it', async (t) => {
  const { sandbox, kc } = await setup(t);
  let dropped = 0;
  configureClient(kc, { qps: 5, burst: 10, dropLimitUnderApf: true, onLimitDropped: () => dropped++ });
  const chosen = cloneClient(kc, { qps: 5, burst: 10, dropLimitUnderApf: false });
  t.after(() => closeConnections(chosen));
  assert.deepEqual(clientLimit(kc), { qps: 5, burst: 10 });
  await requestJson(kc, 'GET', CM_PATH);
  assert.deepEqual(clientLimit(kc), { qps: 0, burst: 10 }, 'the sandbox answers as an API server with APF: the default bucket is gone');
  await requestJson(kc, 'GET', CM_PATH);
  assert.equal(dropped, 1, 'onLimitDropped is called once');
  await requestJson(chosen, 'GET', CM_PATH);
  assert.deepEqual(clientLimit(chosen), { qps: 5, burst: 10 }, 'a limit the user chose stays');
  // the headers a real API server sends name the FlowSchema and the priority level
  const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const url = new URL(sandbox.url + CM_PATH);
    import('node:https').then(({ get }) => get(url, { ca: sandbox.caCert, headers: { Authorization: `Bearer ${sandbox.token}` } }, (res) => (res.resume(), resolve(res.headers))).on('error', reject), reject);
  });
  assert.match(String(headers['x-kubernetes-pf-flowschema-uid']), /^[0-9a-f-]{36}$/);
  assert.match(String(headers['x-kubernetes-pf-prioritylevel-uid']), /^[0-9a-f-]{36}$/);

  const old = await setup(t, { priorityAndFairness: false });
  configureClient(old.kc, { qps: 5, burst: 10, dropLimitUnderApf: true, onLimitDropped: () => dropped++ });
  await requestJson(old.kc, 'GET', CM_PATH);
  assert.deepEqual(clientLimit(old.kc), { qps: 5, burst: 10 }, 'a server without APF: the default bucket stays');
  assert.equal(dropped, 1);
});

test('a request the server does not answer fails after timeoutMs (a half-open connection cannot hang a list)', async (t) => {
  const { sandbox, kc } = await setup(t);
  configureClient(kc, { timeoutMs: 300, maxRetries: 0 });
  sandbox.setLatency(60_000);
  t.after(() => sandbox.setLatency(0));
  await assert.rejects(requestJson(kc, 'GET', CM_PATH), (e: NodeJS.ErrnoException) => {
    assert.equal(e.code, 'ERR_KUBE_TIMEOUT');
    assert.match(e.message, /GET \/api\/v1\/namespaces\/default\/configmaps: no answer from the API server for 300 ms/);
    return true;
  });
  // a GET is sent again after a timeout, with a backoff: the latency is gone by the second try
  configureClient(kc, { maxRetries: 3, retryInitialMs: 50 });
  sandbox.clearRequestLog();
  const list = requestJson<{ items: unknown[] }>(kc, 'GET', CM_PATH);
  await waitFor(() => sandbox.requests.length >= 1, 'the list to reach the API server');
  sandbox.setLatency(0);
  assert.deepEqual((await list).items, []);
});

test('a watch the server never answers ends on the client side after timeoutSeconds and the grace', async (t) => {
  const { sandbox, kc } = await setup(t);
  configureClient(kc, { watchGraceMs: 200 });
  sandbox.setLatency(60_000);
  t.after(() => sandbox.setLatency(0));
  const ac = new AbortController();
  t.after(() => ac.abort());
  await assert.rejects(watchStream(kc, CM_PATH, { timeoutSeconds: 1 }, () => undefined, ac.signal), /no answer from the API server for 1200 ms/);
});

test('429 waits for Retry-After, then the request succeeds: also a POST (the server did not run it)', async (t) => {
  const { sandbox, kc } = await setup(t);
  configureClient(kc, { retryInitialMs: 10 });
  sandbox.clearRequestLog();
  sandbox.failNext(1, 429);
  await requestJson(kc, 'POST', CM_PATH, {}, cm('a'));
  assert.deepEqual(
    sandbox.requests.map((r) => [r.method, r.status]),
    [
      ['POST', 429],
      ['POST', 201],
    ],
  );
  const [first, second] = times(sandbox);
  // the sandbox answers Retry-After: 1
  assert.ok(second! - first! >= 990, `the retry waited for Retry-After (${second! - first!} ms)`);
  assert.ok(sandbox.getObject('v1', 'ConfigMap', 'default', 'a'));
});

test('a 500 without Retry-After is left to the caller; 429s are retried only maxRetries times', async (t) => {
  const { sandbox, kc } = await setup(t);
  configureClient(kc, { retryInitialMs: 20, maxRetries: 2 });
  sandbox.clearRequestLog();
  sandbox.failNext(1, 500);
  await assert.rejects(requestJson(kc, 'GET', CM_PATH), (e) => isApiStatus(e, 500));
  assert.equal(sandbox.requests.length, 1);

  sandbox.clearRequestLog();
  sandbox.failNext(5, 429);
  await assert.rejects(requestJson(kc, 'GET', CM_PATH), (e) => isApiStatus(e, 429));
  assert.equal(sandbox.requests.length, 3, 'one request and 2 retries');
  sandbox.failNext(0);
});

test('retryDelay: backoff with jitter, Retry-After honoured, unsafe retries refused', () => {
  const s = { retryInitialMs: 100, retryMaxMs: 1000 };
  const err = (status: number, after?: number) => new KubeApiError('x', status, undefined, after);
  // equal jitter: half fixed, half random
  assert.equal(retryDelay('GET', err(429), 1, s, () => 0), 50);
  assert.equal(retryDelay('GET', err(429), 1, s, () => 1), 100);
  assert.equal(retryDelay('GET', err(429), 3, s, () => 0.5), 300);
  assert.equal(retryDelay('GET', err(429), 10, s, () => 1), 1000, 'capped');
  assert.equal(retryDelay('GET', err(500), 1, s), undefined, 'a 5xx without Retry-After: the caller decides');
  // Retry-After in seconds, plus up to 20 % jitter
  assert.equal(retryDelay('PUT', err(429, 2), 1, s, () => 0), 2000);
  assert.equal(retryDelay('PUT', err(429, 2), 1, s, () => 1), 2400);
  assert.equal(retryDelay('POST', err(503, 1), 1, s, () => 0), 1000, 'a 5xx with Retry-After: any method');
  assert.equal(retryDelay('POST', err(429), 1, s, () => 0), 50, '429 without Retry-After: backoff');
  assert.equal(retryDelay('POST', err(500), 1, s), undefined);
  assert.equal(retryDelay('GET', err(404), 1, s), undefined);
  assert.equal(retryDelay('GET', err(409), 1, s), undefined);
  assert.equal(retryDelay('GET', Object.assign(new Error('reset'), { code: 'ECONNRESET' }), 1, s, () => 0), 50);
  assert.equal(retryDelay('PATCH', Object.assign(new Error('reset'), { code: 'ECONNRESET' }), 1, s), undefined);
});
