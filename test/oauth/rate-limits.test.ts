import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { generateClientId } from '../../src/oauth/client-secrets.js';
import { requireRedis } from '../helpers/redis.js';
import { seed, seedClient, type Seeded } from '../helpers/seed.js';
import { startSeededApp, startTestApp, type TestApp } from '../helpers/test-app.js';
import { callApi, INVALID_CLIENT, introspect, revoke } from '../helpers/token-operations.js';
import { authHeaders, mintToken, requestToken } from '../helpers/tokens.js';

/**
 * Rate limits, in fixed windows aligned to the clock (RATE_LIMIT_WINDOW_SECONDS, 60 here):
 * per client on the Results API; on the client-authenticated endpoints of the authorization
 * servers failed authentications per source address and per presented client id and address,
 * so guessing is throttled where it comes from, while a correct secret is always answered and
 * a stranger's guesses cannot lock the owner out (test/access/guessing-throttle.test.ts).
 */

// On a window boundary, so x-ratelimit-reset is exactly the window length.
const START = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const WINDOW_SECONDS = 60;

const RATE_LIMITED = (seconds: number) => ({
  type: 'urn:results-api:problem:rate-limited',
  title: 'Too many requests',
  status: 429,
  detail: `Rate limit exceeded; retry in ${seconds} s.`,
});
const SLOW_DOWN = { error: 'slow_down', error_description: 'Too many requests to the authorization server; retry later.' };

const rateLimitHeaders = (res: Response) => ({
  limit: res.headers.get('x-ratelimit-limit'),
  remaining: res.headers.get('x-ratelimit-remaining'),
  reset: res.headers.get('x-ratelimit-reset'),
});

