import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageProgress, SessionResult } from '@results-api/client';
import type { SessionInput } from '../../src/store/store.js';
import { makeSessions, rendered, seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientFor, recordingFetch } from './helpers.js';

/** The v1 cursor lists COMPLETE sessions only. */
const allComplete = (sessions: SessionInput[]): SessionInput[] =>
  sessions.map((x) => ({ ...x, status: 'COMPLETE', finishTime: x.finishTime ?? x.startTime + 60_000 }));

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
    const progress: Pick<PageProgress, 'totalCount' | 'received'>[] = [];

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

  it('a test beyond the offset bound is read through the v1 cursor, completely and in the same order', async () => {
    const s = await seed(t.runtime, { sessions: allComplete(makeSessions(260, { tiesEvery: 9 })) });
    for (const form of ['A', 'B'] as const) {
      const rec = recordingFetch();
      const client = clientFor(t, s, form, { fetch: rec.fetch });
      const progress: Pick<PageProgress, 'via' | 'received' | 'totalCount'>[] = [];
      const all: SessionResult[] = [];
      const options = { pageSize: 50, offsetBound: 100, onPage: ({ via, received, totalCount }: PageProgress) => progress.push({ via, received, totalCount }) };
      for await (const session of client.sessionResults(s.testId, options)) all.push(session);

      expect(all).toEqual(s.sessions.map(rendered));
      // One v2 page tells the size; then six cursor pages (50 each) and the empty one that ends it.
      const paths = rec.apiRequests().map((r) => r.url.pathname);
      expect(paths[0]).toMatch(/\/v2\/sessionResults$/);
      expect(paths.slice(1)).toEqual(Array(7).fill(`/usertesting/api/v1/studies/${s.testId}/completed-sessions`));
      expect(progress.map((p) => p.via)).toEqual(Array(6).fill('cursor'));
      expect(progress.at(-1)).toEqual({ via: 'cursor', received: 260, totalCount: 260 });
    }
  });

  it('a test that grows past the bound during the iteration is finished by cursor, nothing twice', async () => {
    const s = await seed(t.runtime, { sessions: allComplete(makeSessions(90)) });
    const client = clientFor(t, s, 'B');
    const ids: string[] = [];
    let grown = false;
    for await (const session of client.sessionResults(s.testId, { pageSize: 40, offsetBound: 40 })) {
      ids.push(session.sessionId);
      if (!grown) {
        grown = true;
        // Newer sessions shift the offset pages; the cursor part must not repeat what was seen.
        const newer = allComplete(makeSessions(30, { newest: Date.UTC(2030, 0, 1) }));
        await t.runtime.store.sessions.importSessions(s.testId, newer, { actor: 'test' });
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(s.sessions.map((x) => x.sessionId)));
  });

  it('12,000 sessions, beyond the real bound: every one, in order, by cursor', async () => {
    const large = await seed(t.runtime, { sessions: allComplete(makeSessions(12_000, { tiesEvery: 11 })) });
    const rec = recordingFetch();
    const client = clientFor(t, large, 'A', { fetch: rec.fetch });
    const ids: string[] = [];
    for await (const session of client.sessionResults(large.testId)) ids.push(session.sessionId);
    expect(ids).toEqual(large.sessions.map((x) => x.sessionId));
    expect(rec.apiRequests()).toHaveLength(1 + 12_000 / 50 + 1);
  });

  it('refuses an offset bound beyond the service\'s, before sending anything', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, big, 'B', { fetch: rec.fetch });
    await expect(client.sessionResults(big.testId, { offsetBound: 10_001 }).next()).rejects.toThrow(
      'sessionResults: offsetBound must be an integer from 0 to 10000 (got 10001)',
    );
    expect(rec.sent).toHaveLength(0);
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
