// `--helm-wait` on `start --sandbox` with the simulated controllers: a module run waits for its
// release's objects to be ready before its afterHelm hooks (the hook sees the Deployment available);
// one that stays progressing fails the run after --helm-timeout with Helm 4's message naming the
// object, its status and why, and its afterHelm hook does not run. Without the flag, afterHelm runs
// at once, as before. A module's `helmWait` in its module.yaml turns the wait on or off for that
// module whatever the flag says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree, writeTree } from '../helpers/tree.js';
import { bashHook, logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { CRASHING, deployment } from '../helpers/workloads.js';


/**
 * web: a Deployment whose Pod starts after --sandbox-pod-start; api: one whose Pods crash; `yaml`:
 * a module.yaml per module.
 */
function tree(yaml: { web?: string; api?: string } = {}): string {
  const root = makeTree({ 'global-hooks/.keep': '', 'out/.keep': '', 'modules/values.yaml': 'webEnabled: true\napiEnabled: true\n' });
  const afterHelm = (name: string) => bashHook({ configVersion: 'v1', afterHelm: 10 }, `kubectl -n addons get deployment ${name} -o 'jsonpath={.status.availableReplicas}' > ${join(root, 'out', name)}.tmp && mv ${join(root, 'out', name)}.tmp ${join(root, 'out', name)}`);
  writeTree(root, {
    'modules/001-web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 0.1.0\n',
    'modules/001-web/templates/deploy.yaml': deployment('web'),
    'modules/001-web/hooks/after': afterHelm('web'),
    'modules/002-api/Chart.yaml': 'apiVersion: v2\nname: api\nversion: 0.1.0\n',
    'modules/002-api/templates/deploy.yaml': deployment('api', CRASHING),
    'modules/002-api/hooks/after': afterHelm('api'),
  });
  if (yaml.web) writeTree(root, { 'modules/001-web/module.yaml': yaml.web });
  if (yaml.api) writeTree(root, { 'modules/002-api/module.yaml': yaml.api });
  return root;
}

test('--helm-wait: afterHelm runs once the objects are ready; a release that stays progressing fails the run with what is not ready', async () => {
  const root = tree();
  const { child, output } = startOperator(root, ['--helm-wait', '--helm-timeout', '3s', '--sandbox-pod-start', '1s']);
  try {
    const failures = () => logRecords(output()).filter((r) => r.module === 'api' && typeof r.error === 'string');
    await waitFor(() => failures().length > 0, 'the api run to fail', 60_000);
    assert.match(String(failures()[0]!.error), /^release api: not ready after 3s \(--helm-wait, --helm-timeout\):\nresource Deployment\/addons\/api not ready\. status: InProgress, message: Available: 0\/1\ncontext deadline exceeded$/);
    // web's afterHelm hook ran after its Deployment became available
    assert.equal(readFileSync(join(root, 'out/web'), 'utf8'), '1');
    assert.equal(existsSync(join(root, 'out/api')), false, "api's afterHelm hook did not run");
  } finally {
    child.kill('SIGTERM');
  }
});

test('without --helm-wait afterHelm runs right after the apply, ready or not', async () => {
  const root = tree();
  const { child, output } = startOperator(root, ['--sandbox-pod-start', '5s']);
  try {
    await waitFor(() => output().includes('startup converge done'), 'the first converge', 60_000);
    assert.equal(readFileSync(join(root, 'out/api'), 'utf8'), '', 'api: no replica available, its afterHelm hook ran anyway');
    assert.equal(readFileSync(join(root, 'out/web'), 'utf8'), '', 'web: its Pod starts 5 s later');
  } finally {
    child.kill('SIGTERM');
  }
});

test("module.yaml helmWait: true makes that module's run wait without --helm-wait, and its timeout names the key", async () => {
  const root = tree({ web: 'critical: true\nhelmWait: true\n', api: 'critical: true\nhelmWait: true\n' });
  const { child, output } = startOperator(root, ['--helm-timeout', '3s', '--sandbox-pod-start', '1s']);
  try {
    const failures = () => logRecords(output()).filter((r) => r.module === 'api' && typeof r.error === 'string');
    await waitFor(() => failures().length > 0, 'the api run to fail', 60_000);
    const file = join(root, 'modules/002-api/module.yaml');
    assert.equal(String(failures()[0]!.error).split('\n')[0], `release api: not ready after 3s (helmWait in ${file}, --helm-timeout):`);
    assert.equal(readFileSync(join(root, 'out/web'), 'utf8'), '1', "web's afterHelm hook ran once its Deployment was available");
    assert.equal(existsSync(join(root, 'out/api')), false, "api's afterHelm hook did not run");
  } finally {
    child.kill('SIGTERM');
  }
});

test('module.yaml helmWait: false lets that module go on at once under --helm-wait', async () => {
  const root = tree({ api: 'critical: true\nhelmWait: false\n' });
  const { child, output } = startOperator(root, ['--helm-wait', '--helm-timeout', '60s', '--sandbox-pod-start', '1s']);
  try {
    await waitFor(() => output().includes('startup converge done'), 'the first converge', 60_000);
    assert.equal(readFileSync(join(root, 'out/api'), 'utf8'), '', 'api: no replica available, its afterHelm hook ran anyway');
    assert.equal(readFileSync(join(root, 'out/web'), 'utf8'), '1', 'web still waited (--helm-wait)');
  } finally {
    child.kill('SIGTERM');
  }
});
