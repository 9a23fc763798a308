import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter } from '../../src/util/rate-limit.js';

test('a hook rate limit lets a burst through, then one run per interval', async () => {
  const limiter = new RateLimiter(80, 2);
  const start = Date.now();
  // the burst resolves without waiting on any timer: an immediate scheduled now has not run yet
  // (a wall-clock check here failed on a loaded machine)
  let timerTurnPassed = false;
  setImmediate(() => (timerTurnPassed = true));
  assert.equal(await limiter.take(), true);
  assert.equal(await limiter.take(), true);
  assert.equal(timerTurnPassed, false, 'the burst did not wait');
  assert.equal(await limiter.take(), true);
  const third = Date.now() - start;
  assert.ok(third >= 75, `the third run waited for a token (${third} ms)`);
});

test('no interval means no limit; an aborted wait gives false', async () => {
  assert.equal(await new RateLimiter(0, 1).take(), true);
  const limiter = new RateLimiter(10_000, 1);
  await limiter.take();
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 20);
  assert.equal(await limiter.take(ac.signal), false);
});
