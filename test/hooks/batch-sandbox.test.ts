// A module whose hooks are one batch executable (the module SDK's protocol, here in bash), run by
// `start --sandbox`: its beforeHelm hook feeds the chart, its kubernetes hook reacts to objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { closeConnections } from '../../src/kube/connections.js';
import { requestJson } from '../../src/kube/http.js';
import { makeTree } from '../helpers/tree.js';
import { logRecords, startOperator, waitFor } from '../helpers/operator-process.js';

const CONFIG = JSON.stringify({
  version: 'v1',
  hooks: [
    { configVersion: 'v1', metadata: { name: 'greet', path: 'hooks/greet' }, beforeHelm: 1 },
    {
      configVersion: 'v1',
      metadata: { name: 'count', path: 'hooks/count' },
      kubernetes: [{ name: 'watched', apiVersion: 'v1', kind: 'ConfigMap', jqFilter: '.metadata.name', labelSelector: { matchLabels: { watch: 'me' } }, namespace: { nameSelector: { matchNames: ['default'] } } }],
    },
  ],
});

const BATCH = `#!/usr/bin/env bash
case "$1 $2" in
  "hook list") printf 'Found 2 items:\\n0 - greet\\n1 - count\\n' ;;
  "hook config") cat <<'EOF'
${CONFIG}
EOF
  ;;
  "hook run")
    case "$3" in
      0) echo "[{\\"op\\":\\"add\\",\\"path\\":\\"/batchy/greeting\\",\\"value\\":\\"hello from $MODULE_NAME\\"}]" > "$VALUES_JSON_PATCH_PATH" ;;
      1) n=$(jq '[.[-1].snapshots.watched[] | .filterResult] | length' "$BINDING_CONTEXT_PATH")
         printf '{"operation":"CreateOrUpdate","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"batch-count","namespace":"default"},"data":{"count":"%s"}}}\\n' "$n" > "$KUBERNETES_PATCH_PATH" ;;
    esac ;;
  *) exit 2 ;;
esac
`;

test('a batch hook module on the sandbox: beforeHelm feeds the chart, the kubernetes hook sees its grouped snapshot', async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/001-batchy/Chart.yaml': 'apiVersion: v2\nname: batchy\nversion: 0.1.0\n',
    'modules/001-batchy/values.yaml': 'batchyEnabled: true\nbatchy:\n  greeting: ""\n',
    'modules/001-batchy/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: batchy-out\ndata:\n  greeting: {{ .Values.batchy.greeting | quote }}\n',
    'modules/001-batchy/hooks/batch': BATCH,
  });
  const kubeconfig = join(root, 'kubeconfig');
  const op = startOperator(root, ['--sandbox-kubeconfig', kubeconfig]);
  await waitFor(() => logRecords(op.output()).some((r) => r.msg === 'first converge done'), 'the first converge', 120_000).catch((e: Error) => {
    throw new Error(`${e.message}:\n${op.output()}`);
  });
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  try {
    const out = await requestJson<{ data: Record<string, string> }>(kc, 'GET', '/api/v1/namespaces/addons/configmaps/batchy-out');
    assert.equal(out.data.greeting, 'hello from batchy');

    await requestJson(kc, 'POST', '/api/v1/namespaces/default/configmaps', {}, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1', labels: { watch: 'me' } } });
    const count = () => requestJson<{ data: Record<string, string> }>(kc, 'GET', '/api/v1/namespaces/default/configmaps/batch-count').then((c) => c.data.count, () => undefined);
    await waitFor(async () => (await count()) === '1', 'the count hook to see w1', 60_000).catch((e: Error) => {
      throw new Error(`${e.message}:\n${op.output()}`);
    });
    assert.ok(logRecords(op.output()).some((r) => r.hook === 'hooks/batch:count:1'), 'the log names the batch hook by its ID');
  } finally {
    closeConnections(kc);
  }
});
