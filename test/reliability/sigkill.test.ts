/**
 * The operator killed with SIGKILL at random moments of a converge, then started again (issue 13): a real
 * `addon-operator start` process against a sandbox process on a --data-dir.
 *
 * The modules are built so that a lost write shows. Each module's beforeHelm hook generates a random
 * token once per generation (the user's `global.gen`) and stores it with a config values patch; a global
 * onStartup hook generates a cluster token once. The charts render the tokens into ConfigMaps. A token
 * that reached the cluster or the operator's ConfigMap must never be replaced for the same generation:
 * if it were, the operator went on with a patch it had not stored. Between runs the user sometimes
 * bumps `global.gen` (edited while the operator is down), so that releases are upgraded and new patches
 * are written in later runs too.
 *
 * A kill lands at a random moment between the operator's "operator starting" and a little after the
 * converge's end, as long as the last converge took: moments spread over the converge whatever the
 * machine's speed (the first converge's length is a guess, the later ones are learned). After the last start the operator
 * converges, and then: every release's last record is `deployed` (none left `pending-*`), the cluster
 * holds exactly what the final config values render, and no token changed within its generation.
 *
 * CI: 10 kills. `RELIABILITY_LONG=1`: 40 kills. `RELIABILITY_SEED` repeats a run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { requestJson } from '../../src/kube/http.js';
import { closeConnections } from '../../src/kube/connections.js';
import { bashHook, logRecords, runCli as run, waitFor, type CliProcess as Proc } from '../helpers/operator-process.js';
import { writeTree } from '../helpers/tree.js';
import { LONG, random, seed } from './helpers.js';

const KILLS = LONG ? 40 : 10;
const NS = 'addons';
const MODULES = ['alpha', 'beta', 'gamma'];

const TOKEN = `token() { head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \\n'; }`;

function fixture(root: string): void {
  const files: Record<string, string> = {
    'modules/values.yaml': MODULES.map((m) => `${m}Enabled: true\n`).join(''),
    'global-hooks/hooks/cluster-token': bashHook(
      { configVersion: 'v1', onStartup: 1 },
      `${TOKEN}
jq --arg t "$(token)" 'if (.global.clusterToken // "") == "" then [{op: "add", path: "/global/clusterToken", value: $t}] else [] end' "$CONFIG_VALUES_PATH" > "$CONFIG_VALUES_JSON_PATCH_PATH"`,
    ),
  };
  MODULES.forEach((m, i) => {
    const dir = `modules/${String(i + 1).padStart(3, '0')}-${m}`;
    files[`${dir}/Chart.yaml`] = `name: ${m}\nversion: 0.1.0\n`;
    files[`${dir}/values.yaml`] = `${m}:\n  replicas: 1\n`;
    // a few objects, so that a kill can land between two of them
    files[`${dir}/templates/objects.yaml`] = [0, 1, 2, 3]
      .map(
        (n) =>
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${m}-out-${n}\ndata:\n  gen: "{{ .Values.global.gen }}"\n  token: "{{ .Values.${m}.token }}"\n  cluster: "{{ .Values.global.clusterToken }}"\n`,
      )
      .join('---\n');
    files[`${dir}/hooks/token`] = bashHook(
      { configVersion: 'v1', beforeHelm: 1 },
      `${TOKEN}
gen=$(jq '.global.gen // 0' "$VALUES_PATH")
jq --argjson gen "$gen" --arg t "$(token)" 'if .${m}.tokenGen != $gen then [{op: "add", path: "/${m}", value: ((.${m} // {}) + {token: $t, tokenGen: $gen})}] else [] end' "$CONFIG_VALUES_PATH" > "$CONFIG_VALUES_JSON_PATCH_PATH"`,
    );
  });
  writeTree(root, files);
}

type Data = Record<string, string>;

test(`the operator killed with SIGKILL at ${KILLS} random moments of a converge, then started again: the same final state, no patch lost, no release pending`, { timeout: LONG ? 3_600_000 : 900_000 }, async (t) => {
  const rand = random(seed());
  const dir = mkdtempSync(join(tmpdir(), 'reliability-sigkill-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  fixture(dir);
  const dataDir = join(dir, 'data');
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    join(dir, 'seed.yaml'),
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${NS}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: addon-operator\n  namespace: ${NS}\ndata:\n  global: |\n    gen: 0\n    note: kept\n`,
  );

  const sandbox = run(['sandbox', '--data-dir', dataDir, '--kubeconfig', kubeconfig, '--seed', join(dir, 'seed.yaml')]);
  t.after(() => sandbox.child.kill('SIGKILL'));
  await waitFor(() => sandbox.output().includes('kubeconfig:') || sandbox.child.exitCode !== null, 'the sandbox');
  assert.ok(existsSync(kubeconfig), `the sandbox did not start:\n${sandbox.output()}`);
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  t.after(() => closeConnections(kc));

  const configMap = async () => (await requestJson<{ data?: Data }>(kc, 'GET', `/api/v1/namespaces/${NS}/configmaps/addon-operator`)).data ?? {};
  const section = (data: Data, key: string) => (parse(data[key] ?? '') ?? {}) as Record<string, unknown>;
  const outputs = async () => {
    const list = await requestJson<{ items: Array<{ metadata: { name: string }; data?: Data }> }>(kc, 'GET', `/api/v1/namespaces/${NS}/configmaps`);
    return list.items.filter((o) => /-out-\d$/.test(o.metadata.name));
  };

  // every token seen, by module and generation (and the cluster token): it must never change
  const seen = new Map<string, { token: string; where: string }>();
  const changed: string[] = [];
  const see = (what: string, token: unknown, where: string) => {
    if (typeof token !== 'string' || token === '') return;
    const before = seen.get(what);
    if (!before) seen.set(what, { token, where });
    else if (before.token !== token) {
      changed.push(`${what}: ${before.token} (${before.where}) then ${token} (${where})`);
      seen.set(what, { token, where });
    }
  };
  const observe = async (when: string) => {
    const data = await configMap();
    const global = section(data, 'global');
    see('clusterToken', global.clusterToken, `ConfigMap ${when}`);
    for (const m of MODULES) {
      const s = section(data, m);
      see(`${m} gen ${String(s.tokenGen)}`, s.token, `ConfigMap ${when}`);
    }
    for (const o of await outputs()) {
      const m = o.metadata.name.replace(/-out-\d$/, '');
      see(`${m} gen ${o.data?.gen}`, o.data?.token, `${o.metadata.name} ${when}`);
      see('clusterToken', o.data?.cluster, `${o.metadata.name} ${when}`);
    }
  };

  const start = (n: number) =>
    run(
      [
        'start', '--kube-config', kubeconfig, '--namespace', NS,
        '--modules-dir', join(dir, 'modules'), '--global-hooks-dir', join(dir, 'global-hooks'),
        '--tmp-dir', join(dir, `tmp-${n}`), '--log-type', 'json', '--listen-port', '0',
        '--debug-unix-socket', join(dir, `debug-${n}.socket`),
      ],
      { ...process.env, LOG_LEVEL: 'info' },
    );
  const record = (p: Proc, re: RegExp) => logRecords(p.output()).find((r) => typeof r.msg === 'string' && re.test(r.msg));
  const STARTING = /^operator starting/;
  const DONE = /^converge #1 done/;
  const converged = (p: Proc) => record(p, DONE) !== undefined;

  // how long a converge takes from "operator starting": a guess, then learned from runs that got there
  let convergeMs = 3000;
  const where: string[] = [];
  let gen = 0;
  for (let k = 1; k <= KILLS; k++) {
    const op = start(k);
    await waitFor(() => record(op, STARTING) !== undefined || op.child.exitCode !== null, `the start of run ${k}`, 300_000);
    const delay = Math.floor(rand() * convergeMs * 1.1);
    await new Promise((r) => setTimeout(r, delay));
    op.child.kill('SIGKILL');
    await op.exited;
    const records = logRecords(op.output());
    const [started, done] = [record(op, STARTING), record(op, DONE)];
    if (started && done) convergeMs = Date.parse(String(done.time)) - Date.parse(String(started.time));
    // killed late in a converge that had not ended: it takes longer than thought
    else if (delay > convergeMs / 2) convergeMs = Math.min(convergeMs * 1.5, 60_000);
    const errors = records.filter((r) => r.level === 'error' || r.level === 'fatal').map((r) => String(r.msg));
    where.push(`kill ${k} (gen ${gen}): ${delay} ms after the start${done ? ' (converge done)' : ''}, last log: ${String(records.at(-1)?.msg ?? '-').slice(0, 90)}${errors.length ? `; errors: ${errors.join(' | ').slice(0, 200)}` : ''}`);
    await observe(`after kill ${k}`);
    // the user bumps the generation while the operator is down, about every other time
    if (rand() < 0.5) {
      gen++;
      const data = await configMap();
      const global = { ...section(data, 'global'), gen };
      await requestJson(kc, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/addon-operator`, {}, { data: { global: stringify(global) } }, 'application/merge-patch+json');
    }
  }
  console.log(`# ${where.join('\n# ')}`);

  // the last start converges
  const op = start(KILLS + 1);
  t.after(() => op.child.kill('SIGKILL'));
  await waitFor(() => converged(op) || op.child.exitCode !== null, 'the converge after the last restart', 300_000);
  assert.ok(converged(op), `the operator exited:\n${op.output().slice(-3000)}`);
  await observe('at the end');
  op.child.kill('SIGTERM');
  await op.exited;

  assert.deepEqual(changed, [], 'a token changed within its generation: a config values patch was lost');

  // the config values hold one token per module for the last generation, and the user's keys
  const data = await configMap();
  const global = section(data, 'global');
  assert.equal(global.gen, gen);
  assert.equal(typeof global.clusterToken, 'string');
  assert.equal(global.note, 'kept', "the user's own key");
  const expected: Record<string, Data> = {};
  for (const m of MODULES) {
    const s = section(data, m);
    assert.equal(s.tokenGen, gen, `${m}: the token of the last generation`);
    for (let n = 0; n < 4; n++) expected[`${m}-out-${n}`] = { gen: String(gen), token: String(s.token), cluster: String(global.clusterToken) };
  }
  // the cluster holds exactly what they render
  const actual = Object.fromEntries((await outputs()).map((o) => [o.metadata.name, o.data ?? {}]));
  assert.deepEqual(actual, expected);

  // every release: its last record deployed, none pending
  const secrets = await requestJson<{ items: Array<{ metadata: { name: string; labels?: Record<string, string> } }> }>(kc, 'GET', `/api/v1/namespaces/${NS}/secrets`, { labelSelector: 'owner=helm' });
  const records = secrets.items.map((s) => ({ name: s.metadata.labels?.name ?? '', version: Number(s.metadata.labels?.version), status: s.metadata.labels?.status ?? '' }));
  const pending = records.filter((r) => r.status.startsWith('pending-'));
  assert.deepEqual(pending, [], 'releases left pending');
  for (const m of MODULES) {
    const mine = records.filter((r) => r.name === m).sort((a, b) => a.version - b.version);
    assert.equal(mine.at(-1)?.status, 'deployed', `${m}: the last record of ${JSON.stringify(mine)}`);
  }
});
