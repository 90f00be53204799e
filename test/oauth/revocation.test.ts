import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openRuntime } from '../../src/runtime.js';
import { sqliteDriver } from '../../src/store/sqlite/driver.js';
import { seedClient, storeActor } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { callApi, INVALID_CLIENT, INVALID_TOKEN_PROBLEM, introspection, revoke } from '../helpers/token-operations.js';
import { authHeaders, decodeJws, mintToken, type ClientAuth, type TokenForm } from '../helpers/tokens.js';

/**
 * RFC 7009 revocation: the API refuses a revoked token on the very next request; the jti is
 * denied until the token would have expired anyway, and not a moment longer.
 */

const START = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const clock = new ManualClock(START);
const { t, client } = await startSeededApp({ clock });
afterEach(() => clock.set(START));

/** TOKEN_REUSE_SECONDS' default. */
const REUSE_WINDOW_MS = 30_000;
const jtiOf = (token: string): string => decodeJws(token).payload.jti as string;

const combinations: { form: TokenForm; auth: ClientAuth }[] = [
  { form: 'A', auth: 'post' },
  { form: 'A', auth: 'basic' },
  { form: 'B', auth: 'post' },
  { form: 'B', auth: 'basic' },
];

describe('revoking a valid token', () => {
  it.each(combinations)(
    'form $form, $auth: 200 with an empty body; the API refuses it on the next request, while another token of the client still works',
    async ({ form, auth }) => {
      const revoked = await mintToken(t, client, form);
      clock.advance(REUSE_WINDOW_MS); // else the client would be handed the same token again
      const kept = await mintToken(t, client, form);
      expect(jtiOf(kept)).not.toBe(jtiOf(revoked));
      // Used (and so cached by the verifier) before it is revoked.
      expect((await callApi(t, authHeaders(revoked))).status).toBe(200);

      const res = await revoke(t, client, revoked, { form, auth });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      expect(await res.text()).toBe('');

      for (const scheme of ['bearer', 'token'] as const) {
        const refused = await callApi(t, authHeaders(revoked, scheme));
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toBe(
          'Bearer realm="results-api", error="invalid_token", error_description="The access token is invalid, expired or revoked", resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource"',
        );
        expect(await refused.json()).toEqual(INVALID_TOKEN_PROBLEM);
        expect((await callApi(t, authHeaders(kept, scheme))).status).toBe(200);
      }
    },
  );

  it('revoking twice is 200 both times', async () => {
    const token = await mintToken(t, client);
    expect((await revoke(t, client, token)).status).toBe(200);
    expect((await revoke(t, client, token)).status).toBe(200);
  });

  it.each([
    { issuedBy: 'A', revokedAt: 'B' },
    { issuedBy: 'B', revokedAt: 'A' },
  ] as { issuedBy: TokenForm; revokedAt: TokenForm }[])(
    'a token of server $issuedBy revoked by its client at server $revokedAt stops working everywhere',
    async ({ issuedBy, revokedAt }) => {
      const owner = await seedClient(t.runtime);
      const token = await mintToken(t, owner, issuedBy);
      expect((await callApi(t, authHeaders(token))).status).toBe(200);
      expect((await revoke(t, owner, token, { form: revokedAt })).status).toBe(200);
      for (const scheme of ['bearer', 'token'] as const) expect((await callApi(t, authHeaders(token, scheme))).status).toBe(401);
      expect(await introspection(t, owner, token, { form: issuedBy })).toEqual({ active: false });
    },
  );

  it.each([
    { issuedBy: 'A', revokedAt: 'B' },
    { issuedBy: 'B', revokedAt: 'A' },
  ] as { issuedBy: TokenForm; revokedAt: TokenForm }[])(
    "another client's token of server $issuedBy is still refused at server $revokedAt, and keeps working",
    async ({ issuedBy, revokedAt }) => {
      const other = await seedClient(t.runtime);
      const token = await mintToken(t, other, issuedBy);
      const res = await revoke(t, client, token, { form: revokedAt });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'The token was not issued to this client.' });
      expect((await callApi(t, authHeaders(token))).status).toBe(200);
    },
  );

  it('token_type_hint is only a hint: refresh_token still revokes the access token', async () => {
    const token = await mintToken(t, client);
    expect((await revoke(t, client, token, { extra: { token_type_hint: 'refresh_token' } })).status).toBe(200);
    expect((await callApi(t, authHeaders(token))).status).toBe(401);
  });
});

