// docs/configuration.md is generated from the commands' definitions (scripts/gen-config-doc.mjs):
// it must be up to date, name every flag of every command, and every environment variable the CLI
// and the kubeconfig loader read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { runHelmTemplate } from '../../src/cli/helm-template.js';

const root = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(root, 'docs/configuration.md'), 'utf8');

void test('docs/configuration.md is what scripts/gen-config-doc.mjs makes of the sources', async () => {
  const script = join(root, 'scripts/gen-config-doc.mjs');
  const { configurationDoc } = (await import(script)) as { configurationDoc: (impl: object) => Promise<string> };
  const fresh = await configurationDoc({ buildProgram, runHelmTemplate });
  assert.ok(doc === fresh, 'docs/configuration.md is stale: run npm run build, then node scripts/gen-config-doc.mjs');
});

void test('every command and every flag is in it', () => {
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  const path = (c: Command): string => (c.parent ? `${path(c.parent)} ${c.name()}` : c.name());
  let flags = 0;
  for (const c of all(buildProgram()).slice(1)) {
    if (c.commands.length === 0) assert.ok(doc.includes(`## \`${path(c)}\``), `a section for ${path(c)}`);
    if (c.name() === 'jq' || (c.name() === 'template' && c.parent?.name() === 'helm')) continue;
    for (const o of c.options) {
      const section = doc.slice(doc.indexOf(`## \`${path(c)}\``));
      assert.ok(section.slice(0, section.indexOf('\n## ', 3) >>> 0).includes(`| \`${o.flags}\` |`), `${path(c)} ${o.flags}`);
      flags++;
    }
  }
  assert.ok(flags > 40, `${flags} flags`);
  // helm template's own flags, from its --help
  for (const f of ['--set-json', '--show-only', '--kube-version', '--include-crds']) assert.ok(doc.includes(f), f);
});

void test('every environment variable named in src/cli and the kubeconfig loader is in it', () => {
  const files = [...readdirSync(join(root, 'src/cli')).map((f) => join(root, 'src/cli', f)), join(root, 'src/kube/load-kubeconfig.ts')];
  const names = new Set<string>();
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/'([A-Z][A-Z0-9]*_[A-Z0-9_]+)'|\benv\)?\.([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)\b|\(env \$?([A-Z][A-Z0-9_]+)/g)) names.add(m[1] ?? m[2] ?? m[3]!);
  }
  for (const n of ['ADDON_OPERATOR_HA', 'KUBECONFIG', 'HELM_NAMESPACE', 'MODULES_DIR', 'KUBERNETES_SERVICE_HOST']) assert.ok(names.has(n), `the scan finds ${n}`);
  const missing = [...names].filter((n) => !doc.includes(`\`${n}\``));
  assert.deepEqual(missing, [], 'variables missing in docs/configuration.md');
});
