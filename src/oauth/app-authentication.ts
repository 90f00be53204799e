import type { FastifyRequest } from 'fastify';
import { oauthErrors } from '../errors.js';
import type { AppForAuth } from '../store/apps.js';
import { readClientCredentials } from './client-authentication.js';
import type { OAuthDeps } from './oauth-deps.js';

const MAX_CLIENT_ID_LENGTH = 2048;

/**
 * The app making a token request for a user's grant (RFC 6749 §2.3, §3.2.1): a confidential
 * app by its secret (HTTP Basic or form keys, never both), a public app by its client_id alone
 * (its proof is the PKCE verifier or the refresh token). Every failure is the one invalid_client
 * answer, throttled by the guessing throttle as client credentials are (a correct secret is
 * never refused).
 */
export async function requireApp(
  request: FastifyRequest<{ Body: { client_id?: string; client_secret?: string } }>,
  deps: Pick<OAuthDeps, 'reads' | 'hasher' | 'secretThrottle'>,
): Promise<AppForAuth> {
  const presented = readClientCredentials(request.headers.authorization, request.body);
  const basic = presented.method === 'client_secret_basic';
  if (!presented.ok && presented.error === 'ambiguous') throw oauthErrors.invalidRequest('Use one client authentication method: HTTP Basic or form keys, not both.');
  const clientId = presented.ok ? presented.clientId : request.body.client_id;
  const refuse = (why: string, accountExists: boolean) => ({ ok: false as const, refusal: oauthErrors.invalidClient(why, basic), accountExists });
  return deps.secretThrottle.checkSecret(
    { address: request.ip, account: typeof clientId === 'string' ? clientId.slice(0, 128) : undefined, log: request.log },
    async () => {
      if (!presented.ok && presented.error === 'malformed_basic') return refuse('malformed Basic credentials', false);
      if (typeof clientId !== 'string' || clientId === '' || clientId.length > MAX_CLIENT_ID_LENGTH) return refuse('no client_id', false);
      // Cached per process as the API's principals are: no database read per refresh request.
      const app = await deps.reads.findApp(clientId);
      // The same keyed-hash work whether or not the app exists or has a secret.
      const secretMatches = deps.hasher.matchesAny(presented.ok ? presented.clientSecret : '', app?.secretHash ? [{ hash: app.secretHash, live: true }] : []);
      if (!app) return refuse('unknown app', false);
      if (app.revokedAt !== null) return refuse('app revoked', true);
      if (app.clientType === 'confidential' && !(presented.ok && secretMatches)) return refuse('wrong or missing app secret', true);
      if (app.clientType === 'public' && presented.ok) return refuse('a public app sent a secret', true);
      return { ok: true as const, value: app };
    },
    oauthErrors.tooManyRequests,
  );
}

/**
 * Whether the client presenting itself at the introspection or revocation endpoint is an app
 * (issue 34) rather than a client credential: its client_id names a registered app.
 */
export async function presentsApp(
  request: FastifyRequest<{ Body: { client_id?: string; client_secret?: string } }>,
  deps: Pick<OAuthDeps, 'reads'>,
): Promise<boolean> {
  const presented = readClientCredentials(request.headers.authorization, request.body);
  const clientId = presented.ok ? presented.clientId : request.body.client_id;
  return typeof clientId === 'string' && clientId.length <= MAX_CLIENT_ID_LENGTH && (await deps.reads.findApp(clientId)) !== null;
}
