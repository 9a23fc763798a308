// Shared helpers for the release engine tests: a sandbox with a client, and Helm's Secret payloads.
import { gunzipSync, gzipSync } from 'node:zlib';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { isApiStatus, requestJson } from '../../src/kube/http.js';
import { RestMapper } from '../../src/kube/mapper.js';

export interface Cluster {
  sandbox: Sandbox;
  kc: KubeConfig;
  mapper: RestMapper;
}

export async function cluster(t: { after: (fn: () => Promise<void>) => void }, namespaces: string[] = []): Promise<Cluster> {
  const sandbox = await startSandbox();
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  for (const name of namespaces) await requestJson(kc, 'POST', '/api/v1/namespaces', {}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return { sandbox, kc, mapper: new RestMapper(kc) };
}

/** The release JSON inside a storage Secret as the API returns it (data is base64 of Helm's base64(gzip(JSON))). */
export function secretPayload(secret: { data?: Record<string, string> }): { json: string; release: Record<string, any> } {
  const helmBase64 = Buffer.from(secret.data!.release!, 'base64').toString('utf8');
  const gz = Buffer.from(helmBase64, 'base64');
  const json = (gz[0] === 0x1f && gz[1] === 0x8b ? gunzipSync(gz) : gz).toString('utf8');
  return { json, release: JSON.parse(json) as Record<string, any> };
}

export async function releaseSecrets(kc: KubeConfig, namespace: string, name?: string): Promise<any[]> {
  const selector = name ? `owner=helm,name=${name}` : 'owner=helm';
  const list = await requestJson<{ items: any[] }>(kc, 'GET', `/api/v1/namespaces/${namespace}/secrets`, { labelSelector: selector });
  return list.items.sort((a, b) => Number(a.metadata.labels.version) - Number(b.metadata.labels.version));
}

/** The object at path, or undefined when the API answers 404 NotFound (any other failure fails the test). */
export async function getObject(kc: Parameters<typeof requestJson>[0], path: string): Promise<any> {
  try {
    return await requestJson(kc, 'GET', path);
  } catch (err) {
    if (isApiStatus(err, 404, 'NotFound')) return undefined;
    throw err;
  }
}

/** Rewrites a release Secret's status (its label and the payload's info.status), as a failed or interrupted operation leaves it. */
export async function setReleaseStatus(kc: Parameters<typeof requestJson>[0], namespace: string, name: string, version: number, status: string): Promise<void> {
  const path = `/api/v1/namespaces/${namespace}/secrets/sh.helm.release.v1.${name}.v${version}`;
  const secret = await requestJson<any>(kc, 'GET', path);
  const release = secretPayload(secret).release;
  release.info.status = status;
  secret.metadata.labels.status = status;
  secret.data.release = Buffer.from(gzipSync(JSON.stringify(release)).toString('base64')).toString('base64');
  await requestJson(kc, 'PUT', path, {}, secret);
}
