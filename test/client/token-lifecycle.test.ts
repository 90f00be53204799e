import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultsApiError } from '@results-api/client';
import { ManualClock } from '../../src/clock.js';
import { seed, storeActor, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { decodeJws } from '../helpers/tokens.js';
import { clientFor, recordingFetch } from './helpers.js';

const HOUR = 3_600_000;

describe('the access token: cached, renewed before expiry, minted once, re-minted after a 401', () => {
  let t: TestApp;
  let s: Seeded;
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startTestApp({ clock });
    s = await seed(t.runtime, { sessions: 3 });
  });
  afterAll(() => t.close());

  /** Revokes a token the way RFC 7009 revocation does, through the store. */
  const revoke = (token: string) => {
    const { jti, exp } = decodeJws(token).payload as { jti: string; exp: number };
    return t.runtime.store.revocations.revoke(jti, exp * 1000, storeActor);
  };

  it('renews the token a minute before it expires, and the new token works', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, s, 'B', { fetch: rec.fetch, now: () => clock.now() });

    const first = await client.getAccessToken();
    clock.advance(HOUR - 60_000 - 1);
    expect(await client.getAccessToken()).toBe(first);
    expect(rec.tokenRequests()).toHaveLength(1);

    clock.advance(1);
    const second = await client.getAccessToken();
    expect(second).not.toBe(first);
    expect(rec.tokenRequests()).toHaveLength(2);

    // Past the first token's expiry: the API takes the renewed one without a 401.
    clock.advance(60_000);
    const page = await client.listSessionResults({ testId: s.testId });
    expect(page.meta.pagination.totalCount).toBe(3);
    expect(rec.apiRequests()[0]!.headers.get('authorization')).toBe(`Bearer ${second}`);
    expect(rec.tokenRequests()).toHaveLength(2);
  });

  it('many concurrent callers share one token request', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, s, 'A', { fetch: rec.fetch, now: () => clock.now() });

    const pages = await Promise.all(Array.from({ length: 12 }, () => client.listSessionResults({ testId: s.testId })));

    expect(pages.map((p) => p.sessions.length)).toEqual(Array(12).fill(3));
    expect(rec.tokenRequests()).toHaveLength(1);
    expect(new Set(rec.apiRequests().map((r) => r.headers.get('token'))).size).toBe(1);
  });

  it('a caller that gives up does not cancel the shared token request for the others', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, s, 'B', { fetch: rec.fetch });
    const impatient = new AbortController();
    const first = client.getAccessToken({ signal: impatient.signal });
    const second = client.getAccessToken();
    impatient.abort();
    await expect(first).rejects.toMatchObject({ name: 'AbortError' });
    expect(await second).toMatch(/^ey/);
    expect(rec.tokenRequests()).toHaveLength(1);
  });

  it('a token the server considers expired is dropped and re-minted once; the call succeeds', async () => {
    const rec = recordingFetch();
    // The client's own clock stands still, so only the server can tell it the token expired.
    const frozen = clock.now();
    const client = clientFor(t, s, 'B', { fetch: rec.fetch, now: () => frozen });
    const stale = await client.getAccessToken();
    clock.advance(HOUR + 1000);

    const page = await client.listSessionResults({ testId: s.testId });

    expect(page.sessions).toHaveLength(3);
    expect(rec.sent.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      `POST /oauth2/${t.runtime.servers.custom.id}/v1/token`,
      'GET /api/v2/sessionResults',
      `POST /oauth2/${t.runtime.servers.custom.id}/v1/token`,
      'GET /api/v2/sessionResults',
    ]);
    expect(rec.apiRequests()[0]!.headers.get('authorization')).toBe(`Bearer ${stale}`);
    expect(rec.apiRequests()[1]!.headers.get('authorization')).not.toBe(`Bearer ${stale}`);
  });

  it('a revoked token is re-minted once; the credential still works, so the call succeeds', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, s, 'A', { fetch: rec.fetch, now: () => clock.now() });
    await revoke(await client.getAccessToken());

    const page = await client.listSessionResults({ testId: s.testId });

    expect(page.sessions).toHaveLength(3);
    expect(rec.tokenRequests()).toHaveLength(2);
    expect(rec.apiRequests()).toHaveLength(2);
  });

  it('a second 401 is thrown as a ResultsApiError, after exactly one re-mint', async () => {
    // Every token is revoked the moment it is issued, so the re-minted one is refused too.
    const rec = recordingFetch(async (request, response) => {
      if (request.url.pathname.endsWith('/v1/token') && response.status === 200) {
        await revoke(((await response.json()) as { access_token: string }).access_token);
      }
    });
    const client = clientFor(t, s, 'B', { fetch: rec.fetch, now: () => clock.now() });

    const error = await client.listSessionResults({ testId: s.testId }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ResultsApiError);
    expect(error).toMatchObject({
      status: 401,
      problem: {
        type: 'urn:results-api:problem:invalid-token',
        title: 'Invalid access token',
        status: 401,
        detail: 'The access token is invalid, expired or revoked.',
      },
    });
    expect(rec.tokenRequests()).toHaveLength(2);
    expect(rec.apiRequests()).toHaveLength(2);
  });

  it('a token that lives under two minutes is renewed halfway, not on every call', async () => {
    const short = await startTestApp({ clock, env: { TOKEN_TTL_SECONDS: '61' } });
    try {
      const u = await seed(short.runtime, { sessions: 1 });
      const rec = recordingFetch();
      const client = clientFor(short, u, 'B', { fetch: rec.fetch, now: () => clock.now() });
      const first = await client.getAccessToken();
      clock.advance(30_000);
      expect(await client.getAccessToken()).toBe(first);
      clock.advance(500);
      expect(await client.getAccessToken()).not.toBe(first);
      expect(rec.tokenRequests()).toHaveLength(2);
    } finally {
      await short.close();
    }
  });
});
