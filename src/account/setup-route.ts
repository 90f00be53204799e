import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashPassword, MIN_PASSWORD_LENGTH, passwordProblem } from '../sign-in/passwords.js';
import { tokenHash } from '../sign-in/secret-tokens.js';
import { FORM_TOKEN_FIELD, formIsOurs, formToken } from './browser-session.js';
import type { AccountDeps } from './deps.js';
import { formValue } from './form-fields.js';
import { alertBox, field, hidden, html, sendPage, SETUP_SCRIPT_PATH } from './html.js';
import { USER_SETUP_PATH } from '../operations/user-sign-in.js';
import { SIGN_IN_PATH } from './sign-in-route.js';

/** Where an invitation or a reset link leads: `<AUTH_URL>/account/setup#token=...`. */
const SETUP_PATH = USER_SETUP_PATH;

function setupPage(request: FastifyRequest, reply: FastifyReply, deps: AccountDeps, status: number, state: { token?: string; error?: string }) {
  const token = formToken(request, reply, deps.config);
  return sendPage(reply, status, {
    title: 'Choose your password',
    scripts: [SETUP_SCRIPT_PATH],
    body: html`${alertBox(state.error)}
<p>Choose the password you will sign in with: at least ${MIN_PASSWORD_LENGTH} characters.</p>
<form method="post" action="${SETUP_PATH}">
${hidden(FORM_TOKEN_FIELD, token)}<input type="hidden" id="field-token" name="token" value="${state.token ?? ''}">
${field({ name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password' })}
${field({ name: 'repeat', label: 'Repeat the new password', type: 'password', autocomplete: 'new-password' })}
<p><button type="submit" class="primary">Set password</button></p>
</form>`,
  });
}

/** GET and POST /account/setup: sets the password through a one-time setup link. */
export function registerSetupRoute(app: FastifyInstance, deps: AccountDeps): void {
  app.get(SETUP_PATH, { schema: { hide: true } }, async (request, reply) => setupPage(request, reply, deps, 200, {}));

  app.post<{ Body: unknown }>(SETUP_PATH, { schema: { hide: true } }, async (request, reply) => {
    const body = request.body;
    const token = formValue(body, 'token', 100) ?? '';
    if (!formIsOurs(request, deps.config, formValue(body, FORM_TOKEN_FIELD))) {
      return setupPage(request, reply, deps, 403, { token, error: 'This form has expired. Open the link again.' });
    }
    const password = formValue(body, 'password', 1024) ?? '';
    const weak = passwordProblem(password);
    if (weak) return setupPage(request, reply, deps, 400, { token, error: `Not set: ${weak}.` });
    if (password !== formValue(body, 'repeat', 1024)) return setupPage(request, reply, deps, 400, { token, error: 'Not set: the two passwords differ.' });
    const user = token === '' ? null : await deps.store.userAccounts.completeSetup(tokenHash(token), await hashPassword(password));
    if (!user) return setupPage(request, reply, deps, 400, { error: 'This link has expired or was already used. Ask for a new one.' });
    request.log.info({ userId: user.id }, 'user password set through a setup link');
    return reply.redirect(`${SIGN_IN_PATH}?notice=password-set`, 303);
  });
}
