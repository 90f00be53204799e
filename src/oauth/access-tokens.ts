import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';
import type { Clock } from '../clock.js';
import { MAX_TOKEN_TTL_SECONDS } from '../config.js';
import type { AuthorizationServer, AuthorizationServers } from './authorization-servers.js';
import type { KeyRing } from './signing-keys.js';

/**
 * The claims of our RFC 9068 access tokens (plus Okta's `cid` and `scp`). `scope` is what a
 * token grants (RFC 9068 §2.2.3); `scp` is issued for clients that read Okta's claim, and a
 * token whose `scp` names other scopes than its `scope` is refused (see scopesOf).
 */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  jti: string;
  client_id: string;
  scope: string;
  cid: string;
  /** Once verified: the scopes of `scope`, as a list (the claim as issued is the same list). */
  scp: string[];
  /**
   * A token an app holds for a user (issue 34): the grant it was issued under, whose revocation
   * ends it. Its `sub` is then the user's id, its `client_id` the app's.
   */
  gid?: string;
}

/** An app's token for a user: the user it acts for and the grant it is issued under. */
export interface ForUser {
  userId: string;
  grantId: string;
}

export interface IssuedToken {
  accessToken: string;
  /** The signing key's id. */
  kid: string;
  scope: string;
  claims: AccessTokenClaims;
}

/** RFC 9068 §2: a JWT access token, `typ: at+jwt`, signed with the current key. */
export async function issueAccessToken(
  server: AuthorizationServer,
  clientId: string,
  scopes: string[],
  deps: { keys: KeyRing; clock: Clock; ttlSeconds: number },
  audience: string = server.audience,
  forUser?: ForUser,
): Promise<IssuedToken> {
  const key = await deps.keys.currentSigningKey();
  const iat = Math.floor(deps.clock.now() / 1000);
  const scope = scopes.join(' ');
  const claims: AccessTokenClaims = {
    iss: server.issuer,
    sub: forUser?.userId ?? clientId,
    aud: audience,
    exp: iat + deps.ttlSeconds,
    iat,
    jti: randomUUID(),
    client_id: clientId,
    scope,
    cid: clientId,
    scp: scopes,
    ...(forUser ? { gid: forUser.grantId } : {}),
  };
  const accessToken = await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: key.kid })
    .sign(key.privateKey);
  return { accessToken, kid: key.kid, scope, claims };
}

export type VerifyResult = { ok: true; claims: AccessTokenClaims } | { ok: false; reason: string };

// Bounds what we are willing to parse; our tokens are ~900 bytes.
const MAX_TOKEN_LENGTH = 4096;
const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * How far in the future a token's `iat` may be: our processes' clocks may disagree by a little
 * (NTP keeps them well within this), never by more. A later `iat` was not issued by us.
 */
export const MAX_IAT_SKEW_SECONDS = 60;

/** The reason for a token we signed whose `exp` has passed: the one refusal worth telling the caller apart (RFC 6750 §3.1). */
export const TOKEN_EXPIRED = 'token expired';

/**
 * Checks a presented access token as RFC 8725 and RFC 9068 §4 require: only RS256 (so no
 * `none` and no HS/RS confusion), `typ` at+jwt, a kid we published, the issuer of one of our
 * servers with that server's own audience or one of our resources' (RFC 8707; which resource
 * a token serves is the guard's question, see ProtectedResource.accepts), and the time claims: not expired, `iat` not beyond
 * MAX_IAT_SKEW_SECONDS in the future, and a lifetime (`exp` - `iat`) no longer than any
 * TOKEN_TTL_SECONDS allows (the maximum, not the configured value, so lowering the setting
 * does not cut off tokens issued before). Header members such as `jku`,
 * `x5u` and `jwk` are never followed: keys come only from our own key ring.
 *
 * Verified tokens are cached (bounded) because an RS256 check costs ~150 µs and a
 * pipeline sends the same token thousands of times; expiry is re-checked on every hit.
 * Revocation and credential status are not part of this check: they change, and the
 * caller checks them per request.
 */
export class AccessTokenVerifier {
  /** Verified tokens, keyed by the end of their signature (see cacheKey), each with the whole token. */
  private readonly cache = new Map<string, { token: string; claims: AccessTokenClaims }>();

  constructor(
    private readonly servers: AuthorizationServers,
    private readonly keys: KeyRing,
    private readonly clock: Clock,
    /** The RFC 8707 resource identifiers a token may be bound to instead of its server's audience. */
    private readonly resourceAudiences: readonly string[] = [],
    private readonly maxCacheEntries = 10_000,
  ) {}

