import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptedTotpStep, newTotpSecret, totpUri } from '../sign-in/totp.js';
import { FORM_TOKEN_FIELD, formIsOurs, formToken, type SignedIn } from './browser-session.js';
import type { AccountDeps } from './deps.js';
import { formValue } from './form-fields.js';
import { alertBox, field, hidden, html, sendPage } from './html.js';
import { requireSignedIn } from './signed-in.js';

export const TWO_STEP_PATH = '/account/two-step';

async function twoStepPage(request: FastifyRequest, reply: FastifyReply, deps: AccountDeps, session: SignedIn, state: { status?: number; error?: string; notice?: string }) {
  const token = formToken(request, reply, deps.config);
  const on = !!(await deps.store.userAccounts.findForSignIn(session.user.email))?.totpSecret;
  const pending = on ? null : await deps.store.userAccounts.pendingTotp(session.user.id);
  const enrolment = pending ? totpUri(pending, session.user.email, 'results-api') : null;
  return sendPage(reply, state.status ?? 200, {
    title: 'Two-step sign-in',
    body: html`${alertBox(state.error)}${state.notice ? html`<p role="status">${state.notice}</p>` : ''}
${
  on
    ? html`<p>Two-step sign-in is on: signing in asks for the code of your authenticator app. Lost your phone? Ask support to turn it off.</p>`
    : enrolment
      ? html`<p>Add this key to your authenticator app, then enter the code it shows.</p>
<p>Key: <code>${pending}</code></p><p>Or open: <a href="${enrolment}">${enrolment}</a></p>
<form method="post" action="${TWO_STEP_PATH}/confirm">${hidden(FORM_TOKEN_FIELD, token)}
${field({ name: 'code', label: 'Authentication code', autocomplete: 'one-time-code' })}
<p><button type="submit" class="primary">Turn on</button></p></form>`
      : html`<p>Two-step sign-in is off. With it on, signing in also asks for a code from an authenticator app.</p>
<form method="post" action="${TWO_STEP_PATH}/start">${hidden(FORM_TOKEN_FIELD, token)}<p><button type="submit" class="primary">Set up two-step sign-in</button></p></form>`
}
<p><a href="/account/apps">Back to your apps</a></p>`,
  });
}

/** GET /account/two-step, POST …/start (a new secret), POST …/confirm (on with a code of it). */
export function registerTwoStepRoutes(app: FastifyInstance, deps: AccountDeps): void {
  app.get(TWO_STEP_PATH, { schema: { hide: true } }, async (request, reply) => {
    const session = await requireSignedIn(request, reply, deps, TWO_STEP_PATH);
    return session ? twoStepPage(request, reply, deps, session, {}) : reply;
  });

  app.post<{ Body: unknown }>(`${TWO_STEP_PATH}/start`, { schema: { hide: true } }, async (request, reply) => {
    const session = await requireSignedIn(request, reply, deps, TWO_STEP_PATH);
    if (!session) return reply;
    if (!formIsOurs(request, deps.config, formValue(request.body, FORM_TOKEN_FIELD))) {
      return twoStepPage(request, reply, deps, session, { status: 403, error: 'This form has expired. Try again.' });
    }
    await deps.store.userAccounts.setPendingTotp(session.user.id, newTotpSecret(session.user.email, 'results-api').secret);
    return twoStepPage(request, reply, deps, session, {});
  });

  app.post<{ Body: unknown }>(`${TWO_STEP_PATH}/confirm`, { schema: { hide: true } }, async (request, reply) => {
    const session = await requireSignedIn(request, reply, deps, TWO_STEP_PATH);
    if (!session) return reply;
    if (!formIsOurs(request, deps.config, formValue(request.body, FORM_TOKEN_FIELD))) {
      return twoStepPage(request, reply, deps, session, { status: 403, error: 'This form has expired. Try again.' });
    }
    const secret = await deps.store.userAccounts.pendingTotp(session.user.id);
    const code = (formValue(request.body, 'code', 16) ?? '').replace(/\s/g, '');
    const step = secret ? acceptedTotpStep(secret, session.user.email, code, deps.clock.now()) : null;
    if (!secret || step === null || !(await deps.store.userAccounts.enableTotp(session.user, secret, step))) {
      return twoStepPage(request, reply, deps, session, { status: 400, error: 'That code is not right; enter the code your app shows now.' });
    }
    return twoStepPage(request, reply, deps, session, { notice: 'Two-step sign-in is on.' });
  });
}
