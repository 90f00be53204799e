import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { MAX_TOKEN_TTL_SECONDS } from '../../src/config.js';
import { MAX_IAT_SKEW_SECONDS } from '../../src/oauth/access-tokens.js';
import { startSeededApp } from '../helpers/test-app.js';
import { callApi, INVALID_TOKEN_PROBLEM, introspect, revoke } from '../helpers/token-operations.js';
import { authHeaders, decodeJws, forgeToken, type TokenForm } from '../helpers/tokens.js';

/**
 * The time claims of tokens signed with our own key (as a bug, a leaked signing path or a
 * tampered issuer could produce them): `iat` beyond MAX_IAT_SKEW_SECONDS (60 s) in the future,
 * or a lifetime (`exp` - `iat`) above the most TOKEN_TTL_SECONDS allows (86400 s), is refused by
 * the API (401 invalid_token), by introspection (inactive) and by revocation (nothing recorded:
 * such a token must not put a century-long entry on the denylist). Each refused case has an
 * accepted control one second inside the bound.
 */

const START = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const NOW = Math.floor(START / 1000);
const clock = new ManualClock(START);
const { t, client } = await startSeededApp({ clock, env: { RATE_LIMIT_API: '1000000', RATE_LIMIT_TOKEN_ADDRESS: '1000000' } });
afterEach(() => clock.set(START));

const YEAR = 365 * 86_400;

const refused: [string, { iat: number; exp: number }][] = [
  ['iat a year in the future, exp 100 years away (the reported case)', { iat: NOW + YEAR, exp: NOW + 100 * YEAR }],
  ['iat just beyond the clock skew in the future', { iat: NOW + MAX_IAT_SKEW_SECONDS + 1, exp: NOW + 3600 }],
  ['a lifetime one second above the maximum', { iat: NOW, exp: NOW + MAX_TOKEN_TTL_SECONDS + 1 }],
  ['an old iat with a far exp (a token "extended" after the fact)', { iat: NOW - 30 * 86_400, exp: NOW + 3600 }],
];
const accepted: [string, { iat: number; exp: number }][] = [
  ['iat at the edge of the clock skew', { iat: NOW + MAX_IAT_SKEW_SECONDS, exp: NOW + MAX_IAT_SKEW_SECONDS + 3600 }],
  ['the longest lifetime TOKEN_TTL_SECONDS allows', { iat: NOW, exp: NOW + MAX_TOKEN_TTL_SECONDS }],
];

const forms: TokenForm[] = ['A', 'B'];

describe.each(forms)('a token of server form %s, signed with our key', (form) => {
  const forge = (claims: { iat: number; exp: number }) => forgeToken(t, { form, clientId: client.clientId, claims });

  it.each(refused)('with %s is refused by the API, introspection and revocation', async (_name, claims) => {
    const token = await forge(claims);
    for (const scheme of ['bearer', 'token'] as const) {
      const res = await callApi(t, authHeaders(token, scheme));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      expect(await res.json()).toEqual(INVALID_TOKEN_PROBLEM);
    }

    const introspection = await introspect(t, client, token, { form });
    expect(introspection.status).toBe(200);
    expect(await introspection.json()).toEqual({ active: false });

    const revocation = await revoke(t, client, token, { form });
    expect(revocation.status).toBe(200); // RFC 7009 §2.2: an invalid token is answered 200 too
    const { jti } = decodeJws(token).payload as { jti: string };
    expect(await t.runtime.store.revocations.isRevoked(jti, clock.now())).toBe(false);
  });

  it.each(accepted)('with %s is accepted (the control)', async (_name, claims) => {
    const token = await forge(claims);
    expect((await callApi(t, authHeaders(token))).status).toBe(200);
    expect(await (await introspect(t, client, token, { form })).json()).toMatchObject({ active: true, ...claims });
    expect((await revoke(t, client, token, { form })).status).toBe(200);
    const { jti } = decodeJws(token).payload as { jti: string };
    expect(await t.runtime.store.revocations.isRevoked(jti, clock.now())).toBe(true);
  });
});

it('an iat inside the skew is still bounded once time passes: the token is not accepted beyond its exp', async () => {
  const token = await forgeToken(t, { clientId: client.clientId, claims: { iat: NOW + 30, exp: NOW + 90 } });
  expect((await callApi(t, authHeaders(token))).status).toBe(200);
  clock.set((NOW + 90) * 1000);
  expect((await callApi(t, authHeaders(token))).status).toBe(401);
});
