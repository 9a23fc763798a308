// Shared pieces of the fault-tolerance suite: the long/short mode, the seed of the random runs.
export { rng as random } from '../jq/random.js';

/**
 * `RELIABILITY_LONG=1` runs the scenarios at the sizes of issue 13 (5,000 mutations, watches dropped
 * every 2 s); CI runs them smaller (same steps, fewer mutations, drops more often).
 */
export const LONG = process.env.RELIABILITY_LONG === '1';

export function seed(): number {
  const s = process.env.RELIABILITY_SEED ? Number(process.env.RELIABILITY_SEED) : Math.floor(Math.random() * 2 ** 31);
  console.log(`# RELIABILITY_SEED=${s}${LONG ? ' RELIABILITY_LONG=1' : ''}`);
  return s;
}
