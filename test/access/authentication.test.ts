import { createHmac, generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { seed, storeActor, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { assembleJws, authHeaders, decodeJws, forgeToken, mintToken, serverOf, type ForgeOptions } from '../helpers/tokens.js';

/**
 * One set of authentication tests, applied to every protected route. Each attack starts from
 * a token that is valid in every other respect (see "a forged token with no changes"), so it
 * fails only if the one check it targets is missing.
 */

const START = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const clock = new ManualClock(START);
let t: TestApp;
let s: Seeded;

beforeAll(async () => {
  // Hundreds of failed requests from one address on purpose: keep the rate limits out of the way.
  t = await startTestApp({
    clock,
    env: { RATE_LIMIT_API: '1000000', RATE_LIMIT_TOKEN_ADDRESS: '1000000', RATE_LIMIT_TOKEN_CLIENT: '1000000' },
  });
  s = await seed(t.runtime, { sessions: 2 });
  // A video record for the first session (its bytes are not needed to hand out a link).
  const sha = 'a'.repeat(64);
  const sessionId = s.sessions[0]!.sessionId;
  await t.runtime.store.videos.saveVideo(
    { sessionId, objectKey: `videos/${sessionId}/${sha}.mp4`, posterKey: null, contentSha256: sha, contentType: 'video/mp4', sizeBytes: 1, durationMs: 1000, width: 2, height: 2, hasAudio: false, regions: {} },
    storeActor,
  );
});
afterAll(() => t.close());
afterEach(() => clock.set(START));

const protectedRoutes: { name: string; path: () => string }[] = [
  { name: 'GET /api/v2/sessionResults', path: () => `/api/v2/sessionResults?testId=${s.testId}` },
  { name: 'GET /api/v2/sessionResults/', path: () => `/api/v2/sessionResults/?testId=${s.testId}` },
  { name: 'GET /v2/sessionResults', path: () => `/v2/sessionResults?testId=${s.testId}` },
  { name: 'GET /api/v2/sessionResults/:sessionId/videoDownloadUrl', path: () => `/api/v2/sessionResults/${s.sessions[0]!.sessionId}/videoDownloadUrl` },
  ...['/usertesting/api/v1', '/v1'].flatMap((prefix) => [
    { name: `GET ${prefix}/workspaces`, path: () => `${prefix}/workspaces` },
    { name: `GET ${prefix}/workspaces/:uuid`, path: () => `${prefix}/workspaces/${s.workspaceId}` },
    { name: `GET ${prefix}/studies/:uuid`, path: () => `${prefix}/studies/${s.testId}` },
    { name: `GET ${prefix}/studies/:uuid/completed-sessions`, path: () => `${prefix}/studies/${s.testId}/completed-sessions` },
    { name: `GET ${prefix}/session/:uuid`, path: () => `${prefix}/session/${s.sessions[0]!.sessionId}` },
  ]),
];

/** The Legacy (v1) family answers the same refusals in its own body. */
const isLegacy = (path: string) => /^\/(usertesting\/api\/)?v1\//.test(path);
const LEGACY_CODES: Record<number, string> = { 400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN' };
const inFamily = <P extends { status: number; detail: string }>(path: string, problem: P) =>
  isLegacy(path) ? { errorCode: LEGACY_CODES[problem.status], errorMessage: problem.detail } : problem;
const familyType = (path: string) => (isLegacy(path) ? 'application/json; charset=utf-8' : 'application/problem+json; charset=utf-8');

const schemes = ['bearer', 'token'] as const;

const INVALID_TOKEN = {
  type: 'urn:results-api:problem:invalid-token',
  title: 'Invalid access token',
  status: 401,
  detail: 'The access token is invalid, expired or revoked.',
};
/** An expired token (one we signed) is told apart, in the body and the challenge (RFC 6750 §3.1). */
const EXPIRED_TOKEN = { ...INVALID_TOKEN, detail: 'The access token has expired; request a new one.' };
const EXPIRED_CHALLENGE =
  'Bearer realm="results-api", error="invalid_token", error_description="The access token expired", resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource"';

/** Tokens we signed whose exp has passed. */
const expiredTokens: { name: string; token: () => Promise<string> }[] = [
  { name: 'expired (exp one second ago)', token: () => forge({ iat: Math.floor(START / 1000) - 3601 }) },
  { name: 'expired (exp is now)', token: () => forge({ iat: Math.floor(START / 1000) - 3600 }) },
];

/** A forged token with the given changes; everything else as the token endpoint would issue. */
const forge = (changes: Omit<ForgeOptions, 'clientId'> = {}) => forgeToken(t, { clientId: s.clientId, ...changes });

const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });

/** Each builds a token that must be refused with 401 invalid_token. */
const invalidTokens: { name: string; token: () => Promise<string> }[] = [
  { name: 'garbage', token: async () => 'not-a-jwt' },
  { name: 'three garbage segments', token: async () => 'abc.def.ghi' },
  {
    name: 'tampered payload with the original signature (exp extended)',
    token: async () => {
      const { header, payload, signature } = decodeJws(await forge());
      return assembleJws(header, { ...payload, exp: (payload.exp as number) + 86_400 }, signature);
    },
  },
  {
    name: 'tampered payload with the original signature (another client)',
    token: async () => {
      const other = await seed(t.runtime);
      const { header, payload, signature } = decodeJws(await forge());
      return assembleJws(header, { ...payload, sub: other.clientId, client_id: other.clientId, cid: other.clientId }, signature);
    },
  },
  {
    name: 'wrong issuer (unknown server id)',
    token: () => forge({ claims: { iss: 'http://127.0.0.1:8080/oauth2/ausSomeoneElse000000' } }),
  },
  {
    name: 'wrong issuer (another host)',
    token: () => forge({ claims: { iss: `https://evil.example/oauth2/${serverOf(t, 'B').id}` } }),
  },
  { name: 'no issuer', token: () => forge({ claims: { iss: undefined } }) },
  { name: 'wrong audience', token: () => forge({ claims: { aud: 'api://someone-else' } }) },
  { name: 'audience of the other server', token: () => forge({ form: 'B', claims: { aud: 'api://default' } }) },
  {
    name: 'audience of the other server (form A issuer)',
    token: () => forge({ form: 'A', claims: { aud: serverOf(t, 'B').audience } }),
  },
  { name: 'no audience', token: () => forge({ claims: { aud: undefined } }) },
  { name: 'typ JWT instead of at+jwt', token: () => forge({ header: { typ: 'JWT' } }) },
  { name: 'no typ', token: () => forge({ header: { typ: undefined } }) },
  {
    name: 'alg none without a signature',
    token: async () => {
      const { header, payload } = decodeJws(await forge());
      return assembleJws({ ...header, alg: 'none' }, payload, '');
    },
  },
  {
    name: 'alg none keeping a valid signature',
    token: async () => {
      const { header, payload, signature } = decodeJws(await forge());
      return assembleJws({ ...header, alg: 'none' }, payload, signature);
    },
  },
  {
    name: 'HS256 signed with the RSA public key (PEM) as the secret',
    token: async () => {
      const pem = t.runtime.keys.signingKey().publicKey.export({ type: 'spki', format: 'pem' }).toString();
      return forge({ header: { alg: 'HS256' }, key: new TextEncoder().encode(pem) });
    },
  },
  {
    name: 'HS256 signed with the RSA public key (JWK JSON) as the secret, by hand',
    token: async () => {
      const { header, payload } = decodeJws(await forge());
      const secret = JSON.stringify(t.runtime.keys.signingKey().publicJwk);
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const input = `${encode({ ...header, alg: 'HS256' })}.${encode(payload)}`;
      return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
    },
  },
  { name: 'unknown kid (signed with our key)', token: () => forge({ header: { kid: 'no-such-kid' } }) },
  { name: 'no kid (signed with our key)', token: () => forge({ header: { kid: undefined } }) },
  { name: 'our kid, signed with another key', token: () => forge({ key: attacker.privateKey }) },
  {
    name: 'another key embedded in the header (jwk)',
    token: async () => {
      const jwk = await exportJWK(attacker.publicKey);
      return forge({ key: attacker.privateKey, header: { kid: await calculateJwkThumbprint(jwk), jwk } });
    },
  },
  { name: 'a client that does not exist', token: () => forgeToken(t, { clientId: '0oaDoesNotExist000000' }) },
];

describe.each(protectedRoutes)('$name', ({ path }) => {
  const get = (headers: Record<string, string>) => fetch(`${t.url}${path()}`, { headers });

  it.each(schemes)('a token from the token endpoint works (%s header)', async (scheme) => {
    for (const form of ['A', 'B'] as const) {
      const res = await get(authHeaders(await mintToken(t, s, form), scheme));
      expect(res.status).toBe(200);
    }
  });

  it.each(schemes)('a forged token with no changes works, so each attack below changes one thing (%s header)', async (scheme) => {
    for (const form of ['A', 'B'] as const) {
      expect((await get(authHeaders(await forge({ form }), scheme))).status).toBe(200);
    }
  });

  it('no token: 401 with a bare Bearer challenge', async () => {
    const res = await get({});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="results-api", resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource"');
    expect(res.headers.get('content-type')).toBe(familyType(path()));
    expect(await res.json()).toEqual(
      inFamily(path(), {
        type: 'urn:results-api:problem:unauthorized',
        title: 'Authentication required',
        status: 401,
        detail: 'An access token is required: send "Authorization: Bearer <token>" or "token: <token>".',
      }),
    );
  });

  it.each([
    ['an empty token header', { token: '' }],
    ['Authorization without a token', { authorization: 'Bearer' }],
  ])('%s counts as no token', async (_name, headers) => {
    const res = await get(headers);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="results-api", resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource"');
  });

  it('both headers at once: 400, even with two valid tokens', async () => {
    const token = await mintToken(t, s);
    const res = await get({ authorization: `Bearer ${token}`, token });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe(familyType(path()));
    expect(await res.json()).toEqual(
      inFamily(path(), {
        type: 'urn:results-api:problem:invalid-parameter',
        title: 'Invalid request parameter',
        status: 400,
        detail: 'Send the access token in one header only: "Authorization: Bearer" or "token", not both.',
      }),
    );
  });

  describe.each(schemes)('%s header', (scheme) => {
    it.each(invalidTokens)('$name: 401 invalid_token', async ({ token }) => {
      const res = await get(authHeaders(await token(), scheme));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="results-api", error="invalid_token"(, |$)/);
      expect(res.headers.get('content-type')).toBe(familyType(path()));
      expect(await res.json()).toEqual(inFamily(path(), INVALID_TOKEN));
    });

    it.each(expiredTokens)('$name: 401 invalid_token that says expired', async ({ token }) => {
      const res = await get(authHeaders(await token(), scheme));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(EXPIRED_CHALLENGE);
      expect(await res.json()).toEqual(inFamily(path(), EXPIRED_TOKEN));
    });

    it('an expired token whose signature is not ours is only invalid: "expired" is said of our own tokens', async () => {
      const res = await get(authHeaders(await forge({ key: attacker.privateKey, iat: Math.floor(START / 1000) - 3601 }), scheme));
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(inFamily(path(), INVALID_TOKEN));
    });

    it('a token from the token endpoint works until exp and not a second longer; then it is expired', async () => {
      const token = await mintToken(t, s);
      expect((await get(authHeaders(token, scheme))).status).toBe(200);
      clock.advance(3599_000);
      expect((await get(authHeaders(token, scheme))).status).toBe(200);
      clock.advance(1000);
      const res = await get(authHeaders(token, scheme));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(EXPIRED_CHALLENGE);
      expect(await res.json()).toEqual(inFamily(path(), EXPIRED_TOKEN));
    });

    it('a valid token without a read scope: 403 insufficient_scope', async () => {
      for (const form of ['A', 'B'] as const) {
        const res = await get(authHeaders(await forge({ form, claims: { scope: 'other', scp: ['other'] } }), scheme));
        expect(res.status).toBe(403);
        expect(res.headers.get('www-authenticate')).toBe(
          'Bearer realm="results-api", error="insufficient_scope", scope="public_api.read studies:read", resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource"',
        );
        expect(await res.json()).toEqual(
          inFamily(path(), {
            type: 'urn:results-api:problem:insufficient-scope',
            title: 'Insufficient scope',
            status: 403,
            detail: 'The access token does not grant a read scope (public_api.read or studies:read).',
          }),
        );
      }
    });
  });
});
