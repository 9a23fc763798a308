// The Go operator's maintenance mode (`<camelName>Maintenance: NoResourceReconciliation`) with
// `addon-operator start --sandbox`: the release gets one revision labelled
// `maintenance.deckhouse.io/no-resource-reconciliation: "true"`, then its objects are left alone (an
// object deleted by hand stays deleted, a values change deploys nothing, the resources monitor stops
// watching); `mm_module_maintenance` says so. Back to managed: a new revision labelled "false" brings
// the objects back. An unknown value makes the ConfigMap invalid, naming the key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { debugRequest } from '../../src/cli/debug.js';
import { requestJson } from '../../src/kube/http.js';
import { makeTree } from '../helpers/tree.js';
import { logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { getObject, releaseSecrets } from '../helm/helpers.js';

const LABEL = 'maintenance.deckhouse.io/no-resource-reconciliation';
const CONFIGMAP = '/api/v1/namespaces/addons/configmaps/addon-operator';

test('maintenance NoResourceReconciliation: Helm and the resources monitor leave the module objects alone until it is lifted', async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'echoEnabled: true\n',
    'modules/001-echo/Chart.yaml': 'apiVersion: v2\nname: echo\nversion: 0.1.0\n',
    'modules/001-echo/values.yaml': 'echo:\n  greeting: hello\n',
    'modules/001-echo/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo\ndata:\n  greeting: {{ .Values.echo.greeting | quote }}\n',
  });
  const kubeconfig = join(root, 'kubeconfig');
  const socket = join(root, 'debug.socket');
  const { child, output, exited } = startOperator(root, ['--sandbox-kubeconfig', kubeconfig]);
  try {
    await waitFor(() => output().includes('startup converge done'), 'the first converge');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const address = /"address":"(http:\/\/[^"]+)"/.exec(output())![1]!;
    const metrics = async () => (await fetch(`${address}/metrics`)).text();
    const revisions = async () => (await releaseSecrets(kc, 'addons', 'echo')).map((r) => `${r.metadata.labels.version}:${r.metadata.labels.status}:${r.metadata.labels[LABEL]}`);
    const watched = async () => JSON.parse((await debugRequest(socket, 'GET', '/module/resource-monitor.json')).body) as Record<string, unknown>;
    const patchConfig = (data: Record<string, string | null>) => requestJson(kc, 'PATCH', CONFIGMAP, {}, { data }, 'application/merge-patch+json');
    const skipped = () => logRecords(output()).filter((r) => String(r.msg).includes('in maintenance (NoResourceReconciliation), helm upgrade skipped')).length;
    assert.deepEqual(await revisions(), ['1:deployed:false']);
    await requestJson(kc, 'POST', '/api/v1/namespaces/addons/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator' }, data: {} });
    assert.doesNotMatch(await metrics(), /mm_module_maintenance\{/);

    // into maintenance: one more revision carrying the label "true", the metric set
    await patchConfig({ echoMaintenance: 'NoResourceReconciliation' });
    await waitFor(async () => (await revisions()).join() === '1:superseded:false,2:deployed:true', 'the revision labelled "true"', 30_000);
    await waitFor(async () => /^addon_operator_mm_module_maintenance\{module="echo",state="NoResourceReconciliation"\} 1$/m.test(await metrics()), 'mm_module_maintenance');

    // an object deleted by hand: the module runs, Helm skips, the monitor stops watching the release
    const cm = '/api/v1/namespaces/addons/configmaps/echo';
    await waitFor(async () => Array.isArray((await watched()).echo), 'the release watched', 30_000);
    await requestJson(kc, 'DELETE', cm);
    await waitFor(() => skipped() >= 1, 'the helm upgrade skipped', 30_000);
    await waitFor(async () => (await watched()).echo === 'No monitor', 'the monitor to stop watching the release', 30_000);
    // a values change runs the module again: nothing deployed either
    await patchConfig({ echo: 'greeting: changed\n' });
    await waitFor(() => skipped() >= 2, 'the second helm upgrade skipped', 30_000);
    assert.equal(await getObject(kc, cm), undefined);
    assert.deepEqual(await revisions(), ['1:superseded:false', '2:deployed:true']);

    // an unknown value: the ConfigMap is invalid, the key named, the last valid config kept
    await patchConfig({ echoMaintenance: 'Sometimes' });
    await waitFor(() => output().includes('key \\"echoMaintenance\\": module maintenance state can only be'), 'the invalid config reported', 30_000);
    assert.match(await metrics(), /^addon_operator_mm_module_maintenance\{module="echo",state="NoResourceReconciliation"\} 1$/m);

    // lifted: a revision labelled "false" with the new values brings the object back; the metric is gone
    await patchConfig({ echoMaintenance: null });
    await waitFor(async () => (await revisions()).at(-1) === '3:deployed:false', 'the revision labelled "false"', 30_000);
    const back = await getObject(kc, cm);
    assert.equal((back as { data: Record<string, string> } | undefined)?.data.greeting, 'changed');
    await waitFor(async () => Array.isArray((await watched()).echo), 'the release watched again', 30_000);
    assert.doesNotMatch(await metrics(), /mm_module_maintenance\{/);
  } catch (e) {
    console.log(output().split('\n').filter((l) => /maintenance|release|absent|monitor|invalid|error/i.test(l)).join('\n'));
    throw e;
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output());
});
