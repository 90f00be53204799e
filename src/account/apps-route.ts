import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isoTime } from '../iso-time.js';
import { SCOPE_WORDS } from '../scope-names.js';
import { userActor } from '../store/user-accounts.js';
import { clearSession, FORM_TOKEN_FIELD, formIsOurs, formToken, type SignedIn } from './browser-session.js';
import type { AccountDeps } from './deps.js';
import { formValue } from './form-fields.js';
import { alertBox, hidden, html, sendPage } from './html.js';
import { requireSignedIn } from './signed-in.js';
import { ACCOUNT_HOME_PATH, SIGN_IN_PATH } from './sign-in-route.js';
import { TWO_STEP_PATH } from './two-step-route.js';

const REVOKE_PATH = '/account/apps/revoke';
const SIGN_OUT_PATH = '/account/sign-out';

const when = (at: number | null): string => (at === null ? 'never' : isoTime(at).replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));

/** The user's home: the apps they approved (scopes in words, last use, Revoke), two-step sign-in, sign out. */
async function appsPage(request: FastifyRequest, reply: FastifyReply, deps: AccountDeps, session: SignedIn, state: { status?: number; notice?: string; error?: string }) {
  const token = formToken(request, reply, deps.config);
  const apps = await deps.store.apps.approvedApps(session.user.id);
  const twoStepOn = !!(await deps.store.userAccounts.findForSignIn(session.user.email))?.totpSecret;
  const rows = apps.map(
    (app) => html`<tr><th scope="row">${app.name}<br><code>${app.clientId}</code></th>
<td><ul class="scopes">${app.scopes.map((s) => html`<li>${SCOPE_WORDS[s] ?? s} (<code>${s}</code>)</li>`)}</ul></td>
<td>${when(app.approvedAt)}</td><td>${when(app.lastUsedAt)}</td>
<td><form method="post" action="${REVOKE_PATH}">${hidden(FORM_TOKEN_FIELD, token)}${hidden('client_id', app.clientId)}
<button type="submit" aria-label="Revoke ${app.name}">Revoke</button></form></td></tr>`,
  );
  return sendPage(reply, state.status ?? 200, {
    title: 'Apps you approved',
    body: html`<p>Signed in as <strong>${session.user.email}</strong>.</p>${alertBox(state.error)}${state.notice ? html`<p role="status">${state.notice}</p>` : ''}
${
  apps.length === 0
    ? html`<p>You have not approved any app.</p>`
    : html`<table><caption>Each app can read what you approved until you revoke it; revoking ends its access at once.</caption>
<thead><tr><th scope="col">App</th><th scope="col">May</th><th scope="col">Approved</th><th scope="col">Last got a token</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>${rows}</tbody></table>`
}
<h2>Sign-in</h2>
<p><a href="${TWO_STEP_PATH}">Two-step sign-in</a>: ${twoStepOn ? 'on' : 'off'}.</p>
<form method="post" action="${SIGN_OUT_PATH}">${hidden(FORM_TOKEN_FIELD, token)}<button type="submit">Sign out</button></form>`,
  });
}

/** GET /account/apps, POST /account/apps/revoke, POST /account/sign-out. */
export function registerAppsRoutes(app: FastifyInstance, deps: AccountDeps): void {
  app.get(ACCOUNT_HOME_PATH, { schema: { hide: true } }, async (request, reply) => {
    const session = await requireSignedIn(request, reply, deps, ACCOUNT_HOME_PATH);
    return session ? appsPage(request, reply, deps, session, {}) : reply;
  });

  app.post<{ Body: unknown }>(REVOKE_PATH, { schema: { hide: true } }, async (request, reply) => {
    const session = await requireSignedIn(request, reply, deps, ACCOUNT_HOME_PATH);
    if (!session) return reply;
    if (!formIsOurs(request, deps.config, formValue(request.body, FORM_TOKEN_FIELD))) {
      return appsPage(request, reply, deps, session, { status: 403, error: 'This form has expired; nothing was revoked. Try again.' });
    }
    const clientId = formValue(request.body, 'client_id', 2048) ?? '';
    const revoked = await deps.store.apps.revokeUserApp(session.user.id, clientId, userActor(session.user));
    request.log.info({ userId: session.user.id, clientId, grants: revoked }, 'user revoked an app');
    return appsPage(request, reply, deps, session, { notice: revoked > 0 ? 'Revoked: the app can no longer read anything of yours.' : 'That app had nothing left to revoke.' });
  });

  app.post<{ Body: unknown }>(SIGN_OUT_PATH, { schema: { hide: true } }, async (request, reply) => {
    const session = await requireSignedIn(request, reply, deps, ACCOUNT_HOME_PATH);
    if (!session) return reply;
    if (!formIsOurs(request, deps.config, formValue(request.body, FORM_TOKEN_FIELD))) {
      return appsPage(request, reply, deps, session, { status: 403, error: 'This form has expired; you are still signed in. Try again.' });
    }
    await deps.store.userAccounts.endSession(session.sessionHash, session.user);
    clearSession(reply, deps.config);
    return reply.redirect(`${SIGN_IN_PATH}?notice=signed-out`, 303);
  });
}
