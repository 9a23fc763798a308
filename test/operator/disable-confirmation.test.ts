// module.yaml `disable.confirmation` (Deckhouse's module definition, issue 34): Deckhouse refuses a
// ModuleConfig that disables such a module unless it carries the allow-disabling annotation; this
// operator has no such gate on its ConfigMap, so a module disabled by the ConfigMap is disabled and a
// warning carries the module's `disable.message`. A module disabled otherwise, or without
// `confirmation`, gets no warning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../../src/kube/http.js';
import { makeTree } from '../helpers/tree.js';
import { logRecords, waitFor, withOperator } from '../helpers/operator-process.js';

const CONFIGMAP = '/api/v1/namespaces/addons/configmaps/addon-operator';

test('a module with disable.confirmation disabled by the ConfigMap: disabled, with a warning carrying its disable.message', async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'guardedEnabled: true\nplainEnabled: true\n',
    'modules/001-guarded/module.yaml': 'critical: true\ndisable:\n  confirmation: true\n  message: Disabling this module deletes the widgets.\n',
    'modules/001-guarded/templates/.keep': '',
    'modules/002-plain/module.yaml': 'critical: true\ndisable:\n  message: no confirmation asked\n',
    'modules/002-plain/templates/.keep': '',
    'seed.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: addons\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: addon-operator\n  namespace: addons\ndata: {}\n',
  });
  const kubeconfig = join(root, 'kubeconfig');
  await withOperator(root, ['--sandbox-seed', join(root, 'seed.yaml'), '--sandbox-kubeconfig', kubeconfig], async ({ output }) => {
    await waitFor(() => output().includes('startup converge done'), 'the first converge');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    await requestJson(kc, 'PATCH', CONFIGMAP, {}, { data: { guardedEnabled: 'false', plainEnabled: 'false' } }, 'application/merge-patch+json');
    const deleted = (m: string) => output().includes(`module ${m}: deleted in`);
    await waitFor(() => deleted('guarded') && deleted('plain'), 'both modules deleted', 30_000);
    const warnings = logRecords(output()).filter((r) => typeof r.msg === 'string' && r.msg.includes('without the confirmation'));
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]!.module, 'guarded');
    assert.equal(warnings[0]!.msg, 'module guarded disabled by ConfigMap key "guardedEnabled" without the confirmation its module.yaml asks for (disable.confirmation; not enforced here): Disabling this module deletes the widgets.');
    assert.equal(warnings[0]!.message, 'Disabling this module deletes the widgets.');
  });
});
