// Shared helpers of the simulated-controller tests: a sandbox with its controllers on, kubectl and
// @kubernetes/client-node against it.
import * as k8s from '@kubernetes/client-node';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../../src/sandbox/index.js';

/** Why the kubectl parts are skipped on this machine, or false. */
export const noKubectl: string | false =
  spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0 ? false : 'kubectl is not installed on this machine: skipped';
if (noKubectl) console.log(`# NOTICE: ${noKubectl}`);

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Cluster {
  sb: Sandbox;
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  batch: k8s.BatchV1Api;
  /** Runs `bin` (kubectl by default) on the sandbox's kubeconfig; resolves with its exit code (never rejects). */
  kubectl(args: string[], input?: string, bin?: string): Promise<Run>;
  /** `kubectl apply -f -` of the YAML text; throws with kubectl's stderr when it fails. */
  apply(yaml: string): Promise<void>;
}

/** A sandbox with the controllers on (Pods start after 50 ms unless told), stopped when the test ends. */
export async function cluster(options: SandboxOptions = {}): Promise<Cluster> {
  const sb = await startSandbox({ controllers: true, podStartMs: 50, ...options });
  const home = mkdtempSync(join(tmpdir(), 'sandbox-ctl-'));
  after(async () => {
    await sb.stop();
    rmSync(home, { recursive: true, force: true });
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(sb.kubeconfigPath);
  const env = { ...process.env, KUBECONFIG: sb.kubeconfigPath, HOME: home, KUBECACHEDIR: join(home, 'cache') };
  const kubectl = (args: string[], input?: string, bin = 'kubectl'): Promise<Run> =>
    new Promise((resolve) => {
      const child = execFile(bin, args, { env, timeout: 120_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof (err as any).code === 'number' ? (err as any).code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
      });
      if (input !== undefined) child.stdin!.end(input);
    });
  return {
    sb,
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    batch: kc.makeApiClient(k8s.BatchV1Api),
    kubectl,
    async apply(yaml) {
      const r = await kubectl(['apply', '-f', '-'], yaml);
      if (r.code !== 0) throw new Error(`kubectl apply failed: ${r.stderr}`);
    },
  };
}

/** A Deployment's manifest. */
export function deployment(name: string, replicas: number, image = 'nginx:1', extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: default}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
${extra}  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: main, image: "${image}"}]}
`;
}
