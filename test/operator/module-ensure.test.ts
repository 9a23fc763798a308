// ModuleEnsureCRDs and ModuleEnsureHooks (issue 34; the Go operator's d9021959 and #790) with
// `addon-operator start --sandbox`: the crds/ of every enabled module are applied before the first
// converge runs any module, so a module ordered before the one that ships a CRD binds to its kind at
// once; a module whose chart renders a ConversionWebhook gets it applied ahead of its release.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../../src/kube/http.js';
import { makeTree, writeTree } from '../helpers/tree.js';
import { crd } from '../helpers/crd.js';
import { bashHook, logRecords, waitFor, withOperator } from '../helpers/operator-process.js';

test("every enabled module's crds/ before the converge's first module run; ConversionWebhooks ahead of their release", async () => {
  const root = makeTree({ 'global-hooks/.keep': '', 'trace/.keep': '' });
  const trace = join(root, 'trace/contexts');
  const widgets = crd('Widget');
  const webhooks = crd('ConversionWebhook', { group: 'deckhouse.io', scope: 'Cluster', versions: ['v1alpha1'] });
  const files: Record<string, string> = {
    'modules/values.yaml': 'watcherEnabled: true\nshipperEnabled: true\nconverterEnabled: true\n',
    // ordered first: binds to Widget, a kind only the later module's crds/ brings
    'modules/001-watcher/hooks/widgets': bashHook(
      { configVersion: 'v1', kubernetes: [{ name: 'widgets', apiVersion: 'example.com/v1', kind: 'Widget' }] },
      `jq -c '.[] | {binding, type}' "$BINDING_CONTEXT_PATH" >> '${trace}'`,
    ),
    'modules/002-shipper/crds/widgets.yaml': JSON.stringify(widgets),
    'modules/002-shipper/crds/doc-ru-widgets.yaml': 'not: a crd\n',
    'modules/003-converter/Chart.yaml': 'apiVersion: v2\nname: converter\nversion: 0.1.0\n',
    'modules/003-converter/crds/conversionwebhooks.yaml': JSON.stringify(webhooks),
    'modules/003-converter/templates/webhook.yaml': 'apiVersion: deckhouse.io/v1alpha1\nkind: ConversionWebhook\nmetadata:\n  name: widgets.example.com\nspec:\n  note: {{ .Values.converter.note | quote }}\n',
    'modules/003-converter/values.yaml': 'converter:\n  note: from-values\n',
  };
  writeTree(root, files);
  const kubeconfig = join(root, 'kubeconfig');
  await withOperator(root, ['--sandbox-kubeconfig', kubeconfig], async ({ output }) => {
    await waitFor(() => output().includes('startup converge done'), 'the first converge', 60_000);
    const records = logRecords(output());
    const index = (pred: (r: Record<string, unknown>) => boolean, what: string) => {
      const i = records.findIndex(pred);
      assert.notEqual(i, -1, `${what} in the log`);
      return i;
    };
    const crds = index((r) => r.msg === 'module CRDs ensured before the converge' && r.module === 'shipper', 'the shipper CRDs ensured');
    assert.deepEqual(records[crds]!.crds, ['widgets.example.com']);
    const hooks = index((r) => r.msg === 'module conversion webhooks ensured before its release' && r.module === 'converter', 'the converter webhooks ensured');
    assert.equal(records[hooks]!.conversionWebhooks, 1);
    const firstRun = index((r) => /module watcher: run started/.test(String(r.msg)), 'the watcher run');
    const converterRun = index((r) => /module converter: run started/.test(String(r.msg)), 'the converter run');
    assert.ok(crds < firstRun, 'the CRDs before any module run');
    assert.ok(hooks < converterRun, 'the webhook before its release');
    // the watcher bound to Widget at once: its Synchronization run came first
    assert.equal(readFileSync(trace, 'utf8').split('\n')[0], '{"binding":"widgets","type":"Synchronization"}');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const hook = await requestJson<{ spec: { note: string } }>(kc, 'GET', '/apis/deckhouse.io/v1alpha1/conversionwebhooks/widgets.example.com');
    assert.equal(hook.spec.note, 'from-values');
  });
});

test("the ensured CRDs' group/version/Kind in global.discovery.apiVersions before any module runs, for a module set with module.yaml (Deckhouse's loader); none without (Go's fs loader)", async () => {
  for (const deckhouse of [true, false]) {
    const root = makeTree({ 'global-hooks/.keep': '', 'trace/.keep': '' });
    const trace = join(root, 'trace/values');
    writeTree(root, {
      'modules/values.yaml': 'readerEnabled: true\nshipperEnabled: true\n',
      // ordered first, before the module that ships the CRDs: it sees them in its values at its first run
      'modules/001-reader/hooks/before': bashHook({ configVersion: 'v1', beforeHelm: 1 }, `jq -c '.global.discovery.apiVersions' "$VALUES_PATH" >> '${trace}'`),
      ...(deckhouse ? { 'modules/001-reader/module.yaml': 'critical: true\n' } : {}),
      'modules/002-shipper/crds/widgets.yaml': JSON.stringify(crd('Widget', { versions: ['v1', 'v1alpha1'] })),
      'modules/002-shipper/crds/gadgets.yaml': JSON.stringify(crd('Gadget', { group: 'deckhouse.io' })),
    });
    await withOperator(root, [], async ({ output }) => {
      await waitFor(() => output().includes('startup converge done'), 'the first converge', 60_000);
      const seen = readFileSync(trace, 'utf8').trim();
      assert.equal(seen, deckhouse ? '["deckhouse.io/v1/Gadget","example.com/v1/Widget","example.com/v1alpha1/Widget"]' : 'null', `module.yaml: ${deckhouse}`);
    });
  }
});
