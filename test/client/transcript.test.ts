import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultsApiError, type FetchFunction } from '../../src/client/index.js';
import { makeSessions, seed, storeActor, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientFor, recordingFetch } from './helpers.js';

const vtt = (n: number) => `WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nWords of session ${n}.\n`;

describe('ResultsClient.transcript against the real server', () => {
  let t: TestApp;
  let s: Seeded;
  let other: Seeded;

  beforeAll(async () => {
    t = await startTestApp();
    // Six sessions, two not complete; every other one has a transcript.
    s = await seed(t.runtime, { sessions: makeSessions(6, { statuses: ['COMPLETE', 'COMPLETE', 'ABANDONED'] }) });
    other = await seed(t.runtime, { sessions: 1 });
    await t.runtime.store.transcripts.importTranscripts(
      s.testId,
      s.sessions.filter((_, i) => i % 2 === 0).map((session, i) => ({ sessionId: session.sessionId, vtt: vtt(i) })),
      storeActor,
    );
    await t.runtime.store.transcripts.importTranscripts(other.testId, [{ sessionId: other.sessions[0]!.sessionId, vtt: vtt(99) }], storeActor);
  });
  afterAll(() => t.close());

  it.each(['A', 'B'] as const)('form %s: GETs the transcript on its path with its token header, accepting text/vtt', async (form) => {
    const rec = recordingFetch();
    const client = clientFor(t, s, form, { fetch: rec.fetch });
    expect(await client.transcript(s.sessions[0]!.sessionId)).toBe(vtt(0));
    const [api] = rec.apiRequests();
    expect(api!.url.pathname).toBe(`${form === 'A' ? '' : '/api'}/v2/sessionResults/${s.sessions[0]!.sessionId}/transcript`);
    expect(api!.headers.get('accept')).toBe('text/vtt');
    expect(api!.headers.get(form === 'A' ? 'token' : 'authorization')).toMatch(/^(Bearer )?ey/);
  });

  it('throws a 404 ResultsApiError for a session without a transcript, an unknown one and a foreign one', async () => {
    const client = clientFor(t, s, 'B');
    for (const sessionId of [s.sessions[1]!.sessionId, randomUUID(), other.sessions[0]!.sessionId]) {
      const error = await client.transcript(sessionId).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResultsApiError);
      expect(error).toMatchObject({ status: 404, problem: { detail: 'Transcript not found' } });
    }
  });

  it('the tutorial pipeline: list the completed sessions, then fetch the transcript of each that has one', async () => {
    const client = clientFor(t, s, 'A');
    const transcripts = new Map<string, string>();
    for await (const session of client.sessionResults(s.testId)) {
      try {
        transcripts.set(session.sessionId, await client.transcript(session.sessionId));
      } catch (err) {
        if (!(err instanceof ResultsApiError && err.status === 404)) throw err;
      }
    }
    const expected = s.sessions
      .map((session, i) => ({ session, i }))
      .filter(({ i }) => i % 2 === 0)
      .map(({ session }, n) => [session.sessionId, vtt(n)] as const)
      .filter(([id]) => s.sessions.find((x) => x.sessionId === id)!.status === 'COMPLETE');
    expect(new Map(expected)).toEqual(transcripts);
    expect(transcripts.size).toBeGreaterThan(0);
  });
});

describe('ResultsClient.transcript against a misbehaving server', () => {
  const token = { access_token: 'ey.test.token', token_type: 'Bearer', expires_in: 3600 };
  const fake = (answers: (() => Response)[]): { fetch: FetchFunction; calls: () => number } => {
    let calls = 0;
    return {
      fetch: async (input) => {
        if (String(input).endsWith('/v1/token')) return Response.json(token);
        return answers[Math.min(calls++, answers.length - 1)]!();
      },
      calls: () => calls,
    };
  };
  const client = (f: FetchFunction) =>
    clientFor({ url: 'http://results.invalid' } as TestApp, { clientId: '0oaTRANSCRIPT00000000', clientSecret: 'x' }, 'A', {
      fetch: f,
      sleep: async () => {},
    });

  it('refuses a 200 whose body is not WebVTT', async () => {
    const f = fake([() => new Response('<html>login</html>', { headers: { 'content-type': 'text/html' } })]);
    await expect(client(f.fetch).transcript(randomUUID())).rejects.toThrow(/answered 200: not a WebVTT transcript/);
  });

  it('waits out a 429 and retries, as for JSON calls', async () => {
    const f = fake([
      () => Response.json({ type: 'urn:results-api:problem:rate-limited', title: 'Too many requests', status: 429, detail: 'slow' }, { status: 429, headers: { 'retry-after': '1' } }),
      () => new Response(vtt(1), { headers: { 'content-type': 'text/vtt; charset=utf-8' } }),
    ]);
    expect(await client(f.fetch).transcript(randomUUID())).toBe(vtt(1));
    expect(f.calls()).toBe(2);
  });
});
