import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { apiErrors } from '../errors.js';
import type { AccessTokenVerifier } from '../oauth/access-tokens.js';
import { inspectAccessToken } from '../oauth/inspect-access-token.js';
import { READ_SCOPES } from '../oauth/scope-names.js';
import type { AccessReads } from './access-cache.js';
import type { Caller } from './caller.js';

const READ_SCOPE_SET = new Set(READ_SCOPES);

/**
 * Finds the access token in `Authorization: Bearer` (form B) or `token` (form A). Either
 * header is accepted on every path; both at once is ambiguous and refused.
 */
export function readAccessToken(request: FastifyRequest): string {
  const authorization = request.headers.authorization;
  const tokenHeader = request.headers.token;
  const bearer = authorization !== undefined ? /^Bearer +(\S+) *$/i.exec(authorization)?.[1] : undefined;
  if (authorization !== undefined && tokenHeader !== undefined) throw apiErrors.bothTokenHeaders();
  if (tokenHeader !== undefined) {
    const value = Array.isArray(tokenHeader) ? tokenHeader.join(',') : tokenHeader.trim();
    if (value === '') throw apiErrors.missingToken();
    return value;
  }
  // RFC 6750 §3.1: another scheme (or none) is a request without our credentials.
  if (bearer === undefined) throw apiErrors.missingToken();
  return bearer;
}

/**
 * Who is calling, checked on every request: a valid token, not revoked, of a credential
 * that is still active, whose user is still active, carrying a read scope. Credential and
 * user status are read at request time so a revocation holds on the very next request.
 */
export async function authenticateRequest(
  request: FastifyRequest,
  deps: { verifier: AccessTokenVerifier; reads: AccessReads; clock: Clock },
): Promise<Caller> {
  const inspection = await inspectAccessToken(readAccessToken(request), deps);
  if (!inspection.active) throw apiErrors.invalidToken(inspection.reason);
  if (!inspection.claims.scp.some((s) => READ_SCOPE_SET.has(s))) throw apiErrors.insufficientScope();
  return inspection.principal;
}
