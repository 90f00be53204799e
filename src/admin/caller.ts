import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Admin, AdminRole } from '../store/admins.js';
import { actorOf } from '../store/admins.js';
import { conflict } from '../store/conflicts.js';
import type { Store } from '../store/open-store.js';
import { adminProblems } from './problems.js';
import { tokenHash } from '../sign-in/secret-tokens.js';
import { adminScope } from './admin-tokens.js';
import type { AccessTokenVerifier } from '../oauth/access-tokens.js';

/** Who is calling the admin API, and how: a console session (cookie) or an admin API token. */
export interface AdminCaller {
  admin: Admin;
  /** How the audit log names them. */
  actor: string;
  /** Set for a session: the token every state change must echo in X-CSRF-Token. */
  csrfToken: string | null;
  /** The cookie's hash, for signing out. */
  sessionHash: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    adminCaller: AdminCaller | null;
  }
}

/** `__Host-` (RFC 6265bis): the browser keeps it only when Secure, host-only, Path=/: nobody can plant one from a subdomain. */
export const sessionCookieName = (config: Config): string => (isHttps(config) ? '__Host-admin_session' : 'admin_session');

export const isHttps = (config: Config): boolean => new URL(config.admin?.url ?? 'http://localhost').protocol === 'https:';

/** HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Secure over https. */
export const sessionCookieOptions = (config: Config, maxAgeSeconds: number) => ({
  path: '/',
  httpOnly: true,
  sameSite: 'strict' as const,
  secure: isHttps(config),
  maxAge: maxAgeSeconds,
});

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const sameToken = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * onRequest hook of the authenticated routes: finds the caller from the session cookie, and
 * refuses a state change made with the cookie that lacks the session's CSRF token (a
 * synchronizer token: a page of another origin can make the browser send the cookie, never
 * read the token).
 */
export function authenticateAdmin(deps: { config: Config; store: Store; verifier: AccessTokenVerifier }) {
  const cookieName = sessionCookieName(deps.config);
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) {
      request.adminCaller = await callerOfToken(authorization, deps);
      return;
    }
    const cookie = request.cookies[cookieName];
    if (!cookie) throw adminProblems.unauthenticated();
    const sessionHash = tokenHash(cookie);
    const session = await deps.store.admins.findSession(sessionHash);
    if (!session || !session.admin.passwordSet) throw adminProblems.unauthenticated();
    if (!SAFE_METHODS.has(request.method)) {
      const given = request.headers['x-csrf-token'];
      if (typeof given !== 'string' || !sameToken(given, session.csrfToken)) throw adminProblems.csrf();
    }
    request.adminCaller = { admin: session.admin, actor: actorOf(session.admin), csrfToken: session.csrfToken, sessionHash };
  };
}

/**
 * An admin API token (no CSRF check: a browser never attaches one by itself). Checked on every
 * request against its client and admin, so a revoked client or a changed role holds at once.
 */
async function callerOfToken(authorization: string, deps: { store: Store; verifier: AccessTokenVerifier }): Promise<AdminCaller> {
  const match = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(authorization);
  if (!match) throw adminProblems.unauthenticated();
  const verified = await deps.verifier.verify(match[1]!);
  if (!verified.ok) throw adminProblems.unauthenticated();
  const client = await deps.store.admins.findClientForAuth(verified.claims.client_id);
  if (!client || client.revokedAt !== null || verified.claims.scope !== adminScope(client.admin.role)) throw adminProblems.unauthenticated();
  return { admin: client.admin, actor: actorOf(client.admin), csrfToken: null, sessionHash: null };
}

/** The caller of an authenticated route (set by authenticateAdmin). */
export function callerOf(request: FastifyRequest): AdminCaller {
  if (!request.adminCaller) throw adminProblems.unauthenticated();
  return request.adminCaller;
}

/** Refuses every role but `roles` (operator always passes). */
export function requireRole(request: FastifyRequest, ...roles: AdminRole[]): AdminCaller {
  const caller = callerOf(request);
  if (caller.admin.role !== 'operator' && !roles.includes(caller.admin.role)) throw adminProblems.forbidden(caller.admin.role);
  return caller;
}

/**
 * Members and tests of a workspace: an operator, or an account admin who administers it. For
 * anyone else the workspace does not exist (the same 404 as an unknown id: whether a workspace
 * exists is not told to those who may not see it).
 */
export async function requireWorkspaceAccess(request: FastifyRequest, store: Store, workspaceId: string): Promise<AdminCaller> {
  const caller = callerOf(request);
  if (caller.admin.role === 'operator') return caller;
  if (caller.admin.role === 'account-admin' && (await store.admins.administers(caller.admin.id, workspaceId))) return caller;
  if (caller.admin.role === 'support') throw adminProblems.forbidden(caller.admin.role);
  throw conflict.noWorkspace(workspaceId);
}
