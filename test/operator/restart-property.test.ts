/**
 * Converge restarts, property-based (issue 21): random module counts, random ConfigMap edits (global
 * section, a module's section, an `*Enabled` flag) at random times while the operator converges on
 * the sandbox with real hook processes. After the last edit settles, every invariant holds on the
 * trace, and the releases and the objects their charts made equal those of a cold start with the
 * final config. Seeds are fixed (the first line of a failure names the case); ADDON_OPERATOR_PROPERTY_SEED
 * runs one more. Few cases, run side by side, to stay within CI time.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { settle } from './helpers.js';
import { checkInvariants, NS, started, world } from './restart-world.js';
import { requestJson } from '../../src/kube/http.js';
import { rng } from '../jq/random.js';

const NAMES = ['alpha', 'beta', 'gamma', 'delta'];

interface Case {
  modules: string[];
  enabled: string[];
  edits: Array<{ delayMs: number; data: Record<string, string> }>;
}

function makeCase(seed: number): Case {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const modules = NAMES.slice(0, 2 + Math.floor(r() * 3));
  const enabled = modules.filter(() => r() < 0.75);
  const on = new Set(enabled);
  const edits = Array.from({ length: 2 + Math.floor(r() * 4) }, (_, i) => {
    const kind = pick(['global', 'module', 'enabled'] as const);
    const m = pick(modules);
    let data: Record<string, string>;
    if (kind === 'global') data = { global: `x: ${i + 1}\n` };
    else if (kind === 'module') data = { [m]: `v: v${i + 1}\n` };
    else {
      // flips the module
      data = { [`${m}Enabled`]: on.has(m) ? 'false' : 'true' };
      if (on.has(m)) on.delete(m);
      else on.add(m);
    }
    return { delayMs: Math.floor(r() * 1200), data };
  });
  return { modules, enabled, edits };
}

async function runCase(seed: number): Promise<void> {
  const c = makeCase(seed);
  const what = `seed ${seed}: ${JSON.stringify(c)}`;
  const w = await world({ modules: c.modules, enabled: c.enabled });
  let final: Record<string, string> = {};
  try {
    await w.s.op.start();
    for (const e of c.edits) {
      await new Promise((r) => setTimeout(r, e.delayMs));
      await w.edit(e.data);
      final = { ...final, ...e.data };
    }
    await w.s.op.converge.whenFirstDone();
    await settle(w.s.op);
    const enabled = [...w.s.op.manager.enabledModules];
    try {
      checkInvariants(w.s.trace.lines(), enabled);
      assert.ok(w.maxPendingConverges <= 1, `${w.maxPendingConverges} converges waited at once`);
    } catch (e) {
      throw new Error(`${what}\n${(e as Error).message}`, { cause: e });
    }
    const got = { enabled, releases: await w.releases(), objects: await w.objects() };
    // a cold start with the final config
    const cold = await started(await world({ modules: c.modules, enabled: c.enabled, config: final }));
    try {
      const want = { enabled: [...cold.s.op.manager.enabledModules], releases: await cold.releases(), objects: await cold.objects() };
      assert.deepEqual(got, want, what);
      const cm = await requestJson<{ data?: Record<string, string> }>(w.kc, 'GET', `/api/v1/namespaces/${NS}/configmaps/addon-operator`);
      assert.deepEqual(cm.data ?? {}, final, what);
    } finally {
      await cold.stop();
    }
  } finally {
    await w.stop();
  }
}

const SEEDS = [4, 9, 11, 33, 36];
const extra = Number(process.env.ADDON_OPERATOR_PROPERTY_SEED);

describe('random edits at random times during converges', { concurrency: 2 }, () => {
  for (const seed of Number.isInteger(extra) ? [...SEEDS, extra] : SEEDS) {
    test(`seed ${seed}: invariants hold, and the end state equals a cold start with the final config`, () => runCase(seed));
  }
});
