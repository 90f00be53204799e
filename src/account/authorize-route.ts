import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationServer, AuthorizationServers } from '../oauth/authorization-servers.js';
import {
  authorizationResponseUrl,
  checkAuthorizationRequest,
  type AppDirectory,
  type AuthorizationRequest,
  type RedirectedError,
  type ResourceCheck,
} from '../oauth/authorization-request.js';
import { redirectReachesOnlyTheApp, redirectTarget } from '../oauth/redirect-uris.js';
import { SCOPE_WORDS } from '../scope-names.js';
import { newSecretToken, tokenHash } from '../sign-in/secret-tokens.js';
import { FORM_TOKEN_FIELD, formIsOurs, formToken, signedInUser, type SignedIn } from './browser-session.js';
import type { AccountDeps } from './deps.js';
import { formValue } from './form-fields.js';
import { alertBox, hidden, html, sendPage } from './html.js';
import { SIGN_IN_PATH } from './sign-in-route.js';

/** An authorization code works once, within this long (issue 34: 60 s). */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;

export interface AuthorizeDeps extends AccountDeps {
  servers: AuthorizationServers;
  findApp: AppDirectory;
  checkResource: ResourceCheck;
}

/** The request's parameters the consent form carries back (everything but the decision). */
const CARRIED = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource'] as const;

const hostOf = (uri: string): string => {
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : url.protocol.replace(/:$/, '');
};

/** Who vouches for the app's name: support staff, or nobody (it registered itself, or its document says so). */
const appOrigin = (app: AuthorizationRequest['app']) =>
  app.origin === 'registered'
    ? html``
    : app.origin === 'dynamic'
      ? html`<p class="alert">This app registered itself: its name is its own claim, not verified by us.</p>`
      : html`<p class="alert">This app is described at <strong>${new URL(app.clientId).host}</strong>: its name is that site's claim, not verified by us.</p>`;

/** A request that cannot be answered at the client's redirect URI: told here, with nowhere to go. */
const untrustedPage = (reply: FastifyReply, message: string) =>
  sendPage(reply, 400, {
    title: 'This request cannot be completed',
    body: html`${alertBox(message)}<p>Nothing was shared. Go back to the app and try again, or tell its developers.</p>`,
  });

const redirectError = (reply: FastifyReply, server: AuthorizationServer, error: RedirectedError) =>
  reply.redirect(authorizationResponseUrl(error.redirectUri, server.issuer, { error: error.error, error_description: error.description, state: error.state }), 302);

/** The consent page: the app by name, where it sends the user back, each scope in words, Allow and Deny. */
function consentPage(request: FastifyRequest, reply: FastifyReply, deps: AuthorizeDeps, server: AuthorizationServer, session: SignedIn, authorization: AuthorizationRequest, params: Record<string, unknown>) {
  const token = formToken(request, reply, deps.config);
  const { app } = authorization;
  const carried = CARRIED.map((name) => (typeof params[name] === 'string' ? hidden(name, params[name] as string) : ''));
  return sendPage(reply, 200, {
    title: `Allow ${app.name} to read your results?`,
    formTargets: [redirectTarget(authorization.redirectUri)],
    body: html`<p>Signed in as <strong>${session.user.email}</strong>.</p>
${appOrigin(app)}
<p><strong>${app.name}</strong> asks to read, on your behalf, what you can see in your workspaces. If you allow it, it will be able to:</p>
<ul class="scopes">${authorization.scopes.map((s) => html`<li>${SCOPE_WORDS[s] ?? s} (<code>${s}</code>)</li>`)}</ul>
<p>You will be sent back to <strong>${hostOf(authorization.redirectUri)}</strong>. You can revoke this at any time on <a href="/account/apps">the page of apps you approved</a>.</p>
<form method="post" action="/oauth2/${server.id}/v1/authorize">
${hidden(FORM_TOKEN_FIELD, token)}${carried}
<p><button type="submit" name="decision" value="allow" class="primary">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></p>
</form>`,
  });
}

/**
 * GET and POST `/oauth2/<server>/v1/authorize` on every server (RFC 6749 §4.1, OAuth 2.1): the
 * user signs in if needed, sees the consent page, and is sent back with a code (60 s, once) or
 * `access_denied`, with `state` and `iss` (RFC 9207) on every answer.
 */
