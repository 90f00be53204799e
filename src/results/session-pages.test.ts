import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalChangeFeed } from '../changes/change-feed.js';
import { ChangeWatcher } from '../changes/fresh-cache.js';
import { ManualClock } from '../clock.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../test/helpers/stores.js';
import type { Store } from '../store/open-store.js';
import type { SessionInput } from '../store/store.js';
import { SessionPageReader } from './session-pages.js';

const by = { actor: 'test' };
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const sessionId = (n: number) => `${hex(n, 8)}-0000-4000-8000-000000000000`;
const TEST_ID = '11111111-1111-4111-8111-111111111111';

/** The oracle: skipping rows of the completed sessions. */
const completedPage = (store: Store, offset: number, limit: number) => store.sessions.listSessions(TEST_ID, offset, limit, { status: 'COMPLETE' });

describe('SessionPageReader: deep pages of completed sessions by seeking from anchors', () => {
  const clock = new ManualClock();
  const feed = new LocalChangeFeed();
  const dir = mkdtempSync(join(tmpdir(), 'results-api-pages-'));
  let store: Store;
  let reader: SessionPageReader;

  // 1,234 sessions with many equal start times, so ties decide the order often; every fifth is
  // not complete, so the completed ones (what the reader lists) are not a prefix of all of them.
  const STATUSES = ['COMPLETE', 'COMPLETE', 'ABANDONED', 'COMPLETE', 'IN_PROGRESS'];
  const rows: SessionInput[] = Array.from({ length: 1234 }, (_, i) => ({
    sessionId: sessionId(i),
    audienceId: null,
    status: STATUSES[i % 5]!,
    startTime: Date.UTC(2024, 0, 1) + (i % 97) * 1000,
    finishTime: null,
  }));

  beforeAll(async () => {
    store = await openSqliteStore(join(dir, 'pages.db'), clock, (change) => feed.publish(change));
    await store.database.migrate();
    reader = new SessionPageReader(store.sessions, new ChangeWatcher(store.database, feed), clock);
    await store.directory.createWorkspace({ id: '22222222-2222-4222-8222-222222222222', name: 'W' }, by);
    await store.directory.createTest({ id: TEST_ID, workspaceId: '22222222-2222-4222-8222-222222222222', title: 'T', productType: 'survey' }, by);
    await store.sessions.importSessions(TEST_ID, rows, by);
  });
  afterAll(async () => {
    await store.database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('returns exactly what skipping completed rows returns, at every kind of offset', async () => {
    const completed = rows.filter((r) => r.status === 'COMPLETE').length;
    expect(await reader.count(TEST_ID)).toBe(completed);
    for (const offset of [0, 1, 99, 100, 101, 150, 199, 200, 543, 739, 740, 741, 777, 999, 1000, 1234]) {
      for (const limit of [1, 25, 500]) {
        const page = await reader.read(TEST_ID, offset, limit);
        expect(page).toEqual(await completedPage(store, offset, limit));
        expect(page.every((s) => s.status === 'COMPLETE')).toBe(true);
        expect(page).toHaveLength(Math.max(0, Math.min(limit, completed - offset)));
      }
    }
  });

  it('keeps a serialized page until anything changes', async () => {
    let renders = 0;
    const render = async () => `body ${++renders}`;
    const body = (key: string) => reader.cachedBody(key, render).then((bytes) => bytes.toString('utf8'));
    const first = await reader.cachedBody('page-1', render);
    expect(first.toString('utf8')).toBe('body 1');
    // The same bytes, not encoded again: a hit costs no copy.
    expect(await reader.cachedBody('page-1', render)).toBe(first);
    await store.sessions.importSessions(TEST_ID, [{ ...rows[1]!, status: 'ABANDONED' }], by);
    expect(await body('page-1')).toBe('body 2');
    // SQLite: every commit is heard, so nothing expires with time (PostgreSQL's do, after 1 s).
    clock.advance(60_000);
    expect(await body('page-1')).toBe('body 2');
  });

  it('hears a commit nobody announced (what lets SQLite caches live without expiry)', async () => {
    let renders = 0;
    const render = async () => `body ${++renders}`;
    const body = () => reader.cachedBody('page-unannounced', render).then((bytes) => bytes.toString('utf8'));
    expect(await body()).toBe('body 1');
    // Another process's connections on the same file, announcing on no feed this reader hears.
    const elsewhere = await openSqliteStore(join(dir, 'pages.db'), clock);
    try {
      await elsewhere.sessions.importSessions(TEST_ID, [{ ...rows[2]!, status: 'COMPLETE' }], by);
    } finally {
      await elsewhere.database.close();
    }
    await new Promise((r) => setImmediate(r)); // the watcher asks SQLite once per turn
    expect(await body()).toBe('body 2');
  });

  it('keeps the anchors it has when they reload the same after expiring (no old-space garbage per second)', async () => {
    const seekedFrom: unknown[] = [];
    const sessions = {
      listSessionKeys: store.sessions.listSessionKeys.bind(store.sessions),
      countSessions: store.sessions.countSessions.bind(store.sessions),
      listSessions: ((...args: Parameters<Store['sessions']['listSessions']>) => {
        seekedFrom.push(args[3]?.after);
        return store.sessions.listSessions(...args);
      }) as Store['sessions']['listSessions'],
    };
    // A watcher that hears the feed only, as on PostgreSQL, where entries expire after a second.
    const watching = new SessionPageReader(sessions, new ChangeWatcher({}, feed), clock);
    await watching.read(TEST_ID, 250, 10);
    clock.advance(1001);
    await watching.read(TEST_ID, 250, 10);
    expect(seekedFrom).toHaveLength(2);
    expect(seekedFrom[0]).toBeDefined();
    expect(seekedFrom[1]).toBe(seekedFrom[0]);
  });

  it('sees sessions imported after its anchors were built', async () => {
    await reader.read(TEST_ID, 500, 25);
    const newest = { ...rows[0]!, sessionId: sessionId(99_999), startTime: Date.UTC(2030, 0, 1) };
    await store.sessions.importSessions(TEST_ID, [newest], by);
    // Stale anchors would start this page one session late.
    expect(await reader.read(TEST_ID, 500, 25)).toEqual(await completedPage(store, 500, 25));
  });

  it('follows a session whose status changes: out of the listing and its count, and back', async () => {
    const before = await reader.count(TEST_ID);
    const firstOfDeepPage = (await reader.read(TEST_ID, 400, 1))[0]!;
    await store.sessions.importSessions(TEST_ID, [{ ...firstOfDeepPage, status: 'SCREENED_OUT' }].map(({ testId: _, ...s }) => s), by);
    expect(await reader.count(TEST_ID)).toBe(before - 1);
    expect(await reader.read(TEST_ID, 400, 25)).toEqual(await completedPage(store, 400, 25));
    expect((await reader.read(TEST_ID, 399, 2)).map((s) => s.sessionId)).not.toContain(firstOfDeepPage.sessionId);
    await store.sessions.importSessions(TEST_ID, [{ ...firstOfDeepPage, status: 'COMPLETE' }].map(({ testId: _, ...s }) => s), by);
    expect(await reader.count(TEST_ID)).toBe(before);
    expect((await reader.read(TEST_ID, 400, 1))[0]).toEqual(firstOfDeepPage);
  });
});
