import { legacyNumericId } from '../../src/legacy/numeric-id.js';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { SessionInput, TestPlan } from '../../src/store/store.js';
import { makeSessions, seedClient, seedTest, seedWorkspace, sortNewestFirst } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';

const by = { actor: 'test' };
// Advanced between creations, so workspaces and tests have a creation order to be listed in.
const clock = new ManualClock(Date.UTC(2025, 2, 3, 10, 0, 0, 0));
const tick = () => clock.advance(1000);
const { t, client: ada } = await startSeededApp({ clock });
let adaToken: string;
let adaTokenA: string;
let otherToken: string;
let lab: string;
let field: string;
let foreign: string;
let checkout: string;
let checkoutSessions: SessionInput[];
let empty: string;
let foreignTest: string;
let foreignSessions: SessionInput[];

const plan: TestPlan = {
  id: 'plan-7',
  shortTest: true,
  taskGroups: [{ id: 'main', type: 'MAIN' }],
  tasks: [
    { text: 'Find the pricing page.', taskType: 'launch_url', launchUrl: 'https://acme.example.com', taskGroupId: 'main' },
    { text: 'Which plan fits you?', taskType: 'multiple_choice', choices: ['Basic', 'Pro'], multipleAnswers: false },
  ],
};

beforeAll(async () => {
  const other = await seedClient(t.runtime);
  otherToken = await mintToken(t, other);
  lab = await seedWorkspace(t.runtime, [ada.email], 'Lab');
  tick();
  field = await seedWorkspace(t.runtime, [ada.email.toUpperCase()], 'Field');
  tick();
  foreign = await seedWorkspace(t.runtime, [other.email], 'Another team');
  // 130 sessions, three in four COMPLETE (97), with ties on startTime: a page of 50 and one of 47.
  checkoutSessions = makeSessions(130, { tiesEvery: 7, statuses: ['COMPLETE', 'IN_PROGRESS', 'COMPLETE', 'COMPLETE'] });
  checkout = randomUUID();
  await t.runtime.store.directory.createTest(
    {
      id: checkout,
      workspaceId: lab,
      title: 'Checkout',
      productType: 'THINK_OUT_LOUD',
      orderedAt: Date.UTC(2024, 0, 2, 3, 4, 5, 6),
      orderedBy: { email: 'rita@example.com', name: 'Rita' },
      plan,
    },
    by,
  );
  await t.runtime.store.sessions.importSessions(checkout, checkoutSessions, by);
  tick();
  empty = await seedTest(t.runtime, lab, [], { title: 'Nothing yet', productType: 'SURVEY' });
  foreignSessions = makeSessions(6);
  foreignTest = await seedTest(t.runtime, foreign, foreignSessions);
  adaToken = await mintToken(t, ada, 'B');
  adaTokenA = await mintToken(t, ada, 'A');
});

const get = (path: string, headers: Record<string, string> = authHeaders(adaToken)) => fetch(`${t.url}${path}`, { headers });
const json = async <T = unknown>(path: string, headers?: Record<string, string>): Promise<T> => {
  const res = await get(path, headers);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
};
const completed = (sessions: SessionInput[]) => sortNewestFirst(sessions.filter((s) => s.status === 'COMPLETE'));

interface StudyEntry {
  uuid: string;
  type: string;
  cursor: string;
}
interface Page {
  completedSessionCount: number;
  sessions: { sessionUuid: string; cursor: string; completedDateTime: string; state: string }[];
}

async function expectLegacyError(res: Response, status: number, errorCode: string, message: RegExp | string): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('private, no-store');
  const text = await res.text();
  expect(JSON.parse(text)).toEqual({ errorCode, errorMessage: typeof message === 'string' ? message : expect.stringMatching(message) });
  return text;
}

