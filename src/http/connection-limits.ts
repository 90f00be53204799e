import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionConfig } from '../config.js';
import { limitedAddress } from './limited-address.js';

/** Where a listener reports the first refusal of each episode (a pino or Fastify logger). */
export interface RefusalLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * The bounds every listener (public, admin, metrics) holds its connections to, applied to its
 * node:http server before it listens, so that none is easier to exhaust than another: header,
 * request, idle and keep-alive times, and open connections per peer address. Node checks the
 * header and request timeouts on an interval (30 s by default): checking every second (or
 * sooner, for shorter timeouts) keeps a trickling client within about a second of its bound.
 */
export function applyConnectionLimits(server: Server, c: ConnectionConfig, log: RefusalLog): void {
  server.headersTimeout = c.headersTimeoutSeconds * 1000;
  server.requestTimeout = c.requestTimeoutSeconds * 1000;
  // Node reads it as the server starts listening; its typings know it only as an option.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(1000, server.headersTimeout);
  server.keepAliveTimeout = c.keepAliveTimeoutSeconds * 1000;
  server.setTimeout(c.idleTimeoutSeconds * 1000);
  limitConnectionsPerAddress(server, c.maxPerAddress, (address) =>
    log.warn({ address, limit: c.maxPerAddress }, 'refusing connections over the per-address limit'),
  );
}

/**
 * Closes, as soon as it is accepted, any connection beyond `max` open ones from the same peer
 * address (the socket's, not X-Forwarded-For: a proxy's connections are its own; an IPv6 peer
 * by its /64, as every per-address limit), so that one client cannot hold every file
 * descriptor. `onRefused` hears of the first refusal of each episode (until that address's
 * connections all close), for one log line, not one each.
 */
function limitConnectionsPerAddress(server: Server, max: number, onRefused: (address: string) => void): void {
  if (max === 0) return;
  const open = new Map<string, number>();
  const refusing = new Set<string>();
  server.on('connection', (socket: Socket) => {
    if (socket.remoteAddress === undefined) return; // already gone
    const address = limitedAddress(socket.remoteAddress);
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      if (!refusing.has(address)) {
        refusing.add(address);
        onRefused(address);
      }
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = open.get(address)! - 1;
      if (left > 0) return void open.set(address, left);
      open.delete(address);
      refusing.delete(address);
    });
  });
}
