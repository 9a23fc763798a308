/**
 * The HTTP server of `addon-operator start` (DESIGN §3.3, reference/addon-operator.md §3.1 and §4), as a
 * user meets it: probes answer during a long start, /readyz flips after the first converge, metric
 * names, types and labels are the Go original's, hook metrics are served, unknown routes list the
 * routes, and a port in use stops the start with one line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { bashHook, logRecords, startArgs, startOperator, waitFor } from '../helpers/operator-process.js';

const P = 'addon_operator_';

/** The metrics of reference §4 this design produces: name → [type, label names]. */
const EXPECTED: Record<string, [string, string[]]> = {
  live_ticks: ['counter', []],
  binding_count: ['gauge', ['module', 'hook']],
  config_values_errors_total: ['counter', []],
  modules_discover_errors_total: ['counter', []],
  module_run_seconds: ['histogram', ['module', 'activation']],
  module_run_errors_total: ['counter', ['module']],
  module_delete_errors_total: ['counter', ['module']],
  mm_module_info: ['gauge', ['module', 'enabled', 'critical']],
  binding_monitor_missing_total: ['counter', ['binding']],
  factory_informer_dead_total: ['counter', ['gvr', 'namespace']],
  module_hook_run_seconds: ['histogram', ['module', 'hook', 'binding', 'queue', 'activation']],
  module_hook_run_user_cpu_seconds: ['histogram', ['module', 'hook', 'binding', 'queue', 'activation']],
  module_hook_run_sys_cpu_seconds: ['histogram', ['module', 'hook', 'binding', 'queue', 'activation']],
  module_hook_run_max_rss_bytes: ['gauge', ['module', 'hook', 'binding', 'queue', 'activation']],
  module_hook_success_total: ['counter', ['module', 'hook', 'binding', 'queue', 'activation']],
  module_hook_errors_total: ['counter', ['module', 'hook', 'binding', 'queue', 'activation']],
  module_hook_allowed_errors_total: ['counter', ['module', 'hook', 'binding', 'queue', 'activation']],
  global_hook_run_seconds: ['histogram', ['hook', 'binding', 'queue', 'activation']],
  global_hook_run_user_cpu_seconds: ['histogram', ['hook', 'binding', 'queue', 'activation']],
  global_hook_run_sys_cpu_seconds: ['histogram', ['hook', 'binding', 'queue', 'activation']],
  global_hook_run_max_rss_bytes: ['gauge', ['hook', 'binding', 'queue', 'activation']],
  global_hook_success_total: ['counter', ['hook', 'binding', 'queue', 'activation']],
  global_hook_errors_total: ['counter', ['hook', 'binding', 'queue', 'activation']],
  global_hook_allowed_errors_total: ['counter', ['hook', 'binding', 'queue', 'activation']],
  convergence_seconds: ['counter', ['activation']],
  convergence_total: ['counter', ['activation']],
  module_helm_seconds: ['histogram', ['module', 'activation']],
  helm_operation_seconds: ['histogram', ['module', 'activation', 'operation']],
  task_wait_in_queue_seconds_total: ['counter', ['module', 'hook', 'binding', 'queue']],
  tasks_queue_length: ['gauge', ['queue']],
  tasks_queue_head_info: ['gauge', ['queue', 'module', 'task_type', 'hook']],
  kube_snapshot_objects: ['gauge', ['module', 'hook', 'binding', 'queue', 'kind']],
  kube_snapshot_bytes: ['gauge', ['module', 'hook', 'binding', 'queue', 'kind']],
  kube_jq_filter_duration_seconds: ['histogram', ['module', 'hook', 'binding', 'queue', 'kind']],
  kube_event_duration_seconds: ['histogram', ['module', 'hook', 'binding', 'queue', 'kind']],
  kubernetes_client_watch_errors_total: ['counter', ['error_type']],
  kubernetes_client_request_latency_seconds: ['histogram', ['component', 'verb', 'url']],
  kubernetes_client_request_result_total: ['counter', ['component', 'code', 'method', 'host']],
};

