import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DeviceCookies } from '../sign-in/device-cookies.js';
import { emailKey } from '../store/email.js';
import { deviceCookie, FORM_TOKEN_FIELD, formIsOurs, formToken, safeReturnPath, setDeviceCookie, startSession } from './browser-session.js';
import type { AccountDeps } from './deps.js';
import { formValue } from './form-fields.js';
import { alertBox, field, hidden, html, sendPage } from './html.js';
import { UserSignIn } from './user-sign-in.js';

export const SIGN_IN_PATH = '/account/sign-in';
/** Where a signed-in user lands when nothing else was asked for. */
export const ACCOUNT_HOME_PATH = '/account/apps';

const NOTICES: Record<string, string> = {
  'password-set': 'Your password is set. Sign in with it.',
  'signed-out': 'You are signed out.',
};

/** The sign-in form: Email, Password, and the authenticator code for those who turned it on. */
function signInPage(request: FastifyRequest, reply: FastifyReply, deps: AccountDeps, status: number, state: { email?: string; returnTo?: string; error?: string; notice?: string }) {
  const token = formToken(request, reply, deps.config);
  return sendPage(reply, status, {
    title: 'Sign in',
    body: html`${alertBox(state.error)}${state.notice ? html`<p role="status">${state.notice}</p>` : ''}
<form method="post" action="${SIGN_IN_PATH}">
${hidden(FORM_TOKEN_FIELD, token)}${state.returnTo ? hidden('return_to', state.returnTo) : ''}
${field({ name: 'email', label: 'Email', type: 'email', autocomplete: 'username', value: state.email ?? '' })}
${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password' })}
${field({ name: 'code', label: 'Authentication code', autocomplete: 'one-time-code', required: false, hint: 'Only if you turned on two-step sign-in: the 6 digits your authenticator app shows.' })}
<p><button type="submit" class="primary">Sign in</button></p>
</form>`,
  });
}

/** GET and POST /account/sign-in. */
export async function registerSignInRoute(app: FastifyInstance, deps: AccountDeps): Promise<void> {
  const devices = await DeviceCookies.load(deps.store.settings, 'user');
  const signIn = new UserSignIn({ ...deps, limits: deps.config.userSignIn });
  app.get<{ Querystring: Record<string, unknown> }>(SIGN_IN_PATH, { schema: { hide: true } }, async (request, reply) => {
    const notice = NOTICES[String(request.query.notice)];
    return signInPage(request, reply, deps, 200, { returnTo: safeReturnPath(request.query.return_to), notice });
  });

  app.post<{ Body: unknown }>(SIGN_IN_PATH, { schema: { hide: true } }, async (request, reply) => {
    const body = request.body;
    const email = formValue(body, 'email', 320)?.trim() ?? '';
    const returnTo = safeReturnPath(formValue(body, 'return_to'));
    if (!formIsOurs(request, deps.config, formValue(body, FORM_TOKEN_FIELD))) {
      return signInPage(request, reply, deps, 403, { email, returnTo, error: 'This form has expired. Please sign in again.' });
    }
    const password = formValue(body, 'password', 256) ?? '';
    if (email === '' || password === '') return signInPage(request, reply, deps, 400, { email, returnTo, error: 'Enter your email and your password.' });
    const account = emailKey(email);
    const now = deps.clock.now();
    const device = devices.deviceOf(deviceCookie(request, deps.config), account, now);
    const outcome = await signIn.signIn({ email, account, password, code: formValue(body, 'code', 16) || undefined, address: request.ip, device, log: request.log });
    if (outcome.ok === false && outcome.reason === 'throttled') {
      reply.header('retry-after', String(outcome.retryAfterSeconds));
      const minutes = Math.ceil(outcome.retryAfterSeconds / 60);
      return signInPage(request, reply, deps, 429, { email, returnTo, error: `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` });
    }
    if (!outcome.ok) {
      const error = outcome.reason === 'code-required' ? 'Enter the code your authenticator app shows, with your password.' : 'The email, password or code is not right.';
      return signInPage(request, reply, deps, 401, { email, returnTo, error });
    }
    setDeviceCookie(reply, deps.config, devices.issue(account, now, device));
    await startSession(reply, { ...deps, now }, outcome.user);
    request.log.info({ userId: outcome.user.id }, 'user signed in');
    return reply.redirect(returnTo ?? ACCOUNT_HOME_PATH, 303);
  });
}
