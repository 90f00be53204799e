import type { FastifyInstance } from 'fastify';
import { CLIENT_AUTHENTICATION_SECURITY } from '../docs/security-schemes.js';
import { serverDocs } from '../docs/tags.js';
import type { AuthorizationServer } from './authorization-servers.js';
import { oauthErrors } from '../errors.js';
import { tokenHash } from '../sign-in/secret-tokens.js';
import { presentsApp, requireApp } from './app-authentication.js';
import { requireClient } from './client-authentication.js';
import { inspectAccessToken } from './inspect-access-token.js';
import type { OAuthDeps } from './oauth-deps.js';
import { clientAuthenticatedResponses } from './responses.js';
import { IntrospectionResponse, TokenOperationBody } from './schemas.js';

const INACTIVE = { active: false };

/**
 * RFC 7662 token introspection. A client may introspect only tokens issued to itself by this
 * server (§4: limit what is disclosed); any other token, or one that is not currently valid,
 * is simply `{"active": false}`. A confidential app (issue 34) authenticates with its secret
 * and learns about its access tokens and its refresh tokens; a public app cannot introspect.
 */
export function registerIntrospectionEndpoint(app: FastifyInstance, server: AuthorizationServer, deps: OAuthDeps): void {
  app.post<{ Body: TokenOperationBody }>(
    `/oauth2/${server.id}/v1/introspect`,
    {
      schema: {
        summary: `Introspect an access token (form ${server.form})`,
        description:
          'RFC 7662. A client learns about its own tokens from this server only; anything else is `{"active": false}`. ' +
          'A confidential app authenticates with its client secret and may introspect its access and refresh tokens; a public app cannot introspect.',
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
      const app = (await presentsApp(request, deps)) ? await requireApp(request, deps) : undefined;
      // RFC 7662 §2.1, §4: the endpoint requires authentication, which a public app (a client_id alone) is not.
      if (app?.clientType === 'public') throw oauthErrors.invalidClient('a public app cannot introspect', false);
      const clientId = app ? app.clientId : (await requireClient(request, deps)).clientId;
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const inspection = await inspectAccessToken(request.body.token, deps);
      if (!inspection.active && app) return introspectRefreshToken(request.body.token, app.clientId, deps);
      if (!inspection.active || inspection.claims.iss !== server.issuer || inspection.claims.client_id !== clientId) {
        return INACTIVE;
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

/** An app's refresh token (RFC 7662 §2.2): what it grants and for whom while it works, else inactive. */
async function introspectRefreshToken(token: string, clientId: string, deps: OAuthDeps) {
  const live = await deps.store.apps.findLiveRefreshToken(tokenHash(token), clientId);
  if (!live) return INACTIVE;
  return {
    active: true,
    scope: live.scopes.join(' '),
    client_id: clientId,
    exp: Math.floor(live.expiresAt / 1000),
    iat: Math.floor(live.issuedAt / 1000),
    sub: live.userId,
    username: live.email,
  };
}
