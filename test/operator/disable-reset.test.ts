// A disabled module's volatile values are cleared (Go #653): its hooks' values patches are dropped by
// ModuleDelete, so once enabled again it starts from its static values and config. Its ConfigMap
// section is not lost (DESIGN §4.9; Go wipes it until the next config event): a module enabled again by
// flipping only `<name>Enabled` runs with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../../src/kube/http.js';
import { makeTree } from '../helpers/tree.js';
import { bashHook, waitFor, withOperator } from '../helpers/operator-process.js';
import { getObject } from '../helm/helpers.js';

const CONFIGMAP = '/api/v1/namespaces/addons/configmaps/addon-operator';
const OUT = '/api/v1/namespaces/addons/configmaps/echo-out';

test("a module disabled and enabled again: its hooks' values patches are gone, its ConfigMap section is kept", async () => {
  // beforeHelm counts the module's runs in its values: runs = the values' runs + 1
  const count = 'runs=$(grep -o \'"runs":[0-9]*\' "$VALUES_PATH" | head -1 | cut -d: -f2); runs=$(( ${runs:-0} + 1 ))\n' +
    'echo "[{\\"op\\":\\"add\\",\\"path\\":\\"/echo/runs\\",\\"value\\":$runs}]" > "$VALUES_JSON_PATCH_PATH"';
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'echoEnabled: true\n',
    'modules/001-echo/Chart.yaml': 'apiVersion: v2\nname: echo\nversion: 0.1.0\n',
    'modules/001-echo/values.yaml': 'echo:\n  greeting: default\n',
    'modules/001-echo/hooks/count': bashHook({ configVersion: 'v1', beforeHelm: 1 }, count),
    'modules/001-echo/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo-out\ndata:\n  greeting: {{ .Values.echo.greeting | quote }}\n  runs: {{ .Values.echo.runs | quote }}\n',
    'seed.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: addons\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: addon-operator\n  namespace: addons\ndata:\n  echo: |\n    greeting: from-configmap\n',
  });
  const kubeconfig = join(root, 'kubeconfig');
  await withOperator(root, ['--sandbox-seed', join(root, 'seed.yaml'), '--sandbox-kubeconfig', kubeconfig], async ({ output }) => {
    await waitFor(() => output().includes('startup converge done'), 'the first converge');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const out = async () => ((await getObject(kc, OUT)) as { data: Record<string, string> } | undefined)?.data;
    const setEnabled = (v: string) => requestJson(kc, 'PATCH', CONFIGMAP, {}, { data: { echoEnabled: v } }, 'application/merge-patch+json');
    assert.deepEqual(await out(), { greeting: 'from-configmap', runs: '1' });

    await setEnabled('false');
    await waitFor(async () => (await out()) === undefined, 'the release deleted', 30_000);
    await setEnabled('true');
    await waitFor(async () => (await out()) !== undefined, 'the release installed again', 30_000);
    // runs counted from the static values again (2 with the patch kept), with the ConfigMap's greeting
    assert.deepEqual(await out(), { greeting: 'from-configmap', runs: '1' });
  });
});
