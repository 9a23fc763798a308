import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FamilySet, HistogramFamily, ValueFamily } from '../../src/metrics/series.js';
import { OperatorMetrics } from '../../src/metrics/operator-metrics.js';

test('families render the text format: cumulative buckets with le last, escapes, values as Go prints them', () => {
  const set = new FamilySet();
  const h = set.add(new HistogramFamily('lat_seconds', 'Latency\nof "things"', ['module', 'hook'], [0.1, 1]));
  const c = set.add(new ValueFamily('runs_total', 'Runs', 'counter', ['hook']));
  const g = set.add(new ValueFamily('empty', 'Nothing yet', 'gauge', []));
  h.observe(['a', 'x"y\\z\nw'], 0.05);
  h.observe(['a', 'x"y\\z\nw'], 0.5);
  h.observe(['a', 'x"y\\z\nw'], 7);
  h.observe(['b', 'h'], 0.1);
  c.inc(['h1']);
  c.inc(['h1'], 2.5);
  c.set(['h2'], NaN);
  void g;
  assert.equal(
    set.render(),
    [
      '# HELP lat_seconds Latency\\nof "things"',
      '# TYPE lat_seconds histogram',
      'lat_seconds_bucket{module="a",hook="x\\"y\\\\z\\nw",le="0.1"} 1',
      'lat_seconds_bucket{module="a",hook="x\\"y\\\\z\\nw",le="1"} 2',
      'lat_seconds_bucket{module="a",hook="x\\"y\\\\z\\nw",le="+Inf"} 3',
      'lat_seconds_sum{module="a",hook="x\\"y\\\\z\\nw"} 7.55',
      'lat_seconds_count{module="a",hook="x\\"y\\\\z\\nw"} 3',
      // a value equal to a bound falls in that bucket (le is "less or equal")
      'lat_seconds_bucket{module="b",hook="h",le="0.1"} 1',
      'lat_seconds_bucket{module="b",hook="h",le="1"} 1',
      'lat_seconds_bucket{module="b",hook="h",le="+Inf"} 1',
      'lat_seconds_sum{module="b",hook="h"} 0.1',
      'lat_seconds_count{module="b",hook="h"} 1',
      '',
      '# HELP runs_total Runs',
      '# TYPE runs_total counter',
      'runs_total{hook="h1"} 3.5',
      'runs_total{hook="h2"} NaN',
      '',
      '# HELP empty Nothing yet',
      '# TYPE empty gauge',
      '',
    ].join('\n'),
  );
});

test('a series is found by its label values; a wrong number of values is refused', () => {
  const f = new ValueFamily('x', 'x', 'counter', ['a', 'b']);
  assert.equal(f.series(['1', '2']), f.series(['1', '2']));
  assert.notEqual(f.series(['1', '2']), f.series(['12', '']));
  assert.throws(() => f.series(['1']), /x: 1 label values for 2 labels/);
});

