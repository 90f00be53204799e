import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../clock.js';
import type { SessionInput } from '../store.js';
import { openSqliteStore } from '../../../test/helpers/stores.js';
import type { Store } from '../open-store.js';
import type { SqliteDatabase } from './sqlite-database.js';

/** What SQLite's import does beyond the store contract: how it stages, and what it leaves behind. */

const dir = mkdtempSync(join(tmpdir(), 'results-api-sqlite-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const by = { actor: 'cli:test' };
const WS = 'a3a7f2d4-0b7e-4a57-8f63-2f0d3c1a9e01';
const TEST_A = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const TEST_B = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a22';
const id = (n: number) => `5e551000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const session = (n: number): SessionInput => ({ sessionId: id(n), audienceId: null, status: 'COMPLETE', startTime: n * 1000, finishTime: null });
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => session(from + i));

let n = 0;
let store: Store;
beforeEach(async () => {
  store = await openSqliteStore(join(dir, `store-${++n}.db`), new ManualClock(Date.UTC(2026, 0, 1)));
  await store.database.migrate();
  await store.directory.createWorkspace({ id: WS, name: 'Lab' }, by);
  for (const testId of [TEST_A, TEST_B]) await store.directory.createTest({ id: testId, workspaceId: WS, title: 'T', productType: 'survey' }, by);
});
afterEach(() => store.database.close());

/** The connection imports write on (TEMP tables are per connection), once queued writes are done. */
const onWriter = <T>(fn: (writer: import('better-sqlite3').Database) => T) => (store.database as SqliteDatabase).exclusive(fn);
const tempTables = () => onWriter((w) => w.prepare("SELECT name FROM sqlite_temp_master WHERE type = 'table'").pluck().all());
const sessionsIndex = () => onWriter((w) => w.prepare("SELECT sql FROM sqlite_master WHERE name = 'sessions_by_id'").pluck().get());

/** Batches handed over one at a time, with `between` run while the import waits for the next. */
async function* slowly(batches: SessionInput[][], between: () => Promise<void> = async () => {}, fail?: Error) {
  for (const batch of batches) {
    yield batch;
    await between();
  }
  if (fail) throw fail;
}

describe('SQLite session import', () => {
  it('rebuilds the sessionId index exactly as the migration made it, and drops its staging table', async () => {
    expect(await store.sessions.importSessionStream(TEST_A, slowly([range(0, 30_000), range(30_000, 30_000)]), by)).toEqual({
      inserted: 60_000,
      updated: 0,
      unchanged: 0,
    });
    expect(await sessionsIndex()).toBe('CREATE UNIQUE INDEX sessions_by_id ON sessions (session_id)');
    expect(await onWriter((w) => w.pragma('integrity_check', { simple: true }))).toBe('ok');
    expect(await tempTables()).toEqual([]);
    // The index is in use again: another test cannot take these sessions.
    await expect(store.sessions.importSessions(TEST_B, [session(5)], by)).rejects.toThrow(`session ${id(5)} belongs to another test`);
  });

  it('holds no transaction while it waits for a batch: other writes go ahead, and stay when the import fails', async () => {
    const failure = new Error('line 70001: not valid JSON');
    const between = async () => {
      expect(await onWriter((w) => w.inTransaction)).toBe(false);
      await store.sessions.importSessions(TEST_B, [session(1_000_000 + (await store.sessions.listSessions(TEST_B, 0, 1000)).length)], by);
    };
    await expect(store.sessions.importSessionStream(TEST_A, slowly([range(0, 10), range(10, 10)], between, failure), by)).rejects.toBe(failure);
    expect(await store.sessions.listSessions(TEST_A, 0, 100)).toEqual([]);
    expect((await store.directory.getTest(TEST_B))?.sessionCount).toBe(2);
    expect(await tempTables()).toEqual([]);
  });

  it('keeps imports that interleave on one connection apart', async () => {
    const [a, b] = await Promise.all([
      store.sessions.importSessionStream(TEST_A, slowly([range(0, 100), range(100, 100)]), by),
      store.sessions.importSessionStream(TEST_B, slowly([range(500, 50), range(550, 50)]), by),
    ]);
    expect([a.inserted, b.inserted]).toEqual([200, 100]);
    expect((await store.directory.getTest(TEST_A))?.sessionCount).toBe(200);
    expect((await store.directory.getTest(TEST_B))?.sessionCount).toBe(100);
  });
});
