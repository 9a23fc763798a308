/** Writes a kubeconfig that points kubectl and client libraries at the sandbox. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import { writeFileAtomic } from './persistence.js';

export interface KubeconfigOptions {
  server: string;
  token: string;
  /** PEM of the CA that signed the server certificate (HTTPS). */
  caCert?: string;
  name?: string;
  namespace?: string;
}

export function kubeconfigYaml(o: KubeconfigOptions): string {
  const name = o.name ?? 'sandbox';
  const cluster: Record<string, unknown> = { server: o.server };
  if (o.caCert) cluster['certificate-authority-data'] = Buffer.from(o.caCert).toString('base64');
  else if (o.server.startsWith('http:')) cluster['insecure-skip-tls-verify'] = true;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: { token: o.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: o.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
  });
}

/** Writes the kubeconfig atomically with mode 0600. */
export function writeKubeconfig(path: string, o: KubeconfigOptions): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, kubeconfigYaml(o), 0o600);
}
