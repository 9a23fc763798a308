// bench/fleet/profile-share.ts: the share of a CPU profile under some frames (inclusive, idle left
// out), and the module health's frames found in a real profile of the built code (dist/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isHealthFrame, profileShare } from '../../bench/fleet/profile-share.js';

test('profileShare: samples with a matching frame anywhere on their stack, against every sample but (idle)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'profile-share-'));
  try {
    const frame = (functionName: string, url = 'file:///x.js') => ({ functionName, url });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 3, 6] },
        { id: 2, callFrame: frame('(idle)', '') },
        { id: 3, callFrame: frame('run'), children: [4] },
        { id: 4, callFrame: frame('health'), children: [5] },
        { id: 5, callFrame: frame('parse') },
        { id: 6, callFrame: frame('(garbage collector)', '') },
      ],
      // idle 1000 µs; run 200; health 300; parse under health 400; gc 100
      samples: [2, 3, 4, 5, 6],
      timeDeltas: [1000, 200, 300, 400, 100],
    };
    const file = join(dir, 'p.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    assert.deepEqual(profileShare(file, (f) => f.functionName === 'health'), { busyMs: 1, matchedMs: 0.7 });
    assert.deepEqual(profileShare(file, () => false), { busyMs: 1, matchedMs: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("isHealthFrame finds the built object-health code in a real profile, and not the rest", () => {
  const dir = mkdtempSync(join(tmpdir(), 'profile-share-'));
  try {
    const url = `file://${resolve(import.meta.dirname, '../../dist/helm/object-health.js')}`;
    // the loop statuses Deployments (health, about half of it) and builds strings (not health): far
    // from both bounds, as a loaded machine's preemption lands on either
    const script = `
      const { objectHealth } = await import(${JSON.stringify(url)});
      const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x', generation: 2 }, spec: { replicas: 3 },
        status: { observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, conditions: [{ type: 'Available', status: 'True' }] } };
      const other = () => { let s = ''; for (let i = 0; i < 200; i++) s += i.toString(36); return s.length; };
      let n = 0;
      const end = Date.now() + 400;
      while (Date.now() < end) { for (let i = 0; i < 200; i++) { for (let k = 0; k < 8; k++) n += objectHealth(d).status.length; n += other(); } }
      if (!n) throw new Error('no work');
    `;
    const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
    const { busyMs, matchedMs } = profileShare(join(dir, file), isHealthFrame);
    assert.ok(matchedMs > 0.05 * busyMs && matchedMs < 0.95 * busyMs, `health ${matchedMs} ms of ${busyMs} ms busy`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
