/**
 * The quick start as a new user performs it: a fresh clone (this repository's HEAD plus its
 * uncommitted changes to tracked files) in a temp dir, `npm ci`, `npm start` in the background, then
 * kubectl against the sandbox: the example modules' objects exist; editing the ConfigMap re-runs
 * echo-server (the console and the status page show it), enables metrics-exporter and dashboard (whose
 * hook saves a password to the ConfigMap); a new Namespace reaches the chart through a global hook.
 * Ctrl-C (SIGINT to npm's process group) ends it cleanly (the operator lets running hooks finish), and a second `npm start` in the same clone
 * starts again. `npm start -- --listen-port 0`: the only change to the README's command, so that the
 * test never meets another process on port 9650.
 * `npm ci` prints no warning. Slow (npm ci builds the tree): it reuses the npm cache with --prefer-offline. Needs kubectl.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { waitFor } from '../helpers/operator-process.js';

const ROOT = join(import.meta.dirname, '../..');

const kubectlPath = ['/usr/bin', ...(process.env.PATH ?? '').split(delimiter)].map((d) => join(d, 'kubectl')).find((p) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
});
const skip = kubectlPath ? false : 'kubectl is not installed on this machine: the quick start test is skipped';
if (skip) console.log(`# NOTICE: ${skip}`);

/** A clone of HEAD with the working tree's changes to tracked files applied. */
function freshClone(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ao-quickstart-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const git = (args: string[], cwd = dir, input?: Buffer) => execFileSync('git', args, { cwd, input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 256 << 20 });
  git(['init', '-q']);
  git(['fetch', '-q', '--depth', '1', `file://${ROOT}`, 'HEAD']);
  git(['checkout', '-q', 'FETCH_HEAD']);
  const diff = git(['diff', 'HEAD', '--binary'], ROOT);
  if (diff.length) git(['apply', '--whitespace=nowarn'], dir, diff);
  return dir;
}

