/**
 * The examples' in-process hooks are written in TypeScript (`*.hook.mts`, type-checked with the rest
 * of the tree) and run as the `*.hook.mjs` compiled from them: each compiled file is exactly what
 * `tsc --module nodenext --target es2022` makes of its source, so the two never drift apart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const EXAMPLES = join(import.meta.dirname, '../../examples');

const sources = (readdirSync(EXAMPLES, { recursive: true }) as string[]).filter((p) => p.endsWith('.hook.mts')).map((p) => join(EXAMPLES, p));

test('the examples have TypeScript hooks', () => {
  assert.ok(sources.length >= 2, sources.join(', '));
});

for (const source of sources) {
  test(`${relative(EXAMPLES, source)} is compiled into the .hook.mjs beside it`, () => {
    const compiled = ts.transpileModule(readFileSync(source, 'utf8'), {
      fileName: source,
      compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const target = source.replace(/\.mts$/, '.mjs');
    assert.equal(readFileSync(target, 'utf8'), compiled, `${relative(EXAMPLES, target)} is stale: recompile it with npx tsc --module nodenext --target es2022 --skipLibCheck ${relative(join(EXAMPLES, '..'), source)}`);
  });
}
