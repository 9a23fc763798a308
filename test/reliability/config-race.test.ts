/**
 * A user's edit of the ConfigMap and a hook's config values patch, racing: each round a global hook
 * writes a config patch (which the operator stores in the ConfigMap) while the user changes another
 * key of the same ConfigMap. Both must survive every round. Against the sandbox with the real
 * ConfigMap source. 20 rounds in CI, 100 with RELIABILITY_LONG=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { startSandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { scenario, settle, traceHook } from '../operator/helpers.js';
import { sandboxPorts } from '../helpers/sandbox-ports.js';
import { LONG } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

const ROUNDS = LONG ? 100 : 20;
const NS = 'addons';
const CRON = '0 0 1 1 *';

test(`a ConfigMap edit and a hook's config patch racing ${ROUNDS} times: both survive every time`, async (t) => {
  const sandbox = await startSandbox({
    seedObjects: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: NS }, data: { global: 'round: 0\n', alphaEnabled: 'true', alpha: 'user: 0\n' } },
    ],
  });
  t.after(() => sandbox.stop());
  const ports = sandboxPorts(sandbox.kubeconfigPath, NS, { backoff: { initialMs: 20, maxMs: 200 } });
  let roundFile = '';
  const s = await scenario({
    files: (tr) => {
      roundFile = `${tr.path}.round`;
      return {
        'modules/values.yaml': 'alphaEnabled: false\n',
        'modules/001-alpha/Chart.yaml': 'name: alpha\nversion: 0.1.0\n',
        'modules/001-alpha/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: alpha-out\ndata: {}\n',
        'global-hooks/hooks/writer': traceHook(
          tr,
          'writer',
          { configVersion: 'v1', schedule: [{ name: 'w', crontab: CRON }] },
          `n=$(cat '${tr.path}.round'); echo "[{\\"op\\":\\"add\\",\\"path\\":\\"/global/round\\",\\"value\\":$n}]" > "$CONFIG_VALUES_JSON_PATCH_PATH"`,
        ),
      };
    },
    operator: { kube: ports.kube, helm: ports.helm, config: ports.config, namespace: NS },
  });
  t.after(() => s.op.stop());
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);

  const read = async () => {
    const cm = await requestJson<{ data: Record<string, string> }>(ports.kc, 'GET', `/api/v1/namespaces/${NS}/configmaps/addon-operator`);
    return { round: (parse(cm.data.global ?? '') as { round?: number } | null)?.round, user: (parse(cm.data.alpha ?? '') as { user?: number } | null)?.user };
  };
  const lost: string[] = [];
  for (let i = 1; i <= ROUNDS; i++) {
    writeFileSync(roundFile, String(i));
    const runs = s.trace.lines().filter((l) => l.startsWith('writer')).length;
    // the hook's run and the user's edit at once (the edit lands before, during or after the write)
    s.op.schedules.fire(CRON);
    await new Promise((r) => setTimeout(r, (i * 7) % 40));
    await requestJson(ports.kc, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/addon-operator`, {}, { data: { alpha: `user: ${i}\n` } }, 'application/merge-patch+json');
    await waitFor(() => s.trace.lines().filter((l) => l.startsWith('writer')).length > runs, `the hook run of round ${i}`);
    await settle(s.op);
    const got = await read();
    if (got.round !== i || got.user !== i) lost.push(`round ${i}: hook wrote ${i}, stored ${got.round}; user wrote ${i}, stored ${got.user}`);
  }
  assert.deepEqual(lost, []);
  // the operator's view agrees with the ConfigMap
  assert.equal((s.op.manager.store.global.configValues as { round?: number }).round, ROUNDS);
});
