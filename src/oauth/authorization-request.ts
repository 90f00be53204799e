import { OAuthError } from '../errors.js';
import type { App } from '../store/apps.js';
import { audienceFor, type ProtectedResources } from './resource-indicators.js';
import type { AuthorizationServer } from './authorization-servers.js';
import { isS256Challenge } from './pkce.js';
import { matchRedirectUri } from './redirect-uris.js';
import { userScopesOf } from '../scope-names.js';

/** What an authorization request asks for, once checked (RFC 6749 §4.1.1, RFC 7636 §4.3). */
export interface AuthorizationRequest {
  app: App;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string;
  resource: string | undefined;
}

/** An error the client's redirect URI may carry back (RFC 6749 §4.1.2.1). */
export interface RedirectedError {
  redirectUri: string;
  state: string | undefined;
  error: 'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'invalid_target' | 'access_denied' | 'unauthorized_client';
  description: string;
}

export type CheckedAuthorization =
  | { ok: true; request: AuthorizationRequest }
  /** The client or its redirect URI cannot be trusted: told on our page, never redirected (RFC 6749 §4.1.2.1). */
  | { ok: false; untrusted: string }
  | { ok: false; redirect: RedirectedError };

/** Finds the app a client_id names: a registered one, or (issue 34) one described by its client ID metadata document. */
export type AppDirectory = (clientId: string) => Promise<App | null>;

/** Checks what the resource parameter names (RFC 8707); returns the resource, or why it is refused. */
export type ResourceCheck = (resource: string | undefined, server: AuthorizationServer) => { ok: true; resource: string | undefined } | { ok: false; description: string };

const MAX_PARAMETER_LENGTH = 2048;

/** A parameter's one value; `repeated` when it came more than once (RFC 6749 §3.1: at most once). */
function one(params: Record<string, unknown>, name: string): string | undefined | 'repeated' {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > MAX_PARAMETER_LENGTH) return 'repeated';
  return value === '' ? undefined : value;
}

/**
 * Checks an authorization request in the RFC's order: the client and its redirect URI first
 * (a failure there is shown to the user, since the redirect cannot be trusted), then
 * everything else, whose failures go back to the client's redirect URI with its state.
 * PKCE with S256 is required of every client (OAuth 2.1 §4.1.1); only `code` is served.
 */
export async function checkAuthorizationRequest(
  params: Record<string, unknown>,
  server: AuthorizationServer,
  deps: { findApp: AppDirectory; checkResource: ResourceCheck },
): Promise<CheckedAuthorization> {
  const clientId = one(params, 'client_id');
  if (clientId === undefined || clientId === 'repeated') return { ok: false, untrusted: 'The request names no client (client_id), or names it twice.' };
  const app = await deps.findApp(clientId);
  if (!app || app.revokedAt !== null) return { ok: false, untrusted: 'The app that sent you here is not registered with this server (or was revoked).' };
  const requestedUri = one(params, 'redirect_uri');
  if (requestedUri === 'repeated') return { ok: false, untrusted: 'The request names its redirect URI twice.' };
  const redirectUri = requestedUri === undefined ? (app.redirectUris.length === 1 ? app.redirectUris[0]! : undefined) : matchRedirectUri(requestedUri, app.redirectUris);
  if (!redirectUri) {
    return { ok: false, untrusted: requestedUri === undefined ? 'The request names no redirect URI, and the app has several.' : 'The redirect URI of the request is not one the app registered.' };
  }

  const rawState = one(params, 'state');
  const state = rawState === 'repeated' ? undefined : rawState;
  const refuse = (error: RedirectedError['error'], description: string): CheckedAuthorization => ({ ok: false, redirect: { redirectUri, state, error, description } });
  if (rawState === 'repeated') return refuse('invalid_request', 'state is given twice or is too long.');
  for (const name of ['response_type', 'scope', 'code_challenge', 'code_challenge_method', 'resource']) {
    if (one(params, name) === 'repeated') return refuse('invalid_request', `${name} is given twice or is too long.`);
  }
  const responseType = one(params, 'response_type') as string | undefined;
  if (responseType === undefined) return refuse('invalid_request', 'response_type is missing; it must be code.');
  if (responseType !== 'code') return refuse('unsupported_response_type', 'Only response_type=code is supported.');
  const challenge = one(params, 'code_challenge') as string | undefined;
  const method = one(params, 'code_challenge_method') as string | undefined;
  if (challenge === undefined) return refuse('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  if (method !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256.');
  if (!isS256Challenge(challenge)) return refuse('invalid_request', 'code_challenge must be 43 base64url characters (an S256 challenge).');

  const offered = userScopesOf(server.scope).filter((s) => app.scopes.includes(s));
  const requested = (one(params, 'scope') as string | undefined)?.split(' ').filter((s) => s !== '');
  const scopes = requested === undefined ? offered : [...new Set(requested)];
  if (scopes.length === 0) return refuse('invalid_scope', 'The app may ask for no scope this server offers.');
  const refused = scopes.filter((s) => !offered.includes(s));
  if (refused.length > 0) return refuse('invalid_scope', `Not a scope this app may ask for here: ${refused.join(' ').slice(0, 200)}.`);

  const resource = deps.checkResource(one(params, 'resource') as string | undefined, server);
  if (!resource.ok) return refuse('invalid_target', resource.description);
  return { ok: true, request: { app, redirectUri, scopes, state, codeChallenge: challenge, resource: resource.resource } };
}

/**
 * The URL the browser is sent back to: the redirect URI with the answer's parameters added to
 * its query, always with `iss` (RFC 9207), so a client talking to several servers can tell
 * which one answered (mix-up).
 */
export function authorizationResponseUrl(redirectUri: string, issuer: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.append(name, value);
  url.searchParams.append('iss', issuer);
  return url.toString();
}

/**
 * RFC 8707 at the authorization endpoint: the resource the app's tokens will be bound to (the
 * REST API or the MCP endpoint), checked here as the token endpoint checks it; undefined
 * when none is named (the server's own audience).
 */
export const resourceChecker =
  (resources: ProtectedResources): ResourceCheck =>
  (resource, server) => {
    try {
      const audience = audienceFor(resources, server, resource);
      return { ok: true, resource: audience === server.audience ? undefined : audience };
    } catch (err) {
      if (err instanceof OAuthError) return { ok: false, description: err.description };
      throw err;
    }
  };
