// src/sandbox is a leaf library (DESIGN §2): it imports nothing from the rest of src/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

test('leaf library: imports only its own modules, node: built-ins and npm dependencies', () => {
  const dir = fileURLToPath(new URL('../../src/sandbox/', import.meta.url));
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length > 10);
  for (const f of files) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      const spec = m[1];
      if (spec.startsWith('.')) assert.ok(resolve(dirname(join(dir, f)), spec).startsWith(dir), `${f} imports ${spec}, outside src/sandbox`);
      else assert.ok(spec.startsWith('node:') || spec in pkg.dependencies, `${f} imports ${spec}, not a dependency`);
    }
  }
});
