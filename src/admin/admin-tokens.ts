import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { OAuthError, oauthErrors } from '../errors.js';
import { sendOAuthError } from '../http/error-handler.js';
import { registerFormBodyParser } from '../http/form-body.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import { clientSecretThrottle } from '../access/guessing-throttle.js';
import type { Metrics } from '../observability/metrics.js';
import { AccessTokenVerifier, issueAccessToken } from '../oauth/access-tokens.js';
import type { AuthorizationServer, AuthorizationServers } from '../oauth/authorization-servers.js';
import { readClientCredentials, unreadableCredentials } from '../oauth/client-authentication.js';
import type { SecretHasher } from '../oauth/client-secrets.js';
import { ADMIN_CLIENT_ID_PATTERN } from './admin-client-ids.js';
import type { KeyRing } from '../oauth/signing-keys.js';
import type { AdminClientForAuth, AdminRole } from '../store/admins.js';
import type { Store } from '../store/open-store.js';

/**
 * The admin authorization server: client credentials (RFC 6749 §4.4) for scripts and the
 * CLI's --endpoint, at `<ADMIN_URL>/admin/oauth2/v1/token`, on the admin listener only. Its
 * tokens are the same RFC 9068 JWTs as the public servers', signed by the same keys, but
 * with their own issuer and audience, so neither side accepts the other's tokens. A token's
 * scope names its admin's role (`admin:<role>`); a client acts as the admin it belongs to.
 */

export const ADMIN_AUDIENCE = 'results-api:admin';
/** Admin tokens are short-lived: a script asks again; a revoked client is refused at once anyway. */
export const ADMIN_TOKEN_TTL_SECONDS = 600;
export const adminScope = (role: AdminRole): string => `admin:${role}`;

export function adminAuthorizationServer(config: Config): AuthorizationServer {
  return { id: 'admin', form: 'B', kind: 'custom', issuer: `${config.admin?.url ?? config.publicUrl}/admin/oauth2`, audience: ADMIN_AUDIENCE, scope: 'admin' };
}

/** The verifier of admin tokens: trusts the admin issuer only (never the public servers'). */
export function adminTokenVerifier(config: Config, keys: KeyRing, clock: Clock): AccessTokenVerifier {
  const server = adminAuthorizationServer(config);
  // One server plays every part the verifier asks of the public set.
  const servers: AuthorizationServers = { default: server, custom: server, all: [server], byId: (id) => (id === server.id ? server : undefined), byIssuer: (iss) => (iss === server.issuer ? server : undefined) };
  return new AccessTokenVerifier(servers, keys, clock);
}

interface TokenDeps {
  config: Config;
  store: Store;
  clock: Clock;
  keys: KeyRing;
  hasher: SecretHasher;
  rateLimiter: RateLimiter;
  metrics: Metrics;
}

const TokenResponse = Type.Object(
  { access_token: Type.String(), token_type: Type.Literal('Bearer'), expires_in: Type.Integer(), scope: Type.String() },
  { title: 'AdminTokenResponse' },
);
const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() }, { title: 'AdminOAuthError' });

export async function registerAdminTokenEndpoint(app: FastifyInstance, deps: TokenDeps): Promise<void> {
  const server = adminAuthorizationServer(deps.config);
  const throttle = clientSecretThrottle('admin-token', { ...deps, rateLimit: deps.config.rateLimit, audit: deps.store.audit });
  await app.register(async (scope) => {
    registerFormBodyParser(scope);
    scope.post<{ Body: Record<string, string | string[] | undefined> }>(
      '/admin/oauth2/v1/token',
      {
        schema: {
          tags: ['Admin authorization server'],
          summary: 'An admin API token (client credentials)',
          description:
            'grant_type=client_credentials with an admin API client (`results-api admins clients create`), by HTTP Basic or form ' +
            'keys. The token acts as the client\'s admin, with their role as its scope; send it as Authorization: Bearer.',
          security: [],
          consumes: ['application/x-www-form-urlencoded'],
          response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody },
        },
      },
      async (request, reply) => {
        try {
          const body = (request.body ?? {}) as Record<string, string | string[] | undefined>;
          if (Object.values(body).some(Array.isArray)) throw oauthErrors.invalidRequest('A parameter was given more than once.');
          const form = body as Record<string, string | undefined>;
          if (form.grant_type !== 'client_credentials') throw oauthErrors.unsupportedGrantType(String(form.grant_type ?? ''));
          const client = await authenticate(request, form);
          const scopeName = adminScope(client.admin.role);
          if (form.scope !== undefined && form.scope !== scopeName) throw oauthErrors.invalidScope(form.scope, scopeName);
          const issued = await issueAccessToken(server, client.clientId, [scopeName], { keys: deps.keys, clock: deps.clock, ttlSeconds: ADMIN_TOKEN_TTL_SECONDS });
          reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
          return { access_token: issued.accessToken, token_type: 'Bearer' as const, expires_in: ADMIN_TOKEN_TTL_SECONDS, scope: issued.scope };
        } catch (error) {
          if (error instanceof OAuthError) return sendOAuthError(reply, error);
          throw error;
        }
      },
    );
  });

  /** Throttled as the public token endpoint is: the secret is its own known device (see requireClient). */
  async function authenticate(request: FastifyRequest, form: Record<string, string | undefined>): Promise<AdminClientForAuth> {
    const presented = readClientCredentials(request.headers.authorization, form);
    const basic = presented.method === 'client_secret_basic';
    const attempt = { address: request.ip, account: presented.ok ? presented.clientId.slice(0, 64) : undefined, log: request.log };
    return throttle.checkSecret(
      attempt,
      async () => {
        if (!presented.ok) return { ok: false, refusal: unreadableCredentials(presented), accountExists: false };
        const client = ADMIN_CLIENT_ID_PATTERN.test(presented.clientId) ? await deps.store.admins.findClientForAuth(presented.clientId) : null;
        // Always one HMAC and the same comparisons, whether or not the client exists.
        const matches = deps.hasher.matchesAny(presented.clientSecret, client ? [{ hash: client.secretHash, live: client.revokedAt === null }] : []);
        if (client && matches) return { ok: true, value: client };
        return { ok: false, refusal: oauthErrors.invalidClient(client ? 'wrong secret or revoked' : 'unknown admin client', basic), accountExists: client !== null };
      },
      oauthErrors.tooManyRequests,
    );
  }
}