import type { FastifyInstance } from 'fastify';
import { oauthErrors } from '../errors.js';
import type { OAuthDeps } from './oauth-deps.js';
import type { AuthorizationServer } from './authorization-servers.js';
import { issueAccessToken } from './access-tokens.js';
import { authenticateClient, readClientCredentials } from './client-authentication.js';
import { OAuthErrorBody, TokenRequestBody, TokenResponse } from './schemas.js';
import { grantScopes } from './scopes.js';

// Writing last_used_at on every token request would turn reads into writes; a minute is precise enough.
const LAST_USED_RESOLUTION_MS = 60_000;

/** RFC 6749 §4.4: the client-credentials grant at `/oauth2/<id>/v1/token`. */
export function registerTokenEndpoint(app: FastifyInstance, server: AuthorizationServer, deps: OAuthDeps): void {
  app.post<{ Body: TokenRequestBody }>(
    `/oauth2/${server.id}/v1/token`,
    {
      schema: {
        summary: `Get an access token (${server.id === 'default' ? 'form A' : 'form B'})`,
        description:
          'Client-credentials grant. Authenticate with `client_id`/`client_secret` form keys or HTTP Basic, not both.',
        tags: ['Authorization server'],
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenRequestBody,
        response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      const body = request.body;
      // Step 1: which client authentication method, exactly one (RFC 6749 §2.3).
      const presented = readClientCredentials(request.headers.authorization, body);
      const basic = presented.method === 'client_secret_basic';
      if (!presented.ok) {
        if (presented.error === 'ambiguous') {
          throw oauthErrors.invalidRequest('Use one client authentication method: HTTP Basic or form keys, not both.');
        }
        throw oauthErrors.invalidClient(`client credentials ${presented.error}`, basic);
      }

      // Step 2: authenticate the client.
      const auth = await authenticateClient(presented, deps);
      if (!auth.ok) throw oauthErrors.invalidClient(auth.reason, basic);

      // Step 3: the grant and the scope.
      if (body.grant_type !== 'client_credentials') throw oauthErrors.unsupportedGrantType(body.grant_type);
      const scopes = grantScopes(server, body.scope);

      // Step 4: issue the token.
      const token = await issueAccessToken(server, auth.client.clientId, scopes, {
        keys: deps.keys,
        clock: deps.clock,
        ttlSeconds: deps.config.tokenTtlSeconds,
      });
      const now = deps.clock.now();
      if (auth.client.lastUsedAt === null || now - auth.client.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
        await deps.store.recordClientUse(auth.client.clientId, now);
      }
      request.log.info({ clientId: auth.client.clientId, server: server.id, jti: token.claims.jti }, 'token issued');

      // RFC 6749 §5.1: token responses must not be cached.
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return {
        token_type: 'Bearer' as const,
        expires_in: token.expiresIn,
        access_token: token.accessToken,
        scope: token.scope,
      };
    },
  );
}
