/**
 * Oversized inputs (issue 13's security checks): values files, the config ConfigMap and hooks' output
 * files beyond their limits (src/util/limits.ts) are refused with an error naming the input, before
 * they are read or parsed whole (memory stays bounded), and a running operator goes on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITS, readFileLimited } from '../../src/util/limits.js';
import { UserError } from '../../src/util/errors.js';
import { readValuesFile } from '../../src/modules/static-values.js';
import { parseConfigData, readConfigFile } from '../../src/config/configmap.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import { scenario, settle, traceHook } from '../operator/helpers.js';
import { sandboxPorts } from '../helpers/sandbox-ports.js';
import { waitFor } from '../helpers/wait.js';

const MiB = 1024 * 1024;

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'oversized-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('readFileLimited: a file at its limit is read, one byte more is refused unread, naming the input', (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'f');
  writeFileSync(file, 'x'.repeat(1000));
  assert.equal(readFileLimited(file, 1000, 'the probe').length, 1000);
  appendFileSync(file, 'y');
  assert.throws(
    () => readFileLimited(file, 1000, 'the probe'),
    (e: Error) => e instanceof UserError && e.message === 'the probe is too large: 1001 bytes, more than its limit of 1000 bytes; refused',
  );
  // a file larger than the first read buffer (64 KiB) is read whole
  writeFileSync(file, 'z'.repeat(200_000));
  assert.equal(readFileLimited(file, 200_000, 'the probe'), 'z'.repeat(200_000));
  // errors of the file system are the caller's
  assert.throws(() => readFileLimited(join(dir, 'absent'), 10, 'x'), (e: NodeJS.ErrnoException) => e.code === 'ENOENT');
});

test('a values file or config file beyond the limit is refused, naming it; memory stays bounded', (t) => {
  const dir = tempDir(t);
  const values = join(dir, 'values.yaml');
  writeFileSync(values, `global:\n  big: "${'x'.repeat(LIMITS.valuesFile)}"\n`);
  const before = process.memoryUsage().heapUsed;
  assert.throws(() => readValuesFile(values), (e: Error) => e instanceof UserError && e.message === `${values} is too large: ${LIMITS.valuesFile + 18} bytes, more than its limit of 4 MiB; refused`);
  assert.throws(() => readConfigFile(values, () => true), (e: Error) => e instanceof UserError && e.message.startsWith(`config file ${values} is too large`));
  assert.ok(process.memoryUsage().heapUsed - before < 2 * MiB, 'the file was not read');
  // just under the limit it is read
  writeFileSync(values, `global:\n  big: "${'x'.repeat(LIMITS.valuesFile - 100)}"\n`);
  assert.equal((readValuesFile(values).global?.big as string).length, LIMITS.valuesFile - 100);
});

test('ConfigMap data beyond 1 MiB is refused before any YAML is parsed, naming the ConfigMap and its largest key', () => {
  const data = { global: 'a: 1\n', alpha: `big: "${'x'.repeat(LIMITS.configMap)}"\n` };
  assert.throws(
    () => parseConfigData(data, 'ConfigMap addons/addon-operator', () => true),
    (e: Error) =>
      e instanceof UserError &&
      /invalid config in ConfigMap addons\/addon-operator/.test(e.message) &&
      /ConfigMap addons\/addon-operator is too large: its data holds 1048600 bytes, more than the limit of a ConfigMap, 1 MiB \(the largest key is "alpha"\); refused/.test(e.message),
  );
  // at the limit it is parsed
  const fits = { alpha: `big: "${'x'.repeat(LIMITS.configMap - 100)}"\n` };
  assert.equal((parseConfigData(fits, 'cm', () => true).modules.get('alpha')?.values?.big as string).length, LIMITS.configMap - 100);
});

test('a running operator refuses an oversized ConfigMap, keeps its last valid config, and takes the next valid edit', async (t) => {
  const sandbox = await startSandbox({
    seedObjects: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'addons' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: 'addons' }, data: { global: 'round: 1\n' } },
    ],
  });
  t.after(() => sandbox.stop());
  const ports = sandboxPorts(sandbox.kubeconfigPath, 'addons', { backoff: { initialMs: 20, maxMs: 200 } });
  const s = await scenario({ files: () => ({}), operator: { kube: ports.kube, helm: ports.helm, config: ports.config, namespace: 'addons' } });
  t.after(() => s.op.stop());
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  const round = () => (s.op.manager.store.global.configValues as { round?: number }).round;
  assert.equal(round(), 1);
  const patch = (data: Record<string, string>) =>
    requestJson(ports.kc, 'PATCH', '/api/v1/namespaces/addons/configmaps/addon-operator', {}, { data }, 'application/merge-patch+json');

  // 1.5 MiB: the sandbox takes it (its body limit is 3 MiB), the operator refuses it
  await patch({ global: `round: 2\nbig: "${'x'.repeat(1.5 * MiB)}"\n` });
  await waitFor(() => s.logs.some((l) => l.includes('is too large')), 'the refusal in the log');
  const refusal = s.logs.find((l) => l.includes('is too large'))!;
  assert.match(refusal, /the config is invalid; the operator keeps the last valid one/);
  assert.match(refusal, /ConfigMap addons\/addon-operator is too large: its data holds \d+ bytes, more than the limit of a ConfigMap, 1 MiB \(the largest key is \\"global\\"\)/);
  await settle(s.op);
  assert.equal(round(), 1, 'the last valid config is kept');

  await patch({ global: 'round: 3\n' });
  await waitFor(() => round() === 3, 'the next valid edit');
});

test('hook output files beyond their limits fail the run with an error naming the hook and the file; the queue moves on', async (t) => {
  const big = (bytes: number) => `head -c ${bytes} /dev/zero | tr '\\0' ' '`;
  const schedule = (i: number) => ({ configVersion: 'v1', schedule: [{ name: 's', crontab: `0 0 ${i} 1 *`, allowFailure: true }] });
  const s = await scenario({
    files: (tr) => ({
      'global-hooks/hooks/1-config': traceHook(tr, 'config', schedule(1), `{ echo '[{"op":"add","path":"/global/x","value":"'; ${big(LIMITS.valuesPatch)}; echo '"}]'; } > "$CONFIG_VALUES_JSON_PATCH_PATH"`),
      'global-hooks/hooks/2-values': traceHook(tr, 'values', schedule(2), `${big(LIMITS.valuesPatch + 1)} > "$VALUES_JSON_PATCH_PATH"`),
      'global-hooks/hooks/3-metrics': traceHook(tr, 'metrics', schedule(3), `${big(LIMITS.metrics + 1)} > "$METRICS_PATH"`),
      'global-hooks/hooks/4-kube': traceHook(tr, 'kube', schedule(4), `${big(LIMITS.kubernetesPatch + 1)} > "$KUBERNETES_PATCH_PATH"`),
      'global-hooks/hooks/5-canary': traceHook(tr, 'canary', schedule(5), `echo '[{"op":"add","path":"/global/canary","value":1}]' > "$CONFIG_VALUES_JSON_PATCH_PATH"`),
    }),
  });
  t.after(() => s.op.stop());
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  const heapBefore = process.memoryUsage().heapUsed;
  for (const crontab of s.op.schedules.crontabs().sort()) s.op.schedules.fire(crontab);
  await waitFor(() => s.trace.lines().some((l) => l.startsWith('canary')), 'the canary hook, queued last');
  await settle(s.op);
  assert.deepEqual(s.trace.lines().map((l) => l.split(' ')[0]), ['config', 'values', 'metrics', 'kube', 'canary'], 'each ran once, the queue moved on');
  const text = s.logs.join('');
  for (const [hook, variable, limit] of [
    ['1-config', 'CONFIG_VALUES_JSON_PATCH_PATH', '4 MiB'],
    ['2-values', 'VALUES_JSON_PATCH_PATH', '4 MiB'],
    ['3-metrics', 'METRICS_PATH', '4 MiB'],
    ['4-kube', 'KUBERNETES_PATCH_PATH', '32 MiB'],
  ] as const) {
    assert.match(text, new RegExp(`hook hooks/${hook}: \\$${variable} is too large: \\d+ bytes, more than its limit of ${limit}; refused`), `${hook}'s error`);
  }
  // nothing of the refused outputs was applied; the canary's patch was
  const global = s.op.manager.store.global.configValues as Record<string, unknown>;
  assert.equal(global.x, undefined);
  assert.equal(global.canary, 1);
  const grown = process.memoryUsage().heapUsed - heapBefore;
  assert.ok(grown < 32 * MiB, `heap grew by ${grown} bytes`);
});
