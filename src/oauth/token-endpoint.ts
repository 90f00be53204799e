import type { FastifyInstance } from 'fastify';
import { CLIENT_AUTHENTICATION_SECURITY } from '../docs/security-schemes.js';
import { serverDocs } from '../docs/tags.js';
import { oauthErrors } from '../errors.js';
import type { OAuthDeps } from './oauth-deps.js';
import type { AuthorizationServer } from './authorization-servers.js';
import { issueAccessToken, type IssuedToken } from './access-tokens.js';
import { RecentTokens } from './recent-tokens.js';
import { requireClient } from './client-authentication.js';
import { clientAuthenticatedResponses } from './responses.js';
import { TokenRequestBody, TokenResponse } from './schemas.js';
import { audienceFor } from './resource-indicators.js';
import { grantScopes } from './scopes.js';
import { answerUserGrant, USER_GRANT_TYPES } from './user-grants.js';
import { allowAnyOrigin, registerAnyOriginPreflight } from './any-origin.js';

// Writing last_used_at on every token request would turn reads into writes; a minute is precise enough.
const LAST_USED_RESOLUTION_MS = 60_000;

type TokenIssuer = (clientId: string, scopes: string[], audience: string) => Promise<{ token: IssuedToken; reused: boolean }>;

/** The client's recent token for these scopes and audience while it is still good to hand out, else a new one. */
function tokenIssuer(server: AuthorizationServer, deps: OAuthDeps): TokenIssuer {
  const recent = new RecentTokens(deps.config.tokenReuseSeconds, deps.config.tokenTtlSeconds);
  return async function issueOrReuseAccessToken(clientId, scopes, audience) {
    const key = `${clientId} ${audience} ${scopes.join(' ')}`;
    const now = deps.clock.now();
    const pending = recent.find(key, now);
    const token = await pending?.catch(() => undefined);
    if (
      token &&
      token.kid === (await deps.keys.currentSigningKey()).kid &&
      !(await deps.reads.isAccessTokenRevoked(token.claims.jti, now))
    ) {
      return { token, reused: true };
    }
    const issuing = issueAccessToken(server, clientId, scopes, { keys: deps.keys, clock: deps.clock, ttlSeconds: deps.config.tokenTtlSeconds }, audience);
    recent.remember(key, now, issuing);
    return { token: await issuing, reused: false };
  };
}

/** RFC 6749 §4.4: the client-credentials grant at `/oauth2/<id>/v1/token`. */
export function registerTokenEndpoint(app: FastifyInstance, server: AuthorizationServer, deps: OAuthDeps): void {
  const issueOrReuseAccessToken = tokenIssuer(server, deps);
  const path = `/oauth2/${server.id}/v1/token`;
  const operationId = `getToken${serverDocs(server).suffix}`;
  registerAnyOriginPreflight(app, { path, method: 'POST', tag: serverDocs(server).tag, operationId });
  app.post<{ Body: TokenRequestBody }>(
    path,
    {
      onRequest: allowAnyOrigin,
      schema: {
        summary: `Get an access token (form ${server.form})`,
        description:
          'Client-credentials grant (RFC 6749 §4.4). Authenticate with `client_id`/`client_secret` form keys or HTTP Basic, ' +
          'not both. Every parameter at most once. A client asking again for the same scope within the server\'s reuse ' +
          'window (`TOKEN_REUSE_SECONDS`, default 30 s) gets the token it was just issued, with `expires_in` counting down; ' +
          'never a revoked one. `resource` (RFC 8707) binds the token to the REST API (`BASE_URL`) or the MCP endpoint ' +
          '(`BASE_URL/mcp`), each described at its `/.well-known/oauth-protected-resource` document (RFC 9728); without it ' +
          'the token carries the server\'s audience and serves the REST API only.',
        tags: [serverDocs(server).tag],
        operationId,
        security: CLIENT_AUTHENTICATION_SECURITY,
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenRequestBody,
        response: clientAuthenticatedResponses(
          { description: 'RFC 6749 §5.1: the access token, valid on every Results API endpoint.', schema: TokenResponse },
          {
            badRequest: {
              codes: ['invalid_request', 'unsupported_grant_type', 'invalid_scope', 'invalid_target', 'invalid_grant'],
              title: 'TokenRequestError',
              description:
                'invalid_request: a parameter missing or repeated, or both client authentication methods; ' +
                'unsupported_grant_type: not client_credentials, authorization_code or refresh_token; invalid_scope: a scope this ' +
                'server does not offer (or, at refresh, wider than granted); invalid_target: a `resource` that is not one of ours, ' +
                'or more than one; invalid_grant: a code or refresh token that is unknown, expired, used, revoked or another ' +
                'client\'s, or a redirect_uri or code_verifier that does not match.',
            },
            throttled: true,
          },
        ),
      },
    },
    async (request, reply) => {
      if (USER_GRANT_TYPES.has(request.body.grant_type)) return answerUserGrant(request, reply, server, deps);
      const client = await requireClient(request, deps);

      if (request.body.grant_type !== 'client_credentials') throw oauthErrors.unsupportedGrantType(request.body.grant_type);
      const scopes = grantScopes(server, request.body.scope);
      const audience = audienceFor(deps.resources, server, request.body.resource);

      const { token, reused } = await issueOrReuseAccessToken(client.clientId, scopes, audience);
      const now = deps.clock.now();
      if (client.lastUsedAt === null || now - client.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
        await deps.store.credentials.recordClientUse(client.clientId, now);
      }
      const serverLabel = { server: server.form === 'A' ? 'default' : 'custom' };
      if (reused) deps.metrics.tokensReused.inc(serverLabel);
      else deps.metrics.tokensIssued.inc(serverLabel);
      request.log.info({ clientId: client.clientId, server: server.id, aud: audience, jti: token.claims.jti, reused }, 'token issued');

      // RFC 6749 §5.1: token responses must not be cached.
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return {
        token_type: 'Bearer' as const,
        // A fresh token's full lifetime, even when the clock crossed a second while signing.
        expires_in: reused ? token.claims.exp - Math.floor(deps.clock.now() / 1000) : token.claims.exp - token.claims.iat,
        access_token: token.accessToken,
        scope: token.scope,
      };
    },
  );
}