test('hook run metrics: module and global series apart, counters and CPU series only once used', async () => {
  const m = new OperatorMetrics({ prefix: 'p_' });
  const mod = { module: 'echo', hook: 'hooks/a', binding: 'beforeHelm', queue: 'main', activation: 'OperatorStartup' };
  const glob = { hook: 'hooks/g', binding: 'schedule', queue: 'main', activation: '' };
  m.hookRun(mod, 0.2);
  m.hookRun(mod, 0.3, { userSeconds: 0.01, sysSeconds: 0.02, maxRssBytes: 4096 });
  m.hookTaskResult(mod, 'success');
  m.hookTaskResult(mod, 'success');
  m.hookRun(glob, 3);
  m.hookTaskResult(glob, 'allowed');
  const text = await m.render();
  const labels = 'module="echo",hook="hooks/a",binding="beforeHelm",queue="main",activation="OperatorStartup"';
  assert.match(text, new RegExp(`\\np_module_hook_run_seconds_count\\{${labels}\\} 2\\n`));
  assert.match(text, new RegExp(`\\np_module_hook_run_seconds_sum\\{${labels}\\} 0\\.5\\n`));
  assert.match(text, new RegExp(`\\np_module_hook_run_user_cpu_seconds_count\\{${labels}\\} 1\\n`));
  assert.match(text, new RegExp(`\\np_module_hook_run_max_rss_bytes\\{${labels}\\} 4096\\n`));
  assert.match(text, new RegExp(`\\np_module_hook_success_total\\{${labels}\\} 2\\n`));
  assert.doesNotMatch(text, /p_module_hook_errors_total\{/);
  assert.match(text, /\np_global_hook_run_seconds_bucket\{hook="hooks\/g",binding="schedule",queue="main",activation="",le="2\.5"\} 0\n/);
  assert.match(text, /\np_global_hook_run_seconds_bucket\{hook="hooks\/g",binding="schedule",queue="main",activation="",le="5"\} 1\n/);
  assert.match(text, /\np_global_hook_allowed_errors_total\{hook="hooks\/g",binding="schedule",queue="main",activation=""\} 1\n/);
  assert.doesNotMatch(text, /p_global_hook_run_user_cpu_seconds_count/);
  // every family is announced once, whether it has series or not; prom-client's counters follow
  for (const name of ['p_module_hook_errors_total', 'p_global_hook_run_max_rss_bytes', 'p_live_ticks', 'p_config_values_errors_total']) {
    assert.equal(text.split(`# TYPE ${name} `).length, 2, name);
  }
});

test('scraped gauges are rebuilt from their sources at every scrape', async () => {
  let modules: { name: string; enabled: boolean; critical?: boolean }[] = [{ name: 'a', enabled: true, critical: false }, { name: 'b', enabled: false }];
  const m = new OperatorMetrics({ sources: { modules: () => modules, queues: () => [{ queue: 'main', length: 3, head: { taskType: 'ModuleRun', module: 'a', hook: '' } }] } });
  let text = await m.render();
  assert.match(text, /\naddon_operator_mm_module_info\{module="b",enabled="false",critical="true"\} 1\n/);
  // a functional module (module.yaml without critical: true)
  assert.match(text, /\naddon_operator_mm_module_info\{module="a",enabled="true",critical="false"\} 1\n/);
  assert.match(text, /\naddon_operator_tasks_queue_length\{queue="main"\} 3\n/);
  assert.match(text, /\naddon_operator_tasks_queue_head_info\{queue="main",module="a",task_type="ModuleRun",hook=""\} 1\n/);
  modules = [{ name: 'a', enabled: true }];
  text = await m.render();
  assert.doesNotMatch(text, /module="b"/);
});

test('config_values_errors_total counts up every 5 s while the config is invalid, and stops once it is valid', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const m = new OperatorMetrics();
  const errors = async () => Number(/\naddon_operator_config_values_errors_total (\d+)\n/.exec(await m.render())?.[1]);
  m.start();
  t.mock.timers.tick(10_000);
  assert.equal(await errors(), 0);
  m.configValid(false);
  t.mock.timers.tick(15_000);
  assert.equal(await errors(), 3);
  m.configValid(true);
  t.mock.timers.tick(15_000);
  assert.equal(await errors(), 3);
  assert.match(await m.render(), /\naddon_operator_live_ticks 4\n/);
  m.stop();
});

test("the object patcher's API requests have their own object_patcher_ metrics, as in the Go operator", async () => {
  const m = new OperatorMetrics();
  m.kubeRequestResult({ component: 'main', code: '200', method: 'GET', host: 'h' });
  m.kubeRequestResult({ component: 'object_patcher', code: '201', method: 'POST', host: 'h' });
  m.kubeRequestLatency({ component: 'object_patcher', verb: 'POST', url: 'https://h/api/v1/namespaces/%7Bnamespace%7D/configmaps', seconds: 0.003 });
  const text = await m.render();
  assert.match(text, /\naddon_operator_kubernetes_client_request_result_total\{component="main",code="200",method="GET",host="h"\} 1\n/);
  assert.match(text, /\nobject_patcher_kubernetes_client_request_result_total\{component="object_patcher",code="201",method="POST",host="h"\} 1\n/);
  assert.match(text, /\nobject_patcher_kubernetes_client_request_latency_seconds_bucket\{component="object_patcher",verb="POST",url="https:\/\/h\/api\/v1\/namespaces\/%7Bnamespace%7D\/configmaps",le="0\.005"\} 1\n/);
  assert.doesNotMatch(text, /addon_operator_kubernetes_client_request_result_total\{component="object_patcher"/);
});

test('a large exposition is rendered in parts of about 32 KB, whose concatenation is the text, line for line', () => {
  const set = new FamilySet();
  const c = set.add(new ValueFamily('runs_total', 'Runs', 'counter', ['hook']));
  const g = set.add(new ValueFamily('small', 'Small', 'gauge', []));
  for (let i = 0; i < 1000; i++) c.inc([`hook-${String(i).padStart(4, '0')}-${'x'.repeat(100)}`]);
  g.set([], 1);
  const parts = set.renderParts();
  const lines = ['# HELP runs_total Runs', '# TYPE runs_total counter', ...Array.from({ length: 1000 }, (_, i) => `runs_total{hook="hook-${String(i).padStart(4, '0')}-${'x'.repeat(100)}"} 1`), '', '# HELP small Small', '# TYPE small gauge', 'small 1', ''];
  assert.equal(parts.join(''), lines.join('\n'));
  assert.equal(set.render(), lines.join('\n'));
  assert.ok(parts.length > 4, `${parts.length} parts`);
  for (const p of parts) assert.ok(p.length < 40_000, `a part of ${p.length} characters`);
});