describe.each(['/usertesting/api/v1', '/v1'])('%s', (prefix) => {
  it('discovery as a client does it: workspaces, keep STUDYV2 studies, page every completed session by cursor', async () => {
    const found = new Map<string, string[]>();
    for (const workspace of await json<{ id: string; name: string; uuid: string }[]>(`${prefix}/workspaces`)) {
      const studies = await json<StudyEntry[]>(`${prefix}/workspaces/${workspace.uuid}`);
      for (const study of studies.filter((s) => s.type === 'STUDYV2')) {
        const ids: string[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await json<Page>(`${prefix}/studies/${study.uuid}/completed-sessions${after ? `?after=${encodeURIComponent(after)}` : ''}`);
          if (page.sessions.length === 0) break;
          ids.push(...page.sessions.map((s) => s.sessionUuid));
          after = page.sessions.at(-1)!.cursor;
        }
        found.set(study.uuid, ids);
      }
    }
    expect([...found.keys()]).toEqual([checkout, empty]);
    expect(found.get(checkout)).toEqual(completed(checkoutSessions).map((s) => s.sessionId));
    expect(found.get(empty)).toEqual([]);
  });

  it('workspaces: {id, name, uuid} of the workspaces where the caller is a member, with either header form', async () => {
    for (const headers of [authHeaders(adaToken), authHeaders(adaTokenA, 'token')]) {
      const res = await get(`${prefix}/workspaces`, headers);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      // `id` is the numeric id derived from the uuid: the same on every server and database.
      expect(await res.json()).toEqual([
        { id: String(legacyNumericId(lab)), name: 'Lab', uuid: lab },
        { id: String(legacyNumericId(field)), name: 'Field', uuid: field },
      ]);
    }
    const loner = await seedClient(t.runtime);
    expect(await json(`${prefix}/workspaces`, authHeaders(await mintToken(t, loner)))).toEqual([]);
  });

  it('a workspace lists its tests as studies with the real fields', async () => {
    const studies = await json<Record<string, unknown>[]>(`${prefix}/workspaces/${lab.toUpperCase()}`);
    expect(studies).toEqual([
      {
        uuid: checkout,
        title: 'Checkout',
        type: 'STUDYV2',
        productType: 'THINK_OUT_LOUD',
        orderedAt: '2024-01-02T03:04:05.006Z',
        orderedBy: { email: 'rita@example.com', name: 'Rita' },
        cursor: expect.any(String),
      },
      { uuid: empty, title: 'Nothing yet', type: 'STUDYV2', productType: 'SURVEY', orderedAt: expect.any(String), cursor: expect.any(String) },
    ]);
    expect(await json(`${prefix}/workspaces/${field}`)).toEqual([]);
  });

  it('a study answers its plan, tasks in order with their groups, and its session count', async () => {
    expect(await json(`${prefix}/studies/${checkout}`)).toEqual({
      title: 'Checkout',
      sessionCount: 130,
      orderedBy: { email: 'rita@example.com', name: 'Rita' },
      testPlan: { shortTest: true },
      tasks: [
        {
          position: 1,
          text: 'Find the pricing page.',
          taskType: 'launch_url',
          launchUrl: 'https://acme.example.com',
          taskGroup: { id: 'main', type: 'MAIN' },
        },
        { position: 2, text: 'Which plan fits you?', taskType: 'multiple_choice', choices: ['Basic', 'Pro'], multipleAnswers: false },
      ],
      netPromoterScores: [],
    });
    expect(await json(`${prefix}/studies/${empty}`)).toEqual({
      title: 'Nothing yet',
      sessionCount: 0,
      testPlan: { shortTest: false },
      tasks: [],
      netPromoterScores: [],
    });
  });

  it('completed sessions: COMPLETE only, 50 per page, newest first, counted; before pages back', async () => {
    const all = completed(checkoutSessions);
    const first = await json<Page>(`${prefix}/studies/${checkout}/completed-sessions`);
    expect(first.completedSessionCount).toBe(all.length);
    expect(first.sessions).toHaveLength(50);
    expect(first.sessions[0]).toEqual({
      cursor: expect.any(String),
      sessionId: legacyNumericId(all[0]!.sessionId),
      sessionUuid: all[0]!.sessionId,
      completedDateTime: new Date(all[0]!.finishTime!).toISOString(),
      state: 'completed',
      answers: [],
      startTime: new Date(all[0]!.startTime).toISOString(),
      audienceId: all[0]!.audienceId,
      screenerResponses: [],
    });
    const second = await json<Page>(`${prefix}/studies/${checkout}/completed-sessions?after=${first.sessions[49]!.cursor}`);
    expect(second.sessions.map((s) => s.sessionUuid)).toEqual(all.slice(50, 100).map((s) => s.sessionId));
    const back = await json<Page>(`${prefix}/studies/${checkout}/completed-sessions?before=${second.sessions[0]!.cursor}`);
    expect(back.sessions.map((s) => s.sessionUuid)).toEqual(first.sessions.map((s) => s.sessionUuid));
  });

  it('session: its uuid, title, state time and duration; an unfinished one has no duration', async () => {
    // sequenceNumber: the place among the test's sessions of every status, in the order they started.
    const started = [...checkoutSessions].sort((x, y) => x.startTime - y.startTime || (x.sessionId < y.sessionId ? -1 : 1));
    const place = (sessionId: string) => started.findIndex((s) => s.sessionId === sessionId) + 1;
    const done = checkoutSessions.find((s) => s.status === 'COMPLETE')!;
    expect(await json(`${prefix}/session/${done.sessionId}`)).toEqual({
      uid: done.sessionId,
      sessionId: String(legacyNumericId(done.sessionId)),
      sequenceNumber: place(done.sessionId),
      title: 'Checkout',
      stateUpdatedAt: new Date(done.finishTime!).toISOString(),
      duration: (done.finishTime! - done.startTime) / 1000,
    });
    const open = checkoutSessions.find((s) => s.finishTime === null)!;
    expect(await json(`${prefix}/session/${open.sessionId}`)).toEqual({
      uid: open.sessionId,
      sessionId: String(legacyNumericId(open.sessionId)),
      sequenceNumber: place(open.sessionId),
      title: 'Checkout',
      stateUpdatedAt: new Date(open.startTime).toISOString(),
    });
    expect(started.length).toBeGreaterThan(1);
    expect(place(started[0]!.sessionId)).toBe(1);
  });

  describe('what the caller may not see is answered as what does not exist', () => {
    const cases: [string, () => string, () => string, string][] = [
      ['workspace', () => `${prefix}/workspaces/${foreign}`, () => `${prefix}/workspaces/${randomUUID()}`, 'Workspace not found'],
      ['study', () => `${prefix}/studies/${foreignTest}`, () => `${prefix}/studies/${randomUUID()}`, 'Study not found'],
      [
        'completed sessions',
        () => `${prefix}/studies/${foreignTest}/completed-sessions`,
        () => `${prefix}/studies/${randomUUID()}/completed-sessions`,
        'Study not found',
      ],
      ['session', () => `${prefix}/session/${foreignSessions[0]!.sessionId}`, () => `${prefix}/session/${randomUUID()}`, 'Session not found'],
    ];
    it.each(cases)('%s: identical 404s in the family body', async (_name, foreignPath, missingPath, message) => {
      const a = await expectLegacyError(await get(foreignPath()), 404, 'NOT_FOUND', message);
      const b = await expectLegacyError(await get(missingPath()), 404, 'NOT_FOUND', message);
      expect(a).toBe(b);
    });

    it.each(['workspaces/abc', 'studies/12345', 'session/not-a-uuid', 'studies/abc/completed-sessions'])(
      '%s: a malformed id is a 400 naming the parameter',
      async (path) => {
        await expectLegacyError(await get(`${prefix}/${path}`), 400, 'BAD_REQUEST', /(workspaceUuid|studyUuid|sessionUuid) must be a UUID/);
      },
    );
  });

  describe('cursors are the listing’s own', () => {
    const firstCursor = async (testId: string) =>
      (await json<Page>(`${prefix}/studies/${testId}/completed-sessions`)).sessions[0]!.cursor;

    it('a changed cursor is refused with 400, whatever was changed', async () => {
      const cursor = await firstCursor(checkout);
      const [data, mac] = cursor.split('.') as [string, string];
      const payload = Buffer.from(data, 'base64url').toString();
      const shifted = Buffer.from(payload.replace(/\|(\d+)\|/, (_m, n: string) => `|${Number(n) - 1}|`)).toString('base64url');
      const flipped = mac.startsWith('A') ? `B${mac.slice(1)}` : `A${mac.slice(1)}`;
      for (const bad of [`${shifted}.${mac}`, `${data}.${flipped}`, data, `${cursor}.x`, 'MQ', '!!!']) {
        const res = await get(`${prefix}/studies/${checkout}/completed-sessions?after=${encodeURIComponent(bad)}`);
        await expectLegacyError(res, 400, 'BAD_REQUEST', /^after is not a cursor this listing issued/);
      }
    });

    it("another study's cursor is refused with 400 saying so", async () => {
      // Minted by the other team for their own study.
      const theirs = await json<Page>(`${prefix}/studies/${foreignTest}/completed-sessions`, authHeaders(otherToken));
      const cursor = theirs.sessions[0]!.cursor;
      const res = await get(`${prefix}/studies/${checkout}/completed-sessions?before=${encodeURIComponent(cursor)}`);
      await expectLegacyError(res, 400, 'BAD_REQUEST', /^before is a cursor of another study/);
    });

    it('after with before, or a parameter given twice, is a 400', async () => {
      const cursor = await firstCursor(checkout);
      await expectLegacyError(
        await get(`${prefix}/studies/${checkout}/completed-sessions?after=${cursor}&before=${cursor}`),
        400,
        'BAD_REQUEST',
        'Use either after or before, not both.',
      );
      await expectLegacyError(
        await get(`${prefix}/studies/${checkout}/completed-sessions?after=${cursor}&after=${cursor}`),
        400,
        'BAD_REQUEST',
        'after must be given only once',
      );
    });
  });

  it('authentication: none is a 401 with a challenge, in the family body', async () => {
    const res = await get(`${prefix}/workspaces`, {});
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="results-api", resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource"');
    await expectLegacyError(res, 401, 'UNAUTHORIZED', /^An access token is required/);
    const bad = await get(`${prefix}/studies/${checkout}`, { authorization: 'Bearer nope' });
    await expectLegacyError(bad, 401, 'UNAUTHORIZED', 'The access token is invalid, expired or revoked.');
  });

  it('an unknown path of the family is a 404 in its body', async () => {
    await expectLegacyError(await get(`${prefix}/nothing-here`), 404, 'NOT_FOUND', /^No endpoint answers GET/);
  });
});

