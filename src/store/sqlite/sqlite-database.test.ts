import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteDriver } from './driver.js';

const Database = sqliteDriver();
import { afterAll, describe, expect, it } from 'vitest';
import { expectPendingBatchesMigrated } from '../../../test/helpers/outbox-migration.js';
import { expectPlanIdsMigrated, OLD_ROWS } from '../../../test/helpers/plan-migration.js';
import { openSqliteStore } from '../../../test/helpers/stores.js';
import { ManualClock } from '../../clock.js';
import { describeSessionDetailsContract } from '../session-details.contract.js';
import { describeClipsContract } from '../clips.contract.js';
import { describeJobsContract } from '../jobs.contract.js';
import { describeWebhooksContract } from '../webhooks.contract.js';
import { describeStoreContract } from '../store.contract.js';
import { describeTranscriptContract } from '../transcripts.contract.js';
import { describeVideoContract } from '../videos.contract.js';
import { describeAdminsContract } from '../admins.contract.js';
import { sqliteMigrations } from './migrations.js';

// A real file (not :memory:) so WAL mode and the file-backed paths are what gets tested.
const dir = mkdtempSync(join(tmpdir(), 'results-api-sqlite-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreContract('sqlite', (clock, announce) => openSqliteStore(join(dir, `store-${++n}.db`), clock, announce));
describeSessionDetailsContract('sqlite', (clock, announce) => openSqliteStore(join(dir, `details-${++n}.db`), clock, announce));
describeTranscriptContract('sqlite', (clock, announce) => openSqliteStore(join(dir, `store-${++n}.db`), clock, announce));
describeVideoContract('sqlite', (clock, announce) => openSqliteStore(join(dir, `store-${++n}.db`), clock, announce));
describeAdminsContract('sqlite', (clock, announce) => openSqliteStore(join(dir, `store-${++n}.db`), clock, announce));
describeJobsContract('sqlite', (clock, announce) => openSqliteStore(join(dir, `store-${++n}.db`), clock, announce));
describeWebhooksContract('sqlite', (clock, announce) => openSqliteStore(join(dir, `store-${++n}.db`), clock, announce));
describeClipsContract('sqlite', (clock, announce) => openSqliteStore(join(dir, `store-${++n}.db`), clock, announce));


/** A database file at schema `version` (every migration up to it applied), open for the test to fill. */
function databaseAt(path: string, version: number): InstanceType<typeof Database> {
  const raw = new Database(path);
  raw.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  for (const m of sqliteMigrations.filter((m) => m.version <= version)) {
    raw.exec(m.sql);
    raw.prepare('INSERT INTO schema_migrations VALUES (?, 0)').run(m.version);
  }
  return raw;
}
describe('SQLite migrations 2 and 9', () => {
  it('count the sessions a version-1 database already holds, per test and status, and keep them all', async () => {
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
      // Migration 9 rebuilt the table clustered by status: every row kept, found by id, no second copy.
      expect(await store.sessions.findSession('s4')).toEqual({ testId: 't2', sessionId: 's4', audienceId: null, status: 'IN_PROGRESS', startTime: 1, finishTime: null });
      const check = new Database(path, { readonly: true });
      try {
        const indexes = check.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'sessions' AND sql IS NOT NULL").pluck().all();
        expect(indexes).toEqual(['sessions_by_id']);
      } finally {
        check.close();
      }
    } finally {
      await store.database.close();
    }
  });
});

describe('SQLite migration 10', () => {
  it('marks the transcripts a version-9 database holds, whose cues are then stored once', async () => {
    const path = join(dir, 'version-9.db');
    const raw = databaseAt(path, 9);
    raw.prepare('INSERT INTO transcripts VALUES (?, ?, ?, 0)').run('s1', 'WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n', 'hash');
    raw.close();
    const store = await openSqliteStore(path, new ManualClock());
    try {
      expect((await store.database.migrate()).applied).toEqual(sqliteMigrations.filter((m) => m.version >= 10).map((m) => m.version));
      expect(await store.transcripts.cueCount('s1')).toBe(0);
      expect(await store.transcripts.storeMissingCues()).toEqual({ stored: 1, unreadable: [] });
      expect(await store.transcripts.readCues('s1', 0, 10)).toEqual({ cueCount: 1, cues: [{ startMs: 1000, endMs: 2000, text: 'Hi' }] });
    } finally {
      await store.database.close();
    }
  });
});

describe('SQLite migration 12', () => {
  it('gives the plans and group answers a version-11 database holds the UUIDs their readable ids stand for', async () => {
    const path = join(dir, 'version-11.db');
    const raw = databaseAt(path, 11);
    raw.prepare('INSERT INTO workspaces (id, name, created_at) VALUES (@id, @name, @createdAt)').run(OLD_ROWS.workspace);
    raw.prepare("INSERT INTO tests (id, workspace_id, title, product_type, created_at, session_count, test_plan) VALUES (@id, @workspace, 'T', 'SURVEY', 0, 0, @plan)")
      .run({ ...OLD_ROWS.test, workspace: OLD_ROWS.workspace.id });
    raw.prepare('INSERT INTO session_details (session_id, test_id, scoring, details) VALUES (@sessionId, @testId, @scoring, @details)').run(OLD_ROWS.details);
    raw.close();
    const store = await openSqliteStore(path, new ManualClock());
    try {
      expect((await store.database.migrate()).applied).toEqual(sqliteMigrations.filter((m) => m.version >= 12).map((m) => m.version));
      await expectPlanIdsMigrated(store);
    } finally {
      await store.database.close();
    }
  });
});

describe('SQLite migration 18', () => {
  it('drops the unread index of refresh tokens by grant and keeps every token of a version-17 database', async () => {
    const path = join(dir, 'version-17.db');
    const raw = databaseAt(path, 17);
    raw.exec(`INSERT INTO users (id, email, email_key, status, created_at) VALUES ('u1', 'u1@example.com', 'u1@example.com', 'active', 0);
              INSERT INTO app_grants (id, user_id, client_id, scopes, created_at) VALUES ('g1', 'u1', 'app1', 'results:read', 0);
              INSERT INTO refresh_tokens (token_hash, grant_id, created_at, expires_at) VALUES ('h1', 'g1', 0, 1);`);
    raw.close();
    const store = await openSqliteStore(path, new ManualClock());
    try {
      expect((await store.database.migrate()).applied).toEqual(sqliteMigrations.filter((m) => m.version >= 18).map((m) => m.version));
      expect(await store.database.all("SELECT name FROM sqlite_master WHERE tbl_name = 'refresh_tokens' AND type = 'index'")).toEqual([]);
      expect(await store.apps.grantOfRefreshToken('h1', 'app1')).toBe('g1');
    } finally {
      await store.database.close();
    }
  });
});

describe('SQLite migration 19', () => {
  it('indexes the test of every entry a version-18 database holds, so a search within one test finds its entries only; deletes keep the index whole', async () => {
    const path = join(dir, 'version-18.db');
    const raw = databaseAt(path, 18);
    const [t1, t2] = ['0b3c1234-5678-4abc-8def-000000000001', '0b3c1234-5678-4abc-8def-000000000002'];
    const insert = raw.prepare("INSERT INTO search_entries (session_id, test_id, kind, start_ms, end_ms, speaker, text) VALUES (?, ?, 'transcript', 0, 1, NULL, ?)");
    insert.run('s1', t1, 'The checkout button is green.');
    insert.run('s2', t2, 'Checkout button, where?');
    insert.run('s3', t2, 'No checkout here.');
    raw.close();
    const store = await openSqliteStore(path, new ManualClock());
    try {
      expect((await store.database.migrate()).applied).toEqual(sqliteMigrations.filter((m) => m.version >= 19).map((m) => m.version));
      const sessionsOf = async (testIds: string[]) => (await store.search.search(['checkout', 'button'], { testIds, kinds: ['transcript'] }, 0, 10)).map((h) => h.sessionId).sort();
      expect(await sessionsOf([t1])).toEqual(['s1']);
      expect(await sessionsOf([t2])).toEqual(['s2']);
      expect(await sessionsOf([t1, t2])).toEqual(['s1', 's2']);
      // The test token is no word of the text: a query for it finds nothing.
      expect(await store.search.search([`t${t1.replaceAll('-', '')}`], { testIds: [t1, t2], kinds: ['transcript'] }, 0, 10)).toEqual([]);
      await store.database.write(null, (tx) => tx.run("DELETE FROM search_entries WHERE session_id = 's2'"));
      expect(await sessionsOf([t2])).toEqual([]);
      await store.database.write(null, (tx) => tx.run("INSERT INTO search_index (search_index) VALUES ('integrity-check')"));
    } finally {
      await store.database.close();
    }
  });
});

describe('SQLite migration 20', () => {
  it("adds the import's outbox batches to a version-19 database; a batch committed by a process that died before expanding it is delivered by the next", async () => {
    const path = join(dir, 'version-19.db');
    const raw = databaseAt(path, 19);
    raw.close();
    await expectPendingBatchesMigrated(() => openSqliteStore(path, new ManualClock()));
  });
});

describe('SQLite migration 21', () => {
  it("keeps a version-20 database's waiting batches, their ids and their ids' sequence, in the rebuilt table", async () => {
    const path = join(dir, 'version-20.db');
    const raw = databaseAt(path, 20);
    const insert = raw.prepare("INSERT INTO webhook_pending_batches (type, test_id, workspace_id, session_ids, created_at) VALUES ('session.completed', 't', NULL, ?, 5)");
    for (const ids of [['a', 'b'], ['c'], ['d']]) insert.run(JSON.stringify(ids));
    raw.prepare('DELETE FROM webhook_pending_batches WHERE id = 3').run();
    raw.close();
    const store = await openSqliteStore(path, new ManualClock());
    try {
      expect((await store.database.migrate()).applied[0]).toBe(21);
      const rows = await store.database.all('SELECT id, session_ids, key_range, created_at FROM webhook_pending_batches ORDER BY id');
      expect(rows).toEqual([
        { id: 1, session_ids: '["a","b"]', key_range: null, created_at: 5 },
        { id: 2, session_ids: '["c"]', key_range: null, created_at: 5 },
      ]);
      // A batch's id is never used twice (event ids derive from it): the next is 4.
      await store.database.write(null, (tx) => tx.run("INSERT INTO webhook_pending_batches (type, test_id, session_ids, created_at) VALUES ('session.completed', 't', '[]', 6)"));
      expect(await store.database.one('SELECT MAX(id) AS id FROM webhook_pending_batches')).toEqual({ id: 4 });
    } finally {
      await store.database.close();
    }
  });
});

describe('SQLite: pages of one status', () => {
  it('read one range of the primary key (clustered by status), at any depth, whatever lies between (no scan, no sort)', async () => {
    const path = join(dir, 'plans.db');
    const store = await openSqliteStore(path, new ManualClock());
    const raw = new Database(path, { readonly: true });
    try {
      await store.database.migrate();
      const by = { actor: 'test' };
      await store.directory.createWorkspace({ id: 'w', name: 'W' }, by);
      await store.directory.createTest({ id: 't', workspaceId: 'w', title: 'T', productType: 'survey' }, by);
      const statuses = ['COMPLETE', 'ABANDONED', 'IN_PROGRESS', 'COMPLETE'];
      await store.sessions.importSessions(
        't',
        Array.from({ length: 400 }, (_, i) => ({ sessionId: `s${i}`, audienceId: null, status: statuses[i % 4]!, startTime: i, finishTime: null })),
        by,
      );
      // The statements the repository runs, as it runs them (better-sqlite3 binds @name itself).
      const seen: { sql: string; params: Record<string, unknown> }[] = [];
      const all = store.database.all.bind(store.database);
      store.database.all = (async (sql: string, params: Record<string, unknown> = {}) => {
        seen.push({ sql, params });
        return all(sql, params);
      }) as typeof store.database.all;
      await store.sessions.listSessions('t', 10, 25, { status: 'COMPLETE' });
      const [anchor] = await store.sessions.listSessionKeys('t', 100, 10_100, 'COMPLETE');
      await store.sessions.listSessions('t', 10, 25, { status: 'COMPLETE', after: anchor! });
      expect(seen).toHaveLength(3);
      for (const { sql, params } of seen) {
        const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((r) => r.detail);
        const reads = plan.filter((d) => / sessions /.test(` ${d} `));
        expect(reads, plan.join('\n')).toEqual([expect.stringMatching(/^SEARCH sessions USING PRIMARY KEY \(test_id=\? AND status=\?/)]);
      }
    } finally {
      raw.close();
      await store.database.close();
    }
  });
});

describe('SQLite: which commits the caches hear of', () => {
  it("moves the change version for another connection's commit, never for this process's own (which announce what they change)", async () => {
    const path = join(dir, 'versions.db');
    const announced: string[] = [];
    const store = await openSqliteStore(path, new ManualClock(), async (change) => void announced.push(change.topic));
    const other = await openSqliteStore(path, new ManualClock());
    const version = () => store.database.externalChangeVersion!();
    try {
      await store.database.migrate();
      const start = version();
      // A write that changes nothing cached (a refresh token's rotation, a last-use time): no cache empties.
      await store.settings.getOrSet('own', 'a');
      expect(version()).toBe(start);
      expect(announced).toEqual([]);
      // A write that does change what is cached reaches this process's caches by its announcement.
      await store.directory.createWorkspace({ id: 'w', name: 'W' }, { actor: 'test' });
      expect(version()).toBe(start);
      expect(announced).toEqual(['access']);
      // Another process (a CLI command, another worker) announces nothing here: its commit moves the version.
      await other.settings.getOrSet('other', 'b');
      const afterOther = version();
      expect(afterOther).not.toBe(start);
      // Seen from inside this process's own write transaction too.
      await other.settings.getOrSet('other-2', 'c');
      await store.database.write(null, async () => expect(version()).not.toBe(afterOther));
    } finally {
      await other.database.close();
      await store.database.close();
    }
  });
});
