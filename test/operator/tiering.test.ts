import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INTERRUPT_BUDGET, tuneTiering } from '../../src/operator/tiering.js';

test("the operator's interrupt budget is set unless the node command line or NODE_OPTIONS sets one", () => {
  assert.equal(INTERRUPT_BUDGET, 270_336);
  assert.equal(tuneTiering(['--interrupt-budget=1000'], ''), false);
  assert.equal(tuneTiering(['--max-semi-space-size=4'], '--max-old-space-size=512 --interrupt_budget=5000'), false);
  assert.equal(tuneTiering(['--max-semi-space-size=4'], '--max-old-space-size=512'), true);
});
