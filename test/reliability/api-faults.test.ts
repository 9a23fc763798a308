/**
 * An API server that fails every request (500, then 429 with Retry-After) and then answers slowly
 * (2 s per request): the operator's watches (a hook's binding and the ConfigMap source) retry with
 * backoff, so the requests it sends while everything fails stay few (counted by the sandbox; a client
 * that retried at once would send thousands), and once the server recovers the operator converges:
 * a change made then reaches the hook, a ConfigMap edit reaches the module.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { scenario, settle, traceHook } from '../operator/helpers.js';
import { sandboxPorts } from '../helpers/sandbox-ports.js';
import { waitFor } from '../helpers/wait.js';

const NS = 'addons';

test('500 and 429 bursts, then 2 s latency: requests stay bounded while failing, and the operator converges afterwards', async (t) => {
  const sandbox = await startSandbox({
    seedObjects: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: NS }, data: { alphaEnabled: 'true', alpha: 'x: 1\n' } },
    ],
  });
  t.after(() => sandbox.stop());
  // the operator's own retry timings (start's defaults), not the tests' short ones
  const ports = sandboxPorts(sandbox.kubeconfigPath, NS);
  const s = await scenario({
    files: (tr) => ({
      'modules/values.yaml': 'alphaEnabled: false\n',
      'modules/001-alpha/Chart.yaml': 'name: alpha\nversion: 0.1.0\n',
      'modules/001-alpha/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: alpha-out\ndata:\n  x: "{{ .Values.alpha.x }}"\n',
      'global-hooks/hooks/watch': traceHook(tr, 'g-watch', {
        configVersion: 'v1',
        kubernetes: [{ name: 'demo', kind: 'ConfigMap', namespace: { nameSelector: { matchNames: ['default'] } }, executeHookOnSynchronization: false }],
      }),
    }),
    operator: { kube: ports.kube, helm: ports.helm, config: ports.config, namespace: NS },
  });
  t.after(() => s.op.stop());
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);

  const outage = async (code: number): Promise<number> => {
    sandbox.failNext(1_000_000, code);
    sandbox.clearRequestLog();
    sandbox.dropWatches();
    await new Promise((r) => setTimeout(r, 3000));
    const sent = sandbox.requests.length;
    sandbox.failNext(0);
    return sent;
  };
  const watches = sandbox.watchCount();
  assert.ok(watches >= 2, `the hook's binding and the ConfigMap source watch (${watches} watches)`);
  for (const code of [500, 429]) {
    const sent = await outage(code);
    console.log(`# ${code} outage: ${sent} requests in 3 s`);
    // the watches, each retrying with backoff: a handful of requests each in 3 s; an immediate retry
    // loop would send thousands
    assert.ok(sent >= 1, `the watches retried during the ${code} outage (${sent} requests)`);
    assert.ok(sent <= 60, `${sent} requests during 3 s of ${code} answers`);
    // and they come back once the server answers again
    await waitFor(() => sandbox.watchCount() >= watches, `the watches to be back after the ${code} outage`, 90_000);
  }

  // slow but working: everything still goes through
  sandbox.setLatency(2000);
  t.after(() => sandbox.setLatency(0));
  await requestJson(ports.kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-outage', namespace: 'default' } });
  await waitFor(() => s.trace.lines().includes('g-watch demo:Event:Added'), 'the event of a change made after the outages', 90_000);
  await requestJson(ports.kc, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/addon-operator`, {}, { data: { alpha: 'x: 2\n' } }, 'application/merge-patch+json');
  await waitFor(
    async () => {
      const cm = await requestJson<{ data?: Record<string, string> }>(ports.kc, 'GET', `/api/v1/namespaces/${NS}/configmaps/alpha-out`).catch(() => undefined);
      return cm?.data?.x === '2';
    },
    'the module to converge on the edited config (its release applied)',
    90_000,
  );
  sandbox.setLatency(0);
});
