import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { DEVICE_COOKIE_TTL_SECONDS } from '../sign-in/device-cookies.js';
import { newSecretToken, tokenHash } from '../sign-in/secret-tokens.js';
import type { Store } from '../store/open-store.js';
import type { UserSession } from '../store/user-accounts.js';

/** A user's browser session ends eight hours after sign-in, whatever happens in between. */
export const USER_SESSION_TTL_SECONDS = 8 * 60 * 60;

const isHttps = (config: Config): boolean => new URL(config.authUrl).protocol === 'https:';

/**
 * `__Host-` over https (RFC 6265bis: Secure, host-only, Path=/, so no subdomain can plant one).
 * The session cookie is SameSite=Lax: an app sends its user here by a top-level link, and the
 * user should not have to sign in again each time; every state change needs the form token too.
 */
const cookieNames = (config: Config) =>
  isHttps(config)
    ? { session: '__Host-results_user', form: '__Host-results_form', device: '__Host-results_device' }
    : { session: 'results_user', form: 'results_form', device: 'results_device' };

const cookieOptions = (config: Config, sameSite: 'lax' | 'strict', maxAgeSeconds: number) => ({
  path: '/',
  httpOnly: true,
  sameSite,
  secure: isHttps(config),
  maxAge: maxAgeSeconds,
});

const sameToken = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

export interface SignedIn extends UserSession {
  /** The cookie's hash, for signing out. */
  sessionHash: string;
}

/** The browser's live session, if it is signed in. */
export async function signedInUser(request: FastifyRequest, deps: { config: Config; store: Store }): Promise<SignedIn | null> {
  const cookie = request.cookies[cookieNames(deps.config).session];
  if (!cookie || cookie.length > 100) return null;
  const sessionHash = tokenHash(cookie);
  const session = await deps.store.userAccounts.findSession(sessionHash);
  return session ? { ...session, sessionHash } : null;
}

/** Starts a browser session: the cookie holds the id, the database its hash. */
export async function startSession(reply: FastifyReply, deps: { config: Config; store: Store; now: number }, user: UserSession['user']): Promise<void> {
  const sessionId = newSecretToken();
  await deps.store.userAccounts.createSession(
    { idHash: tokenHash(sessionId), userId: user.id, csrfToken: newSecretToken(), expiresAt: deps.now + USER_SESSION_TTL_SECONDS * 1000 },
    user,
  );
  reply.setCookie(cookieNames(deps.config).session, sessionId, cookieOptions(deps.config, 'lax', USER_SESSION_TTL_SECONDS));
}

/** The browser's device cookie (src/sign-in/device-cookies.ts), as sent: checked by whoever reads it. */
export const deviceCookie = (request: FastifyRequest, config: Config): string | undefined => request.cookies[cookieNames(config).device];

/** Sets the device cookie a sign-in earned: SameSite=Strict, it is only read by our own sign-in form's post. */
export function setDeviceCookie(reply: FastifyReply, config: Config, value: string): void {
  reply.setCookie(cookieNames(config).device, value, cookieOptions(config, 'strict', DEVICE_COOKIE_TTL_SECONDS));
}

export function clearSession(reply: FastifyReply, config: Config): void {
  reply.clearCookie(cookieNames(config).session, cookieOptions(config, 'lax', 0));
}

/**
 * The form token of this browser (double-submit, OWASP): a random value in a SameSite=Strict,
 * HttpOnly cookie that every form repeats in a hidden field. Another site can make the browser
 * post, never read the value; forms of a signed-in page check the session's token too.
 */
export function formToken(request: FastifyRequest, reply: FastifyReply, config: Config): string {
  const name = cookieNames(config).form;
  const current = request.cookies[name];
  if (current && /^[A-Za-z0-9_-]{43}$/.test(current)) return current;
  const token = newSecretToken();
  reply.setCookie(name, token, cookieOptions(config, 'strict', USER_SESSION_TTL_SECONDS));
  // Later reads in this request see it too.
  request.cookies[name] = token;
  return token;
}

/** The hidden field's name in every form. */
export const FORM_TOKEN_FIELD = 'csrf';

/**
 * Whether a posted form came from one of our pages: the browser's form token repeated in the
 * form, and, when the browser says where the post came from, this origin.
 */
const sameHost = (origin: string, host: string): boolean => {
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
};

export function formIsOurs(request: FastifyRequest, config: Config, posted: unknown): boolean {
  // Browsers say where a post came from: Sec-Fetch-Site always, Origin unless the referrer
  // policy (no-referrer, ours) makes it "null".
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== 'null' && !sameHost(origin, request.host)) return false;
  const cookie = request.cookies[cookieNames(config).form];
  return typeof posted === 'string' && typeof cookie === 'string' && sameToken(posted, cookie);
}

/** A local path to return to after signing in: only our own account pages and authorization endpoints. */
export function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 4096) return undefined;
  if (!/^\/(?:oauth2\/[A-Za-z0-9]+\/v1\/authorize|account\/)/.test(value)) return undefined;
  return value;
}
