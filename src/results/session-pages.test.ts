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

describe('SessionPageReader: deep pages by seeking from anchors', () => {
  const clock = new ManualClock();
  const feed = new LocalChangeFeed();
  const dir = mkdtempSync(join(tmpdir(), 'results-api-pages-'));
  let store: Store;
  let reader: SessionPageReader;

  // 1,234 sessions with many equal start times, so ties decide the order often.
  const rows: SessionInput[] = Array.from({ length: 1234 }, (_, i) => ({
    sessionId: sessionId(i),
    audienceId: null,
    status: 'COMPLETE',
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

  it('returns exactly what skipping rows returns, at every kind of offset', async () => {
    for (const offset of [0, 1, 99, 100, 101, 150, 199, 200, 777, 999, 1000, 1001, 1200, 1209, 1210, 1233, 1234, 1300]) {
      for (const limit of [1, 25, 500]) {
        expect(await reader.read(TEST_ID, offset, limit)).toEqual(await store.sessions.listSessions(TEST_ID, offset, limit));
      }
    }
  });

  it('keeps a serialized page until anything changes', async () => {
    let renders = 0;
    const render = async () => `body ${++renders}`;
    expect(await reader.cachedBody('page-1', render)).toBe('body 1');
    expect(await reader.cachedBody('page-1', render)).toBe('body 1');
    await store.sessions.importSessions(TEST_ID, [{ ...rows[1]!, status: 'ABANDONED' }], by);
    expect(await reader.cachedBody('page-1', render)).toBe('body 2');
    // Entries also expire on their own, in case an announcement is lost.
    clock.advance(1001);
    expect(await reader.cachedBody('page-1', render)).toBe('body 3');
  });

  it('sees sessions imported after its anchors were built', async () => {
    await reader.read(TEST_ID, 500, 25);
    const newest = { ...rows[0]!, sessionId: sessionId(99_999), startTime: Date.UTC(2030, 0, 1) };
    await store.sessions.importSessions(TEST_ID, [newest], by);
    // Stale anchors would start this page one session late.
    expect(await reader.read(TEST_ID, 500, 25)).toEqual(await store.sessions.listSessions(TEST_ID, 500, 25));
  });
});
