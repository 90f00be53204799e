import { jsonRows, type Database, type Transaction } from './database.js';
import { answerEntries, writeSearchEntries } from './search.js';
import { COMPLETED_STATUS, type StoredDetails } from './store.js';

/** Rows per INSERT of the details writer (one JSON parameter): bounds the statement's size. */
const WRITE_CHUNK = 500;

/**
 * The details of each session (what it contains: src/details/), one JSON document per session.
 * Written only by the session import, inside its transaction (writeSessionDetails), so a
 * session and its details arrive together or not at all.
 */
export class SessionDetailsRepository {
  constructor(private readonly db: Database) {}

  /** The session's details as imported, or null when none were. */
  async findDetails(sessionId: string): Promise<unknown> {
    const r = await this.db.one<{ details: string }>('SELECT details FROM session_details WHERE session_id = @sessionId', { sessionId });
    return r ? (JSON.parse(r.details) as unknown) : null;
  }

  /**
   * The details of the given sessions in one query (a page's worth, at most a few hundred ids):
   * by session id, sessions without details left out.
   */
  async listDetails(sessionIds: readonly string[]): Promise<Map<string, unknown>> {
    if (sessionIds.length === 0) return new Map();
    const params: Record<string, unknown> = {};
    const names = sessionIds.map((sessionId, i) => {
      params[`s${i}`] = sessionId;
      return `@s${i}`;
    });
    const rows = await this.db.all<{ session_id: string; details: string }>(
      `SELECT session_id, details FROM session_details WHERE session_id IN (${names.join(', ')})`,
      params,
    );
    return new Map(rows.map((r) => [r.session_id, JSON.parse(r.details) as unknown]));
  }

  /** The scoring projection of every COMPLETE session of the test that has details (what a QXscore is computed from). */
  async listCompletedScoring(testId: string): Promise<unknown[][]> {
    const rows = await this.db.all<{ scoring: string }>(
      `SELECT d.scoring FROM sessions s JOIN session_details d ON d.session_id = s.session_id
        WHERE s.test_id = @testId AND s.status = @status`,
      { testId, status: COMPLETED_STATUS },
    );
    return rows.map((r) => JSON.parse(r.scoring) as unknown[]);
  }
}

/**
 * Upserts the details of sessions of `testId` (by sessionId; the last given wins), and their
 * answers' search entries, inside the import's transaction. Sessions given without details keep
 * the details they have.
 */
export async function writeSessionDetails(tx: Transaction, testId: string, details: ReadonlyMap<string, StoredDetails>): Promise<void> {
  const rows = [...details].map(([sessionId, stored]) => [sessionId, JSON.stringify(stored.document), JSON.stringify(stored.scoring)]);
  for (let at = 0; at < rows.length; at += WRITE_CHUNK) {
    await tx.run(
      `INSERT INTO session_details (session_id, test_id, details, scoring)
       SELECT value ->> 0, @testId, value ->> 1, value ->> 2 FROM ${jsonRows(tx.dialect, 'rows')} WHERE true
       ON CONFLICT (session_id) DO UPDATE SET details = excluded.details, scoring = excluded.scoring
        WHERE session_details.details <> excluded.details`,
      { testId, rows: JSON.stringify(rows.slice(at, at + WRITE_CHUNK)) },
    );
  }
  const answers = new Map([...details].map(([sessionId, stored]) => [sessionId, answerEntries(stored.document)]));
  await writeSearchEntries(tx, testId, 'answer', answers);
}
