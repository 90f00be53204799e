/**
 * GET /api/v2/sessionResults/{sessionId}/transcript: the WebVTT body, and the list's visibility
 * rules (membership per request, one 404 for whatever is missing or hidden, both auth forms,
 * the rate limit, no-store). Runs on SQLite and, in the postgres project, on PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultsApiError } from '@results-api/client';
import { clientFor } from '../client/helpers.js';
import { makeSessions, seed, seedClient, storeActor, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';

const RATE_LIMIT = 40;
const vtt = (words: string) => `WEBVTT\n\n00:00:00.000 --> 00:00:02.500\n<v Participant>${words}</v>\n`;

let t: TestApp;
let s: Seeded;
let other: Seeded;
let token: string;
let tokenA: string;
/** Sessions of `s`: with a transcript, without one (in progress, to show status does not matter). */
let spoken: string;
let silent: string;
/** A session of another team's test, with a transcript. */
let foreign: string;

beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_API: String(RATE_LIMIT) } });
  s = await seed(t.runtime, { sessions: makeSessions(3, { statuses: ['COMPLETE', 'IN_PROGRESS', 'COMPLETE'] }) });
  other = await seed(t.runtime, { sessions: 1 });
  spoken = s.sessions[1]!.sessionId;
  silent = s.sessions[0]!.sessionId;
  foreign = other.sessions[0]!.sessionId;
  await t.runtime.store.transcripts.importTranscripts(s.testId, [{ sessionId: spoken, vtt: vtt('I would click here.') }], storeActor);
  await t.runtime.store.transcripts.importTranscripts(other.testId, [{ sessionId: foreign, vtt: vtt('Secret words.') }], storeActor);
  token = await mintToken(t, s, 'B');
  tokenA = await mintToken(t, s, 'A');
});
afterAll(() => t.close());

const transcript = (sessionId: string, headers: Record<string, string> = authHeaders(token), prefix = '/api/v2') =>
  fetch(`${t.url}${prefix}/sessionResults/${sessionId}/transcript`, { headers });

async function expectNotFound(res: Response): Promise<unknown> {
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('private, no-store');
  return res.json();
}

