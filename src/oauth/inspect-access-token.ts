import type { Clock } from '../clock.js';
import type { Principal, Store } from '../store/store.js';
import type { AccessTokenClaims, AccessTokenVerifier } from './access-tokens.js';

export type TokenInspection =
  | { active: true; claims: AccessTokenClaims; principal: Principal }
  | { active: false; reason: string };

/**
 * Is this access token usable right now? Its signature and claims (cached), then what can
 * change during its lifetime, read fresh: the token's own revocation (RFC 7009), and its
 * credential and user still being active. The API, introspection and revocation all ask here.
 */
export async function inspectAccessToken(
  token: string,
  deps: { verifier: AccessTokenVerifier; store: Store; clock: Clock },
): Promise<TokenInspection> {
  const verified = await deps.verifier.verify(token);
  if (!verified.ok) return { active: false, reason: verified.reason };
  const { claims } = verified;
  if (await deps.store.isAccessTokenRevoked(claims.jti, deps.clock.now())) return { active: false, reason: 'token revoked' };
  const principal = await deps.store.findPrincipal(claims.client_id);
  if (!principal) return { active: false, reason: 'credential revoked, user disabled or client unknown' };
  return { active: true, claims, principal };
}
