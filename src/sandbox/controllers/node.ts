/**
 * The simulated Node: one Ready Node (`sandbox-node`) when the sandbox has none, and a Ready status
 * for every Node created without one (the kubelet's report), so that Pods have somewhere to run.
 */
import type { StoreEvent } from '../store.js';
import { TKEY, isoNow, type Controller, type Obj, type Runtime } from './runtime.js';

export const DEFAULT_NODE = 'sandbox-node';

/** The InternalIP of the n-th node (kind's network: 172.18.0.2, ...). */
function nodeIP(n: number): string {
  return `172.18.${Math.floor((n + 2) / 256)}.${(n + 2) % 256}`;
}

export function nodeStatus(node: Obj, index: number, kubeletVersion: string): Obj {
  const now = isoNow();
  const cond = (type: string, status: string, reason: string, message: string): Obj => ({
    type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message,
  });
  const resources = { cpu: '8', 'ephemeral-storage': '100Gi', memory: '16Gi', pods: '110' };
  return {
    capacity: resources,
    allocatable: resources,
    conditions: [
      cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status (simulated by the addon-operator sandbox)'),
    ],
    addresses: [
      { type: 'InternalIP', address: nodeIP(index) },
      { type: 'Hostname', address: node.metadata.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: '', systemUUID: '', bootID: '',
      kernelVersion: 'sandbox', osImage: 'addon-operator sandbox (no containers run)',
      containerRuntimeVersion: 'sandbox://0.0.0', kubeletVersion, kubeProxyVersion: kubeletVersion,
      operatingSystem: 'linux', architecture: 'amd64',
    },
  };
}

export function nodeController(kubeletVersion: string): Controller {
  const indexOf = new Map<string, number>();
  return {
    name: 'node',
    watches: { [TKEY.nodes]: (ev: StoreEvent) => (ev.type === 'DELETED' ? undefined : ev.name) },
    resync: [TKEY.nodes],
    reconcile(name: string, rt: Runtime) {
      const node = rt.get(TKEY.nodes, '', name);
      if (!node || node.metadata.deletionTimestamp) return;
      if (Array.isArray(node.status?.conditions) && node.status.conditions.some((c: Obj) => c?.type === 'Ready')) return;
      let i = indexOf.get(name);
      if (i === undefined) indexOf.set(name, (i = indexOf.size));
      node.status = { ...nodeStatus(node, i, kubeletVersion), ...(node.status ?? {}) };
      rt.updateStatus(TKEY.nodes, node, 'kubelet');
    },
  };
}

/** Creates the default Node when the sandbox has none. */
export function ensureNode(rt: Runtime): void {
  if (rt.count(TKEY.nodes)) return;
  rt.create(
    TKEY.nodes,
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: DEFAULT_NODE,
        labels: {
          'kubernetes.io/hostname': DEFAULT_NODE,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'beta.kubernetes.io/os': 'linux',
          'beta.kubernetes.io/arch': 'amd64',
          'node-role.kubernetes.io/control-plane': '',
        },
      },
      spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'] },
    },
    'kubelet',
  );
}
