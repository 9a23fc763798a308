// kubectl logs, exec, attach and port-forward against the sandbox: a clear "not supported" error at
// once, never a hang (no container runs in the sandbox).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cluster, deployment, noKubectl } from './helpers.js';

test('kubectl logs and exec answer that the sandbox runs no containers', { skip: noKubectl }, async () => {
  const c = await cluster();
  await c.apply(deployment('web', 1));
  assert.equal((await c.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s'])).code, 0);
  const pod = (await c.core.listNamespacedPod({ namespace: 'default' })).items[0].metadata!.name!;
  const logs = await c.kubectl(['logs', pod, '--request-timeout=30s']);
  assert.notEqual(logs.code, 0);
  assert.match(logs.stderr, /not supported by the addon-operator sandbox/);
  const exec = await c.kubectl(['exec', pod, '--request-timeout=30s', '--', 'true']);
  assert.notEqual(exec.code, 0);
  assert.match(exec.stderr, /not supported by the addon-operator sandbox/);
  const follow = await c.kubectl(['logs', '-f', `deployment/web`, '--request-timeout=30s']);
  assert.notEqual(follow.code, 0);
  assert.match(follow.stderr, /not supported by the addon-operator sandbox/);
});
