import type { FastifyInstance } from 'fastify';
import { CLIENT_AUTHENTICATION_SECURITY } from '../docs/security-schemes.js';
import { serverDocs } from '../docs/tags.js';
import { oauthErrors } from '../errors.js';
import type { AuthorizationServer } from './authorization-servers.js';
import { requireClient } from './client-authentication.js';
import { presentsApp, requireApp } from './app-authentication.js';
import { tokenHash } from '../sign-in/secret-tokens.js';
import type { AppForAuth } from '../store/apps.js';
import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from './oauth-deps.js';
import { clientAuthenticatedResponses } from './responses.js';
import { TokenOperationBody } from './schemas.js';
import { allowAnyOrigin, registerAnyOriginPreflight } from './any-origin.js';

/**
 * RFC 7009 token revocation. The token's jti is denied until the token would have expired
 * anyway, so the denylist never outgrows the live tokens. A token is valid on every API
 * endpoint whichever server issued it, so either server revokes it: what matters is that the
 * requesting client owns it. An invalid or unknown token is answered 200 like a revoked one
 * (§2.2); a valid token of another client is refused (§2.1).
 */
export function registerRevocationEndpoint(app: FastifyInstance, server: AuthorizationServer, deps: OAuthDeps): void {
  const path = `/oauth2/${server.id}/v1/revoke`;
  const operationId = `revokeToken${serverDocs(server).suffix}`;
  registerAnyOriginPreflight(app, { path, method: 'POST', tag: serverDocs(server).tag, operationId });
  app.post<{ Body: TokenOperationBody }>(
    path,
    {
      onRequest: allowAnyOrigin,
      schema: {
        summary: `Revoke an access token (form ${server.form})`,
        description:
          'RFC 7009. The token stops working on the next request, whichever authorization server issued it (a client may ' +
          'revoke only its own tokens); an invalid or unknown token is answered 200 too.',
        tags: [serverDocs(server).tag],
        operationId,
        security: CLIENT_AUTHENTICATION_SECURITY,
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenOperationBody,
        response: clientAuthenticatedResponses(
          { description: 'Revoked, or was not a valid token (RFC 7009 §2.2); no body.', schema: null },
          {
            badRequest: {
              codes: ['invalid_request'],
              description:
                'A parameter missing or repeated, both client authentication methods, or a valid token issued to another client.',
            },
            throttled: true,
          },
        ),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      // An app acting for users revokes its refresh tokens (the grant) and access tokens here too.
      if (await presentsApp(request, deps)) {
        await revokeAppToken(request, await requireApp(request, deps), deps);
        return reply.code(200).send();
      }
      const client = await requireClient(request, deps);
      const verified = await deps.verifier.verify(request.body.token);
      if (verified.ok) {
        if (verified.claims.client_id !== client.clientId) {
          throw oauthErrors.invalidRequest('The token was not issued to this client.');
        }
        await deps.store.revocations.revoke(verified.claims.jti, verified.claims.exp * 1000, {
          actor: `client:${client.clientId}`,
        });
        request.log.info({ clientId: client.clientId, jti: verified.claims.jti }, 'token revoked');
      }
      return reply.code(200).send();
    },
  );
}

/**
 * RFC 7009 for an app: a refresh token ends its grant, and with it every token of the family
 * (§2.1: revoking a refresh token should revoke the access tokens of the same grant); an access
 * token ends itself. Another app's token, or a string that is neither, is answered 200 alike.
 */
async function revokeAppToken(request: FastifyRequest<{ Body: TokenOperationBody }>, app: AppForAuth, deps: OAuthDeps): Promise<void> {
  const by = { actor: `client:${app.clientId}` };
  const verified = await deps.verifier.verify(request.body.token);
  if (verified.ok) {
    if (verified.claims.client_id !== app.clientId) throw oauthErrors.invalidRequest('The token was not issued to this client.');
    await deps.store.revocations.revoke(verified.claims.jti, verified.claims.exp * 1000, by);
    request.log.info({ clientId: app.clientId, jti: verified.claims.jti }, 'app token revoked');
    return;
  }
  const grantId = await deps.store.apps.grantOfRefreshToken(tokenHash(request.body.token), app.clientId);
  if (grantId) {
    await deps.store.apps.revokeGrant(grantId, by, 'refresh token revoked by its app (RFC 7009)');
    request.log.info({ clientId: app.clientId, grantId }, 'app grant revoked');
  }
}
