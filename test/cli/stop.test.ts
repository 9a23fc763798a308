/**
 * SIGTERM ends the operator whatever its bindings: a global and a module hook with every binding kind
 * and duplicate binding names (unnamed kubernetes bindings all default to `kubernetes`). Before the
 * fix, the monitor of the first of two same-named bindings was dropped from the hook's bindings: it
 * was never stopped, kept the process alive after `operator stopped`, and never delivered events.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { makeTree } from '../helpers/tree.js';
import { requestJson } from '../../src/kube/http.js';
import { waitFor } from '../helpers/wait.js';
import { crd } from '../helpers/crd.js';

const MAIN = join(import.meta.dirname, '../../src/cli/main.ts');

const hook = (config: object, trace: string) => `#!/usr/bin/env bash
if [[ "$1" == "--config" ]]; then echo '${JSON.stringify(config)}'; exit 0; fi
jq -r '.[] | "\\(.binding) \\(.type // "-") \\(.watchEvent // "-") \\(.object.metadata.name // "-")"' "$BINDING_CONTEXT_PATH" >> '${trace}'
`;

const WEBHOOKS = {
  // served, on objects nobody writes here (the trace hooks give no admission answer)
  kubernetesValidating: [{ name: 'check.addons.example.com', rules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['things'], operations: ['CREATE'] }] }],
  kubernetesMutating: [{ name: 'mutate.addons.example.com', rules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['things'], operations: ['CREATE'] }] }],
  kubernetesCustomResourceConversion: [{ name: 'convert', crdName: 'things.example.com', conversions: [{ fromVersion: 'v1', toVersion: 'v2' }] }],
};

/** The CRD of the conversion binding: served webhooks need it (a global hook's missing CRD stops the start). */
const THINGS_CRD = crd('Thing', { versions: ['v1', 'v2'] });

test('SIGTERM ends the operator promptly with every binding kind and duplicate binding names; same-named bindings all deliver events', async () => {
  const root = makeTree({ 'modules/values.yaml': 'dupEnabled: true\n' });
  const trace = join(root, 'trace');
  const moduleTrace = join(root, 'module-trace');
  const kubeconfig = join(root, 'kubeconfig');
  const files: Record<string, string> = {
    'global-hooks/hooks/all': hook(
      {
        configVersion: 'v1',
        onStartup: 1,
        beforeAll: 1,
        afterAll: 1,
        schedule: [{ crontab: '0 0 1 1 *' }, { crontab: '0 0 1 1 *' }, { name: 'y', crontab: '0 0 2 1 *' }, { name: 'y', crontab: '0 0 3 1 *' }],
        kubernetes: [
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: { nameSelector: { matchNames: ['addons'] } }, labelSelector: { matchLabels: { watched: 'yes' } } },
          { apiVersion: 'v1', kind: 'Secret', namespace: { nameSelector: { matchNames: ['addons'] } }, labelSelector: { matchLabels: { watched: 'yes' } } },
          { name: 'named', apiVersion: 'v1', kind: 'Namespace', executeHookOnEvent: [] },
        ],
        ...WEBHOOKS,
      },
      trace,
    ),
    'modules/001-dup/hooks/all': hook(
      {
        configVersion: 'v1',
        onStartup: 1,
        beforeHelm: 1,
        afterHelm: 1,
        afterDeleteHelm: 1,
        schedule: [{ crontab: '0 0 1 1 *' }, { crontab: '0 0 1 1 *' }],
        kubernetes: [
          { apiVersion: 'v1', kind: 'ConfigMap', executeHookOnEvent: ['Added'] },
          { apiVersion: 'v1', kind: 'ConfigMap', executeHookOnEvent: ['Modified'] },
        ],
        ...WEBHOOKS,
      },
      moduleTrace,
    ),
  };
  writeFileSync(join(root, 'crd.json'), JSON.stringify(THINGS_CRD));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
    chmodSync(join(root, path), 0o755);
  }
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', MAIN, 'start', '--sandbox', '--sandbox-kubeconfig', kubeconfig, '--modules-dir', join(root, 'modules'), '--global-hooks-dir', join(root, 'global-hooks'), '--tmp-dir', join(root, 'tmp'), '--namespace', 'addons', '--log-type', 'json', '--shutdown-timeout', '30s', '--listen-port', '0', '--debug-unix-socket', join(root, 'debug.socket'), '--sandbox-seed', join(root, 'crd.json')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let sawEvent: boolean | undefined;
  try {
    await waitFor(() => out.includes('startup converge done'), 'the first converge');
    // both unnamed ConfigMap/Secret bindings of the global hook are watched: an event of the first one arrives
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    await requestJson(kc, 'POST', '/api/v1/namespaces/addons/configmaps', {}, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'first-binding', namespace: 'addons', labels: { watched: 'yes' } },
    });
    sawEvent = await waitFor(() => existsSync(trace) && readFileSync(trace, 'utf8').includes('kubernetes Event Added first-binding'), 'the event', 20_000).then(
      () => true,
      () => false,
    );
  } finally {
    child.kill('SIGTERM');
  }
  // the documented stop: running tasks finish, monitors and schedules stop, exit 0 (well within --shutdown-timeout)
  const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still running 20 s after SIGTERM'), 20_000))]);
  if (code !== 0) child.kill('SIGKILL');
  assert.equal(code, 0, out.slice(-3000));
  const afterStop = out.slice(out.indexOf('operator stopped'));
  assert.doesNotMatch(afterStop, /"level":"(error|warn)"/, 'nothing is logged after the stop');
  assert.equal(sawEvent, true, 'the event of the first of two same-named bindings was delivered');
  const lines = readFileSync(trace, 'utf8');
  assert.match(lines, /kubernetes Synchronization/);
  assert.match(lines, /named Synchronization/);
});
