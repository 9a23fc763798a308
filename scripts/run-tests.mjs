#!/usr/bin/env node
// Runs every test file under test/ (or the files/folders given), each in its own Node process with
// tsx (Node 20 neither expands globs for --test nor strips types, hence this script).
//
//   node scripts/run-tests.mjs [FILE|DIR]... [--node-flag=value]...
//
// One file: its output as it comes. Several: up to TEST_CONCURRENCY files at a time (default: twice
// the CPUs, at least 2; most test files spend their time waiting on timers, servers and child
// processes, not computing), the slowest known ones first; each file's output is printed whole when
// it ends, then a summary with the slowest files. Durations are remembered in
// node_modules/.cache/run-tests/durations.json for the next run's order. A file still running after
// TEST_FILE_TIMEOUT seconds (default 600) is killed and fails: its tests are counted from the events
// scripts/test-events-reporter.mjs wrote as they came (those passed, failed, skipped, and the ones
// not finished, named with the test it was running). Flags such as --test-name-pattern=REGEX are
// passed to every test process.
//
// @kubernetes/client-node is about a thousand modules: loaded through tsx's (off-thread) module
// hooks it costs a process about 1.3 s more CPU than loaded natively. A test file that imports it
// (directly or through the sources it imports) gets it preloaded before tsx is registered, and its
// own imports find it in the module cache.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

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
const nodeFlags = args.filter((a) => a.startsWith('--'));
const roots = args.filter((a) => !a.startsWith('--'));
const files = (roots.length ? roots : ['test']).flatMap((r) => collect(resolve(r), []));
if (files.length === 0) {
  console.error('run-tests: no test files found under', roots.join(' ') || 'test');
  process.exit(1);
}

const env = { ...process.env, TZ: 'UTC' };
const PRELOAD = ['@kubernetes/client-node'];
const EVENTS_REPORTER = fileURLToPath(new URL('./test-events-reporter.mjs', import.meta.url));
/** Node's arguments for a test file; with `events`, the test events are also written to that file. */
const testArgs = (file, events) => [
  ...[...packagesImportedBy(file)].filter((p) => PRELOAD.includes(p)).flatMap((p) => ['--import', import.meta.resolve(p)]),
  '--import',
  'tsx',
  '--test-reporter=spec',
  ...(events ? ['--test-reporter-destination=stdout', `--test-reporter=${EVENTS_REPORTER}`, `--test-reporter-destination=${events}`] : []),
  ...nodeFlags,
  file,
];
const positive = (v, def) => (Number(v) > 0 ? Number(v) : def);
const concurrency = positive(process.env.TEST_CONCURRENCY, Math.max(2, 2 * availableParallelism()));
const timeoutMs = positive(process.env.TEST_FILE_TIMEOUT, 600) * 1000;

if (files.length === 1) {
  const child = spawn(process.execPath, testArgs(files[0]), { stdio: 'inherit', env });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await runAll();
}

