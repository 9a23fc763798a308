/**
 * Grouped kubernetes bindings at start, against the sandbox API server and the real Kubernetes layer:
 * shell-operator combines the grouped Synchronization runs of a hook, so the hook runs once with one
 * Group context (the last binding's name) carrying the group's snapshots (reference/shell-operator.md
 * §2.5–2.6), not once per binding.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { sandboxPorts } from '../helpers/sandbox-ports.js';
import { scenario, settle, traceHook } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

const cm = (name: string, app: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { app } } });

for (const where of ['global', 'module'] as const) {
  test(`a ${where} hook whose kubernetes bindings share a group runs once at start, with one Group context`, async (t) => {
    const sandbox = await startSandbox({
      seedObjects: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'addons' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: 'addons' }, data: { alphaEnabled: 'true' } },
        cm('a1', 'a'),
        cm('b1', 'b'),
        cm('b2', 'b'),
      ],
    });
    t.after(() => sandbox.stop());
    const { kc, kube, config } = sandboxPorts(sandbox.kubeconfigPath, 'addons');

    const binding = (name: string, app: string) => ({
      name,
      kind: 'ConfigMap',
      group: 'g',
      labelSelector: { matchLabels: { app } },
      namespace: { nameSelector: { matchNames: ['default'] } },
      jqFilter: '.metadata.name',
    });
    const hookConfig = { configVersion: 'v1', kubernetes: [binding('watch-a', 'a'), binding('watch-b', 'b')] };
    // every run writes its whole binding context as one line
    const body = `jq -c '[.[] | {binding, type, groupName, snapshots: (.snapshots // {} | map_values(map(.filterResult)))}]' "$BINDING_CONTEXT_PATH" >> '$TRACE.json'`;
    const s = await scenario({
      files: (tr) => ({
        'modules/values.yaml': 'alphaEnabled: false\n',
        'modules/001-alpha/Chart.yaml': 'name: alpha\nversion: 0.1.0\n',
        'modules/001-alpha/templates/cm.yaml': 'kind: ConfigMap\n',
        [where === 'global' ? 'global-hooks/hooks/grouped' : 'modules/001-alpha/hooks/grouped']: traceHook(tr, 'grouped', hookConfig, body.replace('$TRACE', tr.path)),
      }),
      operator: { kube, config, namespace: 'addons' },
    });
    t.after(() => s.op.stop());
    await s.op.start();
    await s.op.converge.whenFirstDone();
    await settle(s.op);
    const runs = () => s.trace.lines().filter((l) => l.startsWith('grouped '));
    assert.deepEqual(runs(), ['grouped watch-b:Group'], 'one run at start, with the last binding\'s Group context');
    const { readFileSync } = await import('node:fs');
    const contexts = readFileSync(`${s.trace.path}.json`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(contexts, [[{ binding: 'watch-b', type: 'Group', groupName: 'g', snapshots: { 'watch-a': ['a1'], 'watch-b': ['b1', 'b2'] } }]]);

    // events after start are delivered (both bindings were unlocked by the one run)
    await requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, cm('a2', 'a'));
    await waitFor(() => runs().length >= 2, 'the event run of watch-a');
    await requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, cm('b3', 'b'));
    await waitFor(() => runs().length >= 3, 'the event run of watch-b');
    await settle(s.op);
    assert.deepEqual(runs().slice(1), ['grouped watch-a:Group', 'grouped watch-b:Group']);
  });
}
