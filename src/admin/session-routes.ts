import type { FastifyInstance, FastifyReply } from 'fastify';
import { GuessingThrottle, guessingReporter, type Checked } from '../access/guessing-throttle.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import type { Metrics } from '../observability/metrics.js';
import type { Store } from '../store/open-store.js';
import { actorOf, type Admin } from '../store/admins.js';
import { emailKey } from '../store/email.js';
import { callerOf, isHttps, sessionCookieName, sessionCookieOptions } from './caller.js';
import { DeviceCookies, DEVICE_COOKIE_TTL_SECONDS } from '../sign-in/device-cookies.js';
import { decoyHash, hashPassword, passwordProblem, verifyPassword } from '../sign-in/passwords.js';
import { SESSION_TTL_SECONDS, SIGN_IN_WINDOW_SECONDS } from './policy.js';
import { adminProblems } from './problems.js';
import { AdminView, Me, SetupBody, SignInBody, TotpConfirmBody, TotpEnrolment, adminResponses, adminView } from './schemas.js';
import { acceptedTotpStep, newTotpSecret } from '../sign-in/totp.js';
import { newSecretToken, tokenHash } from '../sign-in/secret-tokens.js';
import { emailField } from './fields.js';
import { Type } from '@sinclair/typebox';

export interface SessionRouteDeps {
  config: Config;
  store: Store;
  clock: Clock;
  rateLimiter: RateLimiter;
  metrics: Metrics;
}

const TAGS = ['Session'];

/** Sign-in guessing is throttled per address and per (account, address or device); see src/access/guessing-throttle.ts. */
function signInThrottle(deps: SessionRouteDeps): GuessingThrottle {
  const limits = deps.config.admin ?? { signInFailuresPerAccount: 5, signInFailuresPerAddress: 20, signInGuessingAlert: 20 };
  return new GuessingThrottle(
    'admin-sign-in',
    {
      windowSeconds: SIGN_IN_WINDOW_SECONDS,
      failuresPerAddress: limits.signInFailuresPerAddress,
      failuresPerAccountAndAddress: limits.signInFailuresPerAccount,
      alertAfterAccountFailures: limits.signInGuessingAlert,
    },
    { rateLimiter: deps.rateLimiter, report: guessingReporter({ metrics: deps.metrics, audit: deps.store.audit }) },
  );
}

/** Setting a password through a setup link, signing in and out, who am I, and TOTP enrolment. */
export async function registerSignInRoutes(app: FastifyInstance, deps: SessionRouteDeps): Promise<void> {
  const { config, store, clock } = deps;
  const cookieName = sessionCookieName(config);
  // `__Host-` over https, as the session cookie is.
  const deviceCookie = isHttps(config) ? '__Host-admin_device' : 'admin_device';
  const devices = await DeviceCookies.load(store.settings, 'admin');
  const throttle = signInThrottle(deps);

  app.post<{ Body: SetupBody }>(
    '/admin/api/setup',
    {
      schema: {
        summary: 'Set the password through a one-time setup link',
        description: 'Uses the token of the link `results-api admins create` printed: once, within 24 hours. Signs out every session of the account.',
        tags: TAGS,
        security: [],
        body: SetupBody,
        response: adminResponses({ 200: AdminView }),
      },
    },
    async (request) => {
      const weak = passwordProblem(request.body.password);
      if (weak) throw adminProblems.weakPassword(weak);
      const admin = await store.admins.completeSetup(tokenHash(request.body.token), await hashPassword(request.body.password));
      if (!admin) throw adminProblems.setupLinkInvalid();
      return adminView(admin);
    },
  );

  app.post<{ Body: SignInBody }>(
    '/admin/api/sign-in',
    {
      schema: {
        summary: 'Sign in: sets the session cookie and returns the CSRF token',
        description:
          'Failed attempts are throttled per address and per account from one address, or per device for a browser that signed in to ' +
          'the account before (its device cookie); never per account alone (429 with Retry-After). When the account has TOTP on, ' +
          'the answer without totpCode is 401 totp-required.',
        tags: TAGS,
        security: [],
        body: SignInBody,
        response: adminResponses({ 200: Me }),
      },
    },
    async (request, reply) => {
      const email = emailField('email', request.body.email);
      const account = emailKey(email);
      const now = clock.now();
      const device = devices.deviceOf(request.cookies[deviceCookie], account, now);
      const admin = await throttle.checkPassword(
        { address: request.ip, account, device, log: request.log },
        () => checkSignIn(email, request.body.password, request.body.totpCode),
        adminProblems.throttled,
      );
      const sessionId = newSecretToken();
      const csrfToken = newSecretToken();
      await store.admins.createSession({ idHash: tokenHash(sessionId), adminId: admin.id, csrfToken, expiresAt: now + SESSION_TTL_SECONDS * 1000 }, admin);
      reply.setCookie(cookieName, sessionId, sessionCookieOptions(config, SESSION_TTL_SECONDS));
      reply.setCookie(deviceCookie, devices.issue(account, now, device), sessionCookieOptions(config, DEVICE_COOKIE_TTL_SECONDS));
      return { admin: adminView(admin), workspaces: await store.admins.assignedWorkspaces(admin.id), csrfToken };
    },
  );

  async function checkSignIn(email: string, password: string, totpCode: string | undefined): Promise<Checked<Admin>> {
    const found = await store.admins.findAdminForSignIn(email);
    // An unknown account (or one not set up) costs a hash too, so timing does not tell which accounts exist.
    const passwordOk = await verifyPassword(password, found?.passwordHash ?? (await decoyHash()));
    const refused = { ok: false as const, refusal: adminProblems.badSignIn(), accountExists: found !== null };
    if (!found?.passwordHash || !passwordOk) return refused;
    if (found.totpSecret) {
      if (totpCode === undefined) return { ok: false, refusal: adminProblems.totpRequired(), accountExists: true, rightCredential: true };
      const step = acceptedTotpStep(found.totpSecret, found.email, totpCode, clock.now());
      if (step === null || !(await store.admins.recordTotpStep(found.id, step))) return refused;
    }
    return { ok: true, value: found };
  }

}

