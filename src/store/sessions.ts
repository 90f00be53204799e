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
}