describe('GET /api/v2/sessionResults/{sessionId}/transcript', () => {
  it('answers the transcript as text/vtt, never stored, with the rate-limit headers', async () => {
    const res = await transcript(spoken);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMIT));
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(RATE_LIMIT);
    expect(await res.text()).toBe(vtt('I would click here.'));
  });

  it('takes both forms of authentication, on the real path and on the earlier one', async () => {
    for (const prefix of ['/api/v2', '/v2']) {
      for (const headers of [authHeaders(token), authHeaders(tokenA, 'token')]) {
        const res = await transcript(spoken.toUpperCase(), headers, prefix);
        expect(res.status, `${prefix} ${Object.keys(headers)[0]}`).toBe(200);
        expect(await res.text()).toBe(vtt('I would click here.'));
      }
    }
  });

  it('gives the same 404 for a session without a transcript, an unknown session and another team\'s session', async () => {
    const bodies = [await expectNotFound(await transcript(silent)), await expectNotFound(await transcript(randomUUID())), await expectNotFound(await transcript(foreign))];
    expect(bodies[0]).toEqual({ type: 'urn:results-api:problem:not-found', title: 'Not found', status: 404, detail: 'Transcript not found' });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    // The other team itself sees its transcript.
    const owner = await transcript(foreign, authHeaders(await mintToken(t, other, 'B')));
    expect(await owner.text()).toBe(vtt('Secret words.'));
  });

  it('checks membership on every request: a member removed gets 404 at once, and 200 again when added back', async () => {
    const member = await seedClient(t.runtime);
    await t.runtime.store.directory.addMember(s.workspaceId, member.email, storeActor);
    const memberToken = await mintToken(t, member, 'B');
    expect((await transcript(spoken, authHeaders(memberToken))).status).toBe(200);
    await t.runtime.store.directory.removeMember(s.workspaceId, member.email, storeActor);
    await expectNotFound(await transcript(spoken, authHeaders(memberToken)));
    await t.runtime.store.directory.addMember(s.workspaceId, member.email, storeActor);
    expect((await transcript(spoken, authHeaders(memberToken))).status).toBe(200);
  });

  it('serves a transcript imported after a 404 at once, and its replacement', async () => {
    await expectNotFound(await transcript(silent));
    await t.runtime.store.transcripts.importTranscripts(s.testId, [{ sessionId: silent, vtt: vtt('Now I speak.') }], storeActor);
    expect(await (await transcript(silent)).text()).toBe(vtt('Now I speak.'));
    await t.runtime.store.transcripts.importTranscripts(s.testId, [{ sessionId: silent, vtt: vtt('Corrected.') }], storeActor);
    expect(await (await transcript(silent)).text()).toBe(vtt('Corrected.'));
  });

  it('declares Accept-Ranges: bytes and answers one byte range with 206 and Content-Range (multi-byte text included)', async () => {
    const whole = Buffer.from(vtt('I would click here.'), 'utf8');
    const full = await transcript(spoken);
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    expect(full.headers.get('content-length')).toBe(String(whole.length));
    await full.arrayBuffer();
    const cases: [string, number, number][] = [
      ['bytes=0-5', 0, 5],
      ['bytes=10-', 10, whole.length - 1],
      ['bytes=-7', whole.length - 7, whole.length - 1],
      [`bytes=3-${whole.length + 100}`, 3, whole.length - 1],
    ];
    for (const [range, start, end] of cases) {
      for (const prefix of ['/api/v2', '/v2']) {
        const res = await transcript(spoken, { ...authHeaders(token), range }, prefix);
        expect(res.status, range).toBe(206);
        expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${whole.length}`);
        expect(res.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
        expect(res.headers.get('cache-control')).toBe('private, no-store');
        expect(Buffer.from(await res.arrayBuffer())).toEqual(whole.subarray(start, end + 1));
      }
    }
    // Ranges count bytes, not characters: a split UTF-8 sequence stays as sent.
    const accentedSession = s.sessions[2]!.sessionId;
    await t.runtime.store.transcripts.importTranscripts(s.testId, [{ sessionId: accentedSession, vtt: vtt('Ça coûte 5 €.') }], storeActor);
    const accented = Buffer.from(vtt('Ça coûte 5 €.'), 'utf8');
    const tail = await transcript(accentedSession, { ...authHeaders(token), range: 'bytes=-10' });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(accented.subarray(accented.length - 10));
  });

  it('answers a range past the end with 416 and Content-Range: bytes */size; several ranges, another unit or If-Range get the whole', async () => {
    const whole = Buffer.from(vtt('I would click here.'), 'utf8');
    for (const range of [`bytes=${whole.length}-`, 'bytes=99999999999999999999999-', 'bytes=-0']) {
      const res = await transcript(spoken, { ...authHeaders(token), range });
      expect(res.status, range).toBe(416);
      expect(res.headers.get('content-range')).toBe(`bytes */${whole.length}`);
      expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(((await res.json()) as { type: string }).type).toBe('urn:results-api:problem:range-not-satisfiable');
    }
    const wholeCases: Record<string, string>[] = [{ range: 'bytes=0-1,5-6' }, { range: 'lines=0-5' }, { range: 'bytes=9-2' }, { range: 'bytes=0-5', 'if-range': '"anything"' }];
    for (const headers of wholeCases) {
      const res = await transcript(spoken, { ...authHeaders(token), ...headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.headers.get('content-range')).toBeNull();
      expect(Buffer.from(await res.arrayBuffer())).toEqual(whole);
    }
    // A Range never opens what the caller may not see.
    await expectNotFound(await transcript(foreign, { ...authHeaders(token), range: 'bytes=0-5' }));
  });

  it('refuses a sessionId that is not a UUID (400), a request without a valid token (401), and a spent budget (429)', async () => {
    const bad = await transcript('not-a-uuid');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/sessionId/);
    const anonymous = await transcript(spoken, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    expect(await anonymous.text()).not.toContain('WEBVTT');
    expect((await transcript(spoken, authHeaders('garbage'))).status).toBe(401);

    const burner = await seed(t.runtime, { sessions: 1 });
    const burnerToken = await mintToken(t, burner, 'B');
    // Spent until refused: the windows follow the real clock, so one may end meanwhile.
    for (let i = 0; i <= 2 * RATE_LIMIT; i++) {
      const res = await transcript(spoken, authHeaders(burnerToken));
      await res.arrayBuffer();
      if (res.status === 429) break;
    }
    const limited = await transcript(spoken, authHeaders(burnerToken));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('the tutorial pipeline through the SDK: list the completed sessions, then fetch each transcript', () => {
  it.each(['A', 'B'] as const)('form %s: every completed session with a transcript, and a 404 for the others', async (form) => {
    const pipeline = await seed(t.runtime, { sessions: makeSessions(12, { statuses: ['COMPLETE', 'COMPLETE', 'ABANDONED'] }) });
    const spokenIds = pipeline.sessions.filter((_, i) => i % 3 !== 1).map((x) => x.sessionId);
    await t.runtime.store.transcripts.importTranscripts(pipeline.testId, spokenIds.map((id) => ({ sessionId: id, vtt: vtt(id) })), storeActor);
    const client = clientFor(t, pipeline, form);
    const fetched = new Map<string, string | null>();
    for await (const session of client.sessionResults(pipeline.testId)) {
      const text = await client.transcript(session.sessionId).catch((err: unknown) => {
        if (err instanceof ResultsApiError && err.status === 404) return null;
        throw err;
      });
      fetched.set(session.sessionId, text);
    }
    const completed = pipeline.sessions.filter((x) => x.status === 'COMPLETE');
    expect([...fetched.keys()]).toEqual(completed.map((x) => x.sessionId));
    for (const { sessionId } of completed) expect(fetched.get(sessionId)).toBe(spokenIds.includes(sessionId) ? vtt(sessionId) : null);
    expect([...fetched.values()].filter((v) => v === null).length).toBeGreaterThan(0);
  });
});
