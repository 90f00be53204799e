import { availableParallelism } from 'node:os';
import type Database from 'better-sqlite3';
import { conflict } from '../conflicts.js';
import type { SessionBulkWriter } from '../sessions.js';
import type { ImportResult, SessionInput } from '../store.js';
import type { SqliteDatabase } from './sqlite-database.js';

/**
 * SQLite's bulk writer: stages every batch first (each step queued with the database's other
 * writes), then writes them all inside the repository's transaction.
 */
export function sqliteSessionWriter(database: SqliteDatabase): SessionBulkWriter {
  /** Names each import's staging table, so imports interleaving on the connection never share one. */
  let serial = 0;
  return async (testId, batches, commit) => {
    const staging = await database.exclusive((writer) => new SqliteSessionImport(writer, testId, ++serial));
    try {
      for await (const batch of batches) await database.exclusive(() => staging.stage(batch));
      return await commit(async (_tx, beforeApply) => {
        await beforeApply?.(staging.table);
        return staging.apply();
      });
    } finally {
      await database.exclusive(() => staging.discard());
    }
  };
}

/**
 * An import of sessions into SQLite, in two steps:
 *
 * 1. `stage` copies each batch into a TEMP table of this connection. TEMP tables live in a
 *    private file that SQLite unlinks as soon as it opens it, so staging takes no lock on the
 *    database, holds no transaction open between batches (the connection stays usable while
 *    the next batch is read), keeps memory bounded by the page cache, and leaves nothing
 *    behind if the process dies.
 * 2. `apply` runs inside the repository's IMMEDIATE transaction and writes everything set-wise:
 *    one join finds foreign, changed and unchanged sessions, then the new and changed rows go
 *    in, in page order. When the import is large next to what the database holds, the unique
 *    index on sessionId is dropped and rebuilt by one sort instead of taking a random insert
 *    per row (a 1M-row index does not fit the page cache: random inserts are ~10x slower).
 *
 * A sessionId listed twice shows up as a unique-constraint failure of the set-wise insert;
 * the import then falls back to applying rows one by one in stream order, as a row-by-row
 * import would (the last copy wins).
 */
export class SqliteSessionImport {
  /** The staging table's name, `temp.`-qualified. */
  readonly table: string;
  /** Inserts STAGE_ROWS rows per call: the per-call cost of the driver, not SQLite, dominates a one-row insert. */
  private readonly insertMany: Database.Statement;
  private readonly insertOne: Database.Statement;
  private readonly values: unknown[] = new Array<unknown>(STAGE_ROWS * 5);
  private staged = 0;
  private previousStart = -Infinity;
  /**
   * Whether the stream so far is in startTime order, or its reverse (an export's order): either
   * way each status's rows go into the table (ordered by status, then startTime) as appends.
   */
  private ascending = true;
  private descending = true;
  /** The statuses staged, to copy them in the table's order (another order would only be slower). */
  private readonly statuses = new Set<string>();

  constructor(
    private readonly db: Database.Database,
    private readonly testId: string,
    serial: number,
  ) {
    this.table = `temp.session_import_${serial}`;
    // Staging only appends and then reads in order: a small cache of its own does, and bounds memory.
    db.pragma(`temp.cache_size = ${-STAGING_CACHE_KIB}`);
    db.exec(
      `CREATE TEMP TABLE session_import_${serial} (
         position INTEGER PRIMARY KEY,
         session_id TEXT NOT NULL,
         audience_id TEXT,
         status TEXT NOT NULL,
         start_time INTEGER NOT NULL,
         finish_time INTEGER
       )`,
    );
    const insert = `INSERT INTO ${this.table} (session_id, audience_id, status, start_time, finish_time) VALUES `;
    this.insertMany = db.prepare(insert + new Array(STAGE_ROWS).fill('(?, ?, ?, ?, ?)').join(', '));
    this.insertOne = db.prepare(`${insert}(?, ?, ?, ?, ?)`);
  }