export function registerAuthorizeRoutes(app: FastifyInstance, deps: AuthorizeDeps): void {
  for (const server of deps.servers.all) {
    const path = `/oauth2/${server.id}/v1/authorize`;
    const check = (params: Record<string, unknown>) => checkAuthorizationRequest(params, server, deps);

    app.get<{ Querystring: Record<string, unknown> }>(path, { schema: { hide: true } }, async (request, reply) => {
      const checked = await check(request.query);
      if (!checked.ok) return 'untrusted' in checked ? untrustedPage(reply, checked.untrusted) : redirectError(reply, server, checked.redirect);
      const session = await signedInUser(request, deps);
      if (!session) return reply.redirect(`${SIGN_IN_PATH}?return_to=${encodeURIComponent(request.url)}`, 303);
      if (await consentRemembered(deps, session, checked.request, request.query)) {
        request.log.info({ userId: session.user.id, clientId: checked.request.app.clientId }, 'app allowed by an earlier approval');
        return sendCode(reply, deps, server, session, checked.request);
      }
      return consentPage(request, reply, deps, server, session, checked.request, request.query);
    });

    app.post<{ Body: unknown }>(path, { schema: { hide: true } }, async (request, reply) => {
      const params = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
      const checked = await check(params);
      if (!checked.ok) return 'untrusted' in checked ? untrustedPage(reply, checked.untrusted) : redirectError(reply, server, checked.redirect);
      const session = await signedInUser(request, deps);
      // A consent not made on our own page by the signed-in user (CSRF) grants nothing.
      if (!session || !formIsOurs(request, deps.config, formValue(params, FORM_TOKEN_FIELD))) {
        return untrustedPage(reply, 'This approval did not come from your own consent page, or you are no longer signed in. Nothing was shared.');
      }
      if (formValue(params, 'decision') !== 'allow') {
        const { redirectUri, state } = checked.request;
        request.log.info({ userId: session.user.id, clientId: checked.request.app.clientId }, 'user denied an app');
        return redirectError(reply, server, { redirectUri, state, error: 'access_denied', description: 'The user denied the request.' });
      }
      request.log.info({ userId: session.user.id, clientId: checked.request.app.clientId }, 'user allowed an app');
      return sendCode(reply, deps, server, session, checked.request);
    });
  }
}

/**
 * Whether the user approved this app before for as much (these scopes or more, the same
 * resource) and has not revoked it since, so the consent page need not ask again. Only where
 * the code can reach nobody but the app (an https redirect URI): any program on the device
 * could start a request with a native app's client_id and a loopback port of its own, so a
 * loopback or private-use redirect asks every time (RFC 6749 §10.2, RFC 8252 §8.6).
 * `prompt=consent` asks regardless.
 */
async function consentRemembered(deps: AuthorizeDeps, session: SignedIn, authorization: AuthorizationRequest, params: Record<string, unknown>): Promise<boolean> {
  if (formValue(params, 'prompt') === 'consent' || !redirectReachesOnlyTheApp(authorization.redirectUri)) return false;
  return deps.store.apps.approvalCovers(session.user.id, authorization.app.clientId, authorization.scopes, authorization.resource ?? null);
}

/** The user allowed the app: a code (60 s, once) goes back to its redirect URI with state and iss. */
async function sendCode(reply: FastifyReply, deps: AuthorizeDeps, server: AuthorizationServer, session: SignedIn, authorization: AuthorizationRequest) {
  const code = newSecretToken();
  await deps.store.apps.createCode({
    codeHash: tokenHash(code),
    clientId: authorization.app.clientId,
    userId: session.user.id,
    redirectUri: authorization.redirectUri,
    codeChallenge: authorization.codeChallenge,
    scopes: authorization.scopes,
    resource: authorization.resource ?? null,
    expiresAt: deps.clock.now() + AUTHORIZATION_CODE_TTL_MS,
  });
  return reply.redirect(authorizationResponseUrl(authorization.redirectUri, server.issuer, { code, state: authorization.state }), 303);
}
