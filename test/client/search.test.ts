/** The SDK's search() against the real app: the query as sent, the API's page as answered, its refusals as errors. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultsApiError } from '@results-api/client';
import { seed, storeActor, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';
import { clientFor } from './helpers.js';

describe('ResultsClient.search', () => {
  let t: TestApp;
  let s: Seeded;

  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_API: '100000' } });
    s = await seed(t.runtime, { sessions: 2 });
    const vtt = (text: string) => `WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n${text}\n`;
    await t.runtime.store.transcripts.importTranscripts(
      s.testId,
      s.sessions.slice(0, 2).map((x, i) => ({ sessionId: x.sessionId, vtt: vtt(i === 0 ? 'The price & the "total" were unclear.' : 'The total was fine.') })),
      storeActor,
    );
  });
  afterAll(() => t.close());

  for (const form of ['A', 'B'] as const) {
    it(`answers what GET /api/v2/search answers, the words encoded (form ${form})`, async () => {
      const client = clientFor(t, s, form);
      const page = await client.search({ q: 'price & "total"', testId: s.testId, limit: 1, offset: 0 });
      const rest = await fetch(`${t.url}/api/v2/search?${new URLSearchParams({ q: 'price & "total"', testId: s.testId, limit: '1', offset: '0' })}`, {
        headers: authHeaders(await mintToken(t, s, 'B')),
      });
      expect(page).toEqual(await rest.json());
      expect(page.hits).toHaveLength(1);
      expect(page.hits[0]!.snippet).toContain('**price**');
      expect(page.meta).toEqual({ limit: 1, offset: 0, hasMore: false });
      expect((await client.search({ q: 'total' })).hits).toHaveLength(2);
    });
  }

  it("a test the caller may not see is a 404 ResultsApiError; a query without words, the API's 400", async () => {
    const client = clientFor(t, s, 'B');
    const missing = await client.search({ q: 'total', testId: randomUUID() }).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(ResultsApiError);
    expect((missing as ResultsApiError).status).toBe(404);
    const wordless = await client.search({ q: '!!!' }).catch((err: unknown) => err);
    expect((wordless as ResultsApiError).status).toBe(400);
  });
});