async function runAll() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const cachePath = join(root, 'node_modules', '.cache', 'run-tests', 'durations.json');
  let known = {};
  try {
    known = JSON.parse(readFileSync(cachePath, 'utf8'));
  } catch {
    // first run: no order to go by
  }
  const name = (f) => relative(root, f);
  // unknown (new) files first, then the slowest known ones
  const order = [...files].sort((a, b) => (known[name(b)] ?? Infinity) - (known[name(a)] ?? Infinity));

  // the test processes have their own process groups: whatever ends this one ends them too
  const running = new Set();
  process.on('exit', () => {
    for (const child of running) killGroup(child);
  });
  process.on('SIGINT', () => process.exit(130));
  process.on('SIGTERM', () => process.exit(143));
  process.stdout.on('error', () => process.exit(1));

  const eventsDir = mkdtempSync(join(tmpdir(), 'run-tests-'));
  process.on('exit', () => rmSync(eventsDir, { recursive: true, force: true }));
  const started = Date.now();
  const results = [];
  let next = 0;
  const worker = async () => {
    while (next < order.length) {
      const file = order[next++];
      results.push(await runFile(file, running, join(eventsDir, `${next}.jsonl`)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, order.length) }, worker));

  const totals = { tests: 0, pass: 0, fail: 0, skipped: 0, unfinished: 0 };
  for (const r of results) for (const k of Object.keys(totals)) totals[k] += r.counts[k] ?? 0;
  const failed = results.filter((r) => !r.ok);
  const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
  console.log(`\nrun-tests: ${results.length} files in ${secs(Date.now() - started)} (${concurrency} at a time)`);
  console.log(`  tests ${totals.tests}, pass ${totals.pass}, fail ${totals.fail}, skipped ${totals.skipped}${totals.unfinished ? `, unfinished ${totals.unfinished} (in killed files)` : ''}`);
  console.log('  slowest files:');
  for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, 8)) console.log(`    ${secs(r.ms).padStart(8)}  ${name(r.file)}`);
  if (failed.length) {
    console.log(`  FAILED files (${failed.length}):`);
    for (const r of failed) console.log(`    ${name(r.file)}${r.why ? ` (${r.why})` : ''}`);
  }

  for (const r of results) known[name(r.file)] = r.ms;
  try {
    mkdirSync(dirname(cachePath), { recursive: true });
    writeFileSync(cachePath, JSON.stringify(known, null, 1) + '\n');
  } catch {
    // a read-only checkout runs in the default order next time
  }
  process.exit(failed.length ? 1 : 0);
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function runFile(file, running, events) {
  return new Promise((done) => {
    const t0 = Date.now();
    // its own process group, so that a timeout also ends the processes the tests started
    const child = spawn(process.execPath, testArgs(file, events), { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    let why = '';
    const timer = setTimeout(() => {
      why = `killed after ${timeoutMs / 1000} s (TEST_FILE_TIMEOUT)`;
      killGroup(child);
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      const ms = Date.now() - t0;
      const out = Buffer.concat(chunks).toString('utf8');
      let counts = {};
      for (const m of out.matchAll(/^ℹ (tests|pass|fail|skipped) (\d+)$/gm)) counts[m[1]] = Number(m[2]);
      if (why) {
        // killed: no summary was printed; the events say how far it got
        const progress = eventCounts(events);
        counts = progress.counts;
        why += `: ${progress.text}`;
      }
      if (!why && code !== 0) why = signal ? `ended by ${signal}` : `exit code ${code}`;
      const ok = !why;
      process.stdout.write(`\n${ok ? '✔' : '✖'} ${relative(process.cwd(), file)} (${(ms / 1000).toFixed(1)} s)${why ? `: ${why}` : ''}\n${out}`);
      done({ file, ms, ok, why, counts });
    });
  });
}

/**
 * The tests of a file from its events (test-events-reporter.mjs): counted as the spec reporter counts
 * them (suites are not tests), those not finished are `unfinished`; the text names the ones running.
 */
function eventCounts(path) {
  let lines = [];
  try {
    lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  } catch {
    // no event written: killed before its first test
  }
  let queued = 0;
  let suites = 0;
  const counts = { tests: 0, pass: 0, fail: 0, skipped: 0, unfinished: 0 };
  const running = [];
  for (const line of lines) {
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      continue; // the last line, cut by the kill
    }
    const key = `${e.nesting}\0${e.name}`;
    if (e.event === 'enqueue') queued++;
    else if (e.event === 'dequeue') running.push({ key, name: e.name });
    else {
      const i = running.findLastIndex((r) => r.key === key);
      if (i >= 0) running.splice(i, 1);
      if (e.suite) suites++;
      else if (e.event === 'fail') counts.fail++;
      else if (e.skip) counts.skipped++;
      else counts.pass++;
    }
  }
  counts.tests = queued - suites;
  counts.unfinished = counts.tests - counts.pass - counts.fail - counts.skipped;
  const text = `${counts.tests} tests, ${counts.pass} passed, ${counts.fail} failed, ${counts.skipped} skipped, ${counts.unfinished} unfinished${running.length ? ` (running: ${running.map((r) => r.name).join(' > ')})` : ''}`;
  return { counts, text };
}

/** The npm packages a source file loads at run time, through its relative imports too. */
function packagesImportedBy(file, seen = new Set(), out = new Set()) {
  if (seen.has(file)) return out;
  seen.add(file);
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  const specs = [];
  for (const m of text.matchAll(/\b(import|export)\s+(type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g)) if (!m[2]) specs.push(m[3]);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]);
  for (const spec of specs) {
    if (spec.startsWith('node:')) continue;
    if (!spec.startsWith('.')) {
      out.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
      continue;
    }
    const base = resolve(dirname(file), spec);
    const target = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')].find((f) => {
      try {
        return statSync(f).isFile();
      } catch {
        return false;
      }
    });
    if (target && /\.[mc]?[jt]s$/.test(target)) packagesImportedBy(target, seen, out);
  }
  return out;
}
