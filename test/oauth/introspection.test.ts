import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { generateClientId, generateClientSecret } from '../../src/oauth/client-secrets.js';
import { seedClient, storeActor } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { INVALID_CLIENT, introspect, introspection, revoke } from '../helpers/token-operations.js';
import { decodeJws, forgeToken, mintToken, serverOf, type ClientAuth, type TokenForm } from '../helpers/tokens.js';

/**
 * RFC 7662 introspection: a client learns everything about its own currently valid tokens
 * of this server, and `{"active": false}` about anything else (§2.2, §4).
 */

const START = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const clock = new ManualClock(START);
const { t, client } = await startSeededApp({ clock });
afterEach(() => clock.set(START));

const INACTIVE = { active: false };
const combinations: { form: TokenForm; auth: ClientAuth }[] = [
  { form: 'A', auth: 'post' },
  { form: 'A', auth: 'basic' },
  { form: 'B', auth: 'post' },
  { form: 'B', auth: 'basic' },
];

/** RFC 7662 §2.2 and RFC 6749 §5.1: introspection answers are never cached. */
function expectIntrospectionHeaders(res: Response): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
}

describe('an active token', () => {
  it.each(combinations)('form $form, $auth: every claim, plus token_type and username', async ({ form, auth }) => {
    const token = await mintToken(t, client, form);
    const res = await introspect(t, client, token, { form, auth });
    expectIntrospectionHeaders(res);
    const server = serverOf(t, form);
    const iat = Math.floor(START / 1000);
    expect(await res.json()).toEqual({
      active: true,
      scope: server.scope,
      client_id: client.clientId,
      token_type: 'Bearer',
      exp: iat + 3600,
      iat,
      sub: client.clientId,
      aud: server.audience,
      iss: server.issuer,
      jti: decodeJws(token).payload.jti,
      username: client.email,
    });
  });

  it('token_type_hint is only a hint (RFC 7662 §2.1): any value is ignored', async () => {
    const token = await mintToken(t, client);
    for (const hint of ['access_token', 'refresh_token', 'made_up']) {
      expect(await introspection(t, client, token, { extra: { token_type_hint: hint } })).toMatchObject({ active: true });
    }
  });

  it('stays active until exp and not a second longer', async () => {
    const token = await mintToken(t, client);
    clock.advance(3599_000);
    expect(await introspection(t, client, token)).toMatchObject({ active: true });
    clock.advance(1000);
    const res = await introspect(t, client, token);
    expectIntrospectionHeaders(res);
    expect(await res.json()).toEqual(INACTIVE);
  });
});

describe('inactive: exactly {"active": false}, nothing else', () => {
  it('a revoked token', async () => {
    const token = await mintToken(t, client);
    expect((await revoke(t, client, token)).status).toBe(200);
    expect(await introspection(t, client, token)).toEqual(INACTIVE);
  });

  it.each([
    ['empty', ''],
    ['not a JWT', 'garbage'],
    ['three garbage segments', 'abc.def.ghi'],
    ['non-ASCII', '\u00e9\u{1F642}'],
    ['very long', 'a'.repeat(10_000)],
  ])('garbage (%s)', async (_name, token) => {
    const res = await introspect(t, client, token);
    expectIntrospectionHeaders(res);
    expect(await res.json()).toEqual(INACTIVE);
  });

  it("another client's valid token, so no client learns about another's tokens", async () => {
    const other = await seedClient(t.runtime);
    const token = await mintToken(t, other);
    expect(await introspection(t, client, token)).toEqual(INACTIVE);
    expect(await introspection(t, other, token)).toMatchObject({ active: true });
  });

  it.each(['A', 'B'] as const)('a valid token of the other server, introspected at form %s', async (form) => {
    const token = await mintToken(t, client, form === 'A' ? 'B' : 'A');
    expect(await introspection(t, client, token, { form })).toEqual(INACTIVE);
    expect(await introspection(t, client, token, { form: form === 'A' ? 'B' : 'A' })).toMatchObject({ active: true });
  });

  it('a token signed by us that fails another check (wrong audience)', async () => {
    const token = await forgeToken(t, { clientId: client.clientId, claims: { aud: 'api://elsewhere' } });
    expect(await introspection(t, client, token)).toEqual(INACTIVE);
  });

  it("a revoked credential's token: the credential can no longer authenticate, and its user's new credential sees it inactive", async () => {
    const holder = await seedClient(t.runtime);
    const token = await mintToken(t, holder);
    await t.runtime.store.credentials.revokeCredential(holder.clientId, storeActor);
    const res = await introspect(t, holder, token);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(INVALID_CLIENT);

    const successor = { clientId: generateClientId(), clientSecret: generateClientSecret() };
    await t.runtime.store.credentials.createCredential(
      { clientId: successor.clientId, email: holder.email, secretHash: t.runtime.hasher.hash(successor.clientSecret) },
      storeActor,
    );
    expect(await introspection(t, successor, token)).toEqual(INACTIVE);
  });

  it("a disabled user's token: the client can no longer authenticate; re-enabled, the token is active again", async () => {
    const holder = await seedClient(t.runtime);
    const token = await mintToken(t, holder);
    await t.runtime.store.credentials.setUserStatus(holder.email, 'disabled', storeActor);
    const res = await introspect(t, holder, token);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(INVALID_CLIENT);
    // Disabling suspends; it does not revoke. (Revoke the credential to end its tokens for good.)
    await t.runtime.store.credentials.setUserStatus(holder.email, 'active', storeActor);
    expect(await introspection(t, holder, token)).toMatchObject({ active: true });
  });
});

describe('client authentication is required', () => {
  it.each(['A', 'B'] as const)('form %s: no client authentication is 401 invalid_client', async (form) => {
    const res = await introspect(t, null, await mintToken(t, client, form), { form });
    expect(res.status).toBe(401);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(await res.json()).toEqual(INVALID_CLIENT);
  });

  it.each(['post', 'basic'] as const)('a wrong secret (%s) is 401 invalid_client, Basic with its challenge', async (auth) => {
    const token = await mintToken(t, client);
    const res = await introspect(t, { clientId: client.clientId, clientSecret: 'wrong' }, token, { auth });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(auth === 'basic' ? 'Basic realm="results-api"' : null);
    expect(await res.json()).toEqual(INVALID_CLIENT);
  });

  it('an unknown client is 401 invalid_client', async () => {
    const res = await introspect(t, { clientId: generateClientId(), clientSecret: generateClientSecret() }, await mintToken(t, client));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(INVALID_CLIENT);
  });

  it('both methods at once is 400 invalid_request', async () => {
    const res = await introspect(t, client, await mintToken(t, client), {
      auth: 'basic',
      extra: { client_id: client.clientId, client_secret: client.clientSecret },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_request',
      error_description: 'Use one client authentication method: HTTP Basic or form keys, not both.',
    });
  });

  it('a missing token parameter is 400 invalid_request naming it', async () => {
    const res = await fetch(`${t.url}/oauth2/${serverOf(t, 'B').id}/v1/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'token is required and must be a string' });
  });
});
