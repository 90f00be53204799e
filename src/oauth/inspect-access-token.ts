import type { Clock } from '../clock.js';
import type { AccessReads } from '../access/access-cache.js';
import type { Principal } from '../store/store.js';
import type { AccessTokenClaims, AccessTokenVerifier } from './access-tokens.js';

export type TokenInspection =
  | { active: true; claims: AccessTokenClaims; principal: Principal }
  | { active: false; reason: string };

/**
 * Is this access token usable right now? Its signature and claims (cached), then what can
 * change during its lifetime, read fresh: the token's own revocation (RFC 7009), and its
 * credential and user still being active (for an app's token for a user: its grant, app and user). The API, introspection and revocation all ask here.
 */
export async function inspectAccessToken(
  token: string,
  deps: { verifier: AccessTokenVerifier; reads: AccessReads; clock: Clock },
): Promise<TokenInspection> {
  const verified = await deps.verifier.verify(token);
  if (!verified.ok) return { active: false, reason: verified.reason };
  const { claims } = verified;
  if (await deps.reads.isAccessTokenRevoked(claims.jti, deps.clock.now())) return { active: false, reason: 'token revoked' };
  if (claims.gid !== undefined) {
    const principal = await deps.reads.findGrantPrincipal(claims.gid);
    if (!principal || principal.clientId !== claims.client_id || principal.userId !== claims.sub) {
      return { active: false, reason: 'grant revoked, app revoked or user disabled' };
    }
    return { active: true, claims, principal };
  }
  const principal = await deps.reads.findPrincipal(claims.client_id);
  if (!principal) return { active: false, reason: 'credential revoked, user disabled or client unknown' };
  return { active: true, claims, principal };
}
