// Workloads a controller could not act on are refused at create with kube-apiserver's 422.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { raw, withSandbox } from './helpers.js';
import type { Sandbox } from '../../src/sandbox/index.js';

async function refused(sb: Sandbox, path: string, body: unknown): Promise<any> {
  const r = await raw(sb, 'POST', path, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  assert.equal(r.status, 422, r.text);
  const s = r.json();
  assert.equal(s.kind, 'Status');
  assert.equal(s.reason, 'Invalid');
  assert.equal((await raw(sb, 'GET', `${path}/${(body as any).metadata.name}`)).status, 404, 'nothing stored');
  return s;
}

const containers = [{ name: 'c', image: 'x:1' }];

test('a Deployment, ReplicaSet, StatefulSet or DaemonSet whose selector does not match its template labels gets 422', async () => {
  await withSandbox(async ({ sb }) => {
    const spec = { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'b', tier: 'web' } }, spec: { containers } } };
    const d = await refused(sb, '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'd' }, spec });
    assert.equal(d.message, 'Deployment.apps "d" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b","tier":"web"}: `selector` does not match template `labels`');
    assert.deepEqual(d.details.causes, [{ type: 'FieldValueInvalid', message: 'Invalid value: {"app":"b","tier":"web"}: `selector` does not match template `labels`', field: 'spec.template.metadata.labels' }]);
    assert.equal(d.details.kind, 'Deployment');
    assert.equal(d.details.group, 'apps');
    for (const [plural, kind] of [['replicasets', 'ReplicaSet'], ['statefulsets', 'StatefulSet'], ['daemonsets', 'DaemonSet']]) {
      const s = await refused(sb, `/apis/apps/v1/namespaces/default/${plural}`, { metadata: { name: 'x' }, spec: { ...spec, serviceName: 'x' } });
      assert.match(s.message, new RegExp(`^${kind}.apps "x" is invalid: spec.template.metadata.labels: Invalid value`));
    }
    const none = await refused(sb, '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'n' }, spec: { template: spec.template } });
    assert.equal(none.message, 'Deployment.apps "n" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {"app":"b","tier":"web"}: `selector` does not match template `labels`]');
    const empty = await refused(sb, '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'e' }, spec: { selector: {}, template: spec.template } });
    assert.equal(empty.message, 'Deployment.apps "e" is invalid: spec.selector: Invalid value: {}: empty selector is invalid for deployment');
  });
});

test('an update that breaks the match is refused too; a matching selector with expressions is fine', async () => {
  await withSandbox(async ({ sb }) => {
    const path = '/apis/apps/v1/namespaces/default/deployments';
    const ok = await raw(sb, 'POST', path, {
      body: JSON.stringify({ metadata: { name: 'ok' }, spec: { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] }, template: { metadata: { labels: { app: 'b' } }, spec: { containers } } } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(ok.status, 201, ok.text);
    const r = await raw(sb, 'PATCH', `${path}/ok`, { body: JSON.stringify({ spec: { template: { metadata: { labels: { app: 'c' } } } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(r.status, 422);
    assert.match(r.json().message, /`selector` does not match template `labels`/);
  });
});

test('Pod templates: containers and images are required, the restart policy is the kind’s; counts are not negative', async () => {
  await withSandbox(async ({ sb }) => {
    const sel = { matchLabels: { app: 'a' } };
    const meta = { labels: { app: 'a' } };
    const noImage = await refused(sb, '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'i' }, spec: { selector: sel, template: { metadata: meta, spec: { containers: [{ name: 'c', image: '' }] } } } });
    assert.equal(noImage.message, 'Deployment.apps "i" is invalid: spec.template.spec.containers[0].image: Required value');
    const never = await refused(sb, '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'r' }, spec: { selector: sel, template: { metadata: meta, spec: { containers, restartPolicy: 'Never' } } } });
    assert.equal(never.message, 'Deployment.apps "r" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"');
    const job = await refused(sb, '/apis/batch/v1/namespaces/default/jobs', { metadata: { name: 'j' }, spec: { template: { spec: { containers } } } });
    assert.equal(job.message, 'Job.batch "j" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"');
    const neg = await refused(sb, '/apis/batch/v1/namespaces/default/jobs', { metadata: { name: 'n' }, spec: { completions: -1, template: { spec: { containers, restartPolicy: 'Never' } } } });
    assert.equal(neg.message, 'Job.batch "n" is invalid: spec.completions: Invalid value: -1: must be greater than or equal to 0');
    const noContainers = await refused(sb, '/api/v1/namespaces/default/pods', { metadata: { name: 'p' }, spec: {} });
    assert.equal(noContainers.message, 'Pod "p" is invalid: spec.containers: Required value');
  });
});

test('a StatefulSet without serviceName is accepted (optional since Kubernetes 1.32)', async () => {
  await withSandbox(async ({ sb }) => {
    const r = await raw(sb, 'POST', '/apis/apps/v1/namespaces/default/statefulsets', {
      body: JSON.stringify({ metadata: { name: 's' }, spec: { selector: { matchLabels: { app: 's' } }, template: { metadata: { labels: { app: 's' } }, spec: { containers } } } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 201, r.text);
  });
});

test("a Deployment's rollingUpdate with type Recreate is refused, as after a server-side apply of Recreate over the defaulted strategy", async () => {
  await withSandbox(async ({ sb }) => {
    const path = '/apis/apps/v1/namespaces/default/deployments';
    const spec = { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers } } };
    const both = await refused(sb, path, { metadata: { name: 'b' }, spec: { ...spec, strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } } });
    assert.equal(both.message, "Deployment.apps \"b\" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'");
    const apply = (body: unknown) => raw(sb, 'PATCH', `${path}/d?fieldManager=chart&force=true`, { body: JSON.stringify(body), headers: { 'content-type': 'application/apply-patch+yaml' } });
    const created = await apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json().spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    const recreate = await apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { ...spec, strategy: { type: 'Recreate' } } });
    assert.equal(recreate.status, 422, recreate.text);
    assert.match(recreate.json().message, /spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'/);
    // what clients do about it: a patch that drops rollingUpdate with the type
    const patched = await raw(sb, 'PATCH', `${path}/d`, { body: JSON.stringify({ spec: { strategy: { type: 'Recreate', rollingUpdate: null } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json().spec.strategy, { type: 'Recreate' });
  });
});
