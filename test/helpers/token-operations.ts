import type { SeededClient } from './seed.js';
import type { TestApp } from './test-app.js';
import { basicAuthorization, serverOf, type ClientAuth, type TokenForm } from './tokens.js';

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/** The one answer to every failed client authentication (RFC 6749 §5.2). */
export const INVALID_CLIENT = {
  error: 'invalid_client',
  error_description: 'Client authentication failed. Either the client or the client credentials are invalid.',
};

/**
 * The answer of `callApi`'s default route (the Legacy v1 family, in its own error body) to a
 * token that is not (or no longer) valid.
 */
export const INVALID_TOKEN_PROBLEM = { errorCode: 'UNAUTHORIZED', errorMessage: 'The access token is invalid, expired or revoked.' };
/** Our own token past its exp is told apart: it only needs renewing. */
export const EXPIRED_TOKEN_PROBLEM = { ...INVALID_TOKEN_PROBLEM, errorMessage: 'The access token has expired; request a new one.' };

type Client = Pick<SeededClient, 'clientId' | 'clientSecret'>;

/**
 * POSTs `token` to the introspection (RFC 7662) or revocation (RFC 7009) endpoint of a
 * server (by form, or by id), authenticated as `client` by the given method; `client: null` sends no client
 * authentication at all.
 */
export function tokenOperation(
  t: TestApp,
  endpoint: 'introspect' | 'revoke',
  client: Client | null,
  token: string,
  options: { form?: TokenForm; serverId?: string; auth?: ClientAuth; extra?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Response> {
  const body = new URLSearchParams({ token, ...options.extra });
  const headers: Record<string, string> = { 'content-type': FORM_CONTENT_TYPE, ...options.headers };
  if (client && options.auth === 'basic') {
    headers.authorization = basicAuthorization(client.clientId, client.clientSecret);
  } else if (client) {
    body.set('client_id', client.clientId);
    body.set('client_secret', client.clientSecret);
  }
  return fetch(`${t.url}/oauth2/${options.serverId ?? serverOf(t, options.form ?? 'B').id}/v1/${endpoint}`, { method: 'POST', headers, body });
}

export const introspect = (t: TestApp, client: Client | null, token: string, options?: Parameters<typeof tokenOperation>[4]) =>
  tokenOperation(t, 'introspect', client, token, options);

export const revoke = (t: TestApp, client: Client | null, token: string, options?: Parameters<typeof tokenOperation>[4]) =>
  tokenOperation(t, 'revoke', client, token, options);

/** Introspects and returns the parsed body, failing the test unless the answer is 200. */
export async function introspection(
  t: TestApp,
  client: Client,
  token: string,
  options?: Parameters<typeof tokenOperation>[4],
): Promise<Record<string, unknown>> {
  const res = await introspect(t, client, token, options);
  if (res.status !== 200) throw new Error(`introspection failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** A GET of the Legacy (v1) list of the caller's workspaces (the cheapest protected route), or of `path`. */
export const callApi = (t: TestApp, headers: Record<string, string>, path = '/usertesting/api/v1/workspaces'): Promise<Response> =>
  fetch(`${t.url}${path}`, { headers });

/**
 * The test app advertises PUBLIC_URL (http://127.0.0.1:8080) but listens on an ephemeral
 * port; this maps an advertised URL onto the listening socket, as a reverse proxy would.
 */
export function toListeningUrl(t: TestApp, advertised: string): string {
  const url = new URL(advertised);
  const local = new URL(t.url);
  url.protocol = local.protocol;
  url.host = local.host;
  return url.href;
}
