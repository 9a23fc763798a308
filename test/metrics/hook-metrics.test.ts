import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HookMetricsStorage } from '../../src/metrics/hook-metrics.js';
import { parseMetrics } from '../../src/hooks/outputs/metrics.js';

test('each run that writes metrics replaces its group; a run that writes none keeps them', () => {
  const s = new HookMetricsStorage();
  s.apply('hooks/a.sh', parseMetrics('{"name":"items","set":3,"labels":{"kind":"x"}}\n{"name":"runs","add":1}', 'hooks/a.sh'));
  s.apply('hooks/a.sh', parseMetrics('{"name":"items","set":5,"labels":{"kind":"y"}}\n{"name":"runs","add":1}', 'hooks/a.sh'));
  assert.equal(s.render(), '# HELP items items\n# TYPE items gauge\nitems{hook="hooks/a.sh",kind="y"} 5\n# HELP runs runs\n# TYPE runs counter\nruns{hook="hooks/a.sh"} 1\n');
  s.apply('hooks/a.sh', []);
  assert.match(s.render(), /kind="y"/);
});

test('explicit groups, expire, histograms and the hook label', () => {
  const s = new HookMetricsStorage();
  s.apply('h', parseMetrics('{"name":"lat","action":"observe","value":0.3,"buckets":[1,0.1],"group":"g"}{"name":"lat","action":"observe","value":2,"buckets":[1,0.1],"group":"g"}{"name":"x","set":1,"labels":{"hook":"spoofed"},"group":"other"}', 'h'));
  assert.equal(
    s.render(),
    [
      '# HELP lat lat',
      '# TYPE lat histogram',
      'lat_bucket{hook="h",le="0.1"} 0',
      'lat_bucket{hook="h",le="1"} 1',
      'lat_bucket{hook="h",le="+Inf"} 2',
      'lat_sum{hook="h"} 2.3',
      'lat_count{hook="h"} 2',
      '# HELP x x',
      '# TYPE x gauge',
      'x{hook="h"} 1',
      '',
    ].join('\n'),
  );
  s.apply('h', parseMetrics('{"action":"expire","group":"g"}', 'h'));
  assert.doesNotMatch(s.render(), /lat/);
  assert.match(s.render(), /x\{hook="h"\} 1/);
});

test('a metric used with two types fails and changes nothing', () => {
  const s = new HookMetricsStorage();
  s.apply('h', parseMetrics('{"name":"m","set":1}', 'h'));
  assert.throws(() => s.apply('h2', parseMetrics('{"name":"m","add":1}', 'h2')), /metric "m" is used as a gauge and as a counter/);
  assert.throws(() => s.apply('h3', parseMetrics('{"name":"n","add":1}{"name":"n","set":1}', 'h3')), /used as a counter and as a gauge/);
  assert.equal(s.render(), '# HELP m m\n# TYPE m gauge\nm{hook="h"} 1\n');
});

test('a series its group sets again at every run starts afresh, also a histogram with new buckets, and one shared with a group left alone keeps counting', () => {
  const s = new HookMetricsStorage();
  const run = (text: string) => s.apply('h', parseMetrics(text, 'h'));
  run('{"name":"runs","add":2}{"name":"runs","add":1}{"name":"lat","action":"observe","value":0.5,"buckets":[1],"group":"g"}{"name":"shared","add":1,"group":"keep"}');
  run('{"name":"runs","add":1}{"name":"lat","action":"observe","value":3,"buckets":[5,2],"group":"g"}{"name":"shared","add":1,"group":"g"}');
  assert.equal(
    s.render(),
    [
      '# HELP lat lat',
      '# TYPE lat histogram',
      'lat_bucket{hook="h",le="2"} 0',
      'lat_bucket{hook="h",le="5"} 1',
      'lat_bucket{hook="h",le="+Inf"} 1',
      'lat_sum{hook="h"} 3',
      'lat_count{hook="h"} 1',
      '# HELP runs runs',
      '# TYPE runs counter',
      'runs{hook="h"} 1',
      '# HELP shared shared',
      '# TYPE shared counter',
      'shared{hook="h"} 2',
      '',
    ].join('\n'),
  );
  // group g now owns lat and shared: a run of g that sets only lat drops shared; expire drops the rest
  run('{"name":"lat","action":"observe","value":1,"buckets":[1],"group":"g"}');
  assert.match(s.render(), /lat_bucket\{hook="h",le="1"\} 1\n/);
  assert.doesNotMatch(s.render(), /shared/);
  run('{"action":"expire","group":"g"}');
  assert.equal(s.render(), '# HELP runs runs\n# TYPE runs counter\nruns{hook="h"} 1\n');
});

test('hooks of two modules with the same name each keep their own default group (unlike Go since its #629); other groups are shared', () => {
  const s = new HookMetricsStorage();
  const run = (module: string, text: string) => s.apply('hooks/watch.mjs', parseMetrics(text, 'hooks/watch.mjs'), module);
  for (const module of ['a', 'b', 'a']) run(module, '{"name":"seen","set":1}');
  assert.equal(s.render(), '# HELP seen seen\n# TYPE seen gauge\nseen{hook="hooks/watch.mjs",module="a"} 1\nseen{hook="hooks/watch.mjs",module="b"} 1\n');
  run('b', '{"action":"expire","group":"hooks/watch.mjs"}');
  assert.equal(s.render(), '# HELP seen seen\n# TYPE seen gauge\nseen{hook="hooks/watch.mjs",module="a"} 1\n', "naming its own group expires the module's own series only");
  run('a', '{"name":"total","set":1,"group":"shared"}');
  run('b', '{"name":"total","set":2,"group":"shared"}');
  assert.match(s.render(), /^total\{hook="hooks\/watch.mjs",module="b"\} 2$/m);
  assert.doesNotMatch(s.render(), /module="a"\} 1\ntotal|total\{[^}]*module="a"/, "a shared group's run drops the other module's series, as in Go");
});