describe('Results API: RATE_LIMIT_API=3 per client', () => {
  const clock = new ManualClock(START);
  let t: TestApp;
  let s: Seeded;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { RATE_LIMIT_API: '3', RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) } });
    s = await seed(t.runtime, { sessions: 1 });
    token = await mintToken(t, s);
  });
  afterAll(() => t.close());

  it('counts down on every response, refuses the 4th with 429, Retry-After and problem+json, and resets with the window', async () => {
    const path = `/api/v2/sessionResults?testId=${s.testId}`;
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const res = await callApi(t, authHeaders(token, i % 2 === 0 ? 'bearer' : 'token'), path);
      expect(res.status).toBe(200);
      seen.push(rateLimitHeaders(res));
      clock.advance(5000);
    }
    expect(seen).toEqual([
      { limit: '3', remaining: '2', reset: '60' },
      { limit: '3', remaining: '1', reset: '55' },
      { limit: '3', remaining: '0', reset: '50' },
    ]);

    const refused = await callApi(t, authHeaders(token), path);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('45');
    expect(rateLimitHeaders(refused)).toEqual({ limit: '3', remaining: '0', reset: '45' });
    expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(refused.headers.get('cache-control')).toBe('private, no-store');
    expect(await refused.json()).toEqual(RATE_LIMITED(45));

    // Another client, from the same address, has its own budget.
    const other = await seed(t.runtime, { sessions: 1 });
    const otherRes = await callApi(t, authHeaders(await mintToken(t, other)), `/api/v2/sessionResults?testId=${other.testId}`);
    expect(otherRes.status).toBe(200);
    expect(rateLimitHeaders(otherRes)).toEqual({ limit: '3', remaining: '2', reset: '45' });

    // A new token does not buy a new budget: the limit is the client's.
    expect((await callApi(t, authHeaders(await mintToken(t, s, 'A'), 'token'), path)).status).toBe(429);

    clock.advance(45_000);
    const next = await callApi(t, authHeaders(token), path);
    expect(next.status).toBe(200);
    expect(rateLimitHeaders(next)).toEqual({ limit: '3', remaining: '2', reset: '60' });
  });

  it('requests without a valid token count against the source address, and are then refused with 429', async () => {
    clock.set(START + 10 * WINDOW_SECONDS * 1000);
    for (let i = 0; i < 3; i++) {
      const res = await callApi(t, authHeaders('not-a-token'));
      expect(res.status).toBe(401);
      expect(rateLimitHeaders(res)).toEqual({ limit: '3', remaining: String(2 - i), reset: '60' });
    }
    const refused = await callApi(t, {}, `/api/v2/sessionResults?testId=${s.testId}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toEqual(RATE_LIMITED(60));
    // The Legacy (v1) family answers the same refusal in its own body.
    const legacy = await callApi(t, {});
    expect(legacy.status).toBe(429);
    expect(await legacy.json()).toEqual({ errorCode: 'TOO_MANY_REQUESTS', errorMessage: RATE_LIMITED(60).detail });
    // A client with a valid token is not held back by someone else's failures at the same address.
    expect((await callApi(t, authHeaders(token))).status).toBe(200);
  });
});

describe('token endpoint: RATE_LIMIT_TOKEN_CLIENT=3 failures per presented client id and address', async () => {
  const clock = new ManualClock(START);
  const { t, client } = await startSeededApp({
    clock,
    env: { RATE_LIMIT_TOKEN_CLIENT: '3', RATE_LIMIT_TOKEN_ADDRESS: '1000', RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) },
  });

  it('after 3 wrong secrets from an address further guesses from there are refused with 429 slow_down until the window ends; the right secret is answered', async () => {
    clock.set(START);
    const guess = { clientId: client.clientId, clientSecret: 'guess' };
    for (const auth of ['post', 'basic', 'post'] as const) {
      const res = await requestToken(t, guess, { auth });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(INVALID_CLIENT);
    }
    clock.advance(20_000);
    for (const auth of ['post', 'basic'] as const) {
      const refused = await requestToken(t, guess, { auth });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('40');
      expect(refused.headers.get('cache-control')).toBe('no-store');
      expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await refused.json()).toEqual(SLOW_DOWN);
      // The secret is its own proof: 256 random bits are never guessed, so the right one is never refused.
      expect((await requestToken(t, client, { auth })).status).toBe(200);
    }

    // Other clients from the same address are unaffected.
    expect((await requestToken(t, await seedClient(t.runtime))).status).toBe(200);

    clock.advance(40_000);
    expect((await requestToken(t, guess)).status).toBe(401);
  });

  it('successful requests do not count (the owner\'s own traffic is never throttled by this limit), failures do', async () => {
    clock.set(START + 10 * WINDOW_SECONDS * 1000);
    for (let i = 0; i < 5; i++) expect((await requestToken(t, client, { form: i % 2 ? 'A' : 'B' })).status).toBe(200);
    const guess = { clientId: client.clientId, clientSecret: 'guess' };
    expect([(await requestToken(t, guess)).status, (await requestToken(t, guess)).status]).toEqual([401, 401]);
    expect((await requestToken(t, client, { form: 'A', auth: 'basic' })).status).toBe(200);
    expect((await requestToken(t, guess)).status).toBe(401);
    expect((await requestToken(t, guess)).status).toBe(429);
    expect((await requestToken(t, client)).status).toBe(200);
  });

  it('guesses at the introspection and revocation endpoints count against the same budget', async () => {
    clock.set(START + 20 * WINDOW_SECONDS * 1000);
    const token = await mintToken(t, client);
    const guess = { clientId: client.clientId, clientSecret: 'guess' };
    expect((await introspect(t, guess, token)).status).toBe(401);
    expect((await revoke(t, guess, token, { auth: 'basic' })).status).toBe(401);
    expect((await introspect(t, guess, token, { form: 'A' })).status).toBe(401);

    for (const res of [await introspect(t, guess, token), await revoke(t, guess, token), await requestToken(t, guess)]) {
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('60');
      expect(await res.json()).toEqual(SLOW_DOWN);
    }
    expect((await introspect(t, client, token)).status).toBe(200);
  });

  it('an unknown client id is throttled like a known one, so the answer reveals nothing', async () => {
    clock.set(START + 30 * WINDOW_SECONDS * 1000);
    const unknown = { clientId: generateClientId(), clientSecret: 'guess' };
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await requestToken(t, unknown)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

describe('token endpoint: RATE_LIMIT_TOKEN_ADDRESS=3 failures per source address', () => {
  const clock = new ManualClock(START);
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      clock,
      env: { RATE_LIMIT_TOKEN_CLIENT: '1000', RATE_LIMIT_TOKEN_ADDRESS: '3', RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) },
    });
  });
  afterAll(() => t.close());

  it('guesses spread over many client ids are throttled by address; a valid client from there is still answered', async () => {
    const guess = () => ({ clientId: generateClientId(), clientSecret: 'guess' });
    for (let i = 0; i < 3; i++) {
      const res = await requestToken(t, guess());
      expect(res.status).toBe(401);
    }
    const refused = await requestToken(t, guess());
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toEqual(SLOW_DOWN);
    expect((await requestToken(t, await seedClient(t.runtime))).status).toBe(200);

    clock.advance(WINDOW_SECONDS * 1000);
    expect((await requestToken(t, guess())).status).toBe(401);
  });

  it('requests without any client authentication count too', async () => {
    clock.set(START + 10 * WINDOW_SECONDS * 1000);
    const anonymous = () =>
      fetch(`${t.url}/oauth2/default/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
    expect([(await anonymous()).status, (await anonymous()).status, (await anonymous()).status]).toEqual([401, 401, 401]);
    expect((await anonymous()).status).toBe(429);
  });
});

/** A source address, as a trusted proxy (TRUST_PROXY=true) reports it; random, so runs sharing Redis never meet. */
const randomAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (address: string) => ({ 'x-forwarded-for': address });