describe('completed sessions under change', () => {
  it('sessions imported between pages neither repeat nor hide the ones already there', async () => {
    const ws = await seedWorkspace(t.runtime, [ada.email]);
    const before = makeSessions(120);
    const testId = await seedTest(t.runtime, ws, before);
    const seen: string[] = [];
    let page = await json<Page>(`/v1/studies/${testId}/completed-sessions`);
    seen.push(...page.sessions.map((s) => s.sessionUuid));
    // Newer sessions arrive while the client pages through.
    const newer = makeSessions(40, { newest: Date.UTC(2030, 0, 1) });
    await t.runtime.store.sessions.importSessions(testId, newer, by);
    while (page.sessions.length > 0) {
      page = await json<Page>(`/v1/studies/${testId}/completed-sessions?after=${page.sessions.at(-1)!.cursor}`);
      seen.push(...page.sessions.map((s) => s.sessionUuid));
    }
    expect(seen).toEqual(completed(before).map((s) => s.sessionId));
    expect(page.completedSessionCount).toBe(completed([...before, ...newer]).length);
  });

  it("a workspace's studies page by 50 through their cursors", async () => {
    const ws = await seedWorkspace(t.runtime, [ada.email]);
    const ids: string[] = [];
    for (let i = 0; i < 53; i++) {
      tick();
      ids.push(await seedTest(t.runtime, ws, [], { title: `T${i}` }));
    }
    const first = await json<StudyEntry[]>(`/v1/workspaces/${ws}`);
    expect(first.map((s) => s.uuid)).toEqual(ids.slice(0, 50));
    const rest = await json<StudyEntry[]>(`/v1/workspaces/${ws}?after=${first.at(-1)!.cursor}`);
    expect(rest.map((s) => s.uuid)).toEqual(ids.slice(50));
    expect(await json(`/v1/workspaces/${ws}?after=${rest.at(-1)!.cursor}`)).toEqual([]);
    expect((await json<StudyEntry[]>(`/v1/workspaces/${ws}?before=${rest[0]!.cursor}`)).map((s) => s.uuid)).toEqual(ids.slice(0, 50));
    await expectLegacyError(await get(`/v1/workspaces/${ws}?after=bogus`), 400, 'BAD_REQUEST', 'after is not a cursor this listing issued.');
  });
});
