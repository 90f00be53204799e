import { randomUUID } from 'node:crypto';
import { SignJWT, type JWTHeaderParameters, type JWTPayload } from 'jose';
import type { KeyObject } from 'node:crypto';
import type { AuthorizationServer } from '../../src/oauth/authorization-servers.js';
import type { SeededClient } from './seed.js';
import type { TestApp } from './test-app.js';

export type TokenForm = 'A' | 'B';
export type ClientAuth = 'post' | 'basic';

/** Form A is the `default` server, form B the custom one. */
export const serverOf = (t: TestApp, form: TokenForm): AuthorizationServer =>
  form === 'A' ? t.runtime.servers.default : t.runtime.servers.custom;

export const tokenUrl = (t: TestApp, form: TokenForm): string => `${t.url}/oauth2/${serverOf(t, form).id}/v1/token`;

/** RFC 6749 §2.3.1: id and secret are form-urlencoded, then joined and base64-encoded. */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(clientSecret)}`).toString('base64')}`;
}

/**
 * POSTs a token request the way a client would. `scope: null` leaves the scope out;
 * undefined sends the form's own scope.
 */
export async function requestToken(
  t: TestApp,
  client: Pick<SeededClient, 'clientId' | 'clientSecret'>,
  options: { form?: TokenForm; auth?: ClientAuth; scope?: string | null; resource?: string | string[]; headers?: Record<string, string> } = {},
): Promise<Response> {
  const form = options.form ?? 'B';
  const body = new URLSearchParams({ grant_type: 'client_credentials' });
  const scope = options.scope === undefined ? serverOf(t, form).scope : options.scope;
  if (scope !== null) body.set('scope', scope);
  for (const resource of [options.resource ?? []].flat()) body.append('resource', resource);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...options.headers };
  if (options.auth === 'basic') {
    headers.authorization = basicAuthorization(client.clientId, client.clientSecret);
  } else {
    body.set('client_id', client.clientId);
    body.set('client_secret', client.clientSecret);
  }
  return fetch(tokenUrl(t, form), { method: 'POST', headers, body });
}

/** Mints an access token over HTTP; fails the test if the server refuses. */
export async function mintToken(
  t: TestApp,
  client: Pick<SeededClient, 'clientId' | 'clientSecret'>,
  form: TokenForm = 'B',
  resource?: string,
): Promise<string> {
  const res = await requestToken(t, client, { form, ...(resource === undefined ? {} : { resource }) });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The headers that carry a token: `Authorization: Bearer` (form B) or `token` (form A). */
export const authHeaders = (token: string, scheme: 'bearer' | 'token' = 'bearer'): Record<string, string> =>
  scheme === 'bearer' ? { authorization: `Bearer ${token}` } : { token };

export interface ForgeOptions {
  form?: TokenForm;
  clientId: string;
  /** Merged over the valid claims; a value of `undefined` removes the claim. */
  claims?: Record<string, unknown>;
  /** Merged over the valid protected header. */
  header?: Partial<JWTHeaderParameters> & Record<string, unknown>;
  /** Another key to sign with (default: the server's own active signing key). */
  key?: KeyObject | Uint8Array;
  /** Seconds since the epoch for iat (default: the app's clock). */
  iat?: number;
}

/**
 * Signs a token with the server's own signing key (or `key`), exactly as the token endpoint
 * would, except for the claims and header members given. With no overrides the result is a
 * perfectly valid token, so an attack test changes one thing and nothing else.
 */
export async function forgeToken(t: TestApp, options: ForgeOptions): Promise<string> {
  const server = serverOf(t, options.form ?? 'B');
  const signing = t.runtime.keys.signingKey();
  const iat = options.iat ?? Math.floor(t.runtime.clock.now() / 1000);
  const claims: JWTPayload = {
    iss: server.issuer,
    sub: options.clientId,
    aud: server.audience,
    exp: iat + t.runtime.config.tokenTtlSeconds,
    iat,
    jti: randomUUID(),
    client_id: options.clientId,
    scope: server.scope,
    cid: options.clientId,
    scp: [server.scope],
    ...options.claims,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  const header = { alg: 'RS256', typ: 'at+jwt', kid: signing.kid, ...options.header } as JWTHeaderParameters;
  return new SignJWT(claims).setProtectedHeader(header).sign(options.key ?? signing.privateKey);
}

const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Splits a compact JWS into its decoded header and payload, and the signature. */
export function decodeJws(token: string): { header: Record<string, unknown>; payload: Record<string, unknown>; signature: string } {
  const [h, p, s] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h!, 'base64url').toString()) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>,
    signature: s!,
  };
}

/** Re-encodes a token's header and payload, keeping whatever signature is given. */
export function assembleJws(header: unknown, payload: unknown, signature: string): string {
  return `${b64url(header)}.${b64url(payload)}.${signature}`;
}
