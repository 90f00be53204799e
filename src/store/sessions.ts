import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import { conflict } from './conflicts.js';
import type { Database, Transaction } from './database.js';
import { sessionKeyOf, sessionOf } from './rows.js';
import type { Actor, ImportResult, Session, SessionInput, SessionKey } from './store.js';

export type SessionBatches = AsyncIterable<readonly SessionInput[]> | Iterable<readonly SessionInput[]>;

/**
 * How one database engine writes a stream of sessions in bulk, the one place where the
 * engines differ enough to need their own code. It reads `batches` and calls `commit` exactly
 * once, handing it `writeAll`, which the repository runs inside its write transaction.
 */
export type SessionBulkWriter = (
  testId: string,
  batches: SessionBatches,
  commit: (writeAll: (tx: Transaction) => Promise<ImportResult>) => Promise<ImportResult>,
) => Promise<ImportResult>;

const COLUMNS = 'session_id, audience_id, status, start_time, finish_time';

/** The sessions of each test, in page order: newest first by startTime, ties by sessionId descending. */
export class SessionRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly bulkWriter: SessionBulkWriter,
  ) {}

  /**
   * Upserts by sessionId in one transaction: all rows or none. A session listed twice is
   * applied in order (the last one wins; each later copy counts as updated or unchanged).
   */
  importSessions(testId: string, sessions: readonly SessionInput[], by: Actor): Promise<ImportResult> {
    return this.importSessionStream(testId, [sessions], by);
  }

  /**
   * `importSessions` for more sessions than fit in memory: reads `batches` one at a time and
   * writes them all or none, in one transaction that commits only after the last batch. If
   * the iterator throws (a bad line found late, an interrupt) or the process dies, the
   * database is left exactly as it was; the iterator's error is rethrown.
   */
  async importSessionStream(testId: string, batches: SessionBatches, by: Actor): Promise<ImportResult> {
    if (!(await this.db.one('SELECT 1 AS found FROM tests WHERE id = @testId', { testId }))) throw conflict.noTest(testId);
    return this.bulkWriter(testId, batches, (writeAll) =>
      this.db.write({ topic: 'sessions', testId }, async (tx) => {
        // Locking the test serializes imports into it, which keeps session_count exact.
        if (!(await tx.one('SELECT 1 AS found FROM tests WHERE id = @testId FOR UPDATE', { testId }))) throw conflict.noTest(testId);
        const result = await writeAll(tx);
        if (result.inserted > 0) {
          await tx.run('UPDATE tests SET session_count = session_count + @inserted WHERE id = @testId', { testId, inserted: result.inserted });
        }
        await audit(tx, this.clock, by, 'sessions.import', testId, { ...result });
        return result;
      }),
    );
  }

  /** With `after`, the listing starts just past that key and `offset` counts from there (a seek instead of skipping rows). */
  async listSessions(testId: string, offset: number, limit: number, after?: SessionKey): Promise<Session[]> {
    const rows = after
      ? await this.db.all(
          `SELECT ${COLUMNS} FROM sessions
            WHERE test_id = @testId AND (start_time, session_id) < (@startTime, @sessionId)
            ORDER BY start_time DESC, session_id DESC LIMIT @limit OFFSET @offset`,
          { testId, limit, offset, startTime: after.startTime, sessionId: after.sessionId },
        )
      : await this.db.all(
          `SELECT ${COLUMNS} FROM sessions
            WHERE test_id = @testId ORDER BY start_time DESC, session_id DESC LIMIT @limit OFFSET @offset`,
          { testId, limit, offset },
        );
    return rows.map(sessionOf(testId));
  }

  /**
   * Keys of the sessions at 0-based positions every−1, 2·every−1, … below `upTo`, in page
   * order: anchors from which any offset up to `upTo` is a short seek.
   */
  async listSessionKeys(testId: string, every: number, upTo: number): Promise<SessionKey[]> {
    const rows = await this.db.all(
      `SELECT start_time, session_id FROM (
         SELECT start_time, session_id, ROW_NUMBER() OVER (ORDER BY start_time DESC, session_id DESC) AS n
           FROM sessions WHERE test_id = @testId ORDER BY start_time DESC, session_id DESC LIMIT @upTo) AS page_order
        WHERE n % @every = 0 ORDER BY n`,
      { testId, every, upTo },
    );
    return rows.map(sessionKeyOf);
  }
  /**
   * One keyset page of the COMPLETE sessions of a test in page order (newest first): the
   * `limit` sessions just past `from` (`after`, older) or just before it (`before`, newer,
   * still returned newest first). A seek on the sessions_completed index: the cost is the
   * same at any depth, and sessions imported meanwhile never shift a page.
   */
  async listCompletedSessions(testId: string, limit: number, from?: { key: SessionKey; direction: 'after' | 'before' }): Promise<Session[]> {
    const params = { testId, limit, startTime: from?.key.startTime ?? 0, sessionId: from?.key.sessionId ?? '' };
    const where = "test_id = @testId AND status = 'COMPLETE'";
    if (from?.direction === 'before') {
      const rows = await this.db.all(
        `SELECT ${COLUMNS} FROM sessions WHERE ${where} AND (start_time, session_id) > (@startTime, @sessionId)
          ORDER BY start_time, session_id LIMIT @limit`,
        params,
      );
      return rows.reverse().map(sessionOf(testId));
    }
    const rows = from
      ? await this.db.all(
          `SELECT ${COLUMNS} FROM sessions WHERE ${where} AND (start_time, session_id) < (@startTime, @sessionId)
            ORDER BY start_time DESC, session_id DESC LIMIT @limit`,
          params,
        )
      : await this.db.all(`SELECT ${COLUMNS} FROM sessions WHERE ${where} ORDER BY start_time DESC, session_id DESC LIMIT @limit`, params);
    return rows.map(sessionOf(testId));
  }

  /** COMPLETE sessions of a test: an index-only count, proportional to their number (callers cache it). */
  async countCompletedSessions(testId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM sessions WHERE test_id = @testId AND status = 'COMPLETE'", { testId });
    return Number(row?.n ?? 0);
  }

  /** A session by its id, whatever its test. */
  async findSession(sessionId: string): Promise<Session | null> {
    const r = await this.db.one<{ test_id: string }>(`SELECT test_id, ${COLUMNS} FROM sessions WHERE session_id = @sessionId`, { sessionId });
    return r ? sessionOf(r.test_id)(r) : null;
  }
}
