import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge, median, theilSen, type RssSample, type Sample } from '../../bench/soak.js';

/** RSS every 10 s for `minutes` minutes, from f(second). */
const dense = (minutes: number, f: (s: number) => number): RssSample[] => Array.from({ length: minutes * 6 }, (_, k) => ({ s: (k + 1) * 10, rssMiB: f((k + 1) * 10) }));
/** Per-minute samples: each minute's median of `rss`, the queues from `queues`. */
const perMinute = (rss: RssSample[], minutes: number, queues: (i: number) => Record<string, number> = () => ({ main: 0 })): Sample[] =>
  Array.from({ length: minutes }, (_, i) => {
    const mine = rss.filter((r) => r.s > i * 60 && r.s <= (i + 1) * 60).map((r) => r.rssMiB);
    return { minute: i + 1, rssMiB: median(mine), rssMinMiB: Math.min(...mine), rssMaxMiB: Math.max(...mine), queues: queues(i), changes: 0, configEdits: 0, load: 1 };
  });

test('a saw-tooth with no trend is no growth, wherever single readings would fall', () => {
  // V8's collections: 100 MiB rising to 130 MiB over 70 s, then back; minutes 5-7 of a one-reading-a-minute
  // series would hold the troughs
  const rss = dense(30, (s) => 100 + 30 * ((s % 70) / 70));
  const v = judge(rss, perMinute(rss, 30), 30);
  assert.ok(Math.abs(v.growth!) < 0.03, `growth ${v.growth}`);
  assert.ok(Math.abs(v.slopeMiBPerMin!) < 0.3, `slope ${v.slopeMiBPerMin}`);
  assert.equal(v.first!.samples, 31);
  assert.equal(v.last!.samples, 31);
  assert.deepEqual(v.growing, []);
});

test('a leak under the saw-tooth is growth: median of the last window against the first after the warm-up, and a Theil-Sen trend', () => {
  // +1 MiB a minute under the same saw-tooth: minutes 5-10 against 25-30 is +20 MiB on about 120
  const rss = dense(30, (s) => 100 + s / 60 + 30 * ((s % 70) / 70));
  const v = judge(rss, perMinute(rss, 30), 30);
  assert.ok(v.growth! > 0.12 && v.growth! < 0.2, `growth ${v.growth}`);
  assert.ok(Math.abs(v.slopeMiBPerMin! - 1) < 0.3, `slope ${v.slopeMiBPerMin}`);
  assert.ok(v.trend! > 0.1, `trend ${v.trend}`);
  // flat: zero
  const flat = dense(30, () => 100);
  assert.deepEqual([judge(flat, perMinute(flat, 30), 30).growth, judge(flat, perMinute(flat, 30), 30).slopeMiBPerMin], [0, 0]);
  // too short for two windows after the warm-up: not judged
  const short = dense(14, () => 100);
  assert.equal(judge(short, perMinute(short, 14), 14).growth, undefined);
});

test('Theil-Sen ignores a few outliers that move a least-squares line', () => {
  const points = Array.from({ length: 20 }, (_, i) => ({ x: i, y: i === 3 || i === 17 ? 0 : 100 }));
  assert.equal(theilSen(points), 0);
  assert.equal(theilSen([{ x: 1, y: 1 }]), undefined);
  assert.equal(median([3, 1, 2, 10]), 2.5);
});

test('a queue that is longer at each of the last three minutes and not empty keeps growing; one that drains does not', () => {
  const rss = dense(6, () => 1);
  const growing = judge(rss, perMinute(rss, 6, (i) => ({ main: [0, 5, 0, 3, 6, 9][i]!, other: [9, 0, 1, 2, 3, 0][i]! })), 6);
  assert.deepEqual(growing.growing, ['main']);
  assert.deepEqual(judge(rss, perMinute(rss, 4, () => ({ main: 7 })), 4).growing, [], 'steady is not growing');
});
