import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { oauthErrors } from '../errors.js';
import { newSecretToken, tokenHash } from '../sign-in/secret-tokens.js';
import type { AppForAuth, Grant } from '../store/apps.js';
import { issueAccessToken } from './access-tokens.js';
import { requireApp } from './app-authentication.js';
import type { AuthorizationServer } from './authorization-servers.js';
import type { OAuthDeps } from './oauth-deps.js';
import { verifierMatches } from './pkce.js';
import { audienceFor } from './resource-indicators.js';
import type { TokenRequestBody } from './schemas.js';

/** A refresh token works once (it rotates on every use), for at most 30 days from its issue. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600_000;

export const USER_GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

const required = (body: TokenRequestBody, name: 'code' | 'redirect_uri' | 'code_verifier' | 'refresh_token'): string => {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw oauthErrors.invalidRequest(`${name} is required.`);
  if (value.length > 2048) throw oauthErrors.invalidRequest(`${name} is too long.`);
  return value;
};

/**
 * The grants by which an app gets a user's tokens at `/oauth2/<id>/v1/token`: the
 * authorization code (RFC 6749 §4.1.3, PKCE RFC 7636 §4.6) and the refresh token (§6), which
 * rotates on every use; a code or refresh token used twice revokes everything it issued.
 */
export async function answerUserGrant(request: FastifyRequest<{ Body: TokenRequestBody }>, reply: FastifyReply, server: AuthorizationServer, deps: OAuthDeps) {
  const app = await requireApp(request, deps);
  const refreshToken = newSecretToken();
  const refresh = { hash: tokenHash(refreshToken), expiresAt: deps.clock.now() + REFRESH_TOKEN_TTL_MS };
  // RFC 8707 §2.2: a resource named here must be one the user granted (checked against the code or the grant).
  const requested = request.body.resource === undefined ? undefined : audienceFor(deps.resources, server, request.body.resource);
  const resourceRefused = (granted: string | null) => requested !== undefined && !grantedResourceCovers(granted, requested, server, deps);
  const { grant, scopes } =
    request.body.grant_type === 'authorization_code'
      ? { grant: await exchangeCode(request.body, app, refresh, resourceRefused, deps), scopes: undefined }
      : await rotateRefreshToken(request.body, app, refresh, resourceRefused, deps);
  // Through the per-process cache the API guard reads: a revocation empties it everywhere within the second.
  const principal = await deps.reads.findGrantPrincipal(grant.id);
  if (!principal) throw oauthErrors.invalidGrant('grant, app or user no longer active');
  const granted = scopes ?? grant.scopes;
  const token = await issueAccessToken(
    server,
    app.clientId,
    granted,
    { keys: deps.keys, clock: deps.clock, ttlSeconds: deps.config.tokenTtlSeconds },
    requested ?? grant.resource ?? server.audience,
    { userId: grant.userId, grantId: grant.id },
  );
  deps.metrics.tokensIssued.inc({ server: server.form === 'A' ? 'default' : 'custom' });
  request.log.info({ clientId: app.clientId, userId: grant.userId, grantId: grant.id, grantType: request.body.grant_type, jti: token.claims.jti }, 'user token issued');
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  return {
    token_type: 'Bearer' as const,
    expires_in: token.claims.exp - token.claims.iat,
    access_token: token.accessToken,
    scope: token.scope,
    refresh_token: refreshToken,
  };
}

/**
 * Whether a token for `requested` may come of a grant for `granted` (null: authorized without
 * a resource, which serves the REST API, so the API's identifier may be named for it).
 */
function grantedResourceCovers(granted: string | null, requested: string, server: AuthorizationServer, deps: OAuthDeps): boolean {
  return requested === (granted ?? server.audience) || (granted === null && requested === deps.resources.api.identifier);
}

const notGranted = () => oauthErrors.invalidTarget('The resource was not granted by the user for this code or refresh token.');

async function exchangeCode(
  body: TokenRequestBody,
  app: AppForAuth,
  refresh: { hash: string; expiresAt: number },
  resourceRefused: (granted: string | null) => boolean,
  deps: OAuthDeps,
): Promise<Grant> {
  const code = required(body, 'code');
  const redirectUri = required(body, 'redirect_uri');
  const verifier = required(body, 'code_verifier');
  const exchange = await deps.store.apps.exchangeCode(
    tokenHash(code),
    (issued) => {
      if (issued.clientId !== app.clientId) return 'client';
      if (issued.redirectUri !== redirectUri) return 'redirect_uri';
      if (!verifierMatches(verifier, issued.codeChallenge)) return 'code_verifier';
      if (resourceRefused(issued.resource)) return 'resource';
      return null;
    },
    { grantId: randomUUID(), refreshHash: refresh.hash, refreshExpiresAt: refresh.expiresAt },
  );
  if (exchange.ok) return exchange.grant;
  if (exchange.reason === 'replayed') {
    // A code presented twice was intercepted or replayed: what its first use issued is revoked (OAuth 2.1 §4.1.3).
    if (exchange.grantId) await deps.store.apps.revokeGrant(exchange.grantId, { actor: `client:${app.clientId}` }, 'authorization code replayed');
    throw oauthErrors.invalidGrant('authorization code replayed');
  }
  if (exchange.reason === 'refused' && exchange.detail === 'resource') throw notGranted();
  if (exchange.reason === 'refused' && exchange.detail !== 'client') throw oauthErrors.invalidGrantMismatch(exchange.detail === 'code_verifier' ? 'code_verifier' : 'redirect_uri');
  throw oauthErrors.invalidGrant(`authorization code ${exchange.reason}`);
}

async function rotateRefreshToken(
  body: TokenRequestBody,
  app: AppForAuth,
  next: { hash: string; expiresAt: number },
  resourceRefused: (granted: string | null) => boolean,
  deps: OAuthDeps,
): Promise<{ grant: Grant; scopes: string[] | undefined }> {
  const presented = required(body, 'refresh_token');
  // RFC 6749 §6: a narrower scope may be asked for, never a wider one.
  const asked = typeof body.scope === 'string' && body.scope.trim() !== '' ? [...new Set(body.scope.split(' ').filter((s) => s !== ''))] : undefined;
  // Checked before the rotation: a refused request leaves the presented token usable (its retry is no reuse).
  const rotation = await deps.store.apps.rotateRefreshToken(tokenHash(presented), app.clientId, next, (grant) => {
    if (asked && !asked.every((s) => grant.scopes.includes(s))) return 'scope';
    if (resourceRefused(grant.resource)) return 'resource';
    return null;
  });
  if (rotation.ok) return { grant: rotation.grant, scopes: asked };
  if (rotation.reason === 'reused') {
    // A rotated-out refresh token came back: one of two holders is a thief; the family ends (OAuth 2.1 §4.3.1).
    await deps.store.apps.revokeGrant(rotation.grantId, { actor: `client:${app.clientId}` }, 'refresh token reused');
  }
  if (rotation.reason === 'refused' && rotation.detail === 'scope') throw oauthErrors.invalidScope(asked!.join(' '), rotation.grant.scopes.join(' '));
  if (rotation.reason === 'refused') throw notGranted();
  throw oauthErrors.invalidGrant(`refresh token ${rotation.reason}`);
}
