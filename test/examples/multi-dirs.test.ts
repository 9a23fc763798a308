/** examples/multi-dirs: modules from two dirs, one of them a symlink named differently from its target. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { OPERATOR, runExample } from './helpers.js';

test('examples/multi-dirs', async () => {
  const ex = await runExample('multi-dirs');
  const secrets = await ex.get<{ items: Array<{ metadata: { name: string } }> }>('/api/v1/namespaces/default/secrets');
  assert.deepEqual(secrets.items.map((s) => s.metadata.name).sort(), ['sh.helm.release.v1.backend.v1', 'sh.helm.release.v1.cache-link.v1', 'sh.helm.release.v1.frontend.v1']);
  for (const [name, chart] of [['backend', 'backend'], ['frontend', 'frontend'], ['cache', 'cache']]) {
    const cm = await ex.get<{ data: { module: string } }>(`/api/v1/namespaces/default/configmaps/${name}`);
    assert.equal(cm.data.module, chart);
  }
  // the debug command of the README, on the example's socket
  const socket = /--debug-unix-socket (\S+)$/m.exec(ex.output())![1]!;
  const [node, ...args] = OPERATOR.split(' ');
  const list = spawnSync(node!, [...args, 'module', 'list', '-o', 'text', '--debug-unix-socket', socket], { encoding: 'utf8', cwd: join(import.meta.dirname, '../..') });
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, /^backend +Ready/m);
  assert.match(list.stdout, /^frontend +Ready/m);
  assert.match(list.stdout, /^cache-link +Ready/m);
  assert.equal(await ex.stop(), 0);
});
