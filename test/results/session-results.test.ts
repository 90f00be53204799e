import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionInput } from '../../src/store/store.js';
import {
  completedOnly,
  makeSessions,
  rendered,
  seed,
  seedTest,
  seedWorkspace,
  storeActor,
  type Seeded,
} from '../helpers/seed.js';
import { startSeededApp, startTestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';

const at = (iso: string) => Date.parse(iso);

/** Imported in this (scrambled) order; the API must return d, b, a (c is not complete: never listed). */
const a: SessionInput = {
  sessionId: '0b0c4a3e-1111-4c1a-9a55-2a6f4c0e7d10',
  audienceId: null,
  status: 'COMPLETE',
  startTime: at('2024-11-21T12:23:52.614Z'),
  finishTime: null,
};
const b: SessionInput = {
  sessionId: '9f8e7d6c-2222-4b3a-8c1d-0e1f2a3b4c5d',
  audienceId: '5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
  status: 'COMPLETE',
  // Same startTime as `a`: the tie is broken by sessionId descending, so b comes first.
  startTime: at('2024-11-21T12:23:52.614Z'),
  finishTime: at('2024-11-21T12:31:07.001Z'),
};
const c: SessionInput = {
  sessionId: 'ffffffff-3333-4c1a-9a55-2a6f4c0e7d10',
  audienceId: null,
  status: 'INCOMPLETE',
  startTime: at('2024-11-20T08:00:00.000Z'),
  finishTime: null,
};
const d: SessionInput = {
  sessionId: '00000000-4444-4c1a-9a55-2a6f4c0e7d10',
  audienceId: '11111111-2222-4333-8444-555555555555',
  status: 'COMPLETE',
  startTime: at('2024-11-22T00:00:00.999Z'),
  finishTime: at('2024-11-22T00:10:00.000Z'),
};
const ORDERED = [d, b, a];

const { t, client } = await startSeededApp({ env: { RATE_LIMIT_API: '100000', RATE_LIMIT_TOKEN_CLIENT: '100000' } });
let s: Seeded;
let tokenA: string;
let tokenB: string;
/** 180 sessions of every status, many sharing a startTime, in API order. */
let bigStored: SessionInput[];
const BIG_STATUSES = ['COMPLETE', 'IN_PROGRESS', 'COMPLETE', 'COMPLETE', 'ABANDONED', 'COMPLETE', 'COMPLETE', 'SCREENED_OUT', 'COMPLETE'];
/** The 120 completed ones among them: what the API lists. */
let big: SessionInput[];
let bigTestId: string;
let emptyTestId: string;
let foreignTestId: string;

beforeAll(async () => {
  const workspaceId = await seedWorkspace(t.runtime, [client.email]);
  const testId = await seedTest(t.runtime, workspaceId, [a, c, b, d]);
  s = { ...client, workspaceId, testId, sessions: ORDERED };

  // Every third session is not complete, placed so that the startTime ties fall between completed ones.
  bigStored = makeSessions(180, { tiesEvery: 3, statuses: BIG_STATUSES });
  big = completedOnly(bigStored);
  bigTestId = await seedTest(t.runtime, workspaceId, [...bigStored].reverse());
  emptyTestId = await seedTest(t.runtime, workspaceId);
  foreignTestId = (await seed(t.runtime, { sessions: 5 })).testId;

  tokenA = await mintToken(t, s, 'A');
  tokenB = await mintToken(t, s, 'B');
});

const get = (path: string, headers: Record<string, string> = { authorization: `Bearer ${tokenB}` }) =>
  fetch(`${t.url}${path}`, { headers });
const current = (query: string) => get(`/api/v2/sessionResults?${query}`);
const earlier = (query: string) => get(`/v2/sessionResults?${query}`, { token: tokenA });

async function expectProblem(res: Response, status: number, code: string, detail: string | RegExp): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('private, no-store');
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['detail', 'status', 'title', 'type']);
  expect(body.type).toBe(`urn:results-api:problem:${code}`);
  expect(body.status).toBe(status);
  expect(body.title).toEqual(expect.stringMatching(/\S/));
  if (typeof detail === 'string') expect(body.detail).toBe(detail);
  else expect(body.detail).toMatch(detail);
}

