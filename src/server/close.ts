import type { Server } from 'node:http';

/** Closes a server now: open connections (keep-alive, clients that stay) are cut, not waited for. */
export async function closeNow(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
