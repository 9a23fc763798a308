// The operator's ports as `addon-operator start` wires them (src/cli/start-run.ts), over a sandbox's
// kubeconfig: the real REST mapper, monitors, object patcher, ConfigMap source and Helm releases.
import { KubeConfig } from '@kubernetes/client-node';
import { RestMapper } from '../../src/kube/mapper.js';
import { KubeMonitors } from '../../src/kube/binding-monitor.js';
import { ObjectPatcher } from '../../src/kube/object-patcher.js';
import { ConfigMapSource } from '../../src/kube/configmap-source.js';
import { HelmReleases } from '../../src/helm/release-engine.js';
import type { KubernetesPort } from '../../src/operator/ports.js';

/** What a sandbox needs for the operator: its namespace and an empty `addon-operator` ConfigMap. */
export function operatorSeed(namespace: string): Record<string, unknown>[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace }, data: {} },
  ];
}

export function sandboxPorts(kubeconfigPath: string, namespace: string, options: { backoff?: { initialMs: number; maxMs: number } } = {}) {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const mapper = new RestMapper(kc);
  const monitors = new KubeMonitors({ kc, resolve: (v, k) => mapper.resolve(v, k), ...(options.backoff ? { backoff: options.backoff } : {}) });
  const patcher = new ObjectPatcher({ kc, mapper });
  const kube: KubernetesPort = { createMonitor: (b, o) => monitors.createMonitor(b, o), applyOperations: (ops, o) => patcher.applyOperations(ops, o) };
  return {
    kc,
    kube,
    helm: new HelmReleases({ kc, mapper }),
    config: new ConfigMapSource({ kc, namespace, name: 'addon-operator' }),
  };
}