  async verify(token: string): Promise<VerifyResult> {
    const nowSeconds = Math.floor(this.clock.now() / 1000);
    const key = cacheKey(token);
    const cached = this.cache.get(key);
    // Only the very token verified before is served from the cache: the key alone is not proof.
    if (cached !== undefined && cached.token === token) {
      if (cached.claims.exp > nowSeconds) return { ok: true, claims: cached.claims };
      this.cache.delete(key);
      return { ok: false, reason: TOKEN_EXPIRED };
    }
    if (token.length > MAX_TOKEN_LENGTH || !JWS_COMPACT.test(token)) return { ok: false, reason: 'not a compact JWS' };

    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        async (header) => {
          if (typeof header.kid !== 'string') throw new joseErrors.JWKSNoMatchingKey();
          const key = await this.keys.verificationKey(header.kid);
          if (!key) throw new joseErrors.JWKSNoMatchingKey();
          return key.publicKey;
        },
        {
          algorithms: ['RS256'],
          typ: 'at+jwt',
          issuer: this.servers.all.map((s) => s.issuer),
          requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'client_id', 'scope'],
          currentDate: new Date(this.clock.now()),
        },
      ));
    } catch (err) {
      return { ok: false, reason: describeJoseError(err) };
    }

    const lifetimeProblem = checkLifetime(payload.iat!, payload.exp!, nowSeconds);
    if (lifetimeProblem) return { ok: false, reason: lifetimeProblem };
    const server = this.servers.byIssuer(payload.iss!)!;
    if (payload.aud !== server.audience && !this.resourceAudiences.includes(payload.aud as string)) return { ok: false, reason: `audience does not match issuer ${server.id}` };
    // A client's own token names it as its subject; a user's token names the grant it acts under.
    const subjectOk = payload.gid === undefined ? payload.client_id === payload.sub : typeof payload.gid === 'string';
    if (typeof payload.scope !== 'string' || typeof payload.client_id !== 'string' || !subjectOk) {
      return { ok: false, reason: 'malformed client_id, gid or scope claim' };
    }
    const scopes = scopesOf(payload.scope, payload.scp);
    if (!scopes) return { ok: false, reason: 'scp claim does not name the scopes of the scope claim' };
    const claims = payload as unknown as AccessTokenClaims;
    claims.scp = scopes;
    this.remember(key, { token, claims });
    return { ok: true, claims };
  }

  private remember(key: string, entry: { token: string; claims: AccessTokenClaims }): void {
    if (this.cache.size >= this.maxCacheEntries) {
      // Evict the oldest entry (Map keeps insertion order).
      this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(key, entry);
  }
}

/**
 * The cache key: the last 32 characters (192 bits) of the token's RS256 signature, which two
 * tokens share only by chance; a shared key is a miss, since a hit needs the whole token equal.
 * Why not the whole token: a Map hashes each new string key in full, and every request brings
 * its token as a new ~900-character string (measured: ~1.2 µs per lookup, against ~0.1 µs for
 * this key plus the comparison).
 */
const CACHE_KEY_LENGTH = 32;
const cacheKey = (token: string): string => token.slice(-CACHE_KEY_LENGTH);

/**
 * The scopes a token grants: those of its `scope` claim (RFC 9068 §2.2.3, a space-separated
 * list, RFC 6749 §3.3). Okta's `scp`, when present, must list the same scopes, or the token is
 * refused (undefined): two claims that disagree leave it unclear what was granted, and a
 * reader of either must never be granted more than a reader of the other.
 */
function scopesOf(scope: string, scp: unknown): string[] | undefined {
  const scopes = scope.split(' ');
  if (scp === undefined) return scopes;
  if (!Array.isArray(scp) || !scp.every((s) => typeof s === 'string')) return undefined;
  const sorted = (list: readonly string[]) => [...list].sort().join(' ');
  return sorted(scp) === sorted(scopes) ? scopes : undefined;
}

/** What is wrong with a token's `iat` and `exp` (jose has checked that both are numbers), if anything. */
function checkLifetime(iat: number, exp: number, nowSeconds: number): string | undefined {
  if (iat > nowSeconds + MAX_IAT_SKEW_SECONDS) return 'iat in the future';
  if (exp - iat > MAX_TOKEN_TTL_SECONDS) return 'lifetime longer than TOKEN_TTL_SECONDS allows';
  return undefined;
}

function describeJoseError(err: unknown): string {
  // jose checks the signature before the claims: only a token we signed is ever called expired.
  if (err instanceof joseErrors.JWTExpired) return TOKEN_EXPIRED;
  if (err instanceof joseErrors.JOSEError) return `${err.code}: ${err.message}`;
  return 'unverifiable token';
}
