import ipaddr from 'ipaddr.js';
import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../errors.js';

/** What the Origin rule reads of the configuration. */
export interface OriginPolicy {
  /** BASE_URL: pages served from the public address may call /mcp. */
  readonly baseUrl: string;
  /** HOST: the address the public listener is bound to. */
  readonly host: string;
}

const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);

/** A host name or address literal (as a URL or HOST writes it) that can only be this machine. */
function isLoopbackHost(host: string): boolean {
  if (LOOPBACK_NAMES.has(host) || host === '::1') return true;
  return ipaddr.isValid(host) && ipaddr.parse(host).range() === 'loopback';
}

/**
 * May a browser page of `origin` call /mcp? The MCP Streamable HTTP transport requires servers
 * to check, against DNS rebinding: a page of evil.example whose name is made to resolve to this
 * server carries its own Origin. Allowed: the public address's own origin and, when the server
 * is bound to loopback only (a local server, as a desktop MCP client or the Inspector reaches
 * it), a loopback origin on any port. Without Origin (no browser: CLIs, desktop clients) the
 * request is not a browser's, and the bearer token alone decides.
 */
export function isAllowedOrigin(origin: string, policy: OriginPolicy): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file:) and anything unparsable
  }
  if (url.origin === new URL(policy.baseUrl).origin) return true;
  return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname) && isLoopbackHost(policy.host);
}

/** Refuses (403) a request to any route of `scope` whose Origin is not allowed, before authentication. */
export function registerOriginCheck(scope: FastifyInstance, policy: OriginPolicy): void {
  scope.addHook('onRequest', async (request) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !isAllowedOrigin(origin, policy)) throw apiErrors.originRefused(origin);
  });
}
