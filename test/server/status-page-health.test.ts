/**
 * The status page's health in a real browser (Debian's chromium, playwright-core) on `start --sandbox`
 * with the simulated controllers: modules enabled one after another take the header from Ready to
 * Progressing (a Deployment whose Pods crash), Degraded (a failing Job) and Failed (a failing hook),
 * each time naming the worst module and why; rows carry their health's colour class; a module's name
 * opens its objects with their status. A screenshot per state goes to test-artifacts/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { chromium, type Page } from 'playwright-core';
import { makeTree } from '../helpers/tree.js';
import { bashHook, logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { requestJson } from '../../src/kube/http.js';
import { ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS as FLAGS, consoleProblems } from '../helpers/browser.js';
import { CRASHING, FAILING_JOB, deployment } from '../helpers/workloads.js';


const chart = (dir: string, kind: string, body: string): Record<string, string> => ({
  [`modules/${dir}/Chart.yaml`]: `apiVersion: v2\nname: ${dir.replace(/^\d+-/, '')}\nversion: 0.1.0\n`,
  [`modules/${dir}/templates/${kind}.yaml`]: body,
});



test('the status page colours the header and rows by health and lists a module\'s objects', { skip: existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: scripts/check-tools.sh could not install chromium` }, async () => {
  const root = makeTree({
    'global-hooks/.keep': '',
    'modules/values.yaml': 'webEnabled: true\nstuckEnabled: false\nbatchEnabled: false\nbrokenEnabled: false\n',
    ...chart('001-web', 'deploy', deployment('web')),
    // its Pods crash: never Available, Progressing for the 10 minutes of its progress deadline
    ...chart('002-stuck', 'deploy', deployment('api', CRASHING)),
    ...chart('003-batch', 'job', FAILING_JOB),
    ...chart('009-broken', 'cm', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken}\ndata: {a: b}\n'),
    'modules/009-broken/hooks/after': bashHook({ configVersion: 'v1', afterHelm: 10 }, 'echo "cannot reach the backend" >&2; exit 1'),
  });
  const kubeconfig = join(root, 'kubeconfig');
  const op = startOperator(root, ['--sandbox-kubeconfig', kubeconfig]);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  try {
    await waitFor(() => op.output().includes('startup converge done'), 'the first converge', 60_000);
    const base = String(logRecords(op.output()).find((r) => String(r.msg).startsWith('HTTP server listening'))!.address);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const enabled: Record<string, string> = {};
    const enable = async (module: string) => {
      enabled[`${module}Enabled`] = 'true';
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator' }, data: enabled };
      if (Object.keys(enabled).length === 1) await requestJson(kc, 'POST', '/api/v1/namespaces/addons/configmaps', {}, body);
      else await requestJson(kc, 'PUT', '/api/v1/namespaces/addons/configmaps/addon-operator', {}, body);
    };

    const page = await browser.newPage();
    const problems = consoleProblems(page);
    await page.goto(base + '/');

    const summary = async (p: Page) => ({ cls: await p.locator('#summary').getAttribute('class'), text: (await p.locator('#summary').textContent()) ?? '' });
    const moduleRow = async (p: Page, name: string) => ({ cls: await p.locator(`#module-${name}`).getAttribute('class'), health: (await p.locator(`#module-${name} td`).nth(3).textContent()) ?? '' });
    const headerIs = (health: string, text: RegExp, what: string) => waitFor(async () => {
      const s = await summary(page);
      return s.cls === `health-${health}` && text.test(s.text);
    }, what, 60_000);

    // Ready: the only module's Deployment became available
    await headerIs('Ready', /^all modules Ready · converged/, 'the header to say all modules Ready');
    assert.deepEqual(await moduleRow(page, 'web'), { cls: 'health-Ready', health: 'Ready: 1 object(s) ready' });
    assert.equal(await page.locator('#module-web td').nth(3).getAttribute('class'), 'health-Ready');
    await page.screenshot({ path: join(ARTIFACTS, 'status-page-ready.png'), fullPage: true });

    // Progressing: the header names the module and what it waits for
    await enable('stuck');
    await headerIs('Progressing', /^Progressing: stuck: waiting for Deployment addons\/api: Available: 0\/1 · /, 'the header to say stuck is Progressing');
    assert.deepEqual(await moduleRow(page, 'stuck'), { cls: 'health-Progressing', health: 'Progressing: waiting for Deployment addons/api: Available: 0/1' });
    assert.equal((await moduleRow(page, 'web')).cls, 'health-Ready');
    await page.screenshot({ path: join(ARTIFACTS, 'status-page-progressing.png'), fullPage: true });

    // Degraded: the failed Job named, worse than Progressing
    await enable('batch');
    await headerIs('Degraded', /^Degraded: batch: Job addons\/migrate: Job Failed \(BackoffLimitExceeded\)/, 'the header to say batch is Degraded');
    assert.equal((await moduleRow(page, 'batch')).cls, 'health-Degraded');
    // the module's name links to its objects with their status
    await page.locator('#module-batch td a').click();
    await waitFor(async () => (await page.locator('#objects tr').count()) === 1, 'the objects of batch', 60_000);
    assert.match((await page.locator('#objects-title').textContent()) ?? '', /^Objects of batch · Degraded: Job addons\/migrate: Job Failed/);
    assert.deepEqual(await page.locator('#objects tr td').allTextContents(), ['Job addons/migrate', 'Failed', 'Job Failed (BackoffLimitExceeded). failed: 1/1']);
    assert.equal(await page.locator('#objects tr').getAttribute('class'), 'health-Degraded');
    assert.match(page.url(), /#objects-batch$/);
    await page.screenshot({ path: join(ARTIFACTS, 'status-page-degraded.png'), fullPage: true });

    // Failed: the failing hook named, worst of all
    await enable('broken');
    await headerIs('Failed', /^Failed: broken: hook hooks\/after failed: exit code 1/, 'the header to say broken Failed');
    assert.deepEqual(await moduleRow(page, 'broken'), { cls: 'health-Failed', health: (await moduleRow(page, 'broken')).health });
    assert.match((await moduleRow(page, 'broken')).health, /^Failed: hook hooks\/after failed: exit code 1; last lines of stderr:\s+cannot reach the backend$/);
    // a module's objects open from the address too
    const direct = await browser.newPage();
    await direct.goto(base + '/#objects-stuck');
    await waitFor(async () => (await direct.locator('#objects tr').count()) === 1, 'the objects of stuck', 60_000);
    assert.deepEqual(await direct.locator('#objects tr td').allTextContents(), ['Deployment addons/api', 'InProgress', 'Available: 0/1']);
    assert.equal(await direct.locator('#objects tr').getAttribute('class'), 'health-Progressing');
    await page.screenshot({ path: join(ARTIFACTS, 'status-page-failed.png'), fullPage: true });

    // the JSON behind it; an unknown module is a 404 naming it
    const objects = (await (await fetch(`${base}/status.json?module=web`)).json()) as { objects: { object: string; status: string }[] };
    assert.deepEqual(objects.objects.map((o) => [o.object, o.status]), [['Deployment addons/web', 'Current']]);
    const missing = await fetch(`${base}/status.json?module=nope`);
    assert.equal(missing.status, 404);
    assert.equal(await missing.text(), 'no module "nope"\n');
    assert.deepEqual(problems, [], 'no console errors or warnings');
  } finally {
    await browser.close();
    op.child.kill('SIGTERM');
  }
});
