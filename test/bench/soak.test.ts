import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge, type Sample } from '../../bench/soak.js';

const series = (rss: number[], queues: (i: number) => Record<string, number> = () => ({ main: 0 })): Sample[] =>
  rss.map((rssMiB, i) => ({ minute: i + 1, rssMiB, queues: queues(i), changes: 0, configEdits: 0, load: 1 }));

test('memory growth: the means of three samples from the warm-up on and of the last three', () => {
  // minutes 5-7 average 100, the last three 110: +10 %
  const v = judge(series([50, 80, 90, 95, 99, 100, 101, 105, 108, 110, 112]));
  assert.ok(Math.abs(v.growth! - 0.1) < 1e-9, String(v.growth));
  assert.ok(v.slopeMiBPerMin! > 2, 'the second half climbs');
  const flat = judge(series([50, 80, 90, 95, 100, 100, 100, 100, 100, 100, 100]));
  assert.equal(flat.growth, 0);
  assert.equal(flat.slopeMiBPerMin, 0);
  assert.equal(judge(series([50, 80, 90, 95, 100, 100, 100])).growth, undefined, 'the last three overlap the warm-up window: not judged');
});

test('a queue that is longer at each of the last three samples and not empty keeps growing; one that drains does not', () => {
  const growing = judge(series([1, 1, 1, 1, 1, 1], (i) => ({ main: [0, 5, 0, 3, 6, 9][i]!, other: [9, 0, 1, 2, 3, 0][i]! })));
  assert.deepEqual(growing.growing, ['main']);
  assert.deepEqual(judge(series([1, 1, 1, 1], () => ({ main: 7 }))).growing, [], 'steady is not growing');
});
