/**
 * The published tutorial's pipeline, through the SDK against a live server: list the completed
 * sessions of a test, fetch each one's details, then its transcript. Runs on SQLite and, in
 * the postgres project, on PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ResultsApiError } from '@results-api/client';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import { clientFor } from '../client/helpers.js';
import { DETAILS_PLAN, detailsInput, PARTICIPANT_A, PARTICIPANT_B, PARTICIPANT_C } from '../helpers/details.js';
import { seedWorkspace, storeActor } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';

const STATUSES = ['COMPLETE', 'COMPLETE', 'ABANDONED', 'COMPLETE', 'IN_PROGRESS'];
const vtt = (sessionId: string) => `WEBVTT\n\n00:00:00.000 --> 00:00:03.000\n<v Participant>Session ${sessionId} begins.</v>\n`;

const { t, client } = await startSeededApp({ env: { RATE_LIMIT_API: '100000' } });
let testId: string;
/** Every session, newest first, with whether it has a transcript. */
const sessions: { sessionId: string; status: string; transcribed: boolean }[] = [];

beforeAll(async () => {
  const workspaceId = await seedWorkspace(t.runtime, [client.email]);
  testId = randomUUID();
  await t.runtime.store.directory.createTest({ id: testId, workspaceId, title: 'Checkout', productType: 'NON_THINK_OUT_LOUD', plan: DETAILS_PLAN }, storeActor);
  const answers = [PARTICIPANT_A, PARTICIPANT_B, PARTICIPANT_C];
  const records = Array.from({ length: 15 }, (_, i) => {
    const status = STATUSES[i % STATUSES.length]!;
    const sessionId = randomUUID();
    sessions.unshift({ sessionId, status, transcribed: i % 4 !== 3 });
    return JSON.stringify({
      sessionId,
      status,
      startTime: new Date(Date.UTC(2024, 10, 1, 9, i)).toISOString(),
      ...(status === 'COMPLETE' ? { finishTime: new Date(Date.UTC(2024, 10, 1, 10, i)).toISOString() } : {}),
      details: detailsInput({ ...answers[i % 3] }),
    });
  });
  const parsed = parseSessionFile(records.join('\n'), 'ndjson', DETAILS_PLAN);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  await t.runtime.store.sessions.importSessions(testId, parsed.sessions, storeActor);
  await t.runtime.store.transcripts.importTranscripts(
    testId,
    sessions.filter((s) => s.transcribed).map((s) => ({ sessionId: s.sessionId, vtt: vtt(s.sessionId) })),
    storeActor,
  );
});

describe('the tutorial pipeline through the SDK: list → details → transcript', () => {
  it.each(['A', 'B'] as const)('form %s: every completed session, its details and its transcript (or a 404 when it has none)', async (form) => {
    const sdk = clientFor(t, client, form);
    const seen: { sessionId: string; tasks: number; participant: string | null; transcript: string | null }[] = [];
    for await (const { session, details } of sdk.sessionsWithDetails(testId, { concurrency: 3 })) {
      const transcript = await sdk.transcript(session.sessionId).catch((err: unknown) => {
        if (err instanceof ResultsApiError && err.status === 404) return null;
        throw err;
      });
      seen.push({ sessionId: session.sessionId, tasks: details.tasks.length, participant: details.sessionParticipant?.participantId ?? null, transcript });
    }
    const completed = sessions.filter((s) => s.status === 'COMPLETE');
    expect(seen.map((s) => s.sessionId)).toEqual(completed.map((s) => s.sessionId));
    for (const [i, s] of completed.entries()) {
      expect(seen[i]!.tasks).toBe(DETAILS_PLAN.tasks.length);
      expect(seen[i]!.participant).toBe('41f72104-5f84-44fa-a16a-03f575159611');
      expect(seen[i]!.transcript).toBe(s.transcribed ? vtt(s.sessionId) : null);
    }
    expect(seen.some((s) => s.transcript === null)).toBe(true);
    const qx = await sdk.qxScores(testId);
    expect(qx.meta.completes).toBe(completed.length);
  });
});
