// Drives the sandbox with the official Python client (Debian's python3-kubernetes, which
// `scripts/check-tools.sh --tests` installs). Skipped, with the reason printed, where it is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from './helpers.js';

const PYTHON = '/usr/bin/python3';

function pythonClientMissing(): string | false {
  const r = spawnSync(PYTHON, ['-c', 'import kubernetes; print(kubernetes.__version__)'], { encoding: 'utf8' });
  if (r.error) return `${PYTHON} is not installed: the Python client test is skipped`;
  if (r.status !== 0) return 'python3-kubernetes is not installed (scripts/check-tools.sh --tests installs it as root): the Python client test is skipped';
  return false;
}

const skip = pythonClientMissing();
if (skip) console.log(`# NOTICE: ${skip}`);

/** The client's steps; each prints one JSON line `{"step": ..., ...}` for the test to check. */
const SCRIPT = String.raw`
import json, sys, time
from kubernetes import client, config, watch, dynamic

config.load_kube_config(config_file=sys.argv[1])
api = client.ApiClient()
v1 = client.CoreV1Api(api)
apps = client.AppsV1Api(api)
out = lambda step, **kw: print(json.dumps(dict(step=step, **kw)), flush=True)

v1.create_namespaced_config_map('default', {'metadata': {'name': 'pre'}, 'data': {'a': '1'}})
out('list', names=[c.metadata.name for c in v1.list_namespaced_config_map('default').items])

# watch=True: the current state as ADDED, then a change as MODIFIED
w = watch.Watch()
events = []
for ev in w.stream(v1.list_namespaced_config_map, 'default', timeout_seconds=30):
    events.append([ev['type'], ev['object'].metadata.name, (ev['object'].data or {}).get('a')])
    if ev['type'] == 'ADDED' and ev['object'].metadata.name == 'pre':
        v1.patch_namespaced_config_map('pre', 'default', {'data': {'a': '2'}})
    if ev['type'] == 'MODIFIED':
        w.stop()
out('watch', events=events)

# patches: strategic merge (a dict), JSON patch (a list), merge patch (by Content-Type)
dep = {'metadata': {'name': 'web', 'labels': {'app': 'web'}}, 'spec': {'replicas': 1, 'selector': {'matchLabels': {'app': 'web'}},
       'template': {'metadata': {'labels': {'app': 'web'}}, 'spec': {'containers': [{'name': 'web', 'image': 'nginx:1.25', 'env': [{'name': 'A', 'value': '1'}]}]}}}}
created = apps.create_namespaced_deployment('default', dep)
out('create', uid=created.metadata.uid, pullPolicy=created.spec.template.spec.containers[0].image_pull_policy, strategy=created.spec.strategy.type)
smp = apps.patch_namespaced_deployment('web', 'default', {'spec': {'template': {'spec': {'containers': [{'name': 'web', 'env': [{'name': 'B', 'value': '2'}]}]}}}})
out('strategic', env=[e.name for e in smp.spec.template.spec.containers[0].env])
jp = apps.patch_namespaced_deployment('web', 'default', [{'op': 'replace', 'path': '/spec/replicas', 'value': 3}])
out('json', replicas=jp.spec.replicas)
mp = api.call_api('/apis/apps/v1/namespaces/{namespace}/deployments/{name}', 'PATCH', {'namespace': 'default', 'name': 'web'},
                  header_params={'Content-Type': 'application/merge-patch+json', 'Accept': 'application/json'},
                  body={'metadata': {'labels': {'merged': 'yes'}}}, response_type='object', auth_settings=['BearerToken'], _return_http_data_only=True)
out('merge', labels=mp['metadata']['labels'])

# server-side apply through the dynamic client (discovery, then apply-patch+yaml with force=True); the body
# goes as text: 22.6's server_side_apply() cannot send a dict as YAML (a client bug, fixed upstream later)
dyn = dynamic.DynamicClient(api)
cms = dyn.resources.get(api_version='v1', kind='ConfigMap')
manifest = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'applied', 'namespace': 'default'}, 'data': {'k': 'v'}}
applied = dyn.request('patch', cms.path(name='applied', namespace='default'), body=json.dumps(manifest),
                      content_type='application/apply-patch+yaml', field_manager='python-apply', force_conflicts=True)
out('apply', managers=[m['manager'] + '/' + m['operation'] for m in applied.metadata.managedFields], data=dict(applied.data))

# custom objects on a CRD
ext = client.ApiextensionsV1Api(api)
ext.create_custom_resource_definition({'metadata': {'name': 'widgets.example.com'}, 'spec': {'group': 'example.com', 'scope': 'Namespaced',
    'names': {'plural': 'widgets', 'singular': 'widget', 'kind': 'Widget'},
    'versions': [{'name': 'v1', 'served': True, 'storage': True, 'schema': {'openAPIV3Schema': {'type': 'object', 'properties': {'spec': {'type': 'object', 'properties': {'size': {'type': 'integer', 'default': 1}, 'color': {'type': 'string'}}}}}}}]}})
co = client.CustomObjectsApi(api)
for _ in range(100):
    try:
        co.list_namespaced_custom_object('example.com', 'v1', 'default', 'widgets')
        break
    except client.exceptions.ApiException:
        time.sleep(0.05)
made = co.create_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', {'apiVersion': 'example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'w1'}, 'spec': {'color': 'red'}})
patched = co.patch_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', 'w1', {'spec': {'color': 'blue'}})
listed = co.list_namespaced_custom_object('example.com', 'v1', 'default', 'widgets')
out('custom', size=made['spec']['size'], color=patched['spec']['color'], names=[i['metadata']['name'] for i in listed['items']])
try:
    co.create_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', {'apiVersion': 'example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'w1'}})
except client.exceptions.ApiException as e:
    out('conflict', status=e.status, reason=json.loads(e.body)['reason'])
`;

