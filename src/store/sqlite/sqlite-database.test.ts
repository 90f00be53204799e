import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../test/helpers/stores.js';
import { ManualClock } from '../../clock.js';
import { describeStoreContract } from '../store.contract.js';
import { sqliteMigrations } from './migrations.js';

// A real file (not :memory:) so WAL mode and the file-backed paths are what gets tested.
const dir = mkdtempSync(join(tmpdir(), 'results-api-sqlite-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreContract('sqlite', (clock, announce) => openSqliteStore(join(dir, `store-${++n}.db`), clock, announce));

describe('SQLite migration 2', () => {
  it('counts the sessions a version-1 database already holds, per test and status', async () => {
    const path = join(dir, 'version-1.db');
    const raw = new Database(path);
    raw.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    raw.exec(sqliteMigrations.find((m) => m.version === 1)!.sql);
    raw.exec(`INSERT INTO schema_migrations VALUES (1, 0);
      INSERT INTO workspaces VALUES ('w', 'W', 0);
      INSERT INTO tests VALUES ('t1', 'w', 'T1', 'survey', 0, 3), ('t2', 'w', 'T2', 'survey', 0, 1);
      INSERT INTO sessions VALUES ('t1', 1, 's1', NULL, 'COMPLETE', 2), ('t1', 2, 's2', NULL, 'ABANDONED', NULL),
                                  ('t1', 3, 's3', NULL, 'COMPLETE', 4), ('t2', 1, 's4', NULL, 'IN_PROGRESS', NULL);`);
    raw.close();
    const store = await openSqliteStore(path, new ManualClock());
    try {
      expect((await store.database.migrate()).applied).toEqual(sqliteMigrations.filter((m) => m.version > 1).map((m) => m.version));
      expect(await store.sessions.countSessionsByStatus('t1')).toEqual({ ABANDONED: 1, COMPLETE: 2 });
      expect(await store.sessions.countSessionsByStatus('t2')).toEqual({ IN_PROGRESS: 1 });
      expect((await store.sessions.listSessions('t1', 0, 10, { status: 'COMPLETE' })).map((s) => s.sessionId)).toEqual(['s3', 's1']);
    } finally {
      await store.database.close();
    }
  });
});
