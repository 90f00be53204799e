import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { ConnectionConfig } from '../config.js';
import { limitedAddress } from './limited-address.js';

/**
 * Node's and Fastify's time bounds from the configuration. Node checks the header and request
 * timeouts on an interval (30 s by default): checking every second (or sooner, for shorter
 * timeouts) keeps a trickling client within about a second of its bound.
 */
export function connectionTimeouts(c: ConnectionConfig): Pick<
  FastifyServerOptions,
  'connectionTimeout' | 'keepAliveTimeout' | 'requestTimeout'
> & { http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } } {
  const headersTimeout = c.headersTimeoutSeconds * 1000;
  const requestTimeout = c.requestTimeoutSeconds * 1000;
  return {
    connectionTimeout: c.idleTimeoutSeconds * 1000,
    keepAliveTimeout: c.keepAliveTimeoutSeconds * 1000,
    requestTimeout,
    http: { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1000, headersTimeout) },
  };
}

/**
 * Closes, as soon as it is accepted, any connection beyond `max` open ones from the same peer
 * address (the socket's, not X-Forwarded-For: a proxy's connections are its own; an IPv6 peer
 * by its /64, as every per-address limit), so that one client cannot hold every file
 * descriptor. `onRefused` hears of the first refusal of each episode (until that address's
 * connections all close), for one log line, not one each.
 */
export function limitConnectionsPerAddress(server: Server, max: number, onRefused: (address: string) => void): void {
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
