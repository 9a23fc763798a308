#!/usr/bin/env node
// Builds native/hook-exec.c into dist/native/hook-exec with the system's C compiler, part of
// `npm run build`. hook-exec gives each hook run its CPU seconds and maximum resident set size as
// Linux accounts them (wait4). Without a compiler the operator still works: hooks are started
// directly and their max RSS is not measured; this says so once, here.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'native', 'hook-exec');
if (process.platform !== 'linux') {
  console.log('build-native: not Linux, hook-exec is not built (hook CPU and max RSS are not measured)');
  process.exit(0);
}
mkdirSync(dirname(out), { recursive: true });
const cc = process.env.CC || 'cc';
// statically linked where the C library allows it: the binary in the npm package then runs on any
// Linux of the same CPU, whatever its C library (the operator checks the CPU before using it)
const args = ['-O2', '-Wall', '-s', '-o', out, join(root, 'native', 'hook-exec.c')];
try {
  try {
    execFileSync(cc, ['-static', ...args], { stdio: ['ignore', 'ignore', 'ignore'] });
  } catch (e) {
    if (e.code === 'ENOENT') throw e;
    execFileSync(cc, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  }
} catch (e) {
  const why = e.code === 'ENOENT' ? `no C compiler (${cc}) found` : `${cc} failed`;
  console.log(`build-native: ${why}; hook-exec is not built, so hook max RSS is not measured (install gcc and run npm run build to have it)`);
}
