import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import { conflict } from './conflicts.js';
import type { Database, Transaction } from './database.js';
import { sessionKeyOf, sessionOf } from './rows.js';
import { writeSessionDetails } from './session-details.js';
import { inList, recordWebhookEvent, SessionCompletionEvents } from './webhook-events.js';
import { expandKeyRangeBatches } from './webhook-pending-batches.js';
import { COMPLETED_STATUS, type Actor, type ImportResult, type Session, type SessionInput, type SessionKey, type StoredDetails } from './store.js';

export type SessionBatches = AsyncIterable<readonly SessionInput[]> | Iterable<readonly SessionInput[]>;

/**
 * How one database engine writes a stream of sessions in bulk, the one place where the
 * engines differ enough to need their own code. It reads `batches` and calls `commit` exactly
 * once, handing it `writeAll`, which the repository runs inside its write transaction.
 * `writeAll` stages every row first; `beforeApply`, when given, is then called with the
 * staging table's name (columns session_id and status among others, a session listed twice
 * staged twice), before anything in `sessions` changes.
 */
export type SessionBulkWriter = (
  testId: string,
  batches: SessionBatches,
  commit: (writeAll: (tx: Transaction, beforeApply?: (staged: string) => Promise<void>) => Promise<ImportResult>) => Promise<ImportResult>,
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
    // Every session read, by status: when all of them turn out new, the stored counts just grow by these.
    const read = new Map<string, number>();
    // Details ride along with their sessions: set aside as the writer reads the batches (the
    // last copy of a session wins), written after the sessions in the same transaction.
    const details = new Map<string, StoredDetails>();
    async function* withDetailsSetAside(): AsyncGenerator<readonly SessionInput[]> {
      for await (const batch of batches) {
        for (const s of batch) if (s.details !== undefined) details.set(s.sessionId, s.details);
        yield batch;
      }
    }
    return this.bulkWriter(testId, countStatuses(withDetailsSetAside(), read), (writeAll) =>
      this.db.write({ topic: 'sessions', testId }, async (tx) => {
        // Locking the test serializes imports into it, which keeps session_count exact.
        if (!(await tx.one('SELECT 1 AS found FROM tests WHERE id = @testId FOR UPDATE', { testId }))) throw conflict.noTest(testId);
        await expandKeyRangeBatches(tx, this.clock, testId);
        const completions = await SessionCompletionEvents.start(tx, this.db.dialect, this.clock, testId);
        const result = await writeAll(tx, completions ? (staged) => completions.beforeApply(staged) : undefined);
        if (details.size > 0) {
          await writeSessionDetails(tx, testId, details);
          await recordWebhookEvent(tx, this.clock, { type: 'qxscores.updated', testId, data: {} });
        }
        await completions?.record();
        if (result.inserted > 0) {
          await tx.run('UPDATE tests SET session_count = session_count + @inserted WHERE id = @testId', { testId, inserted: result.inserted });
        }
        if (result.updated === 0 && result.unchanged === 0) await addStatusCounts(tx, testId, read);
        else if (result.inserted > 0 || result.updated > 0) await recountStatuses(tx, testId);
        await audit(tx, this.clock, by, 'sessions.import', testId, { ...result });
        return result;
      }),
    );
  }

  /**
   * A page of the test's sessions in page order, of every status or only `filter.status`.
   * With `filter.after`, the listing starts just past that key and `offset` counts from there
   * (a seek instead of skipping rows).
   */
  async listSessions(testId: string, offset: number, limit: number, filter: SessionFilter = {}): Promise<Session[]> {
    const { where, params } = sessionWhere(testId, filter);
    const rows = await this.db.all(
      `SELECT ${COLUMNS} FROM sessions WHERE ${where} ORDER BY start_time DESC, session_id DESC LIMIT @limit OFFSET @offset`,
      { ...params, limit, offset },
    );
    return rows.map(sessionOf(testId));
  }

  /**
   * Keys of the sessions (of every status, or only `status`) at 0-based positions every−1,
   * 2·every−1, … below `upTo`, in page order: anchors from which any offset up to `upTo` is
   * a short seek.
   */
  async listSessionKeys(testId: string, every: number, upTo: number, status?: string): Promise<SessionKey[]> {
    const { where, params } = sessionWhere(testId, status === undefined ? {} : { status });
    const rows = await this.db.all(
      `SELECT start_time, session_id FROM (
         SELECT start_time, session_id, ROW_NUMBER() OVER (ORDER BY start_time DESC, session_id DESC) AS n
           FROM sessions WHERE ${where} ORDER BY start_time DESC, session_id DESC LIMIT @upTo) AS page_order
        WHERE n % @every = 0 ORDER BY n`,
      { ...params, every, upTo },
    );
    return rows.map(sessionKeyOf);
  }

  /** How many sessions of the test have `status`: the count each import stores, not a COUNT(*). */
  async countSessions(testId: string, status: string): Promise<number> {
    const r = await this.db.one('SELECT session_count FROM session_counts WHERE test_id = @testId AND status = @status', { testId, status });
    return r ? Number(r.session_count) : 0;
  }

  /** The test's session count per status (statuses it holds none of are left out), by status name. */
  async countSessionsByStatus(testId: string): Promise<Record<string, number>> {
    const rows = await this.db.all('SELECT status, session_count FROM session_counts WHERE test_id = @testId ORDER BY status', { testId });
    return Object.fromEntries(rows.map((r) => [r.status as string, Number(r.session_count)]));
  }
  /**
   * One keyset page of the COMPLETE sessions of a test in page order (newest first): the
   * `limit` sessions just past `from` (`after`, older) or just before it (`before`, newer,
   * still returned newest first). A seek in one status's range (SQLite's primary key,
   * PostgreSQL's sessions_by_status index): the cost is the same at any depth, and sessions
   * imported meanwhile never shift a page.
   */
  async listCompletedSessions(testId: string, limit: number, from?: { key: SessionKey; direction: 'after' | 'before' }): Promise<Session[]> {
    const params = { testId, status: COMPLETED_STATUS, limit, startTime: from?.key.startTime ?? 0, sessionId: from?.key.sessionId ?? '' };
    const where = 'test_id = @testId AND status = @status';
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


  /**
   * The session's place among its test's sessions of every status, from 1, in the order they
   * started (ties by id): the Legacy v1 `sequenceNumber`. Fixed once imported, as sessions start
   * in the past; one count over the test's primary-key range, so its cost grows with the place.
   */
  async sequenceNumber(session: Pick<Session, 'testId' | 'sessionId' | 'startTime'>): Promise<number> {
    const r = await this.db.one<{ n: number | string }>(
      'SELECT COUNT(*) AS n FROM sessions WHERE test_id = @testId AND (start_time, session_id) <= (@startTime, @sessionId)',
      { testId: session.testId, startTime: session.startTime, sessionId: session.sessionId },
    );
    return Number(r?.n ?? 0);
  }

  /** A session by its id, whatever its test. */
  async findSession(sessionId: string): Promise<Session | null> {
    const r = await this.db.one<{ test_id: string }>(`SELECT test_id, ${COLUMNS} FROM sessions WHERE session_id = @sessionId`, { sessionId });
    return r ? sessionOf(r.test_id)(r) : null;
  }

  /** The sessions of `sessionIds` that exist (a batch's worth of ids), in no order. */
  async findSessions(sessionIds: readonly string[]): Promise<Session[]> {
    if (sessionIds.length === 0) return [];
    const ids = inList(sessionIds, 's');
    const rows = await this.db.all<{ test_id: string }>(`SELECT test_id, ${COLUMNS} FROM sessions WHERE session_id IN (${ids.sql})`, ids.params);
    return rows.map((r) => sessionOf(r.test_id)(r));
  }

  /** Which of the given sessions (a page's worth of ids) have a video, and which a transcript. */
  async mediaOf(sessionIds: readonly string[]): Promise<{ videos: Set<string>; transcripts: Set<string> }> {
    if (sessionIds.length === 0) return { videos: new Set(), transcripts: new Set() };
    const params: Record<string, string> = {};
    const names = sessionIds.map((sessionId, i) => {
      params[`s${i}`] = sessionId;
      return `@s${i}`;
    });
    const rows = await this.db.all<{ session_id: string; kind: string }>(
      `SELECT session_id, 'video' AS kind FROM videos WHERE session_id IN (${names.join(', ')})
       UNION ALL SELECT session_id, 'transcript' AS kind FROM transcripts WHERE session_id IN (${names.join(', ')})`,
      params,
    );
    const of = (kind: string) => new Set(rows.filter((r) => r.kind === kind).map((r) => r.session_id));
    return { videos: of('video'), transcripts: of('transcript') };
  }
}

