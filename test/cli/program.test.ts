// The command line's answers to a misspelled command (with or without options after it) and to
// `--version`, as a user types them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN } from '../helpers/operator-process.js';
import { nearestName } from '../../src/cli/nearest-name.js';

const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], { encoding: 'utf8' });
const version = (JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }).version;

test('a misspelled command followed by an option is an unknown command with the nearest one, not an option error of start', () => {
  for (const args of [['rendr', '--values'], ['rendr'], ['--log-level', 'debug', 'rendr']]) {
    const r = cli(args);
    assert.equal(r.status, 1, args.join(' '));
    assert.match(r.stderr, /^Error: unknown command "rendr"; did you mean "render"\? \(commands: version, start, render, .*\)\n$/, args.join(' '));
    assert.equal(r.stdout, '');
  }
  const queue = cli(['qeue', 'list']);
  assert.match(queue.stderr, /^Error: unknown command "qeue"; did you mean "queue"\?/);
  // nothing near: the commands alone
  assert.match(cli(['frobnicate', '--x']).stderr, /^Error: unknown command "frobnicate" \(commands: /);
});

test('--version prints the version as the version command does', () => {
  for (const args of [['--version'], ['version']]) {
    const r = cli(args);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `addon-operator ${version}\n`);
  }
});

test('the nearest name: a few edits away, none for a word far from every name', () => {
  const names = ['version', 'start', 'render', 'helm', 'sandbox', 'jq', 'queue', 'module'];
  assert.equal(nearestName('rendr', names), 'render');
  assert.equal(nearestName('strat', names), 'start');
  assert.equal(nearestName('modlue', names), 'module');
  assert.equal(nearestName('frobnicate', names), undefined);
  assert.equal(nearestName('x', names), undefined);
});
