import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { apiErrors } from '../errors.js';
import { TOKEN_EXPIRED, type AccessTokenVerifier } from '../oauth/access-tokens.js';
import { inspectAccessToken } from '../oauth/inspect-access-token.js';
import type { AuthorizationServers } from '../oauth/authorization-servers.js';
import type { ProtectedResource } from '../oauth/resource-indicators.js';
import type { AccessReads } from './access-cache.js';
import type { Caller } from './caller.js';
import { familiesOf } from './scope-families.js';
import { READ_SCOPES } from '../scope-names.js';

/**
 * Finds the access token in `Authorization: Bearer` (form B) or `token` (form A). Either
 * header is accepted on every path; both at once is ambiguous and refused.
 */
export function readAccessToken(request: FastifyRequest, resourceMetadata?: string): string {
  const authorization = request.headers.authorization;
  const tokenHeader = request.headers.token;
  const bearer = authorization !== undefined ? /^Bearer +(\S+) *$/i.exec(authorization)?.[1] : undefined;
  if (authorization !== undefined && tokenHeader !== undefined) throw apiErrors.bothTokenHeaders(resourceMetadata);
  if (tokenHeader !== undefined) {
    const value = Array.isArray(tokenHeader) ? tokenHeader.join(',') : tokenHeader.trim();
    if (value === '') throw apiErrors.missingToken(resourceMetadata);
    return value;
  }
  // RFC 6750 §3.1: another scheme (or none) is a request without our credentials.
  if (bearer === undefined) throw apiErrors.missingToken(resourceMetadata);
  return bearer;
}

/**
 * Who is calling, checked on every request: a valid token, not revoked, of a credential
 * that is still active, whose user is still active, bound to this resource (RFC 8707),
 * carrying a read scope. Credential and user status are read at request time so a revocation
 * holds on the very next request. Every refusal names the resource's metadata (RFC 9728 §5.1).
 */
export async function authenticateRequest(
  request: FastifyRequest,
  deps: { verifier: AccessTokenVerifier; reads: AccessReads; clock: Clock; servers: AuthorizationServers; resource: ProtectedResource },
  /** Scopes of which the token must carry one (default: a read scope). */
  scopes: readonly string[] = READ_SCOPES,
): Promise<Caller> {
  const metadata = deps.resource.metadataUrl;
  const inspection = await inspectAccessToken(readAccessToken(request, metadata), deps);
  if (!inspection.active) {
    throw inspection.reason === TOKEN_EXPIRED ? apiErrors.expiredToken(metadata) : apiErrors.invalidToken(inspection.reason, metadata);
  }
  const { claims } = inspection;
  if (!deps.resource.accepts(claims.aud, deps.servers.byIssuer(claims.iss)!)) {
    throw apiErrors.wrongAudience(`token for ${claims.aud} sent to ${deps.resource.identifier}`, metadata);
  }
  // A route that needs another scope than reading (managing webhooks) names it; reading routes
  // take a read scope, or family scopes that narrow what the caller sees.
  if (scopes !== READ_SCOPES) {
    if (!claims.scp.some((s) => scopes.includes(s))) throw apiErrors.insufficientScope(metadata, scopes);
    return inspection.principal;
  }
  const families = familiesOf(claims.scp);
  if (families === null) throw apiErrors.insufficientScope(metadata);
  // The cached principal itself when nothing is narrowed; a per-request caller only for a narrowed token.
  return families === 'all' ? inspection.principal : { ...inspection.principal, families };
}