describe('what is not revoked', () => {
  it.each([
    ['garbage', 'garbage'],
    ['empty', ''],
    ['three segments', 'abc.def.ghi'],
    ['very long', 'x'.repeat(10_000)],
  ])('revoking %s is 200 (RFC 7009 §2.2: invalid tokens need no error)', async (_name, token) => {
    const res = await revoke(t, client, token);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('an expired token is 200 and nothing is recorded', async () => {
    const token = await mintToken(t, client);
    clock.advance(3600_000);
    const before = (await t.runtime.store.audit.list()).length;
    expect((await revoke(t, client, token)).status).toBe(200);
    expect((await t.runtime.store.audit.list()).length).toBe(before);
  });

  it("another client's valid token is 400 invalid_request, and the token keeps working", async () => {
    const other = await seedClient(t.runtime);
    const token = await mintToken(t, other);
    for (const auth of ['post', 'basic'] as const) {
      const res = await revoke(t, client, token, { auth });
      expect(res.status).toBe(400);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'The token was not issued to this client.' });
    }
    expect((await callApi(t, authHeaders(token))).status).toBe(200);
    expect(await introspection(t, other, token)).toMatchObject({ active: true });
  });

  it('without client authentication: 401 invalid_client, and the token keeps working', async () => {
    const token = await mintToken(t, client);
    const res = await revoke(t, null, token);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(INVALID_CLIENT);
    const wrong = await revoke(t, { clientId: client.clientId, clientSecret: 'wrong' }, token, { auth: 'basic' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="results-api"');
    expect((await callApi(t, authHeaders(token))).status).toBe(200);
  });
});

describe('the audit log and the denylist', () => {
  it('records who revoked which jti, and never the token or a secret', async () => {
    const token = await mintToken(t, client);
    await revoke(t, client, token, { auth: 'basic' });
    const events = await t.runtime.store.audit.list();
    expect(events.filter((e) => e.action === 'token.revoke' && e.subject === jtiOf(token))).toEqual([
      { id: expect.any(Number), at: START, actor: `client:${client.clientId}`, action: 'token.revoke', subject: jtiOf(token), details: {} },
    ]);
    const everything = JSON.stringify(events);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(token.split('.')[2]);
    expect(everything).not.toContain(client.clientSecret);
  });

  it('keeps the jti denied exactly until the token would have expired', async () => {
    const token = await mintToken(t, client);
    const jti = jtiOf(token);
    await revoke(t, client, token);
    const exp = (decodeJws(token).payload.exp as number) * 1000;
    expect(await t.runtime.store.revocations.isRevoked(jti, exp - 1)).toBe(true);
    expect(await t.runtime.store.revocations.isRevoked(jti, exp)).toBe(false);

    clock.set(exp - 1000);
    expect((await callApi(t, authHeaders(token))).status).toBe(401);
    clock.set(exp);
    // Past its expiry the token is refused for being expired; the denylist need not remember it.
    expect((await callApi(t, authHeaders(token))).status).toBe(401);
  });

  it('never outgrows the live tokens: expired entries are dropped by the next revocation', async () => {
    const denylist = () => {
      const Database = sqliteDriver();
      const db = new Database(t.databaseUrl.slice('sqlite:'.length), { readonly: true });
      try {
        return db.prepare('SELECT jti FROM revoked_tokens').pluck().all() as string[];
      } finally {
        db.close();
      }
    };
    const first = await mintToken(t, client);
    await revoke(t, client, first);
    expect(denylist()).toContain(jtiOf(first));
    clock.advance(3600_000);
    const second = await mintToken(t, client);
    await revoke(t, client, second);
    expect(denylist()).toEqual([jtiOf(second)]);
  });

  it('a revocation made by another process (the CLI, on the same database) holds on the next request', async () => {
    const token = await mintToken(t, client);
    expect((await callApi(t, authHeaders(token))).status).toBe(200);
    const cli = await openRuntime(t.runtime.config, { clock });
    try {
      await cli.store.revocations.revoke(jtiOf(token), (decodeJws(token).payload.exp as number) * 1000, storeActor);
    } finally {
      await cli.close();
    }
    expect((await callApi(t, authHeaders(token))).status).toBe(401);
  });
});
