// Helm hook Jobs of module charts on `addon-operator start --sandbox` with the simulated Job controller
// (issues 39 and 31): a pre-install Job that succeeds lets the release deploy; one whose Pod fails (the
// sandbox's fail annotation) fails the module with an error naming the chart's template, the Job and
// Helm's text, the release left as Helm leaves it (a failed revision, no manifest object applied, the
// retries failing on the same Job as a pre-upgrade hook); one that never completes (a suspended Job)
// fails at the hook timeout (--helm-timeout) with Helm's text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { makeTree } from '../helpers/tree.js';
import { logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { getObject, releaseSecrets, secretPayload } from './helpers.js';

const NS = 'addons';

/** A module chart: a ConfigMap and a hook Job (pre-install, or `events`). */
function moduleChart(dir: string, chart: string, job: { name: string; events?: string; fail?: boolean; suspend?: boolean; policy?: string }): Record<string, string> {
  return {
    [`modules/${dir}/Chart.yaml`]: `apiVersion: v2\nname: ${chart}\nversion: 0.1.0\n`,
    [`modules/${dir}/templates/cm.yaml`]: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${chart}-config\ndata:\n  a: "1"\n`,
    [`modules/${dir}/templates/job.yaml`]:
      `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${job.name}\n  annotations:\n    "helm.sh/hook": ${job.events ?? 'pre-install'}\n` +
      (job.policy ? `    "helm.sh/hook-delete-policy": ${job.policy}\n` : '') +
      `spec:\n  backoffLimit: 0\n` +
      (job.suspend ? '  suspend: true\n' : '') +
      '  template:\n' +
      (job.fail ? '    metadata:\n      annotations:\n        sandbox.addon-operator.io/fail: "true"\n' : '') +
      '    spec:\n      restartPolicy: Never\n      containers:\n      - name: run\n        image: busybox\n',
  };
}

function kubeClient(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/** The module's failed runs as the operator logs them: their errors. */
const moduleErrors = (output: string, module: string) =>
  logRecords(output)
    .filter((r) => r.module === module && typeof r.error === 'string')
    .map((r) => String(r.error));

test('hook Jobs under the operator: one that succeeds deploys the release, one that fails fails the module naming the chart, the Job and Helm\'s text', async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'seedEnabled: true\nmigrateEnabled: true\n',
    ...moduleChart('001-seed', 'seed', { name: 'seed-init', policy: 'hook-succeeded' }),
    ...moduleChart('002-migrate', 'migrate', { name: 'migrate-schema', events: 'pre-install,pre-upgrade', fail: true }),
  });
  const kubeconfig = join(root, 'kubeconfig');
  const { child, output, exited } = startOperator(root, ['--sandbox-kubeconfig', kubeconfig, '--sandbox-pod-start', '0.2s']);
  try {
    await waitFor(() => moduleErrors(output(), 'migrate').length > 0, 'the migrate module to fail', 60_000);
    const kc = kubeClient(kubeconfig);

    // seed: the Job ran to Complete, then hook-succeeded deleted it; the release is deployed with its ConfigMap
    const seed = (await releaseSecrets(kc, NS, 'seed')).map((s) => secretPayload(s).release);
    assert.deepEqual(seed.map((r) => `${r.version}:${r.info.status}`), ['1:deployed']);
    assert.equal(seed[0].hooks[0].last_run.phase, 'Succeeded');
    assert.ok(await getObject(kc, `/api/v1/namespaces/${NS}/configmaps/seed-config`));
    assert.equal(await getObject(kc, `/apis/batch/v1/namespaces/${NS}/jobs/seed-init`), undefined, 'deleted by hook-succeeded');

    // migrate: the error names the release, Helm's text with the Job, and the chart's template
    assert.equal(moduleErrors(output(), 'migrate')[0], 'release migrate: failed pre-install: job migrate-schema failed: BackoffLimitExceeded (hook migrate/templates/job.yaml)');
    // the release as Helm leaves it: revision 1 failed with Helm's description, no revision deployed
    // (the retries upgrade the failed release and fail on the same Job), the manifest not applied
    const migrate = (await releaseSecrets(kc, NS, 'migrate')).map((s) => secretPayload(s).release);
    assert.equal(migrate[0].version, 1);
    assert.equal(migrate[0].info.status, 'failed');
    assert.equal(migrate[0].info.description, 'Release "migrate" failed: failed pre-install: 1 error occurred:\n\t* job migrate-schema failed: BackoffLimitExceeded\n\n');
    assert.deepEqual(migrate.filter((r) => r.info.status !== 'failed'), [], 'no revision deployed');
    assert.equal(await getObject(kc, `/api/v1/namespaces/${NS}/configmaps/migrate-config`), undefined, 'nothing of the manifest applied');
    const job = await getObject(kc, `/apis/batch/v1/namespaces/${NS}/jobs/migrate-schema`);
    assert.equal(job.status.conditions.find((c: { type: string }) => c.type === 'Failed')?.status, 'True', 'kept: no hook-failed policy');
  } catch (e) {
    console.log(output().split('\n').filter((l) => /hook|release|error|fail/i.test(l)).slice(-40).join('\n'));
    throw e;
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output());
});

test('a hook Job that never completes fails the module at --helm-timeout with Helm\'s text', async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'slowEnabled: true\n',
    ...moduleChart('001-slow', 'slow', { name: 'slow-wait', events: 'pre-install,pre-upgrade', suspend: true }),
  });
  const kubeconfig = join(root, 'kubeconfig');
  const { child, output, exited } = startOperator(root, ['--sandbox-kubeconfig', kubeconfig, '--helm-timeout', '2s']);
  try {
    await waitFor(() => moduleErrors(output(), 'slow').length > 0, 'the slow module to fail', 60_000);
    assert.equal(moduleErrors(output(), 'slow')[0], 'release slow: failed pre-install: timed out waiting for the condition (hook slow/templates/job.yaml)');
    const kc = kubeClient(kubeconfig);
    const slow = (await releaseSecrets(kc, NS, 'slow')).map((s) => secretPayload(s).release);
    assert.equal(slow[0].info.status, 'failed');
    assert.equal(slow[0].info.description, 'Release "slow" failed: failed pre-install: 1 error occurred:\n\t* timed out waiting for the condition\n\n');
    assert.deepEqual(slow.filter((r) => r.info.status !== 'failed'), [], 'no revision deployed');
    const job = await getObject(kc, `/apis/batch/v1/namespaces/${NS}/jobs/slow-wait`);
    assert.equal(job.spec.suspend, true, 'the Job is left as the timeout found it');
    assert.equal(await getObject(kc, `/api/v1/namespaces/${NS}/configmaps/slow-config`), undefined, 'nothing of the manifest applied');
  } catch (e) {
    console.log(output().split('\n').filter((l) => /hook|release|error|fail/i.test(l)).slice(-40).join('\n'));
    throw e;
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output());
});
