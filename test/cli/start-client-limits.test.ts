/**
 * The main client's rate limit as `start` sets it: client-go's default (5 a second, burst 10) is dropped
 * once the API server shows it runs API Priority and Fairness (the sandbox does, as API servers do since
 * Kubernetes 1.20); a limit set by flag or env is kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTree } from '../helpers/tree.js';
import { bashHook, logRecords, startOperator, waitFor } from '../helpers/operator-process.js';

const DROPPED = /API Priority and Fairness: the main client's default rate limit is off/;

function moduleSet(): string {
  return makeTree({
    'modules/.keep': '',
    'global-hooks/hooks/cms': bashHook({ configVersion: 'v1', kubernetes: [{ name: 'cms', kind: 'ConfigMap', executeHookOnEvent: [] }] }, 'true'),
  });
}

async function firstConverge(op: ReturnType<typeof startOperator>): Promise<Array<Record<string, unknown>>> {
  await waitFor(() => logRecords(op.output()).some((r) => r.msg === 'first converge done'), 'the first converge');
  op.child.kill('SIGTERM');
  await op.exited;
  return logRecords(op.output());
}

test('start: the default limit of the main client is dropped under API Priority and Fairness, once, and logged', async () => {
  const records = await firstConverge(startOperator(moduleSet()));
  const dropped = records.filter((r) => DROPPED.test(String(r.msg)));
  assert.equal(dropped.length, 1, `one log line: ${JSON.stringify(dropped)}`);
  assert.equal(dropped[0]!.client, 'main');
  assert.ok(records.findIndex((r) => DROPPED.test(String(r.msg))) < records.findIndex((r) => r.msg === 'first converge done'));
});

test('start: KUBE_CLIENT_QPS or --kube-client-burst set keeps the limit', async () => {
  for (const [extra, env] of [
    [[], { ...process.env, KUBE_CLIENT_QPS: '5' }],
    [['--kube-client-burst', '10'], process.env],
  ] as const) {
    const records = await firstConverge(startOperator(moduleSet(), [...extra], env));
    assert.equal(records.filter((r) => DROPPED.test(String(r.msg))).length, 0, `no drop with ${JSON.stringify(extra)} ${env === process.env ? '' : 'KUBE_CLIENT_QPS=5'}`);
  }
});
