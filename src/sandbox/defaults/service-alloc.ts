/**
 * What the Service REST storage of kube-apiserver allocates at create and keeps at update: a
 * ClusterIP from the service range 10.96.0.0/12 (`None` stays headless), `clusterIPs`, the IP family
 * fields, node ports (30000-32767) for NodePort and LoadBalancer Services, the health check node port.
 */
import type { Store } from '../store.js';
import { typeKey } from '../registry.js';
import { isObj, items, type Obj } from './util.js';

const RANGE_START = (10 << 24) | (96 << 16); // 10.96.0.0
const RANGE_SIZE = 1 << 20; // a /12
const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;

function ipString(n: number): string {
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The addresses and ports in use, followed through the store's Service events. */
export class ServiceAllocator {
  private readonly ips = new Map<string, string[]>();
  private readonly ports = new Map<string, number[]>();
  private usedIPs?: Set<string>;
  private usedPorts?: Set<number>;
  private nextIP = 1;
  private nextPort = NODE_PORT_MIN;
  private readonly tkey = typeKey('', 'services');

  constructor(private readonly store: Store) {
    store.onEvent((ev) => {
      if (ev.tkey !== this.tkey || !this.usedIPs) return;
      const key = `${ev.ns}/${ev.name}`;
      this.forget(key);
      if (ev.type !== 'DELETED') this.remember(key, JSON.parse(ev.json));
    });
  }

  private load(): void {
    if (this.usedIPs) return;
    this.usedIPs = new Set();
    this.usedPorts = new Set();
    for (const e of this.store.list(this.tkey)) this.remember(`${e.ns}/${e.name}`, JSON.parse(e.json));
  }

  private remember(key: string, o: Obj): void {
    const ips = (Array.isArray(o.spec?.clusterIPs) ? o.spec.clusterIPs : [o.spec?.clusterIP]).filter((ip: unknown) => typeof ip === 'string' && ip && ip !== 'None');
    const ports = items(o.spec, 'ports').map((p) => Number(p.nodePort)).filter((p) => p > 0);
    if (o.spec?.healthCheckNodePort) ports.push(Number(o.spec.healthCheckNodePort));
    this.ips.set(key, ips);
    this.ports.set(key, ports);
    for (const ip of ips) this.usedIPs!.add(ip);
    for (const p of ports) this.usedPorts!.add(p);
  }

  private forget(key: string): void {
    for (const ip of this.ips.get(key) ?? []) this.usedIPs!.delete(ip);
    for (const p of this.ports.get(key) ?? []) this.usedPorts!.delete(p);
    this.ips.delete(key);
    this.ports.delete(key);
  }

  private allocateIP(taken: Set<string>): string {
    this.load();
    for (let i = 0; i < RANGE_SIZE - 2; i++) {
      const n = ((this.nextIP - 1 + i) % (RANGE_SIZE - 2)) + 1;
      const ip = ipString(RANGE_START + n);
      if (!this.usedIPs!.has(ip) && !taken.has(ip)) {
        this.nextIP = n + 1;
        return ip;
      }
    }
    throw new Error('the service IP range 10.96.0.0/12 is full');
  }

  private allocatePort(taken: Set<number>): number {
    this.load();
    const span = NODE_PORT_MAX - NODE_PORT_MIN + 1;
    for (let i = 0; i < span; i++) {
      const p = NODE_PORT_MIN + ((this.nextPort - NODE_PORT_MIN + i) % span);
      if (!this.usedPorts!.has(p) && !taken.has(p)) {
        this.nextPort = p + 1;
        return p;
      }
    }
    throw new Error('the node port range 30000-32767 is full');
  }

  /** Fills a Service's addresses and ports at create, or keeps the old ones at update. */
  allocate(o: Obj, old?: Obj): void {
    const spec = o.spec;
    if (!isObj(spec)) return;
    const oldSpec = isObj(old?.spec) ? old.spec : undefined;
    if (spec.type === 'ExternalName') {
      delete spec.clusterIP;
      delete spec.clusterIPs;
      delete spec.ipFamilies;
      delete spec.ipFamilyPolicy;
    } else {
      if (!spec.clusterIP && oldSpec?.clusterIP && oldSpec.type !== 'ExternalName') {
        spec.clusterIP = oldSpec.clusterIP;
        if (!Array.isArray(spec.clusterIPs) || !spec.clusterIPs.length) spec.clusterIPs = oldSpec.clusterIPs;
      }
      if (!spec.clusterIP) spec.clusterIP = Array.isArray(spec.clusterIPs) && spec.clusterIPs[0] ? spec.clusterIPs[0] : this.allocateIP(new Set());
      if (!Array.isArray(spec.clusterIPs) || !spec.clusterIPs.length) spec.clusterIPs = [spec.clusterIP];
      const headlessWithoutSelector = spec.clusterIP === 'None' && !(isObj(spec.selector) && Object.keys(spec.selector).length);
      if (!spec.ipFamilyPolicy) spec.ipFamilyPolicy = oldSpec?.ipFamilyPolicy ?? (headlessWithoutSelector ? 'RequireDualStack' : 'SingleStack');
      if (!Array.isArray(spec.ipFamilies) || !spec.ipFamilies.length) {
        spec.ipFamilies = oldSpec?.ipFamilies ?? (spec.ipFamilyPolicy === 'RequireDualStack' ? ['IPv4', 'IPv6'] : ['IPv4']);
      }
    }
    const wantsNodePorts = spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
    const taken = new Set<number>();
    for (const p of items(spec, 'ports')) {
      if (p.nodePort) {
        taken.add(Number(p.nodePort));
        continue;
      }
      const before = items(oldSpec, 'ports').find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP') && q.nodePort);
      if (before && (spec.type === 'NodePort' || spec.type === 'LoadBalancer')) p.nodePort = before.nodePort;
      else if (wantsNodePorts) p.nodePort = this.allocatePort(taken);
      if (p.nodePort) taken.add(Number(p.nodePort));
    }
    if (spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local' && !spec.healthCheckNodePort) {
      spec.healthCheckNodePort = oldSpec?.healthCheckNodePort ?? this.allocatePort(taken);
    }
  }
}
