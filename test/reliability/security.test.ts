/**
 * Security checks of issue 13: private temp files and debug socket, a bare hook environment (the
 * operator's own credentials never), templates that cannot read the environment or files outside the
 * chart, YAML alias bombs refused with bounded memory, the sandbox refusing requests without its token.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { DebugServer } from '../../src/server/debug-server.js';
import { parseYaml } from '../../src/util/yaml.js';
import { loadChart } from '../../src/helm/chart.js';
import { renderTemplateFiles } from '../../src/helm/render.js';
import { makeTree } from '../helpers/tree.js';
import { scenario, settle, traceHook } from '../operator/helpers.js';

test("hooks get the operator's environment as Go passes it (docs/operating.md: no secrets there), not the launcher's malloc setting, and private temp files", async (t) => {
  const operatorEnv = { KUBECONFIG: '/etc/kubeconfig', HTTPS_PROXY: 'http://proxy:3128', KUBERNETES_SERVICE_HOST: '10.0.0.1', MALLOC_MMAP_THRESHOLD_: '131072' };
  const saved = Object.fromEntries(Object.keys(operatorEnv).map((k) => [k, process.env[k]]));
  Object.assign(process.env, operatorEnv);
  t.after(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  const out = join(mkdtempSync(join(tmpdir(), 'security-hook-')), 'out');
  t.after(() => rmSync(join(out, '..'), { recursive: true, force: true }));
  const s = await scenario({
    files: (tr) => ({
      'global-hooks/hooks/probe': traceHook(
        tr,
        'probe',
        { configVersion: 'v1', onStartup: 1 },
        `env | cut -d= -f1 | sort > '${out}.env'
stat -c '%a %n' "$BINDING_CONTEXT_PATH" "$VALUES_PATH" "$CONFIG_VALUES_PATH" "$(dirname "$BINDING_CONTEXT_PATH")" > '${out}.modes'
for f in "$VALUES_JSON_PATCH_PATH" "$CONFIG_VALUES_JSON_PATCH_PATH" "$METRICS_PATH" "$KUBERNETES_PATCH_PATH"; do echo '' > "$f"; stat -c '%a %n' "$f"; done >> '${out}.modes'`,
      ),
    }),
  });
  t.after(() => s.op.stop());
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  const names = readFileSync(`${out}.env`, 'utf8').trim().split('\n');
  for (const k of ['KUBECONFIG', 'HTTPS_PROXY', 'KUBERNETES_SERVICE_HOST', 'PATH', 'HOME']) assert.ok(names.includes(k), `${k} is inherited`);
  assert.ok(!names.includes('MALLOC_MMAP_THRESHOLD_'), "the launcher's malloc setting is Node's alone");
  for (const k of ['BINDING_CONTEXT_PATH', 'VALUES_PATH', 'CONFIG_VALUES_PATH', 'VALUES_JSON_PATCH_PATH', 'CONFIG_VALUES_JSON_PATCH_PATH', 'METRICS_PATH', 'KUBERNETES_PATCH_PATH']) assert.ok(names.includes(k), k);
  const modes = readFileSync(`${out}.modes`, 'utf8').trim().split('\n');
  assert.equal(modes.length, 8);
  for (const line of modes) {
    const mode = parseInt(line.split(' ')[0]!, 8);
    assert.equal(mode & 0o077, 0, `readable by others: ${line}`);
  }
});

test('no Secret data and no values in the logs at info level', async (t) => {
  const SECRET = 'c2VjcmV0LXBhc3N3b3Jk'; // base64 of secret-password
  const s = await scenario({
    files: (tr) => ({
      'modules/values.yaml': 'alphaEnabled: true\n',
      'modules/001-alpha/Chart.yaml': 'name: alpha\nversion: 0.1.0\n',
      'modules/001-alpha/templates/cm.yaml': 'kind: ConfigMap\n',
      'modules/001-alpha/values.yaml': 'alpha:\n  password: values-password-1234\n',
      'global-hooks/hooks/secrets': traceHook(tr, 'g-secrets', { configVersion: 'v1', kubernetes: [{ name: 'secrets', kind: 'Secret' }] }),
      'modules/001-alpha/hooks/set': traceHook(tr, 'alpha-set', { configVersion: 'v1', beforeHelm: 1 }, `echo '[{"op":"add","path":"/alpha/token","value":"hook-token-5678"}]' > "$VALUES_JSON_PATCH_PATH"`),
    }),
    config: { alpha: 'configured: config-secret-9012\n' },
  });
  t.after(() => s.op.stop());
  s.kube.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'default' }, data: { password: SECRET } } as never);
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  s.kube.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db2', namespace: 'default' }, data: { password: SECRET } } as never);
  await settle(s.op);
  // the secrets and values went through: the hooks saw the Secrets, the release got the values
  assert.ok(s.trace.lines().includes('g-secrets secrets:Event:Added'));
  assert.equal((s.helm.releases.get('alpha')?.values.alpha as { token?: string }).token, 'hook-token-5678');
  const info = s.logs.filter((l) => (JSON.parse(l) as { level: number }).level >= 30);
  assert.ok(info.length > 0);
  for (const leak of [SECRET, 'values-password-1234', 'hook-token-5678', 'config-secret-9012']) {
    assert.deepEqual(info.filter((l) => l.includes(leak)), [], `${leak} in an info-level log line`);
  }
});

test('the debug socket and its directory are private to the user', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'security-debug-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'sub', 'debug.socket');
  const server = new DebugServer(path);
  await server.start();
  t.after(() => server.stop());
  assert.equal(statSync(path).mode & 0o077, 0);
  assert.equal(statSync(join(dir, 'sub')).mode & 0o077, 0);
});

test('templates cannot read the environment or files outside the chart', () => {
  process.env.SECURITY_TEST_SECRET = 'leaked';
  const outside = mkdtempSync(join(tmpdir(), 'security-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'leaked');
  try {
    const chart = loadChart(
      makeTree({
        'Chart.yaml': 'apiVersion: v2\nname: probe\nversion: 0.1.0\n',
        'templates/files.yaml': `a: "{{ .Files.Get "../../secret.txt" }}{{ .Files.Get "${join(outside, 'secret.txt')}" }}{{ range $p, $_ := .Files.Glob "../**" }}{{ $p }}{{ end }}"\n`,
      }),
    );
    const out = renderTemplateFiles(chart, {}, { releaseName: 'r', namespace: 'n' }).files;
    assert.doesNotMatch(JSON.stringify(out), /leaked/);
    for (const fn of ['env "SECURITY_TEST_SECRET"', 'expandenv "$SECURITY_TEST_SECRET"']) {
      const c = loadChart(makeTree({ 'Chart.yaml': 'apiVersion: v2\nname: probe\nversion: 0.1.0\n', 'templates/env.yaml': `a: {{ ${fn} }}\n` }));
      assert.throws(() => renderTemplateFiles(c, {}, { releaseName: 'r', namespace: 'n' }), (e: Error) => /not defined/.test(e.message) && !/leaked/.test(e.message), fn);
    }
  } finally {
    delete process.env.SECURITY_TEST_SECRET;
    rmSync(outside, { recursive: true, force: true });
  }
});

test('a YAML alias bomb is refused with a clear error and bounded memory', () => {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i++) {
    const prev = String.fromCharCode(96 + i);
    const cur = String.fromCharCode(97 + i);
    lines.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
  }
  const before = process.memoryUsage().heapUsed;
  assert.throws(() => parseYaml(lines.join('\n'), 'values.yaml'), (e: Error) => /values\.yaml/.test(e.message) && /alias/i.test(e.message));
  // 9^10 strings had they been expanded; refused long before that
  assert.ok(process.memoryUsage().heapUsed - before < 64 * 1024 * 1024, 'memory stayed bounded');
});

test('YAML nested thousands deep is refused with a clear error naming its source', () => {
  for (const text of ['['.repeat(5000) + ']'.repeat(5000), Array.from({ length: 1500 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')]) {
    assert.throws(
      () => parseYaml(text, 'values.yaml'),
      (e: Error) => /^invalid YAML in values\.yaml:\d+:\d+: collections nested too deeply$/.test(e.message),
    );
  }
});

function status(sb: Sandbox, method: string, path: string, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, sb.url);
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method, ca: sb.caCert, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? JSON.stringify({ metadata: { name: 'x' } }) : undefined);
  });
}

test('the sandbox refuses every request without its token, or with another one', async (t) => {
  const sb = await startSandbox();
  t.after(() => sb.stop());
  for (const [method, path] of [
    ['GET', '/api/v1/namespaces'],
    ['GET', '/api/v1/configmaps?watch=true'],
    ['POST', '/api/v1/namespaces'],
    ['GET', '/version'],
    ['GET', '/openapi/v3'],
  ] as const) {
    assert.equal(await status(sb, method, path), 401, `${method} ${path} without a token`);
    assert.equal(await status(sb, method, path, `${sb.token}x`), 401, `${method} ${path} with another token`);
  }
  assert.equal(await status(sb, 'GET', '/api/v1/namespaces', sb.token), 200);
  assert.equal(sb.getObject('v1', 'Namespace', '', 'x'), undefined, 'nothing was created');
});
