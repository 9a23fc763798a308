import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { makeTree, writeTree } from '../helpers/tree.js';
import { runShellHook, HookRunError, type ShellHookRun } from '../../src/hooks/executor.js';
import { RunDir } from '../../src/hooks/process.js';
import { applyValuesOutputs } from '../../src/hooks/apply-values.js';
import { parseMetrics } from '../../src/hooks/outputs/metrics.js';
import { parseKubernetesOperations } from '../../src/hooks/outputs/kubernetes.js';
import { ScopeValues } from '../../src/values/index.js';
import { loadScopeSchemas } from '../../src/values/schema.js';

function hookRun(root: string, script: string, extra: Partial<ShellHookRun> = {}): ShellHookRun {
  return {
    path: join(root, script),
    name: `hooks/${script}`,
    bindingContextJson: '[{"binding":"beforeHelm","snapshots":{}}]\n',
    values: { global: { a: 1 }, mod: { x: 'y' } },
    configValues: { global: {}, mod: {} },
    tmpDir: join(root, 'tmp'),
    timeoutMs: 10_000,
    ...extra,
  };
}

test("a hook gets its files through env vars over the operator's environment, and its outputs are read", async () => {
  const root = makeTree({
    'h.sh': `#!/bin/bash
set -e
jq -c . "$BINDING_CONTEXT_PATH"
jq -e '.mod.x == "y"' "$VALUES_PATH" >/dev/null
stat -c %a "$(dirname "$VALUES_PATH")" >&2
stat -c %a "$VALUES_PATH" >&2
echo '[{"op":"add","path":"/mod/z","value":1}]' > "$VALUES_JSON_PATCH_PATH"
echo '{"op":"add","path":"mod.password","value":"s"}' > "$CONFIG_VALUES_JSON_PATCH_PATH"
echo '{"name":"mod_items","set":3,"labels":{"kind":"a"}}' > "$METRICS_PATH"
echo '{"name":"mod_runs","action":"add","value":1}' >> "$METRICS_PATH"
cat > "$KUBERNETES_PATCH_PATH" <<'EOF2'
operation: CreateOrUpdate
object:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: x, namespace: default}
---
operation: MergePatch
kind: ConfigMap
namespace: default
name: x
mergePatch: {data: {a: b}}
EOF2
`,
  });
  const lines: string[] = [];
  const out = await runShellHook(hookRun(root, 'h.sh', { log: (s, l) => lines.push(`${s}: ${l}`) }));
  assert.deepEqual(out.valuesPatch, [{ op: 'add', path: '/mod/z', value: 1 }]);
  assert.deepEqual(out.configValuesPatch, [{ op: 'add', path: '/mod/password', value: 's' }]);
  assert.deepEqual(out.metrics, [
    { action: 'set', name: 'mod_items', value: 3, labels: { kind: 'a' }, group: 'hooks/h.sh' },
    { action: 'add', name: 'mod_runs', value: 1, labels: {}, group: 'hooks/h.sh' },
  ]);
  assert.deepEqual(out.kubernetes.map((o) => o.operation), ['CreateOrUpdate', 'MergePatch']);
  assert.deepEqual(lines, ['stdout: [{"binding":"beforeHelm","snapshots":{}}]', 'stderr: 700', 'stderr: 600']);
  await RunDir.settled();
  assert.deepEqual(readdirSync(join(root, 'tmp')), [], 'the run dir is removed');
});

