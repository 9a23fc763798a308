// kubectl rollout status, kubectl wait --for=condition=ready pod, --for=condition=available and
// --for=condition=complete against the simulated controllers, and the clear error of logs and exec, with every kubectl 1.27-1.33 of this
// machine (one sandbox, one namespace per version). Versions absent here are skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlVersions } from '../kubectl-versions.js';
import { cluster } from './helpers.js';

const VERSIONS = kubectlVersions();
const skip = VERSIONS.size ? false : 'no versioned kubectl (kubectl.1.NN) on this machine: skipped';
if (skip) console.log(`# NOTICE: ${skip}`);

const manifests = (ns: string): string => `apiVersion: v1
kind: Namespace
metadata: {name: ${ns}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${ns}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: main, image: nginx}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: hook, namespace: ${ns}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox}]
`;

test('every kubectl version: rollout status, wait for ready Pods, an Available Deployment and a complete Job', { skip }, async () => {
  const c = await cluster({ podStartMs: 0 });
  for (const [version, bin] of VERSIONS) {
    const ns = `v${version.replace('.', '-')}`;
    const run = async (args: string[], input?: string): Promise<void> => {
      const r = await c.kubectl(['-n', ns, ...args], input, bin);
      assert.equal(r.code, 0, `kubectl ${version} ${args.join(' ')}: ${r.stderr}`);
    };
    await run(['apply', '-f', '-'], manifests(ns));
    await run(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    await run(['wait', '--for=condition=ready', 'pod', '-l', 'app=web', '--timeout=60s']);
    await run(['wait', '--for=condition=available', 'deployment/web', '--timeout=60s']);
    await run(['wait', '--for=condition=complete', 'job/hook', '--timeout=60s']);
    // no container runs: logs and exec say so at once
    for (const args of [['logs', 'deployment/web'], ['exec', 'deployment/web', '--', 'true']]) {
      const r = await c.kubectl(['-n', ns, ...args], undefined, bin);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /not supported by the addon-operator sandbox/, `kubectl ${version} ${args[0]}`);
    }
  }
});