test('the official Python client: list, watch, create, strategic/JSON/merge patch, server-side apply, custom objects', { skip }, async () => {
  const { sb, objects } = await start();
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-python-'));
  try {
    const script = join(dir, 'client.py');
    writeFileSync(script, SCRIPT);
    // asynchronously: the sandbox answers from this process
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(PYTHON, [script, sb.kubeconfigPath], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, HOME: dir } }, (err, out, errOut) => {
        if (err) reject(new Error(`the Python client failed: ${errOut}${out}`));
        else resolve(out);
      });
    });
    const steps = Object.fromEntries(stdout.trim().split('\n').map((l) => JSON.parse(l)).map((s) => [s.step, s]));
    assert.deepEqual(steps.list.names, ['pre']);
    assert.deepEqual(steps.watch.events, [['ADDED', 'pre', '1'], ['MODIFIED', 'pre', '2']], 'watch=True is a watch');
    assert.ok(steps.create.uid);
    assert.equal(steps.create.pullPolicy, 'IfNotPresent');
    assert.equal(steps.create.strategy, 'RollingUpdate');
    assert.deepEqual(steps.strategic.env, ['A', 'B'], 'strategic merge adds to the env list by name');
    assert.equal(steps.json.replicas, 3);
    assert.deepEqual(steps.merge.labels, { app: 'web', merged: 'yes' });
    assert.deepEqual(steps.apply.managers, ['python-apply/Apply']);
    assert.deepEqual(steps.apply.data, { k: 'v' });
    assert.deepEqual(steps.custom, { step: 'custom', size: 1, color: 'blue', names: ['w1'] });
    assert.deepEqual(steps.conflict, { step: 'conflict', status: 409, reason: 'AlreadyExists' });
    // what the Python client wrote is what other clients read
    const d: any = await objects.read({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' } });
    assert.equal(d.spec.replicas, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
