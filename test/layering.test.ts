// DESIGN §2 layering, read from the imports of every file under src/: the core (operator, modules,
// hooks, values, queue) imports neither adapter (kube, helm) nor the wiring (cli); nothing but cli
// imports cli; the leaf libraries (gotemplate, jq, sandbox) import only their own files, node: built-ins
// and npm dependencies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const CORE = ['operator', 'modules', 'hooks', 'values', 'queue'];
const ADAPTERS = ['kube', 'helm'];
const LEAVES = ['gotemplate', 'jq', 'sandbox'];
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };

/** `import ... from '…'` and `export ... from '…'` statements, `import('…')`, bare `import '…'`. */
const IMPORT = /^\s*(?:import|export)\s[^;]*?\bfrom\s*'([^']+)'|\bimport\s*\(\s*'([^']+)'\s*\)|^\s*import\s*'([^']+)'/gm;

interface Import {
  /** The importing file, relative to src/. */
  file: string;
  spec: string;
  /** The top-level folder of src/ a relative import lands in; undefined for a package or built-in. */
  area?: string;
}

/** Every static, dynamic and re-export import of every .ts file under src/. */
function imports(): Import[] {
  const out: Import[] = [];
  for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    for (const m of readFileSync(join(SRC, file), 'utf8').matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      out.push({ file, spec, area: spec.startsWith('.') ? relative(SRC, resolve(dirname(join(SRC, file)), spec)).split('/')[0] : undefined });
    }
  }
  return out;
}

const areaOf = (file: string) => file.split('/')[0]!;
const all = imports();

test('the imports are read: every area of the layering has files importing something', () => {
  for (const area of [...CORE, ...ADAPTERS, ...LEAVES, 'cli']) assert.ok(all.some((i) => areaOf(i.file) === area), `no imports read in src/${area}`);
  assert.ok(all.some((i) => areaOf(i.file) === 'helm' && i.area === 'kube'), 'an adapter importing an adapter is seen');
});

test('the core imports neither the adapters (kube, helm) nor the wiring (cli)', () => {
  const bad = all.filter((i) => CORE.includes(areaOf(i.file)) && i.area !== undefined && [...ADAPTERS, 'cli'].includes(i.area));
  assert.deepEqual(bad.map((i) => `src/${i.file} imports ${i.spec}`), []);
});

test('nothing outside src/cli imports src/cli', () => {
  const bad = all.filter((i) => areaOf(i.file) !== 'cli' && i.area === 'cli');
  assert.deepEqual(bad.map((i) => `src/${i.file} imports ${i.spec}`), []);
});

test('leaf libraries import only their own files, node: built-ins and npm dependencies', () => {
  for (const leaf of LEAVES) assert.ok(all.filter((i) => areaOf(i.file) === leaf).length > 10, `src/${leaf} is read`);
  const bad = all.filter((i) => {
    const leaf = areaOf(i.file);
    if (!LEAVES.includes(leaf)) return false;
    return i.area === undefined ? !(i.spec.startsWith('node:') || i.spec in pkg.dependencies) : i.area !== leaf;
  });
  assert.deepEqual(bad.map((i) => `src/${i.file} imports ${i.spec}`), []);
});
