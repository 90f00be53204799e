import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ResultsApiError, ResultsClient, ResultsNetworkError } from '@results-api/client';
import { ManualClock } from '../../src/clock.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientFor, dropConnection, emptyPage, recordingFetch, recordingSleep, reply, startStub } from './helpers.js';

const testId = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const unavailable = reply(503, { type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'restarting' });

describe('429 from the real server', () => {
  let t: TestApp;
  let s: Seeded;
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 10));

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { RATE_LIMIT_API: '2', RATE_LIMIT_WINDOW_SECONDS: '60' } });
    s = await seed(t.runtime, { sessions: 2 });
  });
  afterAll(() => t.close());

  it('waits as long as Retry-After says, then succeeds', async () => {
    const rec = recordingFetch();
    // The wait moves the server's clock instead of sleeping, so the window really resets.
    const waiting = recordingSleep((ms) => clock.advance(ms));
    const client = clientFor(t, s, 'B', { fetch: rec.fetch, sleep: waiting.sleep, now: () => clock.now(), timeoutMs: 0 });

    const pages = [];
    for (let i = 0; i < 3; i++) pages.push(await client.listSessionResults({ testId: s.testId }));

    expect(pages.map((p) => p.sessions.length)).toEqual([2, 2, 2]);
    // Two allowed, the third refused with 50 s left in the window (the clock started 10 s in).
    expect(waiting.waits).toEqual([50_000]);
    expect(rec.apiRequests()).toHaveLength(4);
  });

  it('throws the 429 at once when waiting would outlast the call’s time limit', async () => {
    const other = await seed(t.runtime, { sessions: 1 });
    const waiting = recordingSleep((ms) => clock.advance(ms));
    const client = clientFor(t, other, 'A', { sleep: waiting.sleep, now: () => clock.now() });
    await client.listSessionResults({ testId: other.testId });
    await client.listSessionResults({ testId: other.testId });

    const error = await client.listSessionResults({ testId: other.testId }, { timeoutMs: 5_000 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ResultsApiError);
    expect(error).toMatchObject({
      status: 429,
      retryAfterSeconds: 60 - ((clock.now() / 1000) % 60),
      problem: { type: 'urn:results-api:problem:rate-limited', title: 'Too many requests', status: 429 },
    });
    expect(waiting.waits).toEqual([]);
  });
});

describe('what the real server does not do on purpose (a scripted stub)', () => {
  let stub: Awaited<ReturnType<typeof startStub>> | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  const stubClient = (url: string, extra: Partial<ConstructorParameters<typeof ResultsClient>[0]> = {}) =>
    new ResultsClient({ authUrl: url, baseUrl: url, clientId: 'id', clientSecret: 'secret', authorizationServerId: 'ausStub', random: () => 0.5, ...extra });

  it('429 with only x-ratelimit-reset waits that long', async () => {
    stub = await startStub([reply(429, { title: 'Too many requests', status: 429 }, { 'x-ratelimit-reset': '7' }), reply(200, emptyPage(testId))]);
    const waiting = recordingSleep();
    const page = await stubClient(stub.url, { sleep: waiting.sleep }).listSessionResults({ testId });
    expect(page.meta.pagination.totalCount).toBe(0);
    expect(waiting.waits).toEqual([7_000]);
  });

  it('429 with Retry-After as an HTTP date waits until then', async () => {
    const at = new Date(Date.now() + 120_000).toUTCString();
    stub = await startStub([reply(429, {}, { 'retry-after': at }), reply(200, emptyPage(testId))]);
    const waiting = recordingSleep();
    await stubClient(stub.url, { sleep: waiting.sleep, timeoutMs: 0 }).listSessionResults({ testId });
    expect(waiting.waits).toHaveLength(1);
    expect(waiting.waits[0]).toBeGreaterThan(100_000);
    expect(waiting.waits[0]).toBeLessThanOrEqual(120_000);
  });

  it('5xx on a GET is retried with capped exponential backoff and full jitter', async () => {
    stub = await startStub([unavailable, unavailable, unavailable, reply(200, emptyPage(testId))]);
    const waiting = recordingSleep();
    const page = await stubClient(stub.url, { sleep: waiting.sleep }).listSessionResults({ testId });
    expect(page.sessions).toEqual([]);
    // random() = 0.5 of ceilings 250, 500, 1000 ms.
    expect(waiting.waits).toEqual([125, 250, 500]);
    expect(stub.apiHits()).toBe(4);
  });

  it('the backoff ceiling stops growing at 20 s', async () => {
    stub = await startStub([unavailable]);
    const waiting = recordingSleep();
    const client = stubClient(stub.url, { sleep: waiting.sleep, random: () => 0.999, maxRetries: 10 });
    const error = await client.listSessionResults({ testId }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ResultsApiError', status: 503, problem: { detail: 'restarting' } });
    expect(waiting.waits).toEqual([249, 499, 999, 1998, 3996, 7992, 15984, 19980, 19980, 19980]);
    expect(stub.apiHits()).toBe(11);
  });

  it('a dropped connection is retried, then succeeds', async () => {
    stub = await startStub([dropConnection, dropConnection, reply(200, emptyPage(testId))]);
    const waiting = recordingSleep();
    const page = await stubClient(stub.url, { sleep: waiting.sleep }).listSessionResults({ testId });
    expect(page.testId).toBe(testId);
    expect(waiting.waits).toEqual([125, 250]);
  });

  it('after maxRetries lost responses, a ResultsNetworkError says what failed', async () => {
    stub = await startStub([dropConnection]);
    const waiting = recordingSleep();
    const error = await stubClient(stub.url, { sleep: waiting.sleep, maxRetries: 2 }).listSessionResults({ testId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultsNetworkError);
    expect((error as Error).message).toMatch(new RegExp(`^GET ${stub.url}/api/v2/sessionResults failed: fetch failed`));
    expect(stub.apiHits()).toBe(3);
  });

  it('no server at all: the token request is retried, then a ResultsNetworkError', async () => {
    stub = await startStub([]);
    const url = stub.url;
    await stub.close();
    stub = undefined;
    const waiting = recordingSleep();
    const error = await stubClient(url, { sleep: waiting.sleep, maxRetries: 1 }).getAccessToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultsNetworkError);
    expect((error as Error).message).toBe(`POST ${url}/oauth2/ausStub/v1/token failed: fetch failed: connect ECONNREFUSED ${url.slice(7)}`);
    expect(waiting.waits).toEqual([125]);
  });

  it('4xx other than 401 and 429 is thrown at once', async () => {
    stub = await startStub([reply(403, { type: 'urn:results-api:problem:insufficient-scope', title: 'Insufficient scope', status: 403, detail: 'no read scope' })]);
    const waiting = recordingSleep();
    const error = await stubClient(stub.url, { sleep: waiting.sleep }).workspaces().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 403, problem: { detail: 'no read scope' } });
    expect(stub.apiHits()).toBe(1);
    expect(waiting.waits).toEqual([]);
  });

  it('a 200 whose body is not JSON is a ResultsApiError, not a crash', async () => {
    stub = await startStub([(_req, res) => res.end('<html>proxy login</html>')]);
    const error = await stubClient(stub.url).listSessionResults({ testId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultsApiError);
    expect((error as Error).message).toBe(`GET ${stub.url}/api/v2/sessionResults answered 200: the body is not JSON`);
  });
});
