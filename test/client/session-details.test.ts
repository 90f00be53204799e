import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ResultsApiError, type FetchFunction } from '@results-api/client';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import { DETAILS_PLAN, detailsInput, PARTICIPANT_A, PARTICIPANT_B, PARTICIPANT_C } from '../helpers/details.js';
import { seedWorkspace, storeActor, type Seeded } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { clientFor } from './helpers.js';

const SESSIONS = 23;

describe('SDK: sessionDetails, qxScores, sessionsWithDetails', async () => {
  const { t, client } = await startSeededApp({ env: { RATE_LIMIT_API: '100000' } });
  let s: Pick<Seeded, 'clientId' | 'clientSecret' | 'testId'>;
  /** Session ids in listing order (newest first). */
  let listed: string[];

  beforeAll(async () => {
    const workspaceId = await seedWorkspace(t.runtime, [client.email]);
    const testId = randomUUID();
    await t.runtime.store.directory.createTest({ id: testId, workspaceId, title: 'T', productType: 'NON_THINK_OUT_LOUD', plan: DETAILS_PLAN }, storeActor);
    const answers = [PARTICIPANT_A, PARTICIPANT_B, PARTICIPANT_C];
    const ids = Array.from({ length: SESSIONS }, () => randomUUID());
    const lines = ids.map((sessionId, i) =>
      JSON.stringify({
        sessionId,
        status: 'COMPLETE',
        startTime: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
        finishTime: new Date(Date.UTC(2024, 0, 1, 1, i)).toISOString(),
        details: detailsInput({ ...answers[i % 3] }),
      }),
    );
    const parsed = parseSessionFile(lines.join('\n'), 'ndjson', DETAILS_PLAN);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    await t.runtime.store.sessions.importSessions(testId, parsed.sessions, storeActor);
    s = { ...client, testId };
    listed = [...ids].reverse();
  });

  it.each(['A', 'B'] as const)('form %s: one session\'s details and the test\'s QXscores', async (form) => {
    const client = clientFor(t, s, form);
    const details = await client.sessionDetails(listed[0]!);
    expect(details.sessionId).toBe(listed[0]);
    expect(details.tasks).toHaveLength(16);
    const qx = await client.qxScores(s.testId);
    expect(qx.meta).toEqual({ totalQxTasks: 2, completes: SESSIONS });
    expect(qx.qxScores.map((q) => q.label)).toEqual(['QXscore 1', 'QXscore 2']);
  });

  it('completedSessions (Legacy v1): each session with its answers, typed', async () => {
    const page = await clientFor(t, s, 'B').completedSessions(s.testId);
    // listed[0] is the 23rd session: PARTICIPANT_B's answers (i % 3 === 1), task 2 skipped.
    expect(page.sessions[0]!.sessionUuid).toBe(listed[0]);
    expect(page.sessions[0]!.answers.map((a) => a.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 16]);
    expect(page.sessions[0]!.answers[1]).toEqual({ position: 2, type: 'figma', time: 20, duration: 5, skipped: true, responses: [] });
  });

  it('a missing session is a ResultsApiError 404', async () => {
    const error = await clientFor(t, s, 'B').sessionDetails(randomUUID()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultsApiError);
    expect((error as ResultsApiError).status).toBe(404);
  });

  it('sessionsWithDetails: every session in listing order with its details, at most `concurrency` in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const counting: FetchFunction = async (input, init) => {
      if (!input.includes('/api/v3/')) return fetch(input, init);
      most = Math.max(most, ++inFlight);
      try {
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    };
    const client = clientFor(t, s, 'B', { fetch: counting });
    const pairs = [];
    for await (const pair of client.sessionsWithDetails(s.testId, { pageSize: 10, concurrency: 3 })) pairs.push(pair);
    expect(pairs.map((p) => p.session.sessionId)).toEqual(listed);
    expect(pairs.every((p) => p.details.sessionId === p.session.sessionId)).toBe(true);
    expect(most).toBe(3);
  });

  it('sessionsWithDetails waits out a 429 as long as Retry-After says, then goes on', async () => {
    const waits: number[] = [];
    let refused = 0;
    const limited: FetchFunction = async (input, init) => {
      if (input.includes('/api/v3/') && refused < 2) {
        refused++;
        return new Response(JSON.stringify({ type: 'urn:results-api:problem:rate-limited', title: 'Too many requests', status: 429, detail: 'slow down' }), {
          status: 429,
          headers: { 'content-type': 'application/problem+json', 'retry-after': '3' },
        });
      }
      return fetch(input, init);
    };
    const client = clientFor(t, s, 'A', { fetch: limited, sleep: async (ms) => void waits.push(ms) });
    let count = 0;
    for await (const _pair of client.sessionsWithDetails(s.testId, { concurrency: 2 })) count++;
    expect(count).toBe(SESSIONS);
    expect(waits.filter((ms) => ms >= 3000)).toHaveLength(2);
  });

  it('concurrency out of range is a RangeError', async () => {
    const iterator = clientFor(t, s, 'B').sessionsWithDetails(s.testId, { concurrency: 0 });
    await expect(iterator.next()).rejects.toThrow(RangeError);
  });
});