describe('an IPv6 source counts by its /64, an IPv4-mapped one as IPv4 (TRUST_PROXY; 3 per address)', () => {
  const clock = new ManualClock(START);
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      clock,
      env: { TRUST_PROXY: 'true', RATE_LIMIT_API: '3', RATE_LIMIT_TOKEN_CLIENT: '1000', RATE_LIMIT_TOKEN_ADDRESS: '3', RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) },
    });
  });
  afterAll(() => t.close());

  it('token requests from four addresses of one /64 share one budget; another /64 has its own', async () => {
    clock.set(START);
    const guess = () => ({ clientId: generateClientId(), clientSecret: 'guess' });
    const statuses: number[] = [];
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2:a:b:c:d', '2001:DB8:1:2:ffff:ffff:ffff:fffe', '2001:db8:1:2::2']) {
      statuses.push((await requestToken(t, guess(), { headers: from(address) })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await requestToken(t, guess(), { headers: from('2001:db8:1:3::1') })).status).toBe(401);
  });

  it('an IPv4 address and its IPv4-mapped IPv6 form share one budget', async () => {
    clock.set(START + 10 * WINDOW_SECONDS * 1000);
    const guess = () => ({ clientId: generateClientId(), clientSecret: 'guess' });
    const statuses: number[] = [];
    for (const address of ['192.0.2.7', '::ffff:192.0.2.7', '::ffff:c000:207', '192.0.2.7']) {
      statuses.push((await requestToken(t, guess(), { headers: from(address) })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('Results API requests without a valid token count against the /64 too', async () => {
    clock.set(START + 20 * WINDOW_SECONDS * 1000);
    const statuses: number[] = [];
    for (let host = 1; host <= 4; host++) {
      const res = await callApi(t, { authorization: 'Bearer not-a-token', ...from(`2001:db8:5:6::${host}`) }, '/api/v2/sessionResults?testId=x');
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

const redisUrl = await requireRedis();

describe.each([
  { limiter: 'in memory', env: {} as Record<string, string> },
  ...(redisUrl ? [{ limiter: 'in Redis', env: { REDIS_URL: redisUrl } }] : []),
])('a stranger cannot lock the owner out (defaults: 60 failures per client and address; counters $limiter)', async ({ env }) => {
  // A window aligned near real time, so Redis keys (which expire with their window) live through the test.
  const windowSeconds = 3600;
  const windowStart = Math.floor(Date.now() / (windowSeconds * 1000)) * windowSeconds * 1000;
  const clock = new ManualClock(windowStart);
  const { t, client } = await startSeededApp({ clock, env: { ...env, TRUST_PROXY: 'true', RATE_LIMIT_WINDOW_SECONDS: String(windowSeconds) } });

  it('65 wrong secrets from address A: A\'s guesses are throttled after 60; the owner gets tokens at B and at A', async () => {
    const [a, b] = [randomAddress(), randomAddress()];
    const guess = { clientId: client.clientId, clientSecret: 'guess' };
    const statuses: number[] = [];
    for (let i = 0; i < 65; i++) statuses.push((await requestToken(t, guess, { headers: from(a), auth: i % 2 ? 'basic' : 'post' })).status);
    expect(statuses).toEqual([...Array<number>(60).fill(401), ...Array<number>(5).fill(429)]);

    const owner = await requestToken(t, client, { headers: from(b) });
    expect(owner.status).toBe(200);
    expect((await requestToken(t, client, { headers: from(b), form: 'A', auth: 'basic' })).status).toBe(200);
    expect((await introspect(t, client, ((await owner.json()) as { access_token: string }).access_token)).status).toBe(200);

    expect((await requestToken(t, client, { headers: from(a) })).status).toBe(200);
    const stillThrottled = await requestToken(t, guess, { headers: from(a) });
    expect(stillThrottled.status).toBe(429);
    expect(await stillThrottled.json()).toEqual(SLOW_DOWN);
  });
});

describe('GUESSING_ALERT_TOKEN_CLIENT=5 failures per client id from all addresses together', async () => {
  const clock = new ManualClock(START);
  const { t, client } = await startSeededApp({
    clock,
    env: { TRUST_PROXY: 'true', RATE_LIMIT_TOKEN_CLIENT: '3', GUESSING_ALERT_TOKEN_CLIENT: '5', RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) },
  });

  it('guesses spread over addresses reach it: reported once, and the client is still answered from everywhere', async () => {
    const guess = { clientId: client.clientId, clientSecret: 'guess' };
    const [a, b, c] = [randomAddress(), randomAddress(), randomAddress()];
    const statuses = [];
    for (const address of [a, a, a, b, b, b]) statuses.push((await requestToken(t, guess, { headers: from(address) })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
    for (const address of [a, b, c]) expect((await requestToken(t, client, { headers: from(address) })).status).toBe(200);
    expect((await t.runtime.store.audit.list({ action: 'guessing.alert' })).map((e) => e.subject)).toEqual([client.clientId]);
  });
});