/** Prometheus text → name → { type, label names seen on its samples }. */
function parseExposition(text: string): Map<string, { type: string; labels: Set<string> }> {
  const out = new Map<string, { type: string; labels: Set<string> }>();
  for (const line of text.split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t) {
      out.set(t[1]!, { type: t[2]!, labels: new Set() });
      continue;
    }
    const s = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (!s || line.startsWith('#')) continue;
    const base = [...out.keys()].find((n) => s[1] === n || s[1] === `${n}_bucket` || s[1] === `${n}_sum` || s[1] === `${n}_count`);
    if (!base) continue;
    for (const m of (s[2] ?? '').matchAll(/(\w+)="/g)) if (m[1] !== 'le') out.get(base)!.labels.add(m[1]!);
  }
  return out;
}

async function get(base: string, path: string): Promise<{ status: number; body: string; type: string }> {
  const r = await fetch(base + path);
  return { status: r.status, body: await r.text(), type: r.headers.get('content-type') ?? '' };
}

function moduleSet(gate: string) {
  return makeTree({
    'global-hooks/hooks/startup': bashHook(
      { configVersion: 'v1', onStartup: 1 },
      `while [[ ! -e ${gate} ]]; do sleep 0.05; done
cat > "$METRICS_PATH" <<'M'
{"name":"startup_runs_total","action":"add","value":1,"labels":{"kind":"boot"}}
{"name":"startup_gauge","action":"set","value":42}
{"name":"startup_seconds","action":"observe","value":0.3,"buckets":[0.1,0.5,1]}
{"name":"grouped_gauge","group":"g1","action":"set","value":7}
M`,
    ),
    'global-hooks/hooks/watch-cm': bashHook(
      { configVersion: 'v1', kubernetes: [{ name: 'cms', apiVersion: 'v1', kind: 'ConfigMap', namespace: { nameSelector: { matchNames: ['addons'] } }, jqFilter: '.metadata.name' }] },
      'exit 0',
    ),
    'modules/values.yaml': 'echoEnabled: true\n',
    'modules/001-echo/Chart.yaml': 'apiVersion: v2\nname: echo\nversion: 0.1.0\n',
    'modules/001-echo/values.yaml': 'echo:\n  greeting: hello\n',
    'modules/001-echo/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo\ndata:\n  greeting: {{ .Values.echo.greeting | quote }}\n',
    'modules/001-echo/hooks/before': bashHook({ configVersion: 'v1', beforeHelm: 1 }, 'echo \'{"name":"echo_before","action":"set","value":1}\' > "$METRICS_PATH"; echo before-says-hi'),
    'modules/002-off/Chart.yaml': 'apiVersion: v2\nname: off\nversion: 0.1.0\n',
  });
}

function baseUrl(output: string): string | undefined {
  const rec = logRecords(output).find((r) => String(r.msg).startsWith('HTTP server listening'));
  return rec ? String(rec.address) : undefined;
}

test('probes, converge status, metrics and the status JSON of a running operator', async () => {
  const gateDir = makeTree({ '.keep': '' });
  const gate = join(gateDir, 'open');
  const root = moduleSet(gate);
  const op = startOperator(root);
  try {
    await waitFor(() => baseUrl(op.output()) !== undefined, 'the HTTP server');
    const base = baseUrl(op.output())!;
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/, 'with --sandbox the server listens on 127.0.0.1');

    // during the start: alive, not ready
    await waitFor(async () => (await get(base, '/status/converge')).body.startsWith('STARTUP_CONVERGE_IN_PROGRESS'), 'the first converge to start');
    assert.equal((await get(base, '/healthz')).status, 200);
    const notReady = await get(base, '/readyz');
    assert.deepEqual([notReady.status, notReady.body], [503, 'Startup converge in progress\n']);
    assert.match((await get(base, '/status/converge')).body, /^STARTUP_CONVERGE_IN_PROGRESS: \d+ tasks\nCONVERGE_COUNT: 0\nCONVERGE_RESTARTS: 0\n$/);
    const progress = JSON.parse((await get(base, '/status/converge?output=json')).body) as Record<string, unknown>;
    assert.equal(progress.STARTUP_CONVERGE_DONE, false);
    assert.equal(progress.STARTUP_CONVERGE_NOT_STARTED, false);
    assert.ok((progress.STARTUP_CONVERGE_IN_PROGRESS as number) > 0);

    writeFileSync(gate, '');
    await waitFor(async () => (await get(base, '/readyz')).status === 200, 'readiness');
    assert.equal((await get(base, '/readyz')).body, 'Startup converge done.\n');
    await waitFor(async () => (await get(base, '/status/converge')).body === 'STARTUP_CONVERGE_DONE\nCONVERGE_WAIT_TASK\nCONVERGE_COUNT: 1\nCONVERGE_RESTARTS: 0\n', 'an idle main queue');
    assert.deepEqual(JSON.parse((await get(base, '/status/converge?output=json')).body), {
      CONVERGE_IN_PROGRESS: 0,
      CONVERGE_WAIT_TASK: true,
      STARTUP_CONVERGE_DONE: true,
      STARTUP_CONVERGE_IN_PROGRESS: 0,
      STARTUP_CONVERGE_NOT_STARTED: false,
      CONVERGE_COUNT: 1,
      CONVERGE_RESTARTS: 0,
    });

    // operator metrics: every expected name with its type; labels as Go names them where samples exist
    const metrics = await get(base, '/metrics');
    assert.match(metrics.type, /^text\/plain/);
    const parsed = parseExposition(metrics.body);
    for (const [name, [type, labels]] of Object.entries(EXPECTED)) {
      const m = parsed.get(P + name);
      assert.ok(m, `metric ${P + name} is served`);
      assert.equal(m.type, type, `type of ${P + name}`);
      if (m.labels.size) assert.deepEqual([...m.labels].sort(), [...labels].sort(), `labels of ${P + name}`);
    }
    const samples = metrics.body;
    assert.match(samples, /addon_operator_global_hook_run_seconds_count\{hook="hooks\/startup",binding="onStartup",queue="main",activation="OperatorStartup"\} 1/);
    assert.match(samples, /addon_operator_global_hook_success_total\{hook="hooks\/startup",binding="onStartup",queue="main",activation="OperatorStartup"\} 1/);
    assert.match(samples, /addon_operator_module_hook_run_seconds_count\{module="echo",hook="hooks\/before",binding="beforeHelm",queue="main",activation="OperatorStartup"\} 1/);
    assert.match(samples, /addon_operator_global_hook_run_user_cpu_seconds_count\{hook="hooks\/startup",binding="onStartup",queue="main",activation="OperatorStartup"\} 1/);
    assert.match(samples, /addon_operator_module_hook_run_sys_cpu_seconds_count\{module="echo",hook="hooks\/before",binding="beforeHelm",queue="main",activation="OperatorStartup"\} 1/);
    assert.match(samples, /^addon_operator_module_hook_run_max_rss_bytes\{module="echo",hook="hooks\/before",binding="beforeHelm",queue="main",activation="OperatorStartup"\} [1-9]\d{5,}$/m);
    assert.match(samples, /addon_operator_module_run_seconds_count\{module="echo",activation="OperatorStartup"\} 1/);
    assert.match(samples, /addon_operator_module_helm_seconds_count\{module="echo",activation="OperatorStartup"\} 1/);
    assert.match(samples, /addon_operator_convergence_total\{activation="OperatorStartup"\} 1/);
    assert.match(samples, /addon_operator_mm_module_info\{module="echo",enabled="true",critical="true"\} 1/);
    assert.match(samples, /addon_operator_mm_module_info\{module="off",enabled="false",critical="true"\} 1/);
    assert.match(samples, /addon_operator_binding_count\{module="",hook="hooks\/watch-cm"\} 1/);
    assert.match(samples, /addon_operator_kube_snapshot_objects\{module="",hook="hooks\/watch-cm",binding="cms",queue="main",kind="ConfigMap"\} 1/);
    assert.match(samples, /^addon_operator_kube_snapshot_bytes\{module="",hook="hooks\/watch-cm",binding="cms",queue="main",kind="ConfigMap"\} [1-9]\d+$/m);
    assert.match(samples, /addon_operator_tasks_queue_length\{queue="main"\} \d+$/m);
    // the watch-cm binding's jqFilter ran over the ConfigMaps it lists; API requests by URL template and result
    assert.match(samples, /^addon_operator_kube_jq_filter_duration_seconds_count\{module="",hook="hooks\/watch-cm",binding="cms",queue="main",kind="ConfigMap"\} [1-9]\d*$/m);
    assert.match(samples, /^addon_operator_kubernetes_client_request_latency_seconds_count\{component="main",verb="GET",url="https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/%7Bnamespace%7D\/configmaps\?[^"]*watch=%7Bvalue%7D[^"]*"\} [1-9]\d*$/m);
    assert.match(samples, /^addon_operator_kubernetes_client_request_result_total\{component="main",code="200",method="GET",host="127\.0\.0\.1:\d+"\} [1-9]\d*$/m);
    // the echo release's ConfigMap reaches the watch-cm binding as a watch event
    await waitFor(async () => /^addon_operator_kube_event_duration_seconds_count\{module="",hook="hooks\/watch-cm",binding="cms",queue="main",kind="ConfigMap"\} [1-9]/m.test((await get(base, '/metrics')).body), 'a timed watch event');
    for (const operation of ['template', 'upgrade']) {
      assert.match(samples, new RegExp(`^addon_operator_helm_operation_seconds_count\\{module="echo",activation="OperatorStartup",operation="${operation}"\\} 1$`, 'm'));
    }

    // hook metrics, labelled with the hook
    const hooks = (await get(base, '/metrics/hooks')).body;
    assert.match(hooks, /^startup_runs_total\{hook="hooks\/startup",kind="boot"\} 1$/m);
    assert.match(hooks, /^startup_gauge\{hook="hooks\/startup"\} 42$/m);
    assert.match(hooks, /^startup_seconds_bucket\{hook="hooks\/startup",le="0.5"\} 1$/m);
    assert.match(hooks, /^grouped_gauge\{hook="hooks\/startup"\} 7$/m);
    assert.match(hooks, /^echo_before\{hook="hooks\/before"/m);

    // the status JSON: modules in order with state and reason, the last hook runs
    const status = JSON.parse((await get(base, '/status.json')).body) as {
      modules: Array<{ name: string; enabled: boolean; state: string; reason: string; lastRun?: { result: string; release?: string } }>;
      hookRuns: Array<{ hook: string; result: string }>;
      queues: Array<{ name: string; length: number }>;
    };
    assert.deepEqual(status.modules.map((m) => [m.name, m.enabled, m.state]), [['echo', true, 'Ready'], ['off', false, 'Disabled']]);
    assert.match(status.modules[0]!.reason, /echoEnabled/);
    assert.deepEqual([status.modules[0]!.lastRun?.result, status.modules[0]!.lastRun?.release], ['success', 'installed']);
    assert.ok(status.hookRuns.some((h) => h.hook === 'hooks/startup' && h.result === 'success'));
    assert.ok(status.queues.some((q) => q.name === 'main'));
    assert.doesNotMatch(JSON.stringify(status), /hello/, 'no values in the status');

    // the page itself and an unknown route
    const page = await get(base, '/');
    assert.match(page.type, /^text\/html/);
    assert.match(page.body, /status\.json/);
    const missing = await get(base, '/nope');
    assert.equal(missing.status, 404);
    assert.match(missing.body, /GET \/readyz\n/);

    // a line written during a task carries the task's labels
    const said = logRecords(op.output()).find((r) => r.msg === 'before-says-hi');
    assert.deepEqual(
      said && [said.module, said.hook, said.binding, said.queue, said.task, said['event.type']],
      ['echo', 'hooks/before', 'beforeHelm', 'main', 'ModuleRun', 'Reload-All-Modules'],
      JSON.stringify(said),
    );

    // progress lines in the log
    const msgs = logRecords(op.output()).map((r) => String(r.msg));
    assert.ok(msgs.includes('[1/1] module echo: run started'), msgs.join('\n'));
    assert.ok(msgs.some((m) => /^\[1\/1\] module echo: installed in \d+\.\d+s$/.test(m)), msgs.join('\n'));
    assert.ok(msgs.some((m) => /^converge #1 done in \d+\.\d+s: 1 of 2 modules enabled$/.test(m)), msgs.join('\n'));
  } finally {
    writeFileSync(gate, '');
    op.child.kill('SIGTERM');
  }
  assert.equal(await op.exited, 0, op.output());
});

test('a listen port in use stops the start with exit code 1 and one line naming it', async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  const port = (blocker.address() as { port: number }).port;
  try {
    const root = makeTree({ 'global-hooks/.keep': '', 'modules/.keep': '' });
    const r = spawnSync(process.execPath, [...startArgs(root), '--listen-port', String(port)], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.equal(r.stderr.trim(), `Error: HTTP server: listen address 127.0.0.1:${port} is in use (--listen-address, --listen-port)`);
  } finally {
    blocker.close();
  }
});
