import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import type { QxScoreResponse, SessionResultsV2Response, SessionResultsV3Response } from '../../src/details/schemas.js';
import type { SessionInput } from '../../src/store/store.js';
import {
  DETAILS_PLAN,
  detailsInput,
  GENDER_QUESTION_ID,
  groupId,
  OTHER_ANSWERS,
  PARTICIPANT_A,
  PARTICIPANT_B,
  PARTICIPANT_C,
  PLAN_ID,
  taskId,
} from '../helpers/details.js';
import { seed, seedWorkspace, storeActor } from '../helpers/seed.js';
import { startSeededApp, startTestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';

const id = (n: number) => `5e55de7a-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const AUDIENCE = '550e8400-e29b-41d4-a716-446655440000';

/** NDJSON records of a session file, read as `sessions import` reads them (checked against the plan). */
function importable(records: Record<string, unknown>[]): SessionInput[] {
  const parsed = parseSessionFile(records.map((r) => JSON.stringify(r)).join('\n'), 'ndjson', DETAILS_PLAN);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.sessions;
}
const record = (n: number, status: string, details?: Record<string, unknown>) => ({
  sessionId: id(n),
  audienceId: n === 1 ? AUDIENCE : null,
  status,
  startTime: new Date(Date.UTC(2024, 10, 21, 12, n)).toISOString(),
  ...(status === 'COMPLETE' ? { finishTime: new Date(Date.UTC(2024, 10, 21, 13, n)).toISOString() } : {}),
  ...(details ? { details } : {}),
});

const { t, client } = await startSeededApp({ env: { RATE_LIMIT_API: '100000', RATE_LIMIT_TOKEN_CLIENT: '100000' } });
let testId: string;
let foreignSessionId: string;
let foreignTestId: string;
let tokenA: string;
let tokenB: string;
let member: { email: string; workspaceId: string };

beforeAll(async () => {
  const workspaceId = await seedWorkspace(t.runtime, [client.email]);
  member = { email: client.email, workspaceId };
  testId = randomUUID();
  await t.runtime.store.directory.createTest(
    { id: testId, workspaceId, title: 'Checkout', productType: 'NON_THINK_OUT_LOUD', plan: DETAILS_PLAN },
    storeActor,
  );
  await t.runtime.store.sessions.importSessions(
    testId,
    importable([
      record(1, 'COMPLETE', detailsInput({ ...PARTICIPANT_A, ...OTHER_ANSWERS }, { taskGroups: [{ taskGroupId: 'compare', sequence: 'BA' }] })),
      record(2, 'COMPLETE', detailsInput({ ...PARTICIPANT_B })),
      record(3, 'COMPLETE', detailsInput({ ...PARTICIPANT_C })),
      // Not complete: served, but not part of the QXscore.
      record(4, 'IN_PROGRESS', detailsInput({ 1: { success: false }, 3: { value: 1 } })),
      // Complete without details.
      record(5, 'COMPLETE'),
    ]),
    storeActor,
  );
  const foreign = await seed(t.runtime, { sessions: 1 });
  foreignSessionId = foreign.sessions[0]!.sessionId;
  foreignTestId = foreign.testId;
  tokenA = await mintToken(t, client, 'A');
  tokenB = await mintToken(t, client, 'B');
});

const get = (path: string, headers: Record<string, string> = authHeaders(tokenB)) => fetch(`${t.url}${path}`, { headers });
const details = (sessionId: string, headers?: Record<string, string>) => get(`/api/v3/sessionResults/${sessionId}`, headers);
const qxScores = (test: string, headers?: Record<string, string>) => get(`/api/v2/testResults/${test}/qxScores`, headers);

/** The answer a session holds for the task at `position`. */
const answerOf = async (sessionId: string, position: number) =>
  ((await (await details(sessionId)).json()) as SessionResultsV3Response).tasks[position - 1]!.response?.answer;

const NOT_FOUND = (what: string) => ({ type: 'urn:results-api:problem:not-found', title: 'Not found', status: 404, detail: `${what} not found` });

describe('GET /api/v3/sessionResults/{sessionId}', () => {
  it('a session with every task type answered: the real SessionResultsV3ResponseDto', async () => {
    const res = await details(id(1));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await res.json()) as SessionResultsV3Response;
    // The real fields, then the documented extensions: the session facts only an import knows.
    expect(Object.keys(body)).toEqual([
      'sessionId', 'audienceId', 'testPlanId', 'sessionParticipant', 'taskGroups', 'tasks',
      'formFactorUsed', 'taskOrderingCondition', 'notes', 'screenerResponses',
    ]);
    expect(body.sessionId).toBe(id(1));
    expect(body.audienceId).toBe(AUDIENCE);
    expect(body.testPlanId).toBe(PLAN_ID);
    expect(body.sessionParticipant).toEqual({
      participantId: '41f72104-5f84-44fa-a16a-03f575159611',
      demographicsInfo: [{ id: GENDER_QUESTION_ID, code: 'GENDER', label: 'What is your gender?', value: 'Female', type: 'DEMOGRAPHIC_QUESTION_TYPE_SINGLE' }],
      name: null,
    });
    expect(body.taskGroups).toEqual([
      { uuid: groupId('qx-1'), type: 'QX_SCORE', response: { score: 81.3 } },
      { uuid: groupId('compare'), type: 'BALANCED_COMPARISON', response: { sequence: 'BA' } },
      { uuid: groupId('main'), type: 'UNRECOGNIZED', response: null },
      { uuid: groupId('qx-2'), type: 'QX_SCORE', response: null },
    ]);
    const byPosition = (p: number) => body.tasks[p - 1]!;
    expect(body.tasks).toHaveLength(16);
    expect(byPosition(1)).toEqual({
      uuid: taskId(1),
      text: 'Find a pair of running shoes.',
      type: 'URL',
      response: { startTimeMs: 10_000, endTimeMs: 15_000, skipped: false, answer: { url: { success: true } } },
    });
    const typesAndAnswers = body.tasks.map((task) => [task.type, task.response?.answer ?? null]);
    expect(typesAndAnswers).toEqual([
      ['URL', { url: { success: true } }],
      ['FIGMA', { figma: { success: true } }],
      ['RATING_SCALE', { ratingScale: { value: 5 } }],
      ['RATING_SCALE', { ratingScale: { value: 4 } }],
      ['RATING_SCALE', { ratingScale: { value: 5 } }],
      ['RATING_SCALE', { ratingScale: { value: 3 } }],
      ['NPS', { nps: { value: 9 } }],
      ['RATING_SCALE', { ratingScale: { value: 2 } }],
      ['BLANK', { blank: {} }],
      ['MULTIPLE_CHOICE', { multipleChoice: { selected: ['Search', 'Links'] } }],
      ['IMAGE', null],
      ['RANK_ORDER', { rankOrder: { ranking: ['Mint', 'Chocolate', 'Vanilla'] } }],
      ['WRITTEN', { written: { text: 'Clear enough.' } }],
      ['WRITTEN', { written: { text: 'I expected a cart icon.' } }],
      ['MATRIX', { matrix: { rows: { Home: 'Good', Cart: 'Fine' } } }],
      ['RATING_SCALE', { ratingScale: { value: 5 } }],
    ]);
    expect(byPosition(11).response).toEqual({ startTimeMs: 110_000, endTimeMs: 115_000, skipped: false, answer: null });
  });

  it('a skipped task: skipped true, answer null; an unanswered task: response null', async () => {
    const body = (await (await details(id(2))).json()) as SessionResultsV3Response;
    expect(body.tasks[1]!.response).toEqual({ startTimeMs: 20_000, endTimeMs: 25_000, skipped: true, answer: null });
    expect(body.tasks[8]!.response).toBeNull();
    expect(body.taskGroups[0]!.response).toEqual({ score: 31.3 });
    expect(body.taskGroups[1]!.response).toBeNull();
  });

  it('a session without imported details: the plan with no responses, no participant', async () => {
    const body = (await (await details(id(5))).json()) as SessionResultsV3Response;
    expect(body.sessionParticipant).toBeNull();
    expect(body.audienceId).toBeNull();
    expect(body.tasks.every((task) => task.response === null)).toBe(true);
    expect(body.taskGroups.every((group) => group.response === null)).toBe(true);
  });

  it('a session of any status is served; a test without a plan gives empty lists and a null testPlanId', async () => {
    expect((await details(id(4))).status).toBe(200);
    const plain = await seed(t.runtime, { sessions: 1 });
    const res = await details(plain.sessions[0]!.sessionId, authHeaders(await mintToken(t, plain)));
    expect(await res.json()).toEqual({
      sessionId: plain.sessions[0]!.sessionId,
      audienceId: plain.sessions[0]!.audienceId,
      testPlanId: null,
      sessionParticipant: null,
      taskGroups: [],
      tasks: [],
      formFactorUsed: null,
      taskOrderingCondition: null,
      notes: null,
      screenerResponses: [],
    });
  });

  it('both authentication forms; an upper-case id is accepted', async () => {
    for (const headers of [authHeaders(tokenA, 'token'), authHeaders(tokenB, 'bearer')]) {
      const res = await details(id(1).toUpperCase(), headers);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { sessionId: string }).sessionId).toBe(id(1));
    }
  });

  it('a re-import that changes the answers is served on the next request (the cached body is dropped)', async () => {
    expect((await answerOf(id(3), 3))).toEqual({ ratingScale: { value: 2 } });
    await t.runtime.store.sessions.importSessions(testId, importable([record(3, 'COMPLETE', detailsInput({ ...PARTICIPANT_C, 3: { value: 4 } }))]), storeActor);
    expect((await answerOf(id(3), 3))).toEqual({ ratingScale: { value: 4 } });
    await t.runtime.store.sessions.importSessions(testId, importable([record(3, 'COMPLETE', detailsInput({ ...PARTICIPANT_C }))]), storeActor);
    // A file without details leaves the stored details as they are.
    await t.runtime.store.sessions.importSessions(testId, importable([record(3, 'COMPLETE')]), storeActor);
    expect((await answerOf(id(3), 3))).toEqual({ ratingScale: { value: 2 } });
  });
});

describe('GET /api/v2/sessionResults/{sessionId}: the details at the help centre\'s path, with its task types', () => {
  const v2 = (sessionId: string, prefix = '/api/v2', headers?: Record<string, string>) => get(`${prefix}/sessionResults/${sessionId}`, headers);

  it('the v3 body, with a spoken answer as VERBAL (under `verbal`) and a skipped task as SKIPPED, on /api/v2 and /v2', async () => {
    const v3 = (await (await details(id(1))).json()) as SessionResultsV3Response;
    for (const prefix of ['/api/v2', '/v2']) {
      const res = await v2(id(1), prefix);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      const body = (await res.json()) as SessionResultsV2Response;
      expect(Object.keys(body)).toEqual(Object.keys(v3));
      expect(body.tasks[13]).toEqual({
        uuid: taskId(14),
        text: 'Say what you expected.',
        type: 'VERBAL',
        response: { startTimeMs: 140_000, endTimeMs: 145_000, skipped: false, answer: { verbal: { text: 'I expected a cart icon.' } } },
      });
      // Everything else is the v3 body as it is.
      expect({ ...body, tasks: body.tasks.filter((_, i) => i !== 13) }).toEqual({ ...v3, tasks: v3.tasks.filter((_, i) => i !== 13) });
    }
    const skipping = (await (await v2(id(2))).json()) as SessionResultsV2Response;
    expect(skipping.tasks[1]).toEqual({
      uuid: taskId(2),
      text: 'Check out in the prototype.',
      type: 'SKIPPED',
      response: { startTimeMs: 20_000, endTimeMs: 25_000, skipped: true, answer: null },
    });
    // Unanswered tasks keep their own type.
    expect(skipping.tasks[8]).toMatchObject({ type: 'BLANK', response: null });
  });

  it('the same refusals as v3: a foreign or missing session 404, a bad id 400, both auth forms', async () => {
    expect(await (await v2(foreignSessionId)).json()).toEqual(NOT_FOUND('Session'));
    expect(await (await v2(randomUUID(), '/v2')).json()).toEqual(NOT_FOUND('Session'));
    const bad = await v2('not-a-uuid');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/^sessionId must be a UUID/);
    expect((await v2(id(1).toUpperCase(), '/api/v2', authHeaders(tokenA, 'token'))).status).toBe(200);
    expect((await v2(id(1), '/api/v2', {})).status).toBe(401);
  });
});

describe('GET /api/v2/testResults/{testId}/qxScores', () => {
  it('computed from the completed sessions\' answers: the worked example of docs/QXSCORE.md', async () => {
    const res = await qxScores(testId);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      testId,
      qxScores: [
        {
          taskGroupId: groupId('qx-1'),
          label: 'QXscore 1',
          qxScore: 54.2,
          components: { behavioral: 50, attitudinal: 58.3 },
          values: { behavioral: [66.7, 33.3], usability: 66.7, trust: 66.7, appearance: 33.3, loyalty: 66.7 },
        },
        {
          taskGroupId: groupId('qx-2'),
          label: 'QXscore 2',
          qxScore: null,
          components: { behavioral: null, attitudinal: 50 },
          values: { behavioral: null, usability: 50, trust: 0, appearance: 0, loyalty: 0 },
        },
      ],
      meta: { totalQxTasks: 2, completes: 3 },
    });
  });

  it('an import is reflected on the next request (the cached score is dropped)', async () => {
    const other = randomUUID();
    await t.runtime.store.directory.createTest({ id: other, workspaceId: member.workspaceId, title: 'T', productType: 'NON_THINK_OUT_LOUD', plan: DETAILS_PLAN }, storeActor);
    const before = (await (await qxScores(other)).json()) as QxScoreResponse;
    expect(before.meta).toEqual({ totalQxTasks: 2, completes: 0 });
    expect(before.qxScores[0]!.qxScore).toBeNull();
    await t.runtime.store.sessions.importSessions(
      other,
      importable([{ ...record(40, 'COMPLETE', detailsInput({ ...PARTICIPANT_A })), sessionId: randomUUID() }]),
      storeActor,
    );
    const after = (await (await qxScores(other)).json()) as QxScoreResponse;
    expect(after.meta.completes).toBe(1);
    expect(after.qxScores[0]!.qxScore).toBe(81.3);
  });

  it('a test without a plan: no QX groups', async () => {
    const plain = await seed(t.runtime, { sessions: 2 });
    const res = await qxScores(plain.testId, authHeaders(await mintToken(t, plain)));
    expect(await res.json()).toEqual({ testId: plain.testId, qxScores: [], meta: { totalQxTasks: 0, completes: 0 } });
  });
});

describe('visibility (as the list)', () => {
  it('a missing session and a session of a foreign test get identical 404s', async () => {
    const bodies = new Set<string>();
    for (const sessionId of [randomUUID(), foreignSessionId]) {
      for (const headers of [authHeaders(tokenA, 'token'), authHeaders(tokenB)]) {
        const res = await details(sessionId, headers);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
        expect(res.headers.get('cache-control')).toBe('private, no-store');
        bodies.add(await res.text());
      }
    }
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]!)).toEqual(NOT_FOUND('Session'));
  });

  it('a missing test and a foreign test get identical 404s for QXscores', async () => {
    const bodies = new Set<string>();
    for (const test of [randomUUID(), foreignTestId]) {
      const res = await qxScores(test);
      expect(res.status).toBe(404);
      bodies.add(await res.text());
    }
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]!)).toEqual(NOT_FOUND('Test'));
  });

  it('removing the member takes effect on the very next request, on both routes, even with the bodies cached', async () => {
    expect((await details(id(1))).status).toBe(200);
    expect((await qxScores(testId)).status).toBe(200);
    await t.runtime.store.directory.removeMember(member.workspaceId, member.email, storeActor);
    try {
      expect((await details(id(1))).status).toBe(404);
      expect((await qxScores(testId)).status).toBe(404);
    } finally {
      await t.runtime.store.directory.addMember(member.workspaceId, member.email, storeActor);
    }
    expect((await details(id(1))).status).toBe(200);
  });

  it.each([
    ['details', () => `/api/v3/sessionResults/${id(1)}`],
    ['qxScores', () => `/api/v2/testResults/${testId}/qxScores`],
  ])('%s: 401 without a token, 400 for an id that is not a UUID, no-store and rate-limit headers on all', async (_name, path) => {
    const responses = [
      [await get(path(), {}), 401],
      [await get(path().replace(/[0-9a-f-]{36}/, 'not-a-uuid')), 400],
      [await get(path()), 200],
    ] as const;
    for (const [res, status] of responses) {
      expect(res.status).toBe(status);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      expect(res.headers.get('x-ratelimit-limit')).toBe(String(t.runtime.config.rateLimit.apiPerWindow));
    }
  });
});

describe('rate limit', () => {
  it('the new routes spend the caller\'s API budget: 429 with Retry-After once it is spent', async () => {
    // A clock that stands still: a fixed window of the real clock could end between the calls.
    const limited = await startTestApp({ clock: new ManualClock(Date.now()), env: { RATE_LIMIT_API: '2', RATE_LIMIT_TOKEN_CLIENT: '100' } });
    try {
      const x = await seed(limited.runtime, { sessions: 1 });
      const headers = authHeaders(await mintToken(limited, x));
      const paths = [`/api/v3/sessionResults/${x.sessions[0]!.sessionId}`, `/api/v2/testResults/${x.testId}/qxScores`, `/api/v3/sessionResults/${x.sessions[0]!.sessionId}`];
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (const path of paths) {
        const res = await fetch(`${limited.url}${path}`, { headers });
        statuses.push(res.status);
        if (res.status === 429) retryAfter = res.headers.get('retry-after');
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(Number(retryAfter)).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