/** The signed-in admin's own routes (registered in the authenticated scope). */
export function registerMeRoutes(authenticated: FastifyInstance, deps: SessionRouteDeps): void {
  const { config, store, clock } = deps;
  const cookieName = sessionCookieName(config);
    authenticated.get(
      '/admin/api/me',
      { schema: { summary: 'The signed-in admin, the workspaces they administer, and the CSRF token', tags: TAGS, response: adminResponses({ 200: Me }) } },
      async (request) => {
        const caller = callerOf(request);
        return { admin: adminView(caller.admin), workspaces: await store.admins.assignedWorkspaces(caller.admin.id), csrfToken: caller.csrfToken };
      },
    );

    authenticated.post(
      '/admin/api/sign-out',
      { schema: { summary: 'Sign out: ends the session and clears its cookie', tags: TAGS, response: adminResponses({ 204: null }) } },
      async (request, reply: FastifyReply) => {
        const caller = callerOf(request);
        if (caller.sessionHash) await store.admins.endSession(caller.sessionHash, caller.admin);
        reply.clearCookie(cookieName, sessionCookieOptions(config, 0));
        return reply.code(204).send();
      },
    );

    authenticated.post(
      '/admin/api/me/totp',
      {
        schema: {
          summary: 'Start TOTP enrolment: a new secret to add to an authenticator app',
          description: 'The second factor is on only after POST /admin/api/me/totp/confirm with a code of this secret.',
          tags: TAGS,
          response: adminResponses({ 200: TotpEnrolment }),
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const enrolment = newTotpSecret(caller.admin.email);
        await store.admins.setPendingTotp(caller.admin.id, enrolment.secret);
        return enrolment;
      },
    );

    authenticated.post<{ Body: { code: string } }>(
      '/admin/api/me/totp/confirm',
      {
        schema: {
          summary: 'Turn TOTP on with a code of the enrolled secret',
          tags: TAGS,
          body: TotpConfirmBody,
          response: adminResponses({ 200: Type.Object({ totpEnabled: Type.Literal(true) }) }),
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const secret = await store.admins.pendingTotp(caller.admin.id);
        if (!secret) throw adminProblems.totpNotStarted();
        const step = acceptedTotpStep(secret, caller.admin.email, request.body.code, clock.now());
        if (step === null || !(await store.admins.enableTotp(caller.admin.id, secret, step, { actor: actorOf(caller.admin) }))) {
          throw adminProblems.totpInvalid();
        }
        return { totpEnabled: true as const };
      },
    );
}
