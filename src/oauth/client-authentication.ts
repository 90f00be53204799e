import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { GuessingThrottle } from '../access/guessing-throttle.js';
import { oauthErrors, type OAuthError } from '../errors.js';
import type { ClientForAuth } from '../store/store.js';
import type { Store } from '../store/open-store.js';
import { CLIENT_ID_PATTERN, type SecretHasher } from './client-secrets.js';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

/** Where the client put its credentials; produced by readClientCredentials. */
export type PresentedCredentials =
  | { ok: true; method: ClientAuthMethod; clientId: string; clientSecret: string }
  | { ok: false; error: 'ambiguous' | 'malformed_basic' | 'missing'; method: ClientAuthMethod | undefined };

export type ClientAuthResult =
  | { ok: true; client: ClientForAuth; method: ClientAuthMethod }
  | { ok: false; reason: 'unknown_client' | 'wrong_secret' | 'revoked' | 'user_disabled'; method: ClientAuthMethod };

/**
 * RFC 6749 §2.3.1: HTTP Basic (client_secret_basic) or form keys (client_secret_post), never
 * both. In Basic, id and secret are form-urlencoded before base64 encoding.
 */
export function readClientCredentials(
  authorization: string | undefined,
  form: { client_id?: string; client_secret?: string },
): PresentedCredentials {
  if (authorization !== undefined) {
    const match = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
    if (!match) return { ok: false, error: 'malformed_basic', method: 'client_secret_basic' };
    if (form.client_secret !== undefined) return { ok: false, error: 'ambiguous', method: 'client_secret_basic' };
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { ok: false, error: 'malformed_basic', method: 'client_secret_basic' };
    try {
      const clientId = formDecode(decoded.slice(0, colon));
      const clientSecret = formDecode(decoded.slice(colon + 1));
      if (form.client_id !== undefined && form.client_id !== clientId) {
        return { ok: false, error: 'ambiguous', method: 'client_secret_basic' };
      }
      return { ok: true, method: 'client_secret_basic', clientId, clientSecret };
    } catch {
      return { ok: false, error: 'malformed_basic', method: 'client_secret_basic' };
    }
  }
  if (form.client_id !== undefined && form.client_secret !== undefined) {
    return { ok: true, method: 'client_secret_post', clientId: form.client_id, clientSecret: form.client_secret };
  }
  return { ok: false, error: 'missing', method: form.client_id !== undefined ? 'client_secret_post' : undefined };
}

/** The answer to credentials that could not be read: two methods at once, or neither, or a malformed one. */
export function unreadableCredentials(presented: Extract<PresentedCredentials, { ok: false }>): OAuthError {
  if (presented.error === 'ambiguous') return oauthErrors.invalidRequest('Use one client authentication method: HTTP Basic or form keys, not both.');
  return oauthErrors.invalidClient(`client credentials ${presented.error}`, presented.method === 'client_secret_basic');
}

const formDecode = (value: string): string => decodeURIComponent(value.replace(/\+/g, ' '));

/**
 * Checks a presented client id and secret. Every failure is an expected outcome, returned
 * as a reason for the log; the caller answers all of them identically. An unknown client
 * costs what a wrong secret costs (one store read, one HMAC, the same comparisons against
 * decoys), so the answer's timing does not tell which ids exist.
 */
export async function authenticateClient(
  presented: { clientId: string; clientSecret: string; method: ClientAuthMethod },
  deps: { store: Store; hasher: SecretHasher; clock: Clock },
): Promise<ClientAuthResult> {
  const { method } = presented;
  // Only ids we could have issued reach the database (no NUL bytes, no megabyte strings);
  // the id's shape is public, so skipping the read for a malformed one reveals nothing.
  const client = CLIENT_ID_PATTERN.test(presented.clientId) ? await deps.store.credentials.findClientForAuth(presented.clientId) : null;
  const now = deps.clock.now();
  const stored = (client?.secrets ?? []).map((s) => ({ hash: s.hash, live: s.expiresAt === null || s.expiresAt > now }));
  const secretMatches = deps.hasher.matchesAny(presented.clientSecret, stored);
  if (!client) return { ok: false, reason: 'unknown_client', method };
  if (!secretMatches) return { ok: false, reason: 'wrong_secret', method };
  if (client.revoked) return { ok: false, reason: 'revoked', method };
  if (!client.userActive) return { ok: false, reason: 'user_disabled', method };
  return { ok: true, client, method };
}

/**
 * The client-authentication step shared by the token, introspection and revocation
 * endpoints: exactly one method, a known client, a matching secret, an active credential.
 * Every failure becomes the one public invalid_client answer (RFC 6749 §5.2).
 *
 * Throttled by the guessing throttle (src/access/guessing-throttle.ts): failures count per
 * source address and per (client id, address); once either is over its limit a failure is
 * answered 429 instead of 401. The secret itself is the known device: 256 random bits cannot
 * be guessed, so a correct secret is always checked and never refused, whoever else has been
 * failing; failures against one client from many addresses are reported, never refused.
 */
export async function requireClient(
  request: FastifyRequest<{ Body: { client_id?: string; client_secret?: string } }>,
  deps: { store: Store; hasher: SecretHasher; clock: Clock; secretThrottle: GuessingThrottle },
): Promise<ClientForAuth> {
  const presented = readClientCredentials(request.headers.authorization, request.body);
  const basic = presented.method === 'client_secret_basic';
  const attempt = { address: request.ip, account: presented.ok ? presented.clientId.slice(0, 128) : undefined, log: request.log };
  return deps.secretThrottle.checkSecret(
    attempt,
    async () => {
      if (!presented.ok) return { ok: false, refusal: unreadableCredentials(presented), accountExists: false };
      const auth = await authenticateClient(presented, deps);
      if (auth.ok) return { ok: true, value: auth.client };
      return { ok: false, refusal: oauthErrors.invalidClient(auth.reason, basic), accountExists: auth.reason !== 'unknown_client' };
    },
    oauthErrors.tooManyRequests,
  );
}