/** `npm start` in its own process group, as a terminal runs it (Ctrl-C reaches npm, sh and node). */
function npmStart(dir: string) {
  const child = spawn('npm', ['start', '--', '--listen-port', '0'], { cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (out += c));
  // 'close': npm and every process holding its output (the operator) are gone. npm ends as a shell
  // does on Ctrl-C (by SIGINT, or 0); the operator's own stop is checked in its output.
  const exited = new Promise<string>((resolve) => child.on('close', (code, signal) => resolve(signal === 'SIGINT' || code === 0 ? 'stopped' : `exit code ${code}, signal ${signal}`)));
  const ctrlC = () => {
    try {
      process.kill(-child.pid!, 'SIGINT');
    } catch {
      // already gone
    }
  };
  after(ctrlC);
  return { output: () => out, exited, ctrlC };
}

test('quick start from a fresh clone: npm ci, npm start, kubectl, a ConfigMap edit, Ctrl-C', { skip, timeout: 15 * 60_000 }, async () => {
  const dir = freshClone();
  const started = Date.now();
  const ci = spawnSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', timeout: 10 * 60_000 });
  assert.equal(ci.status, 0, `npm ci: ${ci.stdout}\n${ci.stderr}`);
  // a clean install: no warning (esbuild's install script is approved in package.json's allowScripts)
  assert.doesNotMatch(ci.stderr, /npm warn/i, `npm ci warns: ${ci.stderr}`);
  console.log(`# npm ci took ${((Date.now() - started) / 1000).toFixed(0)} s`);

  const op = npmStart(dir);
  await waitFor(() => op.output().includes('Ctrl-C stops the operator.'), 'the block printed once converged', 180_000);
  const out = op.output();
  const url = /Status page .*: (http:\/\/127\.0\.0\.1:\d+)\/$/m.exec(out)?.[1];
  assert.ok(url, out);
  const readyz = await fetch(`${url}/readyz`);
  assert.equal(readyz.status, 200);

  // the kubectl commands of the block, as printed, run from the clone
  const kubectl = (args: string[]) => {
    const r = spawnSync(kubectlPath!, ['--kubeconfig', '.sandbox/kubeconfig', '-n', 'default', ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, HOME: dir } });
    assert.equal(r.status, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const shown = /^ {4}kubectl --kubeconfig \.sandbox\/kubeconfig -n default (get deployments,daemonsets,configmaps,secrets)$/m.exec(out)?.[1];
  assert.ok(shown, out);
  const listed = kubectl(shown.split(' '));
  for (const name of [
    'deployment.apps/echo-server', // 001-echo-server's chart
    'deployment.apps/guestbook', // 020-guestbook's chart
    'configmap/guestbook-redis', // its subchart
    'configmap/echo-server-namespaces', // the chart reading global values of the Namespaces hook
    'configmap/echo-server-status', // the in-process TypeScript hook
    'secret/sh.helm.release.v1.echo-server.v1',
    'secret/sh.helm.release.v1.guestbook.v1',
  ]) {
    assert.match(listed, new RegExp(`^${name.replaceAll('.', '\\.')} `, 'm'), listed);
  }
  assert.doesNotMatch(listed, /metrics-exporter|configmap\/dashboard/, 'disabled at start by the ConfigMap seed');
  const jsonpath = (what: string, path: string) => kubectl(['get', ...what.split(' '), '-o', `jsonpath=${path}`]);
  assert.equal(jsonpath('deployment echo-server', '{.spec.replicas}'), '3', 'replicas from the ConfigMap seed');
  assert.equal(jsonpath('configmap echo-server-namespaces', '{.data.namespaces}'), 'default,kube-node-lease,kube-public,kube-system');
  // the post-install Helm hook of 020-guestbook: created after the release's objects, not part of it
  assert.equal(jsonpath('configmap guestbook-installed', '{.data.revision}'), '1');

  // a ConfigMap edit re-runs echo-server: the console says so, the status page shows the run
  const status = async () => (await (await fetch(`${url}/status.json`)).json()) as { modules: Array<{ name: string; lastRun?: { at: number; release?: string } }> };
  const echoRun = async () => (await status()).modules.find((m) => m.name === 'echo-server')?.lastRun;
  const before = await echoRun();
  assert.ok(before, 'echo-server has run');
  kubectl(['patch', 'configmap', 'addon-operator', '--type', 'merge', '-p', '{"data":{"echoServer":"replicas: 1\\n"}}']);
  await waitFor(() => jsonpath('deployment echo-server', '{.spec.replicas}') === '1', 'echo-server upgraded to 1 replica');
  await waitFor(async () => ((await echoRun())?.at ?? 0) > before.at, 'the status page to show the new run');
  assert.equal((await echoRun())?.release, 'upgraded');
  assert.match(op.output(), /module echo-server: run started \(KubeConfig-Changed-Modules\)\n(.*\n)*.*module echo-server: upgraded in /);
  assert.match(await (await fetch(`${url}/`)).text(), /<html/i, 'the status page answers');

  // enabling metrics-exporter enables the dashboard (its enabled script), whose hook patches the config
  kubectl(['patch', 'configmap', 'addon-operator', '--type', 'merge', '-p', '{"data":{"metricsExporterEnabled":"true"}}']);
  await waitFor(() => /^dashboard /m.test(kubectl(['get', 'configmaps'])), 'the dashboard installed');
  await waitFor(() => /password: \S{12,}/.test(jsonpath('configmap addon-operator', '{.data.dashboard}')), 'the generated password saved to the ConfigMap');
  assert.match(kubectl(['get', 'configmaps']), /^metrics-exporter /m);

  // a new Namespace: the global hook's jqFilter result changes, the global values too, the chart follows
  kubectl(['create', 'namespace', 'demo']);
  await waitFor(() => jsonpath('configmap echo-server-namespaces', '{.data.namespaces}').split(',').includes('demo'), 'the new namespace in the chart');

  // Ctrl-C: a clean stop, exit code 0, nothing printed by npm about a failure
  op.ctrlC();
  assert.equal(await op.exited, 'stopped', op.output());
  assert.match(op.output(), /\d stopping: running tasks may finish, nothing new starts\n(.*\n)*[\d:]+ operator stopped\n$/);
  assert.doesNotMatch(op.output(), /npm (ERR|error)|Error:|second signal|EPIPE/);
  assert.ok(existsSync(join(dir, '.sandbox/operator.log')));
  const logged = readFileSync(join(dir, '.sandbox/operator.log'), 'utf8');
  assert.match(logged, / INFO {2}debug socket listening /, 'the structured log is in the file');

  // a second npm start in the same clone: a fresh sandbox over the .sandbox/ left behind
  writeFileSync(join(dir, '.sandbox/debug.socket'), ''); // as a killed run would leave it
  const again = npmStart(dir);
  await waitFor(() => again.output().includes('Ctrl-C stops the operator.'), 'the second start to converge', 180_000);
  assert.equal(jsonpath('deployment echo-server', '{.spec.replicas}'), '3', 'the sandbox starts again from the seed');
  again.ctrlC();
  assert.equal(await again.exited, 'stopped', again.output());
  assert.match(again.output(), /operator stopped\n$/);
  console.log(`# quick start test: ${((Date.now() - started) / 1000).toFixed(0)} s after the clone`);
});