/** Which sessions of a test a listing covers. */
export interface SessionFilter {
  /** Only sessions with this status (all statuses when absent). */
  status?: string;
  /** Only sessions after this key in page order. */
  after?: SessionKey;
}

function sessionWhere(testId: string, filter: SessionFilter): { where: string; params: Record<string, unknown> } {
  const conditions = ['test_id = @testId'];
  const params: Record<string, unknown> = { testId };
  if (filter.status !== undefined) {
    conditions.push('status = @status');
    params.status = filter.status;
  }
  if (filter.after) {
    conditions.push('(start_time, session_id) < (@startTime, @sessionId)');
    params.startTime = filter.after.startTime;
    params.sessionId = filter.after.sessionId;
  }
  return { where: conditions.join(' AND '), params };
}

async function* countStatuses(batches: SessionBatches, counts: Map<string, number>): AsyncGenerator<readonly SessionInput[]> {
  for await (const batch of batches) {
    for (const s of batch) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
    yield batch;
  }
}

/** Adds sessions just inserted to the test's per-status counts (none of them replaced a session). */
async function addStatusCounts(tx: Transaction, testId: string, inserted: ReadonlyMap<string, number>): Promise<void> {
  for (const [status, count] of inserted) {
    await tx.run(
      `INSERT INTO session_counts (test_id, status, session_count) VALUES (@testId, @status, @count)
       ON CONFLICT (test_id, status) DO UPDATE SET session_count = session_counts.session_count + excluded.session_count`,
      { testId, status, count },
    );
  }
}

/**
 * Rewrites the test's per-status counts from its sessions, inside the import's transaction,
 * after an import that replaced sessions: a replaced session may have changed status, which a
 * running total would have to track row by row in each dialect's bulk writer. One range count.
 */
async function recountStatuses(tx: Transaction, testId: string): Promise<void> {
  await tx.run('DELETE FROM session_counts WHERE test_id = @testId', { testId });
  await tx.run(
    `INSERT INTO session_counts (test_id, status, session_count)
     SELECT test_id, status, COUNT(*) FROM sessions WHERE test_id = @testId GROUP BY test_id, status`,
    { testId },
  );
}
