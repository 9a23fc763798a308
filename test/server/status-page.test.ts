/**
 * The live status page in a real browser: Debian's chromium driven by playwright-core. It loads with
 * no console errors, lists the modules and queues, updates when a module re-runs, and leaves a
 * screenshot in test-artifacts/. Chromium is installed by scripts/check-tools.sh; where it could not
 * be, the test says so and skips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { chromium } from 'playwright-core';
import { makeTree } from '../helpers/tree.js';
import { bashHook, logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { requestJson } from '../../src/kube/http.js';
import { ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS as FLAGS, consoleProblems } from '../helpers/browser.js';


test('the status page lists modules and queues and follows a module re-run', { skip: existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: scripts/check-tools.sh could not install chromium` }, async () => {
  const root = makeTree({
    'global-hooks/hooks/startup': bashHook({ configVersion: 'v1', onStartup: 1 }, 'exit 0'),
    'modules/values.yaml': 'echoEnabled: true\n',
    'modules/001-echo/Chart.yaml': 'apiVersion: v2\nname: echo\nversion: 0.1.0\n',
    'modules/001-echo/values.yaml': 'echo:\n  greeting: hello\n',
    'modules/001-echo/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo\ndata:\n  greeting: {{ .Values.echo.greeting | quote }}\n',
    'modules/001-echo/hooks/before': bashHook({ configVersion: 'v1', beforeHelm: 1 }, 'exit 0'),
    'modules/002-spare/Chart.yaml': 'apiVersion: v2\nname: spare\nversion: 0.1.0\n',
  });
  const kubeconfig = join(root, 'kubeconfig');
  const op = startOperator(root, ['--sandbox-kubeconfig', kubeconfig]);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    await waitFor(() => op.output().includes('startup converge done'), 'the first converge', 60_000);
    const base = String(logRecords(op.output()).find((r) => String(r.msg).startsWith('HTTP server listening'))!.address);

    const page = await browser.newPage();
    const problems = consoleProblems(page);
    await page.goto(base + '/');
    await page.waitForSelector('#module-echo');

    const cells = async (selector: string) => page.locator(selector).locator('td').allTextContents();
    const echo = await cells('#module-echo');
    assert.deepEqual(echo.slice(0, 3), ['1', 'echo', 'Ready']);
    assert.equal(echo[3], 'Ready: 1 object(s) ready');
    assert.match(echo[4]!, /echoEnabled/);
    assert.match(echo[7]!, /^success/);
    assert.equal(echo[8], 'installed');
    assert.deepEqual((await cells('#module-spare')).slice(1, 3), ['spare', 'disabled']);
    const queues = await page.locator('#queues tr td:first-child').allTextContents();
    assert.ok(queues.includes('main'), queues.join(','));
    assert.match((await page.locator('#summary').textContent()) ?? '', /converged/);
    const hookRows = await page.locator('#hooks tr').count();
    assert.ok(hookRows >= 2, `hook runs listed: ${hookRows}`);

    // a config change re-runs the module: the page shows the new run without a reload
    const before = await page.locator('#module-echo').getAttribute('title');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    await requestJson(kc, 'POST', '/api/v1/namespaces/addons/configmaps', {}, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'addon-operator' },
      data: { echo: 'greeting: hi\n' },
    });
    await waitFor(async () => (await page.locator('#module-echo').getAttribute('title')) !== before, 'the page to show the new run', 60_000);
    assert.match((await cells('#module-echo'))[8]!, /^upgraded$/);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'status-page.png'), fullPage: true });
    assert.deepEqual(problems, [], 'no console errors or warnings');
  } finally {
    await browser.close();
    op.child.kill('SIGTERM');
  }
  assert.equal(await op.exited, 0, op.output());
});
