/** examples/startup-global-hook: the onStartup hook runs once, before the module, and its values reach the chart. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runExample } from './helpers.js';

test('examples/startup-global-hook', async () => {
  const ex = await runExample('startup-global-hook');
  const cm = await ex.get<{ data: Record<string, string> }>('/api/v1/namespaces/default/configmaps/cluster-info');
  assert.deepEqual(cm.data, { name: 'prod-eu', domain: 'prod-eu.cluster.internal', derivedBy: 'onStartup' });
  const records = ex.records();
  const hookRuns = records.filter((r) => r.hook === 'hooks/cluster-info.sh' && r.output === 'stdout');
  assert.deepEqual(hookRuns.map((r) => [r.msg, r.binding]), [['cluster prod-eu: domain prod-eu.cluster.internal', 'onStartup']]);
  const firstModuleRun = records.findIndex((r) => r.msg === '[1/1] module cluster-info: run started');
  assert.ok(records.indexOf(hookRuns[0]!) < firstModuleRun, 'the hook ran before the module');
  assert.equal(await ex.stop(), 0);
});
