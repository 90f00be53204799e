import { conflict } from '../conflicts.js';
import type { Row } from '../database.js';
import type { SessionBulkWriter } from '../sessions.js';
import type { ImportResult, SessionInput } from '../store.js';

/** Rows per statement: bounds statement size, memory and lock hold per step. */
const CHUNK_ROWS = 1000;

/**
 * Upserts one chunk. Rows of another test are "updated" too, only so that RETURNING reports
 * them (test_id is never changed); the writer then throws and the transaction rolls back.
 * xmax = 0 marks a freshly inserted row; unchanged rows of this test are not returned.
 */
const UPSERT_CHUNK = `INSERT INTO sessions AS s (test_id, session_id, audience_id, status, start_time, finish_time)
  SELECT @testId::text, i.* FROM unnest(@sessionIds::text[], @audienceIds::text[], @statuses::text[],
                                        @startTimes::bigint[], @finishTimes::bigint[])
                         AS i (session_id, audience_id, status, start_time, finish_time)
  ON CONFLICT (session_id) DO UPDATE
     SET audience_id = excluded.audience_id, status = excluded.status,
         start_time = excluded.start_time, finish_time = excluded.finish_time
   WHERE s.test_id <> excluded.test_id
      OR (s.audience_id, s.status, s.start_time, s.finish_time)
         IS DISTINCT FROM (excluded.audience_id, excluded.status, excluded.start_time, excluded.finish_time)
  RETURNING s.session_id, s.test_id, s.xmax = 0 AS inserted`;

/** PostgreSQL's bulk writer: every batch is upserted as it arrives, inside the one transaction. */
export const postgresSessionWriter: SessionBulkWriter = (testId, batches, commit) =>
  commit(async (tx) => {
    const result: ImportResult = { inserted: 0, updated: 0, unchanged: 0 };
    for await (const batch of batches) {
      for (const chunk of chunks(batch)) {
        const rows = await tx.all<Row>(UPSERT_CHUNK, {
          testId,
          sessionIds: chunk.map((s) => s.sessionId),
          audienceIds: chunk.map((s) => s.audienceId),
          statuses: chunk.map((s) => s.status),
          startTimes: chunk.map((s) => s.startTime),
          finishTimes: chunk.map((s) => s.finishTime),
        });
        const foreign = new Set(rows.filter((r) => r.test_id !== testId).map((r) => r.session_id as string));
        if (foreign.size > 0) throw conflict.foreignSession(chunk.find((s) => foreign.has(s.sessionId))!.sessionId);
        const inserted = rows.filter((r) => r.inserted === true).length;
        result.inserted += inserted;
        result.updated += rows.length - inserted;
        result.unchanged += chunk.length - rows.length;
      }
    }
    return result;
  });

/**
 * Splits a batch into chunks of at most CHUNK_ROWS rows in which no sessionId repeats (one
 * INSERT ... ON CONFLICT cannot touch a row twice). Order is kept, so a repeated session is
 * applied in sequence and the last one wins, as in a row-by-row import.
 */
function* chunks(sessions: readonly SessionInput[]): Generator<SessionInput[]> {
  let chunk: SessionInput[] = [];
  let ids = new Set<string>();
  for (const s of sessions) {
    if (chunk.length === CHUNK_ROWS || ids.has(s.sessionId)) {
      yield chunk;
      chunk = [];
      ids = new Set();
    }
    chunk.push(s);
    ids.add(s.sessionId);
  }
  if (chunk.length > 0) yield chunk;
}
