import type { FastifyInstance, FastifyRequest } from 'fastify';
import { oauthErrors } from '../errors.js';
import type { OAuthDeps } from './oauth-deps.js';
import type { AuthorizationServer } from './authorization-servers.js';
import { issueAccessToken } from './access-tokens.js';
import { readClientCredentials, requireClient } from './client-authentication.js';
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
        summary: `Get an access token (${server.form === 'A' ? 'form A' : 'form B'})`,
        description:
          'Client-credentials grant. Authenticate with `client_id`/`client_secret` form keys or HTTP Basic, not both.',
        tags: ['Authorization server'],
        operationId: server.form === 'A' ? 'getTokenDefaultServer' : 'getTokenCustomServer',
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenRequestBody,
        response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      await throttleTokenRequests(request, deps);
      const client = await requireClient(request, deps);

      if (request.body.grant_type !== 'client_credentials') throw oauthErrors.unsupportedGrantType(request.body.grant_type);
      const scopes = grantScopes(server, request.body.scope);

      const token = await issueAccessToken(server, client.clientId, scopes, {
        keys: deps.keys,
        clock: deps.clock,
        ttlSeconds: deps.config.tokenTtlSeconds,
      });
      const now = deps.clock.now();
      if (client.lastUsedAt === null || now - client.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
        await deps.store.recordClientUse(client.clientId, now);
      }
      deps.metrics.tokensIssued.inc({ server: server.form === 'A' ? 'default' : 'custom' });
      request.log.info({ clientId: client.clientId, server: server.id, jti: token.claims.jti }, 'token issued');

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

/**
 * Counts every token request, failed ones included, per source address and per presented
 * client id, before any secret is checked: guessing secrets is throttled from either side.
 */
async function throttleTokenRequests(request: FastifyRequest<{ Body: TokenRequestBody }>, deps: OAuthDeps): Promise<void> {
  const { rateLimit } = deps.config;
  const byAddress = await deps.rateLimiter.hit(`token:ip:${request.ip}`, rateLimit.tokenPerAddressPerWindow, rateLimit.windowSeconds);
  if (!byAddress.allowed) throw oauthErrors.tooManyRequests(byAddress.resetSeconds);
  const presented = readClientCredentials(request.headers.authorization, request.body);
  if (!presented.ok) return;
  const byClient = await deps.rateLimiter.hit(
    `token:client:${presented.clientId.slice(0, 128)}`,
    rateLimit.tokenPerClientPerWindow,
    rateLimit.windowSeconds,
  );
  if (!byClient.allowed) throw oauthErrors.tooManyRequests(byClient.resetSeconds);
}