  /** Copies one batch into the staging table (one transaction on the TEMP file only). */
  stage(batch: readonly SessionInput[]): void {
    if (batch.length === 0) return;
    this.db.transaction(() => {
      const values = this.values;
      let i = 0;
      for (; i + STAGE_ROWS <= batch.length; i += STAGE_ROWS) {
        for (let j = 0; j < STAGE_ROWS; j++) {
          const s = batch[i + j]!;
          const at = j * 5;
          values[at] = s.sessionId;
          values[at + 1] = s.audienceId;
          values[at + 2] = s.status;
          values[at + 3] = s.startTime;
          values[at + 4] = s.finishTime;
          this.track(s);
        }
        this.insertMany.run(values);
      }
      for (; i < batch.length; i++) {
        const s = batch[i]!;
        this.insertOne.run(s.sessionId, s.audienceId, s.status, s.startTime, s.finishTime);
        this.track(s);
      }
    })();
    this.staged += batch.length;
  }

  /** Ties on startTime may come in any order: they land side by side in the table all the same. */
  private track(s: SessionInput): void {
    this.statuses.add(s.status);
    const previous = this.previousStart;
    if (s.startTime < previous) this.ascending = false;
    if (s.startTime > previous && previous !== -Infinity) this.descending = false;
    this.previousStart = s.startTime;
  }

  /** Writes the staged sessions. Call inside an IMMEDIATE transaction, after checking the test exists. */
  apply(): ImportResult {
    if (this.staged === 0) return { inserted: 0, updated: 0, unchanged: 0 };
    this.db.exec('SAVEPOINT session_import');
    try {
      const result = this.applySetWise();
      this.db.exec('RELEASE session_import');
      return result;
    } catch (err) {
      this.db.exec('ROLLBACK TO session_import');
      this.db.exec('RELEASE session_import');
      if (!isUniqueViolation(err)) throw err;
      return this.applyRowByRow();
    }
  }

  /** Drops the staging table; safe to call more than once. */
  discard(): void {
    this.db.exec(`DROP TABLE IF EXISTS ${this.table}`);
  }

  private applySetWise(): ImportResult {
    const { db, table, testId } = this;
    // CROSS JOIN keeps the staging table outside: one index probe per staged row, never a scan of all sessions.
    const matches = `FROM ${table} AS s CROSS JOIN sessions AS x WHERE x.session_id = s.session_id`;
    const same = `x.start_time = s.start_time AND x.audience_id IS s.audience_id AND x.status = s.status AND x.finish_time IS s.finish_time`;
    const counts = db
      .prepare(
        `SELECT COUNT(*) AS existing, COALESCE(SUM(x.test_id <> @testId), 0) AS foreign_count,
                COALESCE(SUM(x.test_id = @testId AND ${same}), 0) AS unchanged ${matches}`,
      )
      .get({ testId }) as { existing: number; foreign_count: number; unchanged: number };
    if (counts.foreign_count > 0) {
      const first = db.prepare(`SELECT s.session_id ${matches} AND x.test_id <> ? ORDER BY s.position LIMIT 1`).pluck().get(testId);
      throw conflict.foreignSession(String(first));
    }
    const updated = counts.existing - counts.unchanged;
    const inserted = this.staged - counts.existing;

    if (counts.existing > 0) {
      // Changed sessions are replaced (their startTime, part of the key, may change); unchanged ones are left alone.
      db.prepare(`DELETE FROM sessions WHERE session_id IN (SELECT s.session_id ${matches} AND NOT (${same}))`).run();
      db.prepare(`DELETE FROM ${table} WHERE position IN (SELECT s.position ${matches})`).run();
    }

    const toWrite = inserted + updated;
    if (toWrite > 0) {
      const insert = `INSERT INTO sessions (test_id, status, start_time, session_id, audience_id, finish_time)
                      SELECT @testId, status, start_time, session_id, audience_id, finish_time FROM ${table}`;
      // In the table's order (status, then startTime), so each status's rows are appended in turn
      // (interleaved, they would split pages half full): a pass per status over a stream already
      // in startTime order, or one sort otherwise. Prepared only when run: a statement prepared
      // before the DROP INDEX would be recompiled anyway.
      const copy = () => {
        if (!this.ascending && !this.descending) {
          db.prepare(`${insert} ORDER BY status, start_time, session_id`).run({ testId });
          return;
        }
        const statement = db.prepare(`${insert} WHERE status = @status ORDER BY position${this.ascending ? '' : ' DESC'}`);
        for (const status of [...this.statuses].sort()) statement.run({ testId, status });
      };
      if (this.rebuildPays(toWrite)) {
        // Appending and sorting gain nothing from a big page cache: a small one keeps memory down.
        // The rebuild's sort may use the other cores (SQLite's multi-threaded sorter).
        const cacheSize = db.pragma('cache_size', { simple: true }) as number;
        db.pragma(`cache_size = ${-REBUILD_CACHE_KIB}`);
        db.pragma(`threads = ${SORTER_THREADS}`);
        try {
          db.exec('DROP INDEX sessions_by_id');
          copy();
          db.exec(SESSIONS_BY_ID);
        } finally {
          db.pragma(`cache_size = ${cacheSize}`);
          db.pragma('threads = 0');
        }
      } else {
        copy();
      }
    }
    return { inserted, updated, unchanged: counts.unchanged };
  }

