import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startSeededApp } from '../helpers/test-app.js';
import { decodeJws, requestToken, serverOf, type ClientAuth, type TokenForm } from '../helpers/tokens.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CLAIM_NAMES = ['aud', 'cid', 'client_id', 'exp', 'iat', 'iss', 'jti', 'scope', 'scp', 'sub'];

const combinations: { form: TokenForm; auth: ClientAuth }[] = [
  { form: 'A', auth: 'post' },
  { form: 'A', auth: 'basic' },
  { form: 'B', auth: 'post' },
  { form: 'B', auth: 'basic' },
];

describe('token endpoint: success', async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 9, 30, 15, 250));
  const { t, client } = await startSeededApp({ clock });

  it.each(combinations)('form $form, $auth client authentication: 200 with exactly the §5.1 fields', async ({ form, auth }) => {
    const res = await requestToken(t, client, { form, auth });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(body).toEqual({
      token_type: 'Bearer',
      expires_in: 3600,
      access_token: expect.stringMatching(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
      scope: serverOf(t, form).scope,
    });
  });

  it.each(['A', 'B'] as const)('form %s with the scope omitted grants the server scope', async (form) => {
    const res = await requestToken(t, client, { form, scope: null });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { scope: string; access_token: string };
    expect(body.scope).toBe(serverOf(t, form).scope);
    expect(decodeJws(body.access_token).payload).toMatchObject({ scope: serverOf(t, form).scope, scp: [serverOf(t, form).scope] });
  });

  it.each(combinations)('form $form ($auth): the access token is an RFC 9068 JWT with every promised claim', async ({ form, auth }) => {
    const server = serverOf(t, form);
    const res = await requestToken(t, client, { form, auth });
    const { access_token: token } = (await res.json()) as { access_token: string };

    const { header, payload } = decodeJws(token);
    expect(header).toEqual({ alg: 'RS256', typ: 'at+jwt', kid: t.runtime.keys.signingKey().kid });
    expect(Object.keys(payload).sort()).toEqual(CLAIM_NAMES);
    const iat = Math.floor(clock.now() / 1000);
    expect(payload).toEqual({
      iss: `http://127.0.0.1:8080/oauth2/${server.id}`,
      sub: client.clientId,
      aud: form === 'A' ? 'api://default' : 'api://results',
      exp: iat + 3600,
      iat,
      jti: expect.stringMatching(UUID),
      client_id: client.clientId,
      scope: server.scope,
      cid: client.clientId,
      scp: [server.scope],
    });
  });

  it('every signed token gets its own jti', async () => {
    const jtis = new Set<unknown>();
    for (const { form, auth } of combinations) {
      clock.advance(30_000); // past TOKEN_REUSE_SECONDS, so each request signs a new token
      const { access_token: token } = (await (await requestToken(t, client, { form, auth })).json()) as { access_token: string };
      jtis.add(decodeJws(token).payload.jti);
    }
    expect(jtis.size).toBe(combinations.length);
  });

  it.each(['A', 'B'] as const)('form %s: the token verifies against the JWKS published at /v1/keys', async (form) => {
    const server = serverOf(t, form);
    const { access_token: token } = (await (await requestToken(t, client, { form })).json()) as { access_token: string };

    const keysRes = await fetch(`${t.url}/oauth2/${server.id}/v1/keys`);
    expect(keysRes.status).toBe(200);
    const jwks = (await keysRes.json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.map((k) => k.kid)).toContain(decodeProtectedHeader(token).kid);
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String), n: expect.any(String), e: 'AQAB' });
      // Private members never leave the server.
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(member);
    }

    const { payload, protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(`${t.url}/oauth2/${server.id}/v1/keys`)), {
      issuer: server.issuer,
      audience: server.audience,
      typ: 'at+jwt',
      algorithms: ['RS256'],
      currentDate: new Date(clock.now()),
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.sub).toBe(client.clientId);
  });

  it('a token of either server is accepted by the Results API', async () => {
    for (const form of ['A', 'B'] as const) {
      const { access_token: token } = (await (await requestToken(t, client, { form })).json()) as { access_token: string };
      // The client belongs to no workspace, so the discovery list is empty but the token is accepted.
      const res = await fetch(`${t.url}/usertesting/api/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([]);
    }
  });
});

describe('token endpoint: configured custom server', async () => {
  const { t, client } = await startSeededApp({ env: { AUTH_SERVER_ID: 'ausConfigured0000001', AUTH_SERVER_AUDIENCE: 'api://configured-audience' } });

  it('serves form B at the configured id, with the configured audience', async () => {
    const res = await fetch(`${t.url}/oauth2/ausConfigured0000001/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'studies:read',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }),
    });
    expect(res.status).toBe(200);
    const { access_token: token } = (await res.json()) as { access_token: string };
    expect(decodeJws(token).payload).toMatchObject({
      iss: 'http://127.0.0.1:8080/oauth2/ausConfigured0000001',
      aud: 'api://configured-audience',
    });
  });

  it('leaves the default server audience as api://default', async () => {
    const { access_token: token } = (await (await requestToken(t, client, { form: 'A' })).json()) as { access_token: string };
    expect(decodeJws(token).payload.aud).toBe('api://default');
  });
});
