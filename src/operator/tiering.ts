/**
 * When V8 optimizes the operator's functions. V8 counts the bytecode a function runs against an
 * "interrupt budget" and hands the function to TurboFan (on a background thread) once it has spent
 * the budget a few times. With V8's default budget (66 KiB in Node 20) the operator's cold converge
 * compiled much of its warm-but-not-hot code: about 1.3 s of background-thread CPU in the fleet bench,
 * a quarter of the operator's CPU. Four times the budget halves that thread time while the hot paths
 * (JSON, HTTP, events) still get optimized; tier-up counts executions, not time, so a long-running
 * operator reaches the same optimized code, a little later (docs/performance.md, "Fifth round").
 */
import { setFlagsFromString } from 'node:v8';

/** V8's default interrupt budget in Node 20 (V8 11.3), times four. */
export const INTERRUPT_BUDGET = 4 * 67_584;

/**
 * Sets the operator's interrupt budget, unless the node command line or NODE_OPTIONS sets one (that
 * wins). True when set here.
 */
export function tuneTiering(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if ([...execArgv, nodeOptions].some((a) => /--interrupt[-_]budget\b/.test(a))) return false;
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
  return true;
}
