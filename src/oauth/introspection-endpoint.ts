import type { FastifyInstance } from 'fastify';
import { CLIENT_AUTHENTICATION_SECURITY } from '../docs/security-schemes.js';
import { serverDocs } from '../docs/tags.js';
import type { AuthorizationServer } from './authorization-servers.js';
import { requireClient } from './client-authentication.js';
import { inspectAccessToken } from './inspect-access-token.js';
import type { OAuthDeps } from './oauth-deps.js';
import { clientAuthenticatedResponses } from './responses.js';
import { IntrospectionResponse, TokenOperationBody } from './schemas.js';

/**
 * RFC 7662 token introspection. A client may introspect only tokens issued to itself by this
 * server (§4: limit what is disclosed); any other token, or one that is not currently valid,
 * is simply `{"active": false}`.
 */
export function registerIntrospectionEndpoint(app: FastifyInstance, server: AuthorizationServer, deps: OAuthDeps): void {
  app.post<{ Body: TokenOperationBody }>(
    `/oauth2/${server.id}/v1/introspect`,
    {
      schema: {
        summary: `Introspect an access token (form ${server.form})`,
        description: 'RFC 7662. A client learns about its own tokens from this server only; anything else is `{"active": false}`.',
        tags: [serverDocs(server).tag],
        operationId: `introspectToken${serverDocs(server).suffix}`,
        security: CLIENT_AUTHENTICATION_SECURITY,
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenOperationBody,
        response: clientAuthenticatedResponses(
          { description: 'RFC 7662 §2.2 introspection response.', schema: IntrospectionResponse },
          {
            badRequest: {
              codes: ['invalid_request'],
              description: 'A parameter missing or repeated, or both client authentication methods.',
            },
            throttled: true,
          },
        ),
      },
    },
    async (request, reply) => {
      const client = await requireClient(request, deps);
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const inspection = await inspectAccessToken(request.body.token, deps);
      if (!inspection.active || inspection.claims.iss !== server.issuer || inspection.claims.client_id !== client.clientId) {
        return { active: false };
      }
      const { claims, principal } = inspection;
      return {
        active: true,
        scope: claims.scope,
        client_id: claims.client_id,
        token_type: 'Bearer' as const,
        exp: claims.exp,
        iat: claims.iat,
        sub: claims.sub,
        aud: claims.aud,
        iss: claims.iss,
        jti: claims.jti,
        username: principal.email,
      };
    },
  );
}
