import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageProgress, SessionResult } from '../../src/client/index.js';
import { rendered, seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientFor, recordingFetch } from './helpers.js';

describe('sessionResults(): every session of a test across pages', () => {
  let t: TestApp;
  let big: Seeded;

  beforeAll(async () => {
    t = await startTestApp();
    big = await seed(t.runtime, { sessions: 3003 });
  });
  afterAll(() => t.close());

  it.each(['A', 'B'] as const)('form %s: yields exactly totalCount unique sessions, in order', async (form) => {
    const rec = recordingFetch();
    const client = clientFor(t, big, form, { fetch: rec.fetch });
    const progress: Omit<PageProgress, 'page'>[] = [];

    const all: SessionResult[] = [];
    for await (const session of client.sessionResults(big.testId, { onPage: ({ totalCount, received }) => progress.push({ totalCount, received }) })) {
      all.push(session);
    }

    expect(all).toHaveLength(3003);
    expect(new Set(all.map((x) => x.sessionId)).size).toBe(3003);
    expect(all).toEqual(big.sessions.map(rendered));
    // 500 a page, the most the API serves: six full pages and a short one.
    expect(rec.apiRequests().map((r) => Object.fromEntries(r.url.searchParams))).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((i) =>
        form === 'A'
          ? { testId: big.testId, limit: '500', offset: String(i * 500) }
          : { testId: big.testId, rowsPerPage: '500', pageNumber: String(i + 1) },
      ),
    );
    expect(progress).toEqual([500, 1000, 1500, 2000, 2500, 3000, 3003].map((received) => ({ totalCount: 3003, received })));
    expect(rec.tokenRequests()).toHaveLength(1);
  });

  it('stops at totalCount without asking for an empty page when the last page is full', async () => {
    const s = await seed(t.runtime, { sessions: 40 });
    const rec = recordingFetch();
    const client = clientFor(t, s, 'B', { fetch: rec.fetch });
    const ids: string[] = [];
    for await (const session of client.sessionResults(s.testId, { pageSize: 20 })) ids.push(session.sessionId);
    expect(ids).toEqual(s.sessions.map((x) => x.sessionId));
    expect(rec.apiRequests()).toHaveLength(2);
  });

  it('a test without sessions yields nothing after one request', async () => {
    const s = await seed(t.runtime, { sessions: [] });
    const rec = recordingFetch();
    const client = clientFor(t, s, 'A', { fetch: rec.fetch });
    const ids: string[] = [];
    for await (const session of client.sessionResults(s.testId)) ids.push(session.sessionId);
    expect(ids).toEqual([]);
    expect(rec.apiRequests()).toHaveLength(1);
  });

  it('does not yield a session twice when new sessions shift the pages during the iteration', async () => {
    const s = await seed(t.runtime, { sessions: 30 });
    const client = clientFor(t, s, 'A');
    const ids: string[] = [];
    let inserted = false;
    for await (const session of client.sessionResults(s.testId, { pageSize: 10 })) {
      ids.push(session.sessionId);
      if (!inserted) {
        inserted = true;
        // Three newer sessions push every later session three places down.
        const newest = s.sessions[0]!.startTime;
        const fresh = [1, 2, 3].map((i) => ({ ...s.sessions[0]!, sessionId: crypto.randomUUID(), startTime: newest + i * 1000 }));
        await t.runtime.store.sessions.importSessions(s.testId, fresh, { actor: 'test' });
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(s.sessions.map((x) => x.sessionId));
  });

  it('a test deeper than the API pages: yields what can be listed, then throws instead of ending quietly', async () => {
    const deep = await seed(t.runtime, { sessions: 10_502 });
    const client = clientFor(t, deep, 'B');
    const ids: string[] = [];
    const iterate = async () => {
      for await (const session of client.sessionResults(deep.testId)) ids.push(session.sessionId);
    };
    await expect(iterate()).rejects.toThrow(
      new RangeError("sessionResults: the API pages at most 10000 sessions deep; the newest 10500 of the test's 10502 sessions were listed"),
    );
    expect(ids).toEqual(deep.sessions.slice(0, 10_500).map((x) => x.sessionId));
  });

  it('refuses a page size the API would refuse, before sending anything', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, big, 'B', { fetch: rec.fetch });
    await expect(client.sessionResults(big.testId, { pageSize: 501 }).next()).rejects.toThrow(
      'sessionResults: pageSize must be an integer from 1 to 500 (got 501)',
    );
    expect(rec.sent).toHaveLength(0);
  });
});
