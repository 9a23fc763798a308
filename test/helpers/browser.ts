/** The status page tests' browser: Debian's chromium for playwright-core, its flags, the screenshot directory, console problems. */
import { join } from 'node:path';
import type { Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts');
// flags that keep Chromium off the network this machine does not have (reference: env notes)
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The console errors and warnings and the uncaught errors of `page`, collected as they come. */
export function consoleProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return problems;
}
