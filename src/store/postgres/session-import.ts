import { conflict } from '../conflicts.js';
import type { Row, Transaction } from '../database.js';
import type { SessionBulkWriter } from '../sessions.js';
import type { ImportResult, SessionInput } from '../store.js';
import type { PostgresDatabase } from './postgres-database.js';

/**
 * PostgreSQL's bulk writer. Inside the repository's transaction, every batch is streamed as it
 * arrives into a temporary table by `COPY` (PostgreSQL's fastest way in: no statement per
 * row or per chunk, no parameter arrays), then one statement upserts them all. A file that
 * lists a sessionId more than once is applied row by row in file order instead, so the last
 * copy wins and each later copy counts as updated or unchanged.
 */
export function postgresSessionWriter(database: PostgresDatabase): SessionBulkWriter {
  return (testId, batches, commit) =>
    commit(async (tx, beforeApply) => {
      await tx.run(CREATE_STAGING);
      await database.copyIn(tx, COPY_STAGING, copyText(batches));
      await beforeApply?.('session_import');
      const { repeated } = (await tx.one<{ repeated: boolean }>(HAS_REPEATS))!;
      return repeated ? upsertInFileOrder(tx, testId) : upsertAll(tx, testId);
    });
}

const CREATE_STAGING = `CREATE TEMP TABLE session_import (
  position bigint NOT NULL, session_id text NOT NULL, audience_id text, status text NOT NULL,
  start_time bigint NOT NULL, finish_time bigint) ON COMMIT DROP`;
const COPY_STAGING = 'COPY session_import (position, session_id, audience_id, status, start_time, finish_time) FROM STDIN';
const HAS_REPEATS = 'SELECT EXISTS (SELECT 1 FROM session_import GROUP BY session_id HAVING COUNT(*) > 1) AS repeated';

/**
 * Rows of another test are "updated" too, only so that RETURNING reports them (test_id is
 * never changed); the writer then throws and the transaction rolls back. xmax = 0 marks a
 * freshly inserted row; unchanged rows of this test are not returned.
 */
const ON_CONFLICT = `
  ON CONFLICT (session_id) DO UPDATE
     SET audience_id = excluded.audience_id, status = excluded.status,
         start_time = excluded.start_time, finish_time = excluded.finish_time
   WHERE s.test_id <> excluded.test_id
      OR (s.audience_id, s.status, s.start_time, s.finish_time)
         IS DISTINCT FROM (excluded.audience_id, excluded.status, excluded.start_time, excluded.finish_time)
  RETURNING s.session_id, s.test_id <> @testId AS is_foreign, s.xmax = 0 AS is_new`;

const UPSERT_ALL = `
  WITH written AS (
    INSERT INTO sessions AS s (test_id, session_id, audience_id, status, start_time, finish_time)
    SELECT @testId::text, session_id, audience_id, status, start_time, finish_time
      FROM session_import ORDER BY start_time, session_id
    ${ON_CONFLICT})
  SELECT COUNT(*) FILTER (WHERE is_new AND NOT is_foreign) AS inserted, COUNT(*) FILTER (WHERE NOT is_foreign) AS written,
         COUNT(*) FILTER (WHERE is_foreign) AS foreign_rows, (SELECT COUNT(*) FROM session_import) AS staged
    FROM written`;

const FIRST_FOREIGN = `
  SELECT i.session_id FROM session_import i JOIN sessions s ON s.session_id = i.session_id
   WHERE s.test_id <> @testId ORDER BY i.position LIMIT 1`;

async function upsertAll(tx: Transaction, testId: string): Promise<ImportResult> {
  const r = (await tx.one<{ inserted: number; written: number; foreign_rows: number; staged: number }>(UPSERT_ALL, { testId }))!;
  if (r.foreign_rows > 0) throw conflict.foreignSession((await tx.one<{ session_id: string }>(FIRST_FOREIGN, { testId }))!.session_id);
  return { inserted: r.inserted, updated: r.written - r.inserted, unchanged: r.staged - r.written };
}

/** Rows per statement of the row-by-row path: bounds statement size, memory and lock hold per step. */
const CHUNK_ROWS = 1000;

const UPSERT_CHUNK = `INSERT INTO sessions AS s (test_id, session_id, audience_id, status, start_time, finish_time)
  SELECT @testId::text, i.* FROM unnest(@sessionIds::text[], @audienceIds::text[], @statuses::text[],
                                        @startTimes::bigint[], @finishTimes::bigint[])
                         AS i (session_id, audience_id, status, start_time, finish_time)
  ${ON_CONFLICT}`;

const STAGED_AFTER = `
  SELECT position, session_id, audience_id, status, start_time, finish_time FROM session_import
   WHERE position > @after ORDER BY position LIMIT ${CHUNK_ROWS * 10}`;

/** The staged rows in file order, in chunks in which no sessionId repeats (one INSERT cannot touch a row twice). */
async function upsertInFileOrder(tx: Transaction, testId: string): Promise<ImportResult> {
  const result: ImportResult = { inserted: 0, updated: 0, unchanged: 0 };
  for (let after = -1; ; ) {
    const rows = await tx.all(STAGED_AFTER, { after });
    if (rows.length === 0) return result;
    after = rows[rows.length - 1]!.position as number;
    for (const chunk of chunks(rows.map(sessionOfStaged))) {
      const written = await tx.all<Row>(UPSERT_CHUNK, {
        testId,
        sessionIds: chunk.map((s) => s.sessionId),
        audienceIds: chunk.map((s) => s.audienceId),
        statuses: chunk.map((s) => s.status),
        startTimes: chunk.map((s) => s.startTime),
        finishTimes: chunk.map((s) => s.finishTime),
      });
      const foreign = new Set(written.filter((r) => r.is_foreign === true).map((r) => r.session_id as string));
      if (foreign.size > 0) throw conflict.foreignSession(chunk.find((s) => foreign.has(s.sessionId))!.sessionId);
      const inserted = written.filter((r) => r.is_new === true).length;
      result.inserted += inserted;
      result.updated += written.length - inserted;
      result.unchanged += chunk.length - written.length;
    }
  }
}

const sessionOfStaged = (r: Row): SessionInput => ({
  sessionId: r.session_id as string,
  audienceId: (r.audience_id as string | null) ?? null,
  status: r.status as string,
  startTime: r.start_time as number,
  finishTime: (r.finish_time as number | null) ?? null,
});

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

/** Each batch as COPY text: tab-separated, `\N` for null, backslash escapes (PostgreSQL's text format). */
async function* copyText(batches: AsyncIterable<readonly SessionInput[]> | Iterable<readonly SessionInput[]>): AsyncGenerator<string> {
  let position = 0;
  for await (const batch of batches) {
    let text = '';
    for (const s of batch) {
      text += `${position++}\t${field(s.sessionId)}\t${field(s.audienceId)}\t${field(s.status)}\t${s.startTime}\t${s.finishTime ?? '\\N'}\n`;
    }
    if (text) yield text;
  }
}

const field = (value: string | null): string => (value === null ? '\\N' : value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!));
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