interface Page {
  testId: string;
  sessions: Record<string, unknown>[];
  meta: { pagination: Record<string, number> };
}

/** The same query on both paths. */
const onBothPaths = async (query: string): Promise<Response[]> => [await current(query), await earlier(query)];

async function page(res: Response): Promise<Page> {
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

describe('response', () => {
  it('GET /api/v2/sessionResults: exact body, current paging form by default', async () => {
    const res = await current(`testId=${s.testId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      testId: s.testId,
      sessions: [
        {
          sessionId: '00000000-4444-4c1a-9a55-2a6f4c0e7d10',
          audienceId: '11111111-2222-4333-8444-555555555555',
          status: 'COMPLETE',
          startTime: '2024-11-22T00:00:00.999Z',
          finishTime: '2024-11-22T00:10:00.000Z',
        },
        {
          sessionId: '9f8e7d6c-2222-4b3a-8c1d-0e1f2a3b4c5d',
          audienceId: '5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
          status: 'COMPLETE',
          startTime: '2024-11-21T12:23:52.614Z',
          finishTime: '2024-11-21T12:31:07.001Z',
        },
        {
          sessionId: '0b0c4a3e-1111-4c1a-9a55-2a6f4c0e7d10',
          audienceId: null,
          status: 'COMPLETE',
          startTime: '2024-11-21T12:23:52.614Z',
          finishTime: null,
        },
      ],
      meta: { pagination: { limit: 25, offset: 0, totalCount: 3, rowsPerPage: 25, pageNumber: 1, totalPages: 1 } },
    });
  });

  it('GET /v2/sessionResults: same sessions, earlier paging form by default', async () => {
    const res = await earlier(`testId=${s.testId}`);
    expect(await res.json()).toEqual({
      testId: s.testId,
      sessions: ORDERED.map(rendered),
      meta: { pagination: { limit: 25, offset: 0, totalCount: 3 } },
    });
  });

  it.each([
    ['/api/v2/sessionResults', 'page'],
    ['/api/v2/sessionResults/', 'page'],
    ['/v2/sessionResults', 'offset'],
    ['/v2/sessionResults/', 'offset'],
  ])('%s answers, with and without the trailing slash', async (path, form) => {
    const body = await page(await get(`${path}?testId=${s.testId}`));
    expect(body.sessions).toEqual(ORDERED.map(rendered));
    expect(Object.keys(body.meta.pagination)).toHaveLength(form === 'page' ? 6 : 3);
  });

  const combos = ['/api/v2/sessionResults', '/api/v2/sessionResults/', '/v2/sessionResults'].flatMap((path) =>
    (['bearer', 'token'] as const).flatMap((scheme) => (['A', 'B'] as const).map((form) => ({ path, scheme, form }))),
  );
  it.each(combos)('$path with the $scheme header and a form $form token', async ({ path, scheme, form }) => {
    const token = form === 'A' ? tokenA : tokenB;
    // The seed's requests carry Content-Type: application/json (form B) or accept (form A) on a GET.
    const extra: Record<string, string> = scheme === 'bearer' ? { 'content-type': 'application/json' } : { accept: 'application/json' };
    const body = await page(await get(`${path}?testId=${s.testId}`, { ...authHeaders(token, scheme), ...extra }));
    expect(body.testId).toBe(s.testId);
    expect(body.sessions).toEqual(ORDERED.map(rendered));
  });

  it('an upper-case testId is accepted and answered in lower case', async () => {
    const body = await page(await current(`testId=${s.testId.toUpperCase()}`));
    expect(body.testId).toBe(s.testId);
    expect(body.sessions).toHaveLength(3);
  });

  it('a test without sessions: empty list, totalCount 0, totalPages 0', async () => {
    expect(await page(await current(`testId=${emptyTestId}`))).toEqual({
      testId: emptyTestId,
      sessions: [],
      meta: { pagination: { limit: 25, offset: 0, totalCount: 0, rowsPerPage: 25, pageNumber: 1, totalPages: 0 } },
    });
    expect(await page(await earlier(`testId=${emptyTestId}`))).toEqual({
      testId: emptyTestId,
      sessions: [],
      meta: { pagination: { limit: 25, offset: 0, totalCount: 0 } },
    });
  });
});

describe('completed sessions only', () => {
  it('both paths, both forms: only COMPLETE sessions, counted alone, in page order', async () => {
    for (const query of [`testId=${bigTestId}&limit=500`, `testId=${bigTestId}&rowsPerPage=500`, `testId=${bigTestId}`]) {
      for (const res of await onBothPaths(query)) {
        const body = await page(res);
        expect(body.meta.pagination.totalCount).toBe(120);
        if ('totalPages' in body.meta.pagination) expect(body.meta.pagination.totalPages).toBe(Math.ceil(120 / body.meta.pagination.rowsPerPage!));
        expect(new Set(body.sessions.map((x) => x.status))).toEqual(new Set(['COMPLETE']));
        expect(body.sessions).toEqual(big.slice(0, body.meta.pagination.limit).map(rendered));
      }
    }
  });

  it('the other statuses stay stored and counted for operators', async () => {
    expect((await t.runtime.store.directory.getTest(bigTestId))?.sessionCount).toBe(180);
    expect(await t.runtime.store.sessions.countSessionsByStatus(bigTestId)).toEqual({ ABANDONED: 20, COMPLETE: 120, IN_PROGRESS: 20, SCREENED_OUT: 20 });
    expect(await t.runtime.store.sessions.listSessions(bigTestId, 0, 1000)).toHaveLength(180);
  });

  it('a test holding no completed session lists nothing and counts 0, on both paths', async () => {
    const unfinished = await seedTest(t.runtime, s.workspaceId, makeSessions(7, { statuses: ['IN_PROGRESS', 'ABANDONED', 'SCREENED_OUT'] }));
    const [currentPage, earlierPage] = await onBothPaths(`testId=${unfinished}`);
    expect(await page(currentPage!)).toEqual({
      testId: unfinished,
      sessions: [],
      meta: { pagination: { limit: 25, offset: 0, totalCount: 0, rowsPerPage: 25, pageNumber: 1, totalPages: 0 } },
    });
    expect(await page(earlierPage!)).toEqual({ testId: unfinished, sessions: [], meta: { pagination: { limit: 25, offset: 0, totalCount: 0 } } });
  });

  it('a session that completes later appears on the next request, in its place; one that stops being complete leaves', async () => {
    const sessions = makeSessions(12, { statuses: ['COMPLETE', 'IN_PROGRESS'] });
    const testId = await seedTest(t.runtime, s.workspaceId, sessions);
    const listed = async () => (await page(await current(`testId=${testId}&rowsPerPage=100`))).sessions.map((x) => x.sessionId);
    expect(await listed()).toEqual(completedOnly(sessions).map((x) => x.sessionId));

    const finishing = sessions[3]!; // in progress
    const leaving = sessions[4]!; // complete
    await t.runtime.store.sessions.importSessions(
      testId,
      [{ ...finishing, status: 'COMPLETE', finishTime: finishing.startTime + 60_000 }, { ...leaving, status: 'ABANDONED', finishTime: null }],
      storeActor,
    );
    const now = sessions.filter((x) => x === finishing || (x.status === 'COMPLETE' && x !== leaving)).map((x) => x.sessionId);
    expect(await listed()).toEqual(now);
    expect((await page(await earlier(`testId=${testId}`))).meta.pagination.totalCount).toBe(6);
  });
});

describe('paging', () => {
  it('earlier form on either path: meta has exactly limit, offset, totalCount', async () => {
    for (const res of await onBothPaths(`testId=${bigTestId}&limit=100&offset=0`)) {
      const body = await page(res);
      expect(body.meta).toEqual({ pagination: { limit: 100, offset: 0, totalCount: 120 } });
      expect(body.sessions).toEqual(big.slice(0, 100).map(rendered));
    }
  });

  it('current form on either path: meta adds rowsPerPage, pageNumber, totalPages', async () => {
    for (const res of await onBothPaths(`testId=${bigTestId}&rowsPerPage=10&pageNumber=3`)) {
      const body = await page(res);
      expect(body.meta).toEqual({
        pagination: { limit: 10, offset: 20, totalCount: 120, rowsPerPage: 10, pageNumber: 3, totalPages: 12 },
      });
      expect(body.sessions).toEqual(big.slice(20, 30).map(rendered));
    }
  });

  it.each([
    ['limit=7', { limit: 7, offset: 0, totalCount: 120 }, [0, 7]],
    ['offset=110', { limit: 25, offset: 110, totalCount: 120 }, [110, 120]],
    ['rowsPerPage=7', { limit: 7, offset: 0, totalCount: 120, rowsPerPage: 7, pageNumber: 1, totalPages: 18 }, [0, 7]],
    ['pageNumber=5', { limit: 25, offset: 100, totalCount: 120, rowsPerPage: 25, pageNumber: 5, totalPages: 5 }, [100, 120]],
  ] as const)('one parameter of a form defaults the other (%s)', async (query, pagination, [from, to]) => {
    const body = await page(await current(`testId=${bigTestId}&${query}`));
    expect(body.meta.pagination).toEqual(pagination);
    expect(body.sessions).toEqual(big.slice(from, to).map(rendered));
  });

  it('pageNumber 21 with rowsPerPage 10 is offset 200 (beyond this test: empty, with the true totals)', async () => {
    expect(await page(await current(`testId=${bigTestId}&rowsPerPage=10&pageNumber=21`))).toEqual({
      testId: bigTestId,
      sessions: [],
      meta: { pagination: { limit: 10, offset: 200, totalCount: 120, rowsPerPage: 10, pageNumber: 21, totalPages: 12 } },
    });
  });

  it('an offset beyond the total gives an empty page with the right totalCount', async () => {
    for (const offset of [120, 121, 10_000]) {
      expect(await page(await earlier(`testId=${bigTestId}&limit=50&offset=${offset}`))).toEqual({
        testId: bigTestId,
        sessions: [],
        meta: { pagination: { limit: 50, offset, totalCount: 120 } },
      });
    }
  });

  it('totalPages is ceil(totalCount / rowsPerPage)', async () => {
    for (const [rowsPerPage, totalPages] of [[1, 120], [7, 18], [40, 3], [119, 2], [120, 1], [500, 1]] as const) {
      expect((await page(await current(`testId=${bigTestId}&rowsPerPage=${rowsPerPage}`))).meta.pagination.totalPages).toBe(totalPages);
    }
  });

  it('the largest allowed windows answer 200', async () => {
    const largest = [
      'limit=500&offset=10000',
      'limit=1&offset=0',
      'rowsPerPage=500&pageNumber=21',
      'rowsPerPage=25&pageNumber=401',
      'rowsPerPage=1&pageNumber=10001',
    ];
    for (const query of largest) {
      expect((await current(`testId=${bigTestId}&${query}`)).status).toBe(200);
    }
  });

  it('newest first by startTime, ties by sessionId descending', async () => {
    const body = await page(await current(`testId=${bigTestId}&rowsPerPage=500`));
    const ids = body.sessions.map((x) => x.sessionId);
    expect(ids).toEqual(big.map((x) => x.sessionId));
    // The fixture really has ties, and they really are ordered by sessionId.
    const ties = body.sessions.filter((x, i) => i > 0 && x.startTime === body.sessions[i - 1]!.startTime);
    expect(ties.length).toBeGreaterThan(30);
    for (let i = 1; i < body.sessions.length; i++) {
      const [prev, next] = [body.sessions[i - 1]!, body.sessions[i]!];
      expect(prev.startTime as string >= (next.startTime as string)).toBe(true);
      if (prev.startTime === next.startTime) expect(prev.sessionId as string > (next.sessionId as string)).toBe(true);
    }
  });

  it.each([
    ['current form, rowsPerPage 25', (n: number) => `rowsPerPage=25&pageNumber=${n + 1}`, 25],
    ['current form, rowsPerPage 7', (n: number) => `rowsPerPage=7&pageNumber=${n + 1}`, 7],
    ['earlier form, limit 11', (n: number) => `limit=11&offset=${n * 11}`, 11],
  ])('walking every page (%s) yields each session exactly once', async (_name, query, size) => {
    const seen: unknown[] = [];
    for (let n = 0; ; n++) {
      const body = await page(await current(`testId=${bigTestId}&${query(n)}`));
      expect(body.meta.pagination.totalCount).toBe(120);
      if (body.sessions.length === 0) break;
      expect(body.sessions.length).toBe(Math.min(size, 120 - n * size));
      seen.push(...body.sessions.map((x) => x.sessionId));
    }
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    expect(seen).toEqual(big.map((x) => x.sessionId));
  });
});

describe('parameters', () => {
  const UUID_RULE = 'testId must be a UUID';

  it('testId missing: 400 naming it', async () => {
    await expectProblem(await current(''), 400, 'invalid-parameter', 'testId is required and must be a UUID');
    await expectProblem(await earlier('limit=5'), 400, 'invalid-parameter', 'testId is required and must be a UUID');
  });

  const uuid = randomUUID();
  it.each(['abc', '', '12345', `{${uuid}}`, `urn:uuid:${uuid}`, `${uuid}0`, ` ${uuid}`, uuid.replace(/-/g, ''), uuid.slice(1)])(
    'testId "%s" is not a UUID: 400 naming it',
    async (value) => {
      await expectProblem(await current(`testId=${encodeURIComponent(value)}`), 400, 'invalid-parameter', new RegExp(`^${UUID_RULE}`));
    },
  );

  // limit and offset are `type: number` in the real document: whole values in any decimal form.
  const bounds: [string, string, string][] = [
    ['limit', '0', 'a whole number from 1 to 500'],
    ['limit', '501', 'a whole number from 1 to 500'],
    ['limit', '-1', 'a whole number from 1 to 500'],
    ['offset', '-1', 'a whole number from 0 to 10000'],
    ['offset', '10001', 'a whole number from 0 to 10000'],
    ['rowsPerPage', '0', 'an integer from 1 to 500'],
    ['rowsPerPage', '501', 'an integer from 1 to 500'],
    ['pageNumber', '0', 'an integer of at least 1'],
    ['pageNumber', '-3', 'an integer of at least 1'],
  ];
  const notNumbers = ['1.5', 'abc', '1e2', '', ' 5', '0x10', '5abc', 'NaN', 'Infinity', '99999999999999999999', '2.', '.5'];
  const rules: Record<string, { rule: string; refused: string[] }> = {
    limit: { rule: 'a whole number from 1 to 500', refused: [...notNumbers, '2.5', '10.01'] },
    offset: { rule: 'a whole number from 0 to 10000', refused: [...notNumbers, '2.5', '0.5'] },
    rowsPerPage: { rule: 'an integer from 1 to 500', refused: [...notNumbers, '10.0'] },
    pageNumber: { rule: 'an integer of at least 1', refused: [...notNumbers, '10.0'] },
  };
  const refusedCases = Object.entries(rules).flatMap(([name, { rule, refused }]) =>
    refused.map((value): [string, string, string] => [name, value, rule]),
  );

  it.each([...bounds, ...refusedCases])('%s=%j: 400 naming the parameter and its rule', async (name, value, rule) => {
    for (const res of await onBothPaths(`testId=${s.testId}&${name}=${encodeURIComponent(value)}`)) {
      await expectProblem(res, 400, 'invalid-parameter', new RegExp(`^${name} must be ${rule}`));
    }
  });

  it('limit and offset written with a zero fraction (2.0) page as their whole values', async () => {
    for (const res of await onBothPaths(`testId=${s.testId}&limit=2.0&offset=1.000`)) {
      const body = await page(res);
      expect(body.meta.pagination).toMatchObject({ limit: 2, offset: 1 });
      expect(body.sessions.map((x) => x.sessionId)).toEqual(ORDERED.slice(1, 3).map((x) => x.sessionId));
    }
  });

  it.each([
    ['pageNumber=402', 10_025],
    ['rowsPerPage=500&pageNumber=22', 10_500],
    ['rowsPerPage=10&pageNumber=1002', 10_010],
    ['rowsPerPage=1&pageNumber=10002', 10_001],
  ])('%s: (pageNumber − 1) × rowsPerPage over 10000 is 400', async (query, offset) => {
    await expectProblem(
      await current(`testId=${s.testId}&${query}`),
      400,
      'invalid-parameter',
      `pageNumber is out of range: (pageNumber - 1) × rowsPerPage must be at most 10000 (got ${offset}).`,
    );
  });

  it.each([
    ['limit=10&pageNumber=2', 'limit, pageNumber'],
    ['offset=0&rowsPerPage=10', 'offset, rowsPerPage'],
    ['limit=10&offset=0&rowsPerPage=10&pageNumber=1', 'limit, offset, rowsPerPage, pageNumber'],
  ])('mixing the forms (%s) is 400 on either path', async (query, names) => {
    for (const res of await onBothPaths(`testId=${s.testId}&${query}`)) {
      await expectProblem(res, 400, 'invalid-parameter', `Use either limit/offset or rowsPerPage/pageNumber, not both (got ${names}).`);
    }
  });

  it.each(['testId', 'limit', 'offset', 'rowsPerPage', 'pageNumber'])('%s given twice is 400 naming it', async (name) => {
    const value = name === 'testId' ? s.testId : '1';
    const base = name === 'testId' ? '' : `testId=${s.testId}&`;
    for (const res of await onBothPaths(`${base}${name}=${value}&${name}=${value}`)) {
      await expectProblem(res, 400, 'invalid-parameter', `${name} must be given only once`);
    }
  });
});

describe('visibility', () => {
  const NOT_FOUND = { type: 'urn:results-api:problem:not-found', title: 'Not found', status: 404, detail: 'Test not found' };

  it('a test that does not exist and a test in another workspace get identical 404s', async () => {
    const bodies = new Set<string>();
    for (const testId of [randomUUID(), foreignTestId]) {
      for (const res of await onBothPaths(`testId=${testId}`)) {
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
        expect(res.headers.get('cache-control')).toBe('private, no-store');
        bodies.add(await res.text());
      }
    }
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]!)).toEqual(NOT_FOUND);
  });

  it('removing the member takes effect on the very next request, and adding back too', async () => {
    const { email, clientId, clientSecret, workspaceId, testId } = await seed(t.runtime, { sessions: 2 });
    const token = await mintToken(t, { clientId, clientSecret });
    const list = () => get(`/api/v2/sessionResults?testId=${testId}`, authHeaders(token));
    expect((await list()).status).toBe(200);

    await t.runtime.store.directory.removeMember(workspaceId, email, storeActor);
    const res = await list();
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(NOT_FOUND);

    await t.runtime.store.directory.addMember(workspaceId, email.toUpperCase(), storeActor);
    expect((await list()).status).toBe(200);
  });

  it.each([
    ['revoking the credential', (x: Seeded) => t.runtime.store.credentials.revokeCredential(x.clientId, storeActor)],
    ['disabling the user', (x: Seeded) => t.runtime.store.credentials.setUserStatus(x.email, 'disabled', storeActor)],
  ])('%s: the next request is 401 invalid_token', async (_name, change) => {
    const x = await seed(t.runtime, { sessions: 1 });
    const tokens = { A: await mintToken(t, x, 'A'), B: await mintToken(t, x, 'B') };
    const requests = () => [
      get(`/api/v2/sessionResults?testId=${x.testId}`, authHeaders(tokens.B, 'bearer')),
      get(`/v2/sessionResults?testId=${x.testId}`, authHeaders(tokens.A, 'token')),
    ];
    for (const res of await Promise.all(requests())) expect(res.status).toBe(200);

    await change(x);
    for (const res of await Promise.all(requests())) {
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="results-api", error="invalid_token"/);
      await expectProblem(res, 401, 'invalid-token', 'The access token is invalid, expired or revoked.');
    }
  });
});

describe('headers on every response', () => {
  const cases: [string, () => Promise<Response>, number][] = [
    ['200', () => current(`testId=${s.testId}`), 200],
    ['200 (earlier path)', () => earlier(`testId=${s.testId}`), 200],
    ['400', () => current('testId=nope'), 400],
    ['401 (no token)', () => get(`/api/v2/sessionResults?testId=${s.testId}`, {}), 401],
    ['401 (invalid token)', () => get(`/v2/sessionResults?testId=${s.testId}`, { token: 'garbage' }), 401],
    [
      '400 (both headers)',
      () => get(`/api/v2/sessionResults?testId=${s.testId}`, { authorization: `Bearer ${tokenB}`, token: tokenA }),
      400,
    ],
    ['404', () => current(`testId=${foreignTestId}`), 404],
  ];

  it.each(cases)('%s: Cache-Control private, no-store, Pragma no-cache and the rate-limit headers', async (_name, request, status) => {
    const res = await request();
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    // PUBLIC_URL is http here: no promise of https.
    expect(res.headers.get('strict-transport-security')).toBeNull();
    const { apiPerWindow, windowSeconds } = t.runtime.config.rateLimit;
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(apiPerWindow));
    const remaining = Number(res.headers.get('x-ratelimit-remaining'));
    expect(Number.isInteger(remaining) && remaining >= 0 && remaining < apiPerWindow).toBe(true);
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    expect(Number.isInteger(reset) && reset >= 1 && reset <= windowSeconds).toBe(true);
    if (status >= 400) {
      expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['detail', 'status', 'title', 'type']);
      expect(body.status).toBe(status);
      expect(body.type).toMatch(/^urn:results-api:problem:[a-z-]+$/);
    }
  });

  it('x-ratelimit-remaining counts down per client', async () => {
    const first = Number((await current(`testId=${s.testId}`)).headers.get('x-ratelimit-remaining'));
    const second = Number((await earlier(`testId=${s.testId}`)).headers.get('x-ratelimit-remaining'));
    // Both tokens belong to one client; the windows may roll over between the two requests.
    expect(second === first - 1 || second === t.runtime.config.rateLimit.apiPerWindow - 1).toBe(true);
  });
});

describe('Strict-Transport-Security', () => {
  it('is sent on every response when PUBLIC_URL is https, on the API, the authorization servers and the probes', async () => {
    const https = await startTestApp({ env: { PUBLIC_URL: 'https://results.example.com' } });
    try {
      const responses = [
        await fetch(`${https.url}/api/v2/sessionResults?testId=${randomUUID()}`),
        await fetch(`${https.url}/v2/sessionResults?testId=${randomUUID()}`, { headers: { token: 'garbage' } }),
        await fetch(`${https.url}/oauth2/default/v1/keys`),
        await fetch(`${https.url}/healthz`),
        await fetch(`${https.url}/no/such/path`),
      ];
      expect(responses.map((r) => r.status)).toEqual([401, 401, 200, 200, 404]);
      for (const res of responses) expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000');
      expect(responses[0]!.headers.get('pragma')).toBe('no-cache');
    } finally {
      await https.close();
    }
  });
});