test('a run dir serves the next run: between runs it holds only empty files (no values), outputs start empty; a dir the hook left a file in goes', async () => {
  const root = makeTree({
    'w.sh': `#!/bin/bash
dirname "$VALUES_PATH"
for f in "$VALUES_JSON_PATCH_PATH" "$CONFIG_VALUES_JSON_PATCH_PATH" "$METRICS_PATH" "$KUBERNETES_PATCH_PATH"; do [ -s "$f" ] && echo "not empty: $f"; done
jq -e '.mod.x == "y"' "$VALUES_PATH" >/dev/null || echo "no values"
echo '[{"op":"add","path":"/mod/z","value":1}]' > "$VALUES_JSON_PATCH_PATH"
echo '{"name":"mod_runs","action":"add","value":1}' >> "$METRICS_PATH"
`,
    'x.sh': '#!/bin/sh\ndirname "$VALUES_PATH"\ntouch "$(dirname "$VALUES_PATH")/extra"\n',
  });
  const run = async (script: string) => {
    const lines: string[] = [];
    const out = await runShellHook(hookRun(root, script, { log: (_s, l) => lines.push(l) }));
    return { dir: lines[0]!, rest: lines.slice(1), out };
  };
  const contents = (dir: string) => readdirSync(dir).sort().map((f) => `${f}:${statSync(join(dir, f)).size}`);
  const first = await run('w.sh');
  assert.deepEqual(first.rest, []);
  // no values on disk between runs: only the outputs left empty (those written to are removed)
  assert.deepEqual(contents(first.dir), ['config_values_json_patch.json:0', 'kubernetes_patch.json:0']);
  const second = await run('w.sh');
  assert.equal(second.dir, first.dir, 'the dir is used again');
  assert.deepEqual(second.rest, [], 'the outputs the first run wrote are empty for the second');
  assert.deepEqual(second.out.valuesPatch, [{ op: 'add', path: '/mod/z', value: 1 }]);
  assert.equal(second.out.metrics.length, 1, "the first run's metric is not read again");
  // a process that leaves a file of its own: its dir is not used again
  const third = await run('x.sh');
  assert.equal(third.dir, first.dir);
  await RunDir.settled();
  assert.equal(existsSync(third.dir), false);
  const fourth = await run('w.sh');
  assert.notEqual(fourth.dir, third.dir);
  // something cleaned the tmp dir meanwhile: a new dir
  await RunDir.settled();
  assert.deepEqual(readdirSync(join(root, 'tmp')), [], 'settled() removes the idle dirs');
  const fifth = await run('w.sh');
  assert.notEqual(fifth.dir, fourth.dir);
  assert.deepEqual(fifth.rest, []);
  await RunDir.settled();
});

test('a relative --tmp-dir still gives the hook absolute paths (it runs in another working dir)', async () => {
  const root = makeTree({ 'r.sh': '#!/bin/sh\ncd /\njq -e .mod "$VALUES_PATH" >/dev/null && echo "$VALUES_PATH"\n' });
  const lines: string[] = [];
  await runShellHook(hookRun(root, 'r.sh', { tmpDir: relative(process.cwd(), join(root, 'tmp')), log: (_s, l) => lines.push(l) }));
  assert.equal(lines.length, 1);
  assert.ok(isAbsolute(lines[0]!), lines[0]);
});

test('--debug-keep-tmp-files keeps the run dir', async () => {
  const root = makeTree({ 'k.sh': '#!/bin/sh\ntrue\n' });
  await runShellHook(hookRun(root, 'k.sh', { keepTmpFiles: true }));
  const dirs = readdirSync(join(root, 'tmp'));
  assert.equal(dirs.length, 1);
  assert.equal(statSync(join(root, 'tmp', dirs[0]!)).mode & 0o777, 0o700);
  assert.ok(existsSync(join(root, 'tmp', dirs[0]!, 'values.json')));
});

test('a non-zero exit fails with the exit code and the last lines of stderr; status ops with ignoreHookError survive', async () => {
  const root = makeTree({
    'f.sh': `#!/bin/sh
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "line $i" >&2; done
cat > "$KUBERNETES_PATCH_PATH" <<'EOF2'
{"operation":"MergePatch","kind":"Foo","name":"a","subresource":"/status","mergePatch":{"status":{"ok":false}},"ignoreHookError":true}
{"operation":"MergePatch","kind":"Foo","name":"b","mergePatch":{"x":1}}
EOF2
exit 4
`,
  });
  await assert.rejects(runShellHook(hookRun(root, 'f.sh')), (e: Error) => {
    assert.ok(e instanceof HookRunError);
    assert.match(e.message, /^hook hooks\/f\.sh failed: exit code 4; last lines of stderr:\n {2}line 3\n/);
    assert.match(e.message, /line 12$/);
    assert.deepEqual(e.kubernetesOnFailure.map((o) => ('name' in o ? o.name : '')), ['a']);
    return true;
  });
});

