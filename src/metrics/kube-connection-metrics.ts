/**
 * Connection metrics of the Kubernetes client: TLS handshakes and sockets opened per API server,
 * read at every scrape from the connection pools' counts (kube/connections.ts `connectionStats`,
 * passed in, as metrics/ sits below kube/). Not in the Go original; client-go keeps one HTTP/2
 * connection per server, and these show that the pools do the same job.
 */
import { Counter, type Registry } from 'prom-client';

export interface ConnectionCounts {
  server: string;
  handshakes: number;
  sockets: number;
}

/** Registers `{prefix}kubernetes_client_tls_handshakes_total` and `..._connections_total` {host}. */
export function registerKubeConnectionMetrics(registry: Registry, prefix: string, read: () => readonly ConnectionCounts[]): void {
  const counter = (name: string, help: string, field: 'handshakes' | 'sockets') =>
    new Counter({
      name: prefix + name,
      help,
      labelNames: ['host'],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of read()) this.inc({ host: new URL(s.server).host }, s[field]);
      },
    });
  counter('kubernetes_client_tls_handshakes_total', 'TLS handshakes with the Kubernetes API server', 'handshakes');
  counter('kubernetes_client_connections_total', 'Connections opened to the Kubernetes API server', 'sockets');
}
