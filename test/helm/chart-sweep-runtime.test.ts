// scripts/chart-sweep.sh --runtime: each chart of a directory wrapped as a module and converged on
// `addon-operator start --sandbox` (docs/helm.md, "Run-time chart sweep"), on charts of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeTree } from '../helpers/tree.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/chart-sweep.sh', import.meta.url));

const DEPLOYMENT = `{{- $name := default .Release.Name .Values.fullnameOverride }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: {{ $name }}}}
  template:
    metadata: {labels: {app: {{ $name }}}}
    spec: {containers: [{name: main, image: nginx}]}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}
spec:
  selector: {app: {{ $name }}}
  ports: [{port: 80}]
`;

const hookJob = (name: string, event: string, fail: boolean) => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  annotations: {"helm.sh/hook": ${event}}
spec:
  backoffLimit: 0
  template:
${fail ? '    metadata: {annotations: {sandbox.addon-operator.io/fail: "true"}}\n' : ''}    spec: {restartPolicy: Never, containers: [{name: main, image: busybox}]}
`;

/** The sweep's output (stdout, stderr) and exit status; children are killed when the test ends. */
function sweep(args: string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(SCRIPT, args, { cwd });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

test('the run-time sweep converges each chart as a module: install, a restart that writes nothing, an upgrade, an uninstall; Helm\'s refusals expected, the rest failures naming the step', async () => {
  const dir = makeTree({
    'repo/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.2.3\n',
    'repo/web/values.yaml': 'replicas: 2\nfullnameOverride: ""\n',
    'repo/web/templates/all.yaml': DEPLOYMENT,
    'repo/web/templates/init.yaml': hookJob('web-init', 'pre-install', false),
    'repo/lib/Chart.yaml': 'apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n',
    'repo/needs/Chart.yaml': 'apiVersion: v2\nname: needs\nversion: 2.0.0\n',
    'repo/needs/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: needs\ndata:\n  url: {{ required "url must be set" .Values.url }}\n',
    'repo/migrate/Chart.yaml': 'apiVersion: v2\nname: migrate\nversion: 0.3.0\n',
    'repo/migrate/templates/job.yaml': hookJob('migrate-schema', 'pre-install', true),
    'repo/sticky/Chart.yaml': 'apiVersion: v2\nname: sticky\nversion: 0.4.0\n',
    'repo/sticky/values.yaml': 'replicas: 1\n',
    'repo/sticky/templates/all.yaml': DEPLOYMENT,
    'repo/sticky/templates/cleanup.yaml': hookJob('sticky-cleanup', 'pre-delete', true),
  });
  const r = await sweep(['--runtime', '-j', '2', '--pod-start', '0.1s', '--timeout', '60s', 'repo'], dir);
  assert.equal(r.err.replace(/npm warn.*\n/g, ''), '');
  const lines = r.out.trimEnd().split('\n');
  assert.equal(lines.at(-1), '1 passed, 2 fail as Helm does, 2 failed');
  // as each chart finishes (two at a time): in chart order for the comparison, timings aside
  assert.deepEqual(lines.slice(0, -1).map((l) => l.replace(/ \(\d+(\.\d)? s\)$/, '').replace(/a converge of [\d.]+m?s;/, 'a converge of Ns;')).sort((a, b) => a.slice(6).localeCompare(b.slice(6))), [
    'ok    repo/lib 0.1.0: fails as Helm does: library charts are not installable',
    'FAIL  repo/migrate 0.3.0: install: the module failed: release migrate: failed pre-install: job migrate-schema failed: BackoffLimitExceeded (hook migrate/charts/migrate/templates/job.yaml)',
    'ok    repo/needs 2.0.0: fails as Helm does: install: the module failed: execution error at (needs/charts/needs/templates/cm.yaml:6:10): url must be set',
    'FAIL  repo/sticky 0.4.0: uninstall: the module failed: release sticky: job sticky-cleanup failed: BackoffLimitExceeded (hook sticky/charts/sticky/templates/cleanup.yaml)',
    'ok    repo/web 1.2.3: 2 objects, installed by a converge of Ns; upgraded, unchanged on restart, uninstalled',
  ]);
  assert.equal(r.code, 1);
});

test('the run-time sweep refuses bad arguments with its usage', async () => {
  const r = await sweep(['--runtime', '--timeout', 'soon', '.'], '/');
  assert.equal(r.code, 2);
  assert.match(r.err, /^chart-sweep: --timeout: .*\nusage: scripts\/chart-sweep.sh --runtime/);
});
