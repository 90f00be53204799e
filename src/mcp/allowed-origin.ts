import ipaddr from 'ipaddr.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { EXTENSION } from '../docs/extension.js';
import { PUBLIC_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiErrors } from '../errors.js';
import { problemResponse } from '../results/responses.js';

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

/** What a page may send: the methods and headers of the MCP Streamable HTTP transport (GET and DELETE, to read their 405). */
const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, DELETE',
  'access-control-allow-headers': 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID',
  'access-control-max-age': '7200',
};
/** What a page may read of an answer besides the CORS-safelisted headers: what an MCP client reads. */
const EXPOSED_HEADERS = 'Mcp-Session-Id, WWW-Authenticate, Mcp-Protocol-Version';
const ALLOW = 'POST, OPTIONS';

const PREFLIGHT_SCHEMA = {
  summary: 'MCP endpoint: CORS preflight',
  description:
    'Extension. What a browser asks before a cross-origin request to /mcp (no token: a preflight carries none). From an ' +
    "allowed origin (BASE_URL's, or a loopback one on a loopback-bound server) the CORS headers; from another, 403.",
  tags: [TAG.mcp],
  operationId: 'preflightMcp',
  security: PUBLIC_SECURITY,
  response: {
    204: { description: 'What may be sent (Access-Control-Allow-*), and `Allow: POST, OPTIONS`.', type: 'null' },
    403: problemResponse(403, ['origin-refused'], 'The Origin is not allowed (DNS rebinding protection).', {}, { title: 'OriginRefusedProblem' }),
  },
  ...EXTENSION,
};

/** OPTIONS asks what may be sent; it carries no credentials (a browser's preflight never does). */
const answerOptions = (reply: FastifyReply) => reply.code(204).header('allow', ALLOW).send();

/**
 * Browser access to every route of `scope` (/mcp): a request whose Origin is not allowed is
 * refused (403) before its token is read; an allowed origin gets CORS headers on every answer,
 * refusals included (a page must read a 401's WWW-Authenticate to start signing in), and its
 * preflight is answered here, before the API guard, since a preflight carries no token.
 */
export function registerBrowserAccess(scope: FastifyInstance, policy: OriginPolicy): void {
  scope.addHook('onRequest', async (request, reply) => {
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin !== undefined) {
      if (!isAllowedOrigin(origin, policy)) throw apiErrors.originRefused(origin);
      reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', EXPOSED_HEADERS);
      if (request.method === 'OPTIONS') reply.headers(PREFLIGHT_HEADERS);
    }
    if (request.method === 'OPTIONS') return answerOptions(reply);
  });
  // The route makes the router match OPTIONS /mcp; the hook above answers it.
  scope.options('/mcp', { schema: PREFLIGHT_SCHEMA }, (_request, reply) => answerOptions(reply));
}