test('a hook past its timeout gets SIGTERM, then SIGKILL, and fails; the processes it started die with it', async () => {
  const root = makeTree({});
  const pidFile = join(root, 'sleep.pid');
  writeTree(root, { 't.sh': `#!/bin/bash\ntrap '' TERM\nsleep 600 &\necho $! > '${pidFile}'\nwait\n` });
  // the timeout leaves bash time to start the sleep and write its pid on a loaded machine (0.2 s did not at load 21)
  await assert.rejects(runShellHook(hookRun(root, 't.sh', { timeoutMs: 1500, graceMs: 200 })), /hook hooks\/t\.sh failed: timed out after 1\.5s and was killed/);
  // the background `sleep` holds the hook's output pipe: it must not outlive the killed run
  const pid = Number(readFileSync(pidFile, 'utf8'));
  const alive = () => {
    try {
      return !/^\d+ \([^)]*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(alive(), false, `sleep (pid ${pid}) is still running`);
});

test('a hook that prints 50 MB keeps memory bounded and the log is truncated with a note', async () => {
  const root = makeTree({ 'big.sh': '#!/bin/bash\nhead -c 50000000 /dev/zero | tr "\\0" "x" | fold -w 1000\n' });
  const lines: string[] = [];
  const rssBefore = process.memoryUsage().rss;
  await runShellHook(hookRun(root, 'big.sh', { log: (_s, l) => lines.push(l) }));
  const grown = process.memoryUsage().rss - rssBefore;
  assert.ok(grown < 200 * 1024 * 1024, `rss grew by ${grown} bytes`);
  assert.ok(lines.length < 1100, `${lines.length} lines logged`);
  assert.match(lines[lines.length - 1]!, /hook output truncated: more than 1048576 bytes/);
});

test('LOG_PROXY_HOOK_JSON hands JSON lines to the logger as fields', async () => {
  const root = makeTree({ 'j.sh': '#!/bin/sh\necho \'{"msg":"hello","level":"info","n":1}\'\necho plain\n' });
  const seen: unknown[] = [];
  await runShellHook(hookRun(root, 'j.sh', { proxyJsonLogs: true, log: (_s, l, f) => seen.push(f ?? l) }));
  assert.deepEqual(seen, [{ msg: 'hello', level: 'info', n: 1 }, 'plain']);
});

test('unreadable outputs fail the run naming the file variable, the hook and the position', async () => {
  const root = makeTree({
    'p.sh': '#!/bin/sh\nprintf \'[{"op":"add","path":"/mod/a","value":1},\\n {"op": ]\' > "$VALUES_JSON_PATCH_PATH"\n',
    'm.sh': '#!/bin/sh\necho \'{"name":"x","action":"increment","value":1}\' > "$METRICS_PATH"\n',
    'k.sh': '#!/bin/sh\necho \'{"operation":"Delete","kind":"Pod"}\' > "$KUBERNETES_PATCH_PATH"\n',
  });
  await assert.rejects(runShellHook(hookRun(root, 'p.sh')), /\$VALUES_JSON_PATCH_PATH of hook hooks\/p\.sh: invalid JSON at line 2 column \d+/);
  await assert.rejects(runShellHook(hookRun(root, 'm.sh')), /\$METRICS_PATH of hook hooks\/m\.sh, line 1 column 1: unknown action "increment"/);
  await assert.rejects(runShellHook(hookRun(root, 'k.sh')), /\$KUBERNETES_PATCH_PATH of hook hooks\/k\.sh, document 1: "Delete" needs "name"/);
});

test('metrics: shortcuts, groups, expire and every validation rule', () => {
  assert.deepEqual(parseMetrics('{"name":"a","add":2}{"group":"g","action":"expire"}\n{"name":"h","action":"observe","value":0.3,"buckets":[0.1,1],"group":"g"}', 'hk'), [
    { action: 'add', name: 'a', value: 2, labels: {}, group: 'hk' },
    { action: 'expire', group: 'g' },
    { action: 'observe', name: 'h', value: 0.3, buckets: [0.1, 1], labels: {}, group: 'g' },
  ]);
  assert.throws(() => parseMetrics('{"name":"a","action":"set"}', 'hk'), /"set" needs a numeric "value"/);
  assert.throws(() => parseMetrics('{"name":"a","action":"observe","value":1}', 'hk'), /"observe" needs "buckets"/);
  assert.throws(() => parseMetrics('{"action":"add","value":1}', 'hk'), /needs a metric "name"/);
  assert.throws(() => parseMetrics('{"name":"a","set":1,"add":1}', 'hk'), /cannot be used together/);
  assert.throws(() => parseMetrics('{"name":"a b","set":1}', 'hk'), /not a valid metric name/);
  assert.throws(() => parseMetrics('{"name":"a","set":1,"labels":{"k":1}}', 'hk'), /label "k" must be a string/);
  assert.throws(() => parseMetrics('{"name":"a","set":1,"extra":1}', 'hk'), /unknown key "extra"/);
  assert.deepEqual(parseMetrics('', 'hk'), []);
});

test('kubernetes operations: JSON or YAML, object as text, and validation of every kind', () => {
  const ops = parseKubernetesOperations(
    'operation: Create\nobject: |\n  {"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}\n---\noperation: JSONPatch\nkind: Deployment\nname: d\nnamespace: ns\njsonPatch: \'[{"op":"replace","path":"/spec/replicas","value":2}]\'\n---\noperation: JQPatch\napiVersion: apps/v1\nkind: Deployment\nname: d\njqFilter: .spec.replicas = 1\nignoreMissingObject: true\n---\noperation: DeleteInBackground\nkind: Pod\nname: p\n',
    'hk',
  );
  assert.deepEqual(ops.map((o) => o.operation), ['Create', 'JSONPatch', 'JQPatch', 'DeleteInBackground']);
  assert.deepEqual(ops[0]!.operation === 'Create' && ops[0]!.object.metadata, { name: 's' });
  assert.throws(() => parseKubernetesOperations('{"operation":"Create","object":{"kind":"Secret","apiVersion":"v1","metadata":{}}}', 'hk'), /"object" needs metadata\.name/);
  assert.throws(() => parseKubernetesOperations('{"operation":"Explode"}', 'hk'), /"operation" must be one of/);
  assert.throws(() => parseKubernetesOperations('{"operation":"JQPatch","kind":"A","name":"b"}', 'hk'), /"JQPatch" needs "jqFilter"/);
  assert.throws(() => parseKubernetesOperations('{"operation":"Delete","kind":"A","name":"b","bogus":1}', 'hk'), /unknown key "bogus"/);
  assert.throws(() => parseKubernetesOperations('operation: [\n', 'hk'), /invalid YAML in \$KUBERNETES_PATCH_PATH of hook hk:\d+:\d+/);
});

test('values outputs apply all or nothing; a global hook may set Enabled flags, a module hook may not', () => {
  const root = makeTree({ 'openapi/values.yaml': 'type: object\nproperties:\n  a: {type: integer}\n  b: {type: integer}\n', 'openapi/config-values.yaml': 'type: object\nproperties:\n  a: {type: integer}\n' });
  const mod = new ScopeValues('mod', 'module mod', loadScopeSchemas(join(root, 'openapi')));
  const r = applyValuesOutputs(mod, { configValuesPatch: [{ op: 'add', path: '/mod/a', value: 1 }], valuesPatch: [{ op: 'add', path: '/mod/b', value: 2 }] }, 'hooks/x', 'module');
  assert.deepEqual(r.savedConfig, { a: 1 });
  assert.equal(r.valuesChanged, true);
  assert.deepEqual(mod.effective(), { a: 1, b: 2 });
  assert.throws(() => applyValuesOutputs(mod, { configValuesPatch: [{ op: 'add', path: '/mod/a', value: 5 }], valuesPatch: [{ op: 'add', path: '/mod/b', value: 'bad' }] }, 'hooks/x', 'module'), /mod\.b: must be integer/);
  assert.deepEqual(mod.configValues, { a: 1 }, 'the config patch was rolled back');
  assert.deepEqual(mod.effective(), { a: 1, b: 2 });
  assert.throws(() => applyValuesOutputs(mod, { configValuesPatch: [], valuesPatch: [{ op: 'add', path: '/otherEnabled', value: true }] }, 'hooks/x', 'module'), /only global hooks may set a module's Enabled flag/);
  // an op on a missing path fails the run and changes nothing
  assert.throws(
    () => applyValuesOutputs(mod, { configValuesPatch: [], valuesPatch: [{ op: 'add', path: '/mod/b', value: 3 }, { op: 'replace', path: '/mod/nope/deep', value: 1 }] }, 'hooks/x', 'module'),
    /hooks\/x: operation 1 \(replace \/mod\/nope\/deep\) failed: \/mod\/nope\/deep does not exist/,
  );
  assert.deepEqual(mod.effective(), { a: 1, b: 2 });

  const global = new ScopeValues('global', 'global');
  const g = applyValuesOutputs(global, { configValuesPatch: [{ op: 'add', path: '/fooEnabled', value: false }], valuesPatch: [{ op: 'add', path: '/global/x', value: 1 }, { op: 'remove', path: '/barEnabled' }] }, 'g.sh', 'global');
  assert.deepEqual([...g.enabledFlags], [['foo', false], ['bar', null]]);
  assert.deepEqual(global.effective(), { x: 1 });
  assert.throws(() => applyValuesOutputs(global, { configValuesPatch: [], valuesPatch: [{ op: 'add', path: '/fooEnabled', value: 'yes' }] }, 'g.sh', 'global'), /takes add\/replace with true or false/);
});
