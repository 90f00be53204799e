import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { liveResponse, RealContract } from '../contract/real-contract.js';
import { completedOnly, seed, seedClient, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { callApi } from '../helpers/token-operations.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';

/**
 * COMPAT=usertesting (issue 31 item 5): the real service's limits, for pipelines to be tested
 * against before they meet it: 10 Results API requests per 60 seconds per user, then 429 with
 * Retry-After and the real document's rate-limit headers; the real default page size and bounds.
 */

// On a window boundary, so the window's reset is exactly its length.
const START = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const contract = new RealContract();
const LIST = 'SessionResultsController_getSessionSummaryResults';

describe('COMPAT=usertesting', () => {
  const clock = new ManualClock(START);
  let t: TestApp;
  let s: Seeded;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { COMPAT: 'usertesting' } });
    s = await seed(t.runtime, { sessions: 30 });
    token = await mintToken(t, s);
  });
  afterAll(() => t.close());

  it('allows a user 10 Results API requests per 60 s, then answers 429 with Retry-After, as the real contract has it', async () => {
    const path = `/api/v2/sessionResults?testId=${s.testId}`;
    for (let i = 0; i < 10; i++) {
      const res = await liveResponse(await callApi(t, authHeaders(token), path));
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(9 - i));
      expect(contract.violations(LIST, res)).toEqual([]);
      clock.advance(1000);
    }
    const refused = await liveResponse(await callApi(t, authHeaders(token), path));
    expect(refused.status).toBe(429);
    expect(contract.violations(LIST, refused)).toEqual([]);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.headers.get('x-ratelimit-reset')).toBe('50');
    expect(JSON.parse(refused.body)).toEqual({
      type: 'urn:results-api:problem:rate-limited',
      title: 'Too many requests',
      status: 429,
      detail: 'Too many requests: a user may make 10 Results API requests per 60 seconds; retry in 50 s.',
    });
    // Every operation of the family counts: the v1 discovery list is refused too.
    expect((await callApi(t, authHeaders(token))).status).toBe(429);

    clock.advance(50_000);
    expect((await callApi(t, authHeaders(token), path)).status).toBe(200);
  });

  it("counts each user's requests apart: another user is not refused for the first one's", async () => {
    const other = await seedClient(t.runtime);
    const otherToken = await mintToken(t, other);
    clock.advance(60_000);
    for (let i = 0; i < 10; i++) expect((await callApi(t, authHeaders(token))).status).toBe(200);
    expect((await callApi(t, authHeaders(token))).status).toBe(429);
    expect((await callApi(t, authHeaders(otherToken))).status).toBe(200);
  });

  it('pages as the real service does: 25 sessions by default, limit 1-500 and offset 0-10000', async () => {
    clock.advance(60_000);
    const page = (await (await callApi(t, authHeaders(token), `/api/v2/sessionResults?testId=${s.testId}`)).json()) as {
      sessions: unknown[];
      meta: { pagination: { limit: number; offset: number; totalCount: number } };
    };
    expect(page.sessions).toHaveLength(25);
    expect(page.meta.pagination).toMatchObject({ limit: 25, offset: 0, totalCount: completedOnly(s.sessions).length });
    for (const query of ['limit=0', 'limit=501', 'offset=-1', 'offset=10001']) {
      expect((await callApi(t, authHeaders(token), `/api/v2/sessionResults?testId=${s.testId}&${query}`)).status, query).toBe(400);
    }
  });
});

describe('without COMPAT', () => {
  it('allows far more (RATE_LIMIT_API, 600 a minute by default), per client', async () => {
    const t = await startTestApp({ clock: new ManualClock(START) });
    try {
      const s = await seed(t.runtime, { sessions: 1 });
      const token = await mintToken(t, s);
      for (let i = 0; i < 11; i++) expect((await callApi(t, authHeaders(token))).status).toBe(200);
      expect((await callApi(t, authHeaders(token))).headers.get('x-ratelimit-limit')).toBe('600');
    } finally {
      await t.close();
    }
  });
});