  /**
   * Whether rebuilding the sessionId index (a sort of every session) costs less than a random
   * index insert per written row: when the rows written are many and at least a quarter of
   * what the database already holds.
   */
  private rebuildPays(toWrite: number): boolean {
    if (toWrite < REBUILD_MIN_ROWS) return false;
    const held = this.db.prepare('SELECT COALESCE(SUM(session_count), 0) FROM tests').pluck().get() as number;
    return toWrite * 4 >= held;
  }

  /** Row by row in stream order: what a repeated sessionId needs (each copy applied in turn). */
  private applyRowByRow(): ImportResult {
    const { db, table, testId } = this;
    const read = db.prepare(
      `SELECT position, session_id, audience_id, status, start_time, finish_time FROM ${table}
        WHERE position > ? ORDER BY position LIMIT 1000`,
    );
    const existing = db.prepare('SELECT test_id, audience_id, status, start_time, finish_time FROM sessions WHERE session_id = ?');
    const insert = db.prepare(
      `INSERT INTO sessions (test_id, start_time, session_id, audience_id, status, finish_time) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const update = db.prepare(
      'UPDATE sessions SET start_time = ?, audience_id = ?, status = ?, finish_time = ? WHERE session_id = ?',
    );
    const result: ImportResult = { inserted: 0, updated: 0, unchanged: 0 };
    let after = 0;
    for (;;) {
      // Read a slice, then write: better-sqlite3 runs nothing else while a statement iterates.
      const rows = read.all(after) as StagedRow[];
      if (rows.length === 0) break;
      for (const r of rows) {
        const old = existing.get(r.session_id) as StagedRow & { test_id: string } | undefined;
        if (!old) {
          insert.run(testId, r.start_time, r.session_id, r.audience_id, r.status, r.finish_time);
          result.inserted++;
        } else if (old.test_id !== testId) {
          throw conflict.foreignSession(r.session_id);
        } else if (
          old.start_time !== r.start_time ||
          old.audience_id !== r.audience_id ||
          old.status !== r.status ||
          old.finish_time !== r.finish_time
        ) {
          update.run(r.start_time, r.audience_id, r.status, r.finish_time, r.session_id);
          result.updated++;
        } else {
          result.unchanged++;
        }
      }
      after = rows[rows.length - 1]!.position;
    }
    return result;
  }
}

interface StagedRow {
  position: number;
  session_id: string;
  audience_id: string | null;
  status: string;
  start_time: number;
  finish_time: number | null;
}

/** Page cache of the TEMP file that stages imports. */
const STAGING_CACHE_KIB = 4096;
/** Page cache while the sessionId index is rebuilt (measured: no slower than the default 16 MiB). */
const REBUILD_CACHE_KIB = 8192;

/** Helper threads for the sort of an index rebuild (1M sessions: ~10% faster on 2 cores). */
const SORTER_THREADS = Math.min(4, availableParallelism());

/** Rows per staging INSERT statement. */
const STAGE_ROWS = 25;

/** Below this many written rows, index maintenance is cheap whatever the database holds. */
const REBUILD_MIN_ROWS = 20_000;

/** Exactly as migration 1 creates it. */
const SESSIONS_BY_ID = 'CREATE UNIQUE INDEX sessions_by_id ON sessions (session_id)';

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
