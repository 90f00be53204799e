import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import type { SessionInput } from '../../src/store/store.js';
import { DETAILS_PLAN, detailsInput, OTHER_ANSWERS, PARTICIPANT_A, PARTICIPANT_B, PARTICIPANT_C } from '../helpers/details.js';
import { seedWorkspace, storeActor } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';

/**
 * The Legacy (v1) family shows the imported answers: each completed session's `answers`, and a
 * study's `netPromoterScores` (the NPS task is position 7 of DETAILS_PLAN, answered 9 by A, 6 by
 * B and 10 by C: 2 promoters and 1 detractor of 3 respondents).
 */

const id = (n: number) => `5e55de7a-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** NDJSON records of a session file, read as `sessions import` reads them (checked against the plan). */
function importable(records: Record<string, unknown>[]): SessionInput[] {
  const parsed = parseSessionFile(records.map((r) => JSON.stringify(r)).join('\n'), 'ndjson', DETAILS_PLAN);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.sessions;
}
const record = (n: number, status: string, details?: Record<string, unknown>) => ({
  sessionId: id(n),
  audienceId: null,
  status,
  startTime: new Date(Date.UTC(2024, 10, 21, 12, n)).toISOString(),
  ...(status === 'COMPLETE' ? { finishTime: new Date(Date.UTC(2024, 10, 21, 13, n)).toISOString() } : {}),
  ...(details ? { details } : {}),
});

// A still clock: cached entries never expire by age, so what the cache test sees is the import's invalidation.
const clock = new ManualClock(Date.UTC(2025, 2, 3, 10, 0, 0, 0));
const { t, client } = await startSeededApp({ clock, env: { RATE_LIMIT_API: '100000', RATE_LIMIT_TOKEN_CLIENT: '100000' } });
let testId: string;
let token: string;

beforeAll(async () => {
  const workspaceId = await seedWorkspace(t.runtime, [client.email]);
  testId = randomUUID();
  await t.runtime.store.directory.createTest({ id: testId, workspaceId, title: 'Checkout', productType: 'NON_THINK_OUT_LOUD', plan: DETAILS_PLAN }, storeActor);
  await t.runtime.store.sessions.importSessions(
    testId,
    importable([
      record(1, 'COMPLETE', detailsInput({ ...PARTICIPANT_A, ...OTHER_ANSWERS })),
      record(2, 'COMPLETE', detailsInput({ ...PARTICIPANT_B })),
      record(3, 'COMPLETE', detailsInput({ ...PARTICIPANT_C })),
      // Not complete: its 0 does not count.
      record(4, 'IN_PROGRESS', detailsInput({ 7: { value: 0 } })),
      // Complete without details: no answers, not a respondent.
      record(5, 'COMPLETE'),
      // Complete, the NPS task skipped: not a respondent.
      record(6, 'COMPLETE', detailsInput({ 7: 'skip', 13: { text: 'No opinion.' } })),
    ]),
    storeActor,
  );
  token = await mintToken(t, client, 'B');
});

const json = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${t.url}/usertesting/api/v1${path}`, { headers: authHeaders(token) });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
};
interface Answer {
  position: number;
  type: string;
  time: number;
  duration: number;
  skipped: boolean;
  responses: string[];
}
interface Page {
  completedSessionCount: number;
  sessions: { sessionUuid: string; answers: Answer[] }[];
}
const answersBySession = async () => new Map((await json<Page>(`/studies/${testId}/completed-sessions`)).sessions.map((s) => [s.sessionUuid, s.answers]));
const nps = async () => (await json<{ netPromoterScores: unknown[] }>(`/studies/${testId}`)).netPromoterScores;

/** detailsInput starts the answer at `position` at position x 10 s and gives it 5 s. */
const answer = (position: number, type: string, responses: string[], skipped = false): Answer => ({ position, type, time: position * 10, duration: 5, skipped, responses });

describe('completed sessions carry their answers', () => {
  it('every task type as text, in plan order, with its time and duration', async () => {
    const answers = await answersBySession();
    expect(answers.get(id(1))).toEqual([
      answer(1, 'launch_url', ['success']),
      answer(2, 'figma', ['success']),
      answer(3, 'rating_scale', ['5']),
      answer(4, 'rating_scale', ['4']),
      answer(5, 'rating_scale', ['5']),
      answer(6, 'rating_scale', ['3']),
      answer(7, 'nps', ['9']),
      answer(8, 'rating_scale', ['2']),
      answer(9, 'blank', []),
      answer(10, 'multiple_choice', ['Search', 'Links']),
      answer(11, 'image', []),
      answer(12, 'rank_order', ['Mint', 'Chocolate', 'Vanilla']),
      answer(13, 'written_response', ['Clear enough.']),
      answer(14, 'verbal_response', ['I expected a cart icon.']),
      answer(15, 'matrix', ['Home: Good', 'Cart: Fine']),
      answer(16, 'rating_scale', ['5']),
    ]);
  });

  it('skipped tasks are kept, marked and empty; unanswered tasks are left out; no details, no answers', async () => {
    const answers = await answersBySession();
    expect(answers.get(id(2))).toEqual([
      answer(1, 'launch_url', ['failure']),
      answer(2, 'figma', [], true),
      answer(3, 'rating_scale', ['3']),
      answer(4, 'rating_scale', [], true),
      answer(5, 'rating_scale', ['4']),
      answer(6, 'rating_scale', ['5']),
      answer(7, 'nps', ['6']),
      answer(8, 'rating_scale', ['4']),
      answer(16, 'rating_scale', ['1']),
    ]);
    expect(answers.get(id(6))).toEqual([answer(7, 'nps', [], true), answer(13, 'written_response', ['No opinion.'])]);
    expect(answers.get(id(5))).toEqual([]);
    expect([...answers.keys()]).toEqual([id(6), id(5), id(3), id(2), id(1)]);
  });

  it("reads the page's details in one query, never one per session", async () => {
    const details = t.runtime.store.sessionDetails;
    const listDetails = vi.spyOn(details, 'listDetails');
    const findDetails = vi.spyOn(details, 'findDetails');
    try {
      await answersBySession();
      expect(listDetails).toHaveBeenCalledTimes(1);
      expect(listDetails.mock.calls[0]![0]).toHaveLength(5);
      expect(findDetails).not.toHaveBeenCalled();
    } finally {
      listDetails.mockRestore();
      findDetails.mockRestore();
    }
  });
});

describe("a study's Net Promoter Scores", () => {
  it('by hand: 2 promoters (67%), no passive, 1 detractor (33%) of 3 respondents: 67 - 33 = 34', async () => {
    expect(await nps()).toEqual([{ score: 34, promoterPercentage: 67, passivePercentage: 0, detractorPercentage: 33, position: 7, respondents: 3 }]);
  });

  it('cached, and recomputed as soon as an import adds an answer (one passive: 50/25/25, score 25)', async () => {
    await nps();
    const scoring = vi.spyOn(t.runtime.store.sessionDetails, 'listCompletedScoring');
    try {
      await nps();
      expect(scoring).not.toHaveBeenCalled();
      await t.runtime.store.sessions.importSessions(testId, importable([record(7, 'COMPLETE', detailsInput({ 7: { value: 7 } }))]), storeActor);
      expect(await nps()).toEqual([{ score: 25, promoterPercentage: 50, passivePercentage: 25, detractorPercentage: 25, position: 7, respondents: 4 }]);
    } finally {
      scoring.mockRestore();
    }
  });
});
