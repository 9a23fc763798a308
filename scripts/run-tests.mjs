#!/usr/bin/env node
// Runs every test file under test/ (or the files/folders given) with node's test runner and tsx.
// Node 20 neither expands globs for --test nor strips types, hence this script.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(path, out) {
  const st = statSync(path);
  if (st.isFile()) {
    if (/\.test\.(ts|mts|js|mjs)$/.test(path)) out.push(path);
    return out;
  }
  for (const entry of readdirSync(path).sort()) {
    if (entry === 'node_modules' || entry === 'fixtures' || entry.startsWith('.')) continue;
    collect(join(path, entry), out);
  }
  return out;
}

const args = process.argv.slice(2);
const roots = args.length ? args : ['test'];
const files = roots.flatMap((r) => collect(resolve(r), []));
if (files.length === 0) {
  console.error('run-tests: no test files found under', roots.join(' '));
  process.exit(1);
}
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, TZ: 'UTC' } },
);
process.exit(r.status ?? 1);
