import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { PUBLIC_SECURITY } from '../docs/security-schemes.js';

/**
 * Endpoints a page of any origin may call with fetch: the metadata documents, the signing keys
 * and the token, revocation and registration endpoints, which browser-based OAuth clients (the
 * MCP Inspector's page, web MCP connectors, single-page apps) call themselves. None of them
 * reads a cookie or any other credential the browser adds on its own, so `*` (never with
 * credentials) lends a page nothing it does not hold already. The sign-in, consent and console
 * pages, which do read cookies, are not among them.
 */
const EXPOSED_HEADERS = 'WWW-Authenticate, Retry-After';
/** What such a client sends: Basic client authentication, a JSON or form body, the MCP SDK's version header. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, MCP-Protocol-Version';

/** On the route itself (its `onRequest`), so every answer carries it, refusals included. */
export const allowAnyOrigin: onRequestHookHandler = (_request, reply, done) => {
  reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', EXPOSED_HEADERS);
  done();
};

/** What the route's preflight is documented as. */
export interface AnyOriginRoute {
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly tag: string;
  /** The operation's own id; the preflight's is derived from it. */
  readonly operationId: string;
}

/** Answers the browser's preflight (OPTIONS) for `route`: what a page may send there. */
export function registerAnyOriginPreflight(app: FastifyInstance, route: AnyOriginRoute): void {
  app.options(
    route.path,
    {
      onRequest: allowAnyOrigin,
      schema: {
        summary: `CORS preflight of ${route.method} ${route.path}`,
        description: 'What a page of any origin may send (no cookies are read here, so no credentials are allowed).',
        tags: [route.tag],
        operationId: `preflight${route.operationId[0]!.toUpperCase()}${route.operationId.slice(1)}`,
        security: PUBLIC_SECURITY,
        response: { 204: { description: 'Access-Control-Allow-Origin `*` and the methods and headers allowed.', type: 'null' } },
      },
    },
    async (_request, reply) =>
      reply
        .code(204)
        .header('access-control-allow-methods', route.method)
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', '7200')
        .send(),
  );
}
